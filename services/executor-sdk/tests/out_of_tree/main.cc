// Starts an executor with one handler and stops it: proves the installed
// headers, library and CMake package are usable on their own.
#include <cstdio>

#include "gnomon/executor/executor.h"

int main() {
  gnomon::executor::ExecutorOptions options;
  options.app_name = "tiny";
  options.registry_endpoints = {"127.0.0.1:1"};
  options.access_token = "token";
  options.executor_name = "tiny-1";
  options.logger = [](gnomon::executor::LogSeverity, std::string_view) {};
  auto executor = gnomon::executor::Executor::Create(options);
  if (!executor.ok()) return 1;
  if (!(*executor)
           ->RegisterHandler("hello", [](gnomon::executor::JobContext& ctx) { ctx.Log("hello"); })
           .ok()) {
    return 1;
  }
  if (!(*executor)->Start().ok()) return 1;
  std::printf("tiny executor started as %s\n", (*executor)->name().c_str());
  (*executor)->Shutdown(absl::Seconds(1));
  return 0;
}
