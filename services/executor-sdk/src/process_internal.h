// RunProcessWithEnvironment: RunProcess (gnomon/executor/process.h) with the
// child's environment given whole, for the SDK's own children: a script run
// gets GNOMON_ variables of its own (GNOMON_INPUT_*, GNOMON_OUTPUT_FILE),
// which ProcessOptions::env refuses to a handler.
//
//   RunProcessWithEnvironment(ctx, argv, ChildEnvironment(environ, variables), options);
//
// Thread safety: as RunProcess.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_PROCESS_INTERNAL_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_PROCESS_INTERNAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/executor/job_context.h"
#include "gnomon/executor/process.h"

namespace gnomon::executor::internal {

// As RunProcess, with `env` ("NAME=value" entries) the child's whole
// environment; options.env is not used.
absl::StatusOr<int> RunProcessWithEnvironment(JobContext& ctx, const std::vector<std::string>& argv,
                                              std::vector<std::string> env,
                                              const ProcessOptions& options);

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_PROCESS_INTERNAL_H_
