#include "services/common/client/clock.h"

#include <vector>

namespace gnomon {
namespace {

class WallClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond,
                         absl::Time deadline) const override ABSL_SHARED_LOCKS_REQUIRED(mu) {
    return mu->AwaitWithDeadline(cond, deadline);
  }
};

}  // namespace

Clock& RealClock() {
  static WallClock* clock = new WallClock();
  return *clock;
}

bool SimulatedClock::AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond,
                                       absl::Time deadline) const {
  {
    absl::MutexLock l(&waiters_mu_);
    waiter_mutexes_.insert(mu);
    ++waiter_count_;
  }
  // absl::Mutex re-evaluates the condition whenever `mu` is released; Advance()
  // takes and releases every waiter's mutex so a moved clock is noticed.
  struct Args {
    const absl::Condition* cond;
    const SimulatedClock* clock;
    absl::Time deadline;
  } args{&cond, this, deadline};
  mu->Await(absl::Condition(
      +[](Args* a) { return a->cond->Eval() || a->clock->Now() >= a->deadline; }, &args));
  {
    absl::MutexLock l(&waiters_mu_);
    --waiter_count_;
    if (waiter_count_ == 0) waiter_mutexes_.clear();
  }
  return cond.Eval();
}

void SimulatedClock::Advance(absl::Duration d) { AdvanceTo(Now() + d); }

void SimulatedClock::AdvanceTo(absl::Time t) {
  now_us_.store(absl::ToUnixMicros(t));
  std::vector<absl::Mutex*> mus;
  {
    absl::MutexLock l(&waiters_mu_);
    mus.assign(waiter_mutexes_.begin(), waiter_mutexes_.end());
  }
  for (absl::Mutex* m : mus) {
    m->Lock();
    m->Unlock();
  }
}

int SimulatedClock::waiters() const {
  absl::MutexLock l(&waiters_mu_);
  return waiter_count_;
}

void SimulatedClock::BlockUntilWaiters(int n) const {
  absl::MutexLock l(&waiters_mu_);
  auto enough = [this, n]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(waiters_mu_) { return waiter_count_ >= n; };
  waiters_mu_.Await(absl::Condition(&enough));
}

}  // namespace gnomon
