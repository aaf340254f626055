// FakeLeaseStore: a LeaseStore in memory, timed by a test's clock instead of
// the database's, with the rules of the real one (lease_store.h): a lease is
// taken when free, expired, held by the caller or by an earlier incarnation
// of it ("replica#other"), and its epoch rises whenever the holder changes.
// A test can also do what no replica would do politely — take a lease from
// its holder, let it lapse at once, or make the store unreachable — to see
// what the holder does when it learns of it.
//
//   SimulatedClock clock(absl::FromUnixMillis(0));
//   store::testing::FakeLeaseStore leases(&clock);
//   PartitionLease lease(&leases, "a:7070", &clock, {}, listener);
//   lease.Renew();
//   leases.Steal("partition/3", "b:7070#2");   // b holds it now, epoch + 1
//   leases.set_down(true);                      // every call: Unavailable
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_FAKE_LEASE_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_FAKE_LEASE_STORE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/client/clock.h"
#include "services/common/store/lease_store.h"

namespace gnomon::store::testing {

class FakeLeaseStore final : public LeaseStore {
 public:
  explicit FakeLeaseStore(const Clock* clock) : clock_(clock) {}

  absl::StatusOr<Leases> AcquireLeases(const std::vector<std::string>& names,
                                       std::string_view holder, int64_t ttl_ms) override
      ABSL_LOCKS_EXCLUDED(mu_) {
    if (holder.empty()) return absl::InvalidArgumentError("lease holder must not be empty");
    absl::MutexLock l(&mu_);
    if (down_) return Down();
    Leases out;
    out.now_ms = clock_->NowMillis();
    for (const std::string& name : names) {
      Lease& lease = leases_[name];
      lease.name = name;
      const bool mine = lease.holder == holder;
      const bool earlier_self =
          !mine && !lease.holder.empty() && ReplicaOf(lease.holder) == ReplicaOf(holder);
      if (!mine && !earlier_self && !lease.holder.empty() && lease.expires_ms > out.now_ms)
        continue;
      if (!mine) {
        lease.holder = std::string(holder);
        ++lease.epoch;
      }
      lease.expires_ms = out.now_ms + ttl_ms;
      out.leases.push_back(lease);
    }
    return out;
  }
  absl::Status ReleaseLeases(const std::vector<std::string>& names,
                             std::string_view holder) override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (down_) return Down();
    for (const std::string& name : names) {
      auto it = leases_.find(name);
      if (it == leases_.end() || it->second.holder != holder) continue;
      it->second.holder.clear();
      it->second.expires_ms = clock_->NowMillis();
    }
    return absl::OkStatus();
  }
  absl::Status DeleteExpiredLeases(const std::vector<std::string>& names,
                                   int64_t expired_before_ms) override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (down_) return Down();
    for (const std::string& name : names) {
      auto it = leases_.find(name);
      if (it != leases_.end() && it->second.expires_ms < expired_before_ms) leases_.erase(it);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<Leases> ListLeases(std::string_view prefix) override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    if (down_) return Down();
    Leases out;
    out.now_ms = clock_->NowMillis();
    for (const auto& [name, lease] : leases_) {
      if (std::string_view(name).substr(0, prefix.size()) == prefix) out.leases.push_back(lease);
    }
    return out;
  }

  // Another holder takes `name` now, held for `ttl_ms`, with the next epoch.
  void Steal(const std::string& name, const std::string& holder, int64_t ttl_ms = 60'000)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    Lease& lease = leases_[name];
    lease.name = name;
    lease.holder = holder;
    ++lease.epoch;
    lease.expires_ms = clock_->NowMillis() + ttl_ms;
  }
  // `name` expires now (its holder and epoch stay until someone takes it).
  void Expire(const std::string& name) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    leases_[name].expires_ms = clock_->NowMillis();
  }
  // While down, every call fails with Unavailable.
  void set_down(bool down) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    down_ = down;
  }
  // The lease as stored (a default Lease if never taken).
  Lease Get(const std::string& name) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    auto it = leases_.find(name);
    return it == leases_.end() ? Lease{} : it->second;
  }

 private:
  // "replica#incarnation" -> "replica".
  static std::string_view ReplicaOf(std::string_view holder) {
    const size_t hash = holder.rfind('#');
    return hash == std::string_view::npos ? holder : holder.substr(0, hash);
  }
  static absl::Status Down() { return absl::UnavailableError("lease store unreachable"); }

  const Clock* const clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, Lease> leases_ ABSL_GUARDED_BY(mu_);  // By name, as ListLeases answers.
  bool down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_FAKE_LEASE_STORE_H_
