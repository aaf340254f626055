// CommandHandler: gnomon-executor's `command` handler (XXL-JOB's
// commandJobHandler). The job's params are a gnomon.v1.CommandTask in JSON:
// a program allowed by the CommandAllowList, run directly (no shell) through
// the SDK's RunProcess, which streams its output to the run log, stops its
// process group on a kill or timeout, and keeps the executor's GNOMON_*
// variables (its credentials) from it. The exit code decides the result.
//
//   executor->RegisterHandler("command", CommandHandler(*CommandAllowList::Parse("/usr/bin/")));
//
// Thread safety: const; one instance serves concurrent runs.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_COMMAND_HANDLER_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_COMMAND_HANDLER_H_

#include <memory>

#include "absl/time/time.h"
#include "gnomon/executor/job_context.h"
#include "services/executor-sdk/gnomon-executor/command_allow_list.h"

namespace gnomon::generic_executor {

class CommandHandler {
 public:
  // `kill_grace`: between SIGTERM and SIGKILL when the command is stopped.
  explicit CommandHandler(CommandAllowList allow, absl::Duration kill_grace = absl::Seconds(3))
      : allow_(std::make_shared<const CommandAllowList>(std::move(allow))),
        kill_grace_(kill_grace) {}

  void operator()(executor::JobContext& ctx) const;

 private:
  std::shared_ptr<const CommandAllowList> allow_;  // shared: handlers are copied
  absl::Duration kill_grace_;
};

}  // namespace gnomon::generic_executor

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_COMMAND_HANDLER_H_
