#include "services/executor-sdk/src/reconnecting_stream.h"

#include <utility>

namespace gnomon::executor::internal {

void ReconnectingStream::Start(ReconnectHooks hooks) {
  if (thread_.joinable()) return;
  hooks_ = std::move(hooks);
  thread_ = std::thread([this] { Loop(); });
}

void ReconnectingStream::Join() {
  if (thread_.joinable()) thread_.join();
}

void ReconnectingStream::Loop() {
  Backoff backoff(options_.backoff, options_.seed);
  size_t next = 0;
  while (true) {
    {
      absl::MutexLock lock(mu_);
      auto go = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return *stopping_ || !hooks_.ready || hooks_.ready();
      };
      mu_->Await(absl::Condition(&go));
      if (*stopping_) return;
    }
    if (options_.endpoints == 0) return;
    const size_t index = next++ % options_.endpoints;
    bool progressed = false;
    const grpc::Status status = hooks_.run_stream(index, &progressed);
    if (progressed) backoff.Reset();
    const absl::Duration delay = backoff.Next();
    absl::MutexLock lock(mu_);
    if (*stopping_) return;
    if (hooks_.ended) hooks_.ended(index, status, progressed, delay);
    options_.clock->AwaitWithDeadline(mu_, absl::Condition(stopping_),
                                      options_.clock->Now() + delay);
    if (*stopping_) return;
  }
}

}  // namespace gnomon::executor::internal
