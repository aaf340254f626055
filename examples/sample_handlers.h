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
// "run_id job_id attempt start_us" to it, and once the handler returned a
// line "end run_id end_us" (one append per line; the instants in
// microseconds since the Unix epoch): tests count executions there (the
// lines starting with a run id), and measure how many overlapped,
// independently of what the store records.
absl::Status RegisterSampleHandlers(executor::Executor& executor,
                                    const std::string& invocations_file = "");

}  // namespace gnomon::sample

#endif  // GNOMON_EXAMPLES_SAMPLE_HANDLERS_H_
