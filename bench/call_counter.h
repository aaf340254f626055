// CallCounter: counts a store's read and write calls (through an
// ObservedStore), so benchmarks can report store transactions per run.
// Every write call of the Store interface is one transaction in both
// backends.
//
//   CallCounter counter;
//   store::ObservedStore counting(real.get(), &counter);
//   ... run the scheduler against &counting ...
//   counter.writes();
//
// Thread safety: thread-safe.
#ifndef GNOMON_BENCH_CALL_COUNTER_H_
#define GNOMON_BENCH_CALL_COUNTER_H_

#include <atomic>
#include <cstdint>

#include "services/common/store/observed_store.h"

namespace gnomon::bench {

class CallCounter final : public store::StoreObserver {
 public:
  uint64_t reads() const { return reads_.load(); }
  uint64_t writes() const { return writes_.load(); }
  void Observe(store::StoreCall call, const absl::Status&, absl::Duration) override {
    ++(store::IsWrite(call) ? writes_ : reads_);
  }

 private:
  std::atomic<uint64_t> reads_{0};
  std::atomic<uint64_t> writes_{0};
};

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_CALL_COUNTER_H_
