// The sample executor's handlers (demo, shell, http, sharding, slow, fail),
// in a library so tests can host them in-process too.
//
//   auto executor = gnomon::executor::Executor::Create(options);
//   gnomon::sample::RegisterSampleHandlers(**executor);
//
// Thread safety: the handlers are stateless and may run concurrently.
#ifndef GNOMON_EXAMPLES_SAMPLE_HANDLERS_H_
#define GNOMON_EXAMPLES_SAMPLE_HANDLERS_H_

#include "absl/status/status.h"
#include "gnomon/executor/executor.h"

namespace gnomon::sample {

absl::Status RegisterSampleHandlers(executor::Executor& executor);

}  // namespace gnomon::sample

#endif  // GNOMON_EXAMPLES_SAMPLE_HANDLERS_H_
