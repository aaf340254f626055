#include "services/executor-sdk/src/script_runner.h"

#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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

}  // namespace

void RunScript(JobContext& ctx, const v1::ScriptTask& script, const ScriptOptions& options) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat((tmp != nullptr && *tmp != '\0') ? tmp : "/tmp", "/gnomon-run-", ctx.run_id(),
                   "-XXXXXX");
  std::vector<char> dir_buf(pattern.begin(), pattern.end());
  dir_buf.push_back('\0');
  if (::mkdtemp(dir_buf.data()) == nullptr) {  // mode 0700: private to this user
    ctx.SetResult(500, absl::StrCat("cannot create a temporary directory: ", std::strerror(errno)));
    return;
  }
  std::string dir(dir_buf.data());
  bool python = script.language() == v1::SCRIPT_LANGUAGE_PYTHON;
  std::string path = dir + (python ? "/script.py" : "/script.sh");
  std::FILE* f = std::fopen(path.c_str(), "we");
  bool written = f != nullptr &&
                 std::fwrite(script.source().data(), 1, script.source().size(), f) ==
                     script.source().size();
  if (f != nullptr) written = (std::fclose(f) == 0) && written;
  if (!written) {
    ctx.SetResult(500, absl::StrCat("cannot write the script to ", path));
    RemoveTree(dir);
    return;
  }
  std::vector<std::string> argv = {python ? "python3" : "/bin/sh", path, ctx.params(),
                                   std::to_string(ctx.shard_index()),
                                   std::to_string(ctx.shard_total())};
  ProcessOptions process_options;
  process_options.working_dir = dir;
  process_options.kill_grace = options.kill_grace;
  absl::StatusOr<int> exit_code = RunProcess(ctx, argv, process_options);
  RemoveTree(dir);
  if (!exit_code.ok()) {
    ctx.SetResult(500, std::string(exit_code.status().message()));
  } else if (*exit_code > 128) {
    ctx.SetResult(500, absl::StrCat("script killed by signal ", *exit_code - 128));
  } else if (*exit_code != 0) {
    ctx.SetResult(500, absl::StrCat("script exited with code ", *exit_code));
  }
}

}  // namespace gnomon::executor::internal
