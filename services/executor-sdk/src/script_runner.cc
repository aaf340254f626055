#include "services/executor-sdk/src/script_runner.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gnomon/executor/process.h"
#include "services/executor-sdk/src/child_environment.h"
#include "services/executor-sdk/src/process_internal.h"

extern char** environ;

namespace gnomon::executor::internal {
namespace {

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) {
  ::remove(path);
  return 0;
}

void RemoveTree(const std::string& dir) {
  ::nftw(dir.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

// How a language is run: the interpreter, the flags before the script's
// path, and the script file's name (pwsh runs only *.ps1 files).
struct Interpreter {
  v1::ScriptLanguage language;
  const char* program;
  const char* what;  // For people.
  std::vector<std::string> flags;
  const char* file;
};

const std::vector<Interpreter>& Interpreters() {
  static const auto* all = new std::vector<Interpreter>{
      {v1::SCRIPT_LANGUAGE_SHELL, "/bin/sh", "a POSIX shell", {}, "script.sh"},
      {v1::SCRIPT_LANGUAGE_PYTHON, "python3", "Python 3", {}, "script.py"},
      {v1::SCRIPT_LANGUAGE_NODEJS, "node", "Node.js", {}, "script.js"},
      {v1::SCRIPT_LANGUAGE_POWERSHELL,
       "pwsh",
       "PowerShell 7",
       {"-NoLogo", "-NoProfile", "-NonInteractive", "-File"},
       "script.ps1"},
  };
  return *all;
}

const Interpreter* InterpreterOf(v1::ScriptLanguage language) {
  for (const Interpreter& i : Interpreters()) {
    if (i.language == language) return &i;
  }
  return nullptr;
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "?";
  return name;
}

}  // namespace

bool IsScriptLanguage(v1::ScriptLanguage language) { return InterpreterOf(language) != nullptr; }

std::string FindOnPath(const std::string& name, int* error) {
  int ignored;
  if (error == nullptr) error = &ignored;
  *error = ENOENT;
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return name;
    *error = errno;
    return "";
  }
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/bin:/bin";
  while (true) {
    const size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string candidate = absl::StrCat(dir, "/", name);
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      *error = EACCES;
    }
    if (colon == std::string_view::npos) return "";
    rest.remove_prefix(colon + 1);
  }
}

namespace {

// util-linux's prlimit with the limits `options` sets (nothing if none):
// the limits are in place before the interpreter runs, for it and every
// process it starts.
absl::Status LimitsPrefix(const ScriptOptions& options, std::vector<std::string>* argv) {
  std::vector<std::string> limits;
  constexpr int64_t kMiB = 1 << 20;
  if (options.max_memory_mib > 0) {
    limits.push_back(absl::StrCat("--data=", options.max_memory_mib * kMiB));
  }
  if (options.max_open_files > 0)
    limits.push_back(absl::StrCat("--nofile=", options.max_open_files));
  if (options.max_file_mib > 0) {
    limits.push_back(absl::StrCat("--fsize=", options.max_file_mib * kMiB));
  }
  if (limits.empty()) return absl::OkStatus();
  const std::string prlimit = FindOnPath("prlimit");
  if (prlimit.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "script limits are set but prlimit (util-linux) is not installed on the executor on "
        "host ",
        HostName(), " (not found on its PATH)"));
  }
  argv->push_back(prlimit);
  argv->insert(argv->end(), limits.begin(), limits.end());
  argv->push_back("--");
  return absl::OkStatus();
}

// GNOMON_OUTPUT_FILE, in the run's private directory.
constexpr char kOutputFile[] = "gnomon-output";

// Linux's limit on one "NAME=value" string of a new program's environment
// (MAX_ARG_STRLEN, with its NUL): a longer one fails the exec (E2BIG).
constexpr size_t kMaxVariableBytes = 128 * 1024;

// Whether the run is a workflow node's: only then has its script GNOMON_
// variables (a script of no workflow gets none at all).
bool IsWorkflowNode(const JobContext& ctx) {
  return ctx.workflow_run_id() != 0 || !ctx.inputs().empty();
}

// A workflow node's variables for its script (script_runner.h); an input
// left out is told in the run log.
std::map<std::string, std::string> ScriptVariables(JobContext& ctx,
                                                   const std::string& output_file) {
  std::map<std::string, std::string> variables;
  variables["GNOMON_OUTPUT_FILE"] = output_file;
  variables["GNOMON_WORKFLOW_RUN_ID"] = std::to_string(ctx.workflow_run_id());
  std::map<std::string, const std::string*> holder;  // variable -> its node
  for (const WorkflowInput& input : ctx.inputs()) {
    std::string name = ScriptInputVariable(input.node);
    auto [first, added] = holder.emplace(name, &input.node);
    if (!added) {
      ctx.Log(absl::StrCat("[gnomon] inputs \"", *first->second, "\" and \"", input.node,
                           "\" share the variable ", name, ": it holds \"", *first->second,
                           "\"'s output"));
    } else if (input.output.find('\0') != std::string::npos) {
      ctx.Log(absl::StrCat("[gnomon] input \"", input.node, "\" holds a NUL byte: ", name,
                           " is not set"));
    } else if (name.size() + 1 + input.output.size() + 1 > kMaxVariableBytes) {
      ctx.Log(absl::StrCat("[gnomon] input \"", input.node, "\" is ", input.output.size(),
                           " bytes, longer than an environment variable may be: ", name,
                           " is not set"));
    } else {
      variables[name] = input.output;
    }
  }
  return variables;
}

// Sets the run's output from what the script left in `path` (see
// script_runner.h): nothing when the file is gone, else the output or a
// run-log line saying why not.
void TakeOutput(JobContext& ctx, const std::string& path) {
  // Not following a link, nor waiting on a FIFO the script left there.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) {
      const std::string why = std::strerror(errno);
      ctx.Log(
          absl::StrCat("[gnomon] the script's output file (GNOMON_OUTPUT_FILE) cannot be read (",
                       why, "): the run's output is not set"));
    }
    return;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    ctx.Log(
        "[gnomon] the script's output file (GNOMON_OUTPUT_FILE) is not a regular file: the "
        "run's output is not set");
    return;
  }
  // Enough to tell a value over the limit (with its final newline) from one within.
  std::string value(kMaxOutputBytes + 2, '\0');
  size_t got = 0;
  while (got < value.size()) {
    const ssize_t n = ::read(fd, value.data() + got, value.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  value.resize(got);
  if (!value.empty() && value.back() == '\n') value.pop_back();  // echo's newline
  if (value.size() > kMaxOutputBytes) {
    ctx.Log(absl::StrCat("[gnomon] the script's output file (GNOMON_OUTPUT_FILE) holds ",
                         st.st_size, " bytes, more than the limit of ", kMaxOutputBytes,
                         " bytes: the run's output is not set"));
    return;
  }
  if (absl::Status set = ctx.SetOutput(std::move(value)); !set.ok()) {
    ctx.Log(absl::StrCat("[gnomon] the script's output is not set: ", set.message()));
  }
}

}  // namespace

std::string ScriptInputVariable(std::string_view node) {
  std::string name = "GNOMON_INPUT_";
  for (const char c : node) {
    name.push_back(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'
                       ? absl::ascii_toupper(static_cast<unsigned char>(c))
                       : '_');
  }
  return name;
}

void RunScript(JobContext& ctx, const v1::ScriptTask& script, const ScriptOptions& options) {
  const Interpreter* interpreter = InterpreterOf(script.language());
  if (interpreter == nullptr) {
    ctx.SetResult(kHandleFailure,
                  absl::StrCat("unknown script language ", static_cast<int>(script.language())));
    return;
  }
  // Looked up first, so a missing one is told as such (not as a failed exec).
  const std::string program = FindOnPath(interpreter->program);
  if (program.empty()) {
    ctx.SetResult(kHandleFailure,
                  absl::StrCat(interpreter->program, " (", interpreter->what,
                               ") is not installed on the executor on host ", HostName(),
                               " (not found on its PATH): install it there, or run this job "
                               "in a group whose executors have it"));
    return;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat((tmp != nullptr && *tmp != '\0') ? tmp : "/tmp",
                                     "/gnomon-run-", ctx.run_id(), "-XXXXXX");
  std::vector<char> dir_buf(pattern.begin(), pattern.end());
  dir_buf.push_back('\0');
  if (::mkdtemp(dir_buf.data()) == nullptr) {  // mode 0700: private to this user
    ctx.SetResult(kHandleFailure,
                  absl::StrCat("cannot create a temporary directory: ", std::strerror(errno)));
    return;
  }
  std::string dir(dir_buf.data());
  std::string path = absl::StrCat(dir, "/", interpreter->file);
  std::FILE* f = std::fopen(path.c_str(), "we");
  bool written = f != nullptr && std::fwrite(script.source().data(), 1, script.source().size(),
                                             f) == script.source().size();
  if (f != nullptr) written = (std::fclose(f) == 0) && written;
  if (!written) {
    ctx.SetResult(kHandleFailure, absl::StrCat("cannot write the script to ", path));
    RemoveTree(dir);
    return;
  }
  // A workflow node's output file, created empty and private to this user:
  // a script that writes nothing has no output.
  const bool workflow = IsWorkflowNode(ctx);
  const std::string output_file = absl::StrCat(dir, "/", kOutputFile);
  if (workflow) {
    const int fd =
        ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0) {
      ctx.SetResult(kHandleFailure, absl::StrCat("cannot create the output file ", output_file,
                                                 ": ", std::strerror(errno)));
      RemoveTree(dir);
      return;
    }
    ::close(fd);
  }
  std::vector<std::string> argv;
  if (absl::Status limited = LimitsPrefix(options, &argv); !limited.ok()) {
    ctx.SetResult(kHandleFailure, std::string(limited.message()));
    RemoveTree(dir);
    return;
  }
  argv.push_back(program);
  argv.insert(argv.end(), interpreter->flags.begin(), interpreter->flags.end());
  argv.insert(argv.end(), {path, ctx.params(), std::to_string(ctx.shard_index()),
                           std::to_string(ctx.shard_total())});
  ProcessOptions process_options;
  process_options.working_dir = dir;
  process_options.kill_grace = options.kill_grace;
  absl::StatusOr<int> exit_code = RunProcessWithEnvironment(
      ctx, argv,
      ChildEnvironment(environ, workflow ? ScriptVariables(ctx, output_file)
                                         : std::map<std::string, std::string>{}),
      process_options);
  if (workflow && exit_code.ok()) TakeOutput(ctx, output_file);  // It ran, whatever its code.
  RemoveTree(dir);
  if (!exit_code.ok()) {
    ctx.SetResult(kHandleFailure, std::string(exit_code.status().message()));
  } else if (*exit_code > 128) {
    ctx.SetResult(kHandleFailure, absl::StrCat("script killed by signal ", *exit_code - 128));
  } else if (*exit_code != 0) {
    ctx.SetResult(kHandleFailure, absl::StrCat("script exited with code ", *exit_code));
  }
}

}  // namespace gnomon::executor::internal
