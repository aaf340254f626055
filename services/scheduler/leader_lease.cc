#include "services/scheduler/leader_lease.h"

#include "services/common/client/log.h"

namespace gnomon::scheduler {

bool LeaderLease::leader() const {
  absl::MutexLock l(&mu_);
  return leader_;
}

int64_t LeaderLease::epoch() const {
  absl::MutexLock l(&mu_);
  return epoch_;
}

void LeaderLease::Set(bool leader, int64_t epoch) {
  {
    absl::MutexLock l(&mu_);
    if (leader_ == leader && epoch_ == epoch) return;
    leader_ = leader;
    epoch_ = epoch;
  }
  GNOMON_LOG(INFO) << "scheduler: " << holder_ << (leader ? " leads" : " stands by")
                   << " (epoch " << epoch << ")";
  listener_(leader, epoch);
}

void LeaderLease::Renew() {
  const int64_t now = clock_->NowMillis();
  absl::StatusOr<store::Lease> lease = store_->AcquireLease(
      options_.name, holder_, now, absl::ToInt64Milliseconds(options_.ttl));
  if (lease.ok()) {
    {
      absl::MutexLock l(&mu_);
      expires_ms_ = lease->expires_ms;
    }
    Set(true, lease->epoch);
    return;
  }
  if (absl::IsFailedPrecondition(lease.status())) {
    Set(false, 0);  // Someone else holds it.
    return;
  }
  // The store is unreachable: keep leading only while our lease is surely
  // still ours, with a margin of one renewal period for clock differences.
  GNOMON_LOG(WARNING) << "scheduler: renewing the lease failed: " << lease.status();
  bool expiring;
  {
    absl::MutexLock l(&mu_);
    expiring = now + absl::ToInt64Milliseconds(options_.ttl / 4) >= expires_ms_;
  }
  if (expiring) Set(false, 0);
}

void LeaderLease::Run() {
  while (true) {
    Renew();
    absl::MutexLock l(&mu_);
    if (stopped_) break;
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&stopped_), clock_->Now() + options_.ttl / 4);
    if (stopped_) break;
  }
  Set(false, 0);
  if (absl::Status s = store_->ReleaseLease(options_.name, holder_); !s.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: releasing the lease failed: " << s;
  }
}

void LeaderLease::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
}

}  // namespace gnomon::scheduler
