// The sample executor's handlers (demo, invoice, shell, http, sharding, slow, fail, echo,
// noop),
// in a library so tests can host them in-process too.
//
//   auto executor = gnomon::executor::Executor::Create(options);
//   gnomon::sample::RegisterSampleHandlers(**executor);
//
// Thread safety: the handlers are stateless and may run concurrently.
#ifndef GNOMON_EXAMPLES_SAMPLE_HANDLERS_H_
#define GNOMON_EXAMPLES_SAMPLE_HANDLERS_H_

#include <string>

#include "absl/status/status.h"
#include "gnomon/executor/executor.h"

namespace gnomon::sample {

// With `invocations_file`, every handler invocation first appends a line
// "run_id job_id attempt" to it (one append per line): tests count executions
// there, independently of what the store records.
absl::Status RegisterSampleHandlers(executor::Executor& executor,
                                    const std::string& invocations_file = "");

}  // namespace gnomon::sample

#endif  // GNOMON_EXAMPLES_SAMPLE_HANDLERS_H_
