#include "services/executor-sdk/src/script_runner.h"

#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gnomon/executor/process.h"

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

}  // namespace

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
  absl::StatusOr<int> exit_code = RunProcess(ctx, argv, process_options);
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
