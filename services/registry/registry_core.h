// RegistryCore: live executor membership, fed by Session streams and served
// to schedulers as watch streams. The gRPC adapter (registry_service.h) only
// translates calls into these methods.
//
//   RegistryCore core(store, &RealClock(), {});
//   absl::StatusOr<uint64_t> id = core.Join(register_msg, [&] { ctx->TryCancel(); });
//   core.Beat(*id, beat);
//   core.Leave(*id, "deregistered");
//
// A beat's busy state replaces the executor's: at most kBusyJobsKept busy
// jobs, with the totals it reports (busy jobs, queued runs).
//
// An executor is removed from membership at once when its stream breaks, when
// it deregisters, or when `missed_beats` beat intervals pass without a beat
// (checked by the expiry pass). Membership is persisted in the store for other
// replicas and for people.
//
// Thread safety: thread-safe; the expiry pass runs on its own thread from
// StartExpiry() until Stop().
#ifndef GNOMON_SERVICES_REGISTRY_REGISTRY_CORE_H_
#define GNOMON_SERVICES_REGISTRY_REGISTRY_CORE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/v1/registry.pb.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/membership_store.h"
#include "services/registry/registry_metrics.h"

namespace gnomon::registry {

// Busy jobs an executor's membership (ExecutorInfo.busy_jobs, also its store
// row and every watch message) keeps at most: the first ones its beat lists,
// which are the most loaded. Beyond them ExecutorInfo says how many are busy
// in all and that the list is partial, so a row's size does not grow with
// the executor's load. The C++ SDK lists no more than this in a beat.
inline constexpr int kBusyJobsKept = 1000;

struct RegistryOptions {
  absl::Duration beat_interval = absl::Seconds(2);
  int missed_beats = 3;
  // Store rows whose last beat is older than this are deleted.
  absl::Duration stale_row_age = absl::Minutes(10);
  // How often a live executor's row is refreshed in the store; rows not
  // refreshed for three intervals are not counted as live by other replicas.
  absl::Duration persist_interval = absl::Seconds(2);
  // How often executors connected to other registry replicas are read from
  // the store (0 disables: a single registry).
  absl::Duration remote_refresh = absl::Seconds(1);
  // This replica's identity, recorded on the executors whose sessions it holds.
  std::string replica_id;
  // Live executors one app may have (here and at the other replicas); a
  // registration past it is refused RESOURCE_EXHAUSTED. 0: no cap.
  int max_executors_per_app = 1000;
};

// A subscriber to membership changes: a snapshot first, then changes.
class Watcher {
 public:
  explicit Watcher(std::vector<std::string> apps) : apps_(apps.begin(), apps.end()) {}
  // Waits up to `timeout` for the next message; nullopt on timeout or close.
  std::optional<v1::WatchExecutorsResponse> Next(absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);
  bool Wants(const std::string& app) const { return apps_.empty() || apps_.contains(app); }
  void Push(v1::WatchExecutorsResponse msg) ABSL_LOCKS_EXCLUDED(mu_);
  void Close() ABSL_LOCKS_EXCLUDED(mu_);
  bool closed() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const absl::flat_hash_set<std::string> apps_;
  mutable absl::Mutex mu_;
  std::deque<v1::WatchExecutorsResponse> queue_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

class RegistryCore {
 public:
  // `metrics` may be null (not measured).
  RegistryCore(store::MembershipStore* rows, Clock* clock, RegistryOptions options,
               RegistryMetrics* metrics = nullptr);
  ~RegistryCore();

  const RegistryOptions& options() const { return options_; }

  // Adds (or, for the same app and address, replaces) an executor. `cancel`
  // is called (without locks held) to end its stream when it is reaped or
  // replaced. `token_fingerprint`: which of its group's tokens it presented
  // (ExecutorInfo.token_fingerprint). Returns the session id.
  absl::StatusOr<uint64_t> Join(const v1::Register& reg, std::function<void()> cancel,
                                std::string token_fingerprint = "") ABSL_LOCKS_EXCLUDED(mu_);
  // FailedPrecondition if the session is no longer a member.
  absl::Status Beat(uint64_t session, const v1::Beat& beat) ABSL_LOCKS_EXCLUDED(mu_);
  // Removes the executor if `session` is still its current session, and its
  // store row unless this registry is shutting down (then the executor is
  // moving to another replica, which would otherwise briefly see it gone).
  void Leave(uint64_t session, const std::string& reason) ABSL_LOCKS_EXCLUDED(mu_);

  // A new watcher, already holding the snapshot of `apps` (empty = all).
  std::shared_ptr<Watcher> Watch(std::vector<std::string> apps) ABSL_LOCKS_EXCLUDED(mu_);

  // Sets the metrics read at scrape (sessions, executors by app); needs metrics.
  void RefreshMetrics() const ABSL_LOCKS_EXCLUDED(mu_);

  // Expires members whose beats stopped, every beat_interval / 4, until
  // Stop(); also reads other replicas' executors and prunes stale rows.
  void StartExpiry() ABSL_LOCKS_EXCLUDED(mu_);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Member {
    uint64_t session = 0;
    // Identifies this registration's store row (MembershipStore): random, so
    // that no other replica's registration has it, even one made in the same
    // millisecond.
    int64_t registration_id = 0;
    v1::ExecutorInfo info;
    int64_t last_beat_ms = 0;
    int64_t persisted_ms = 0;
    std::function<void()> cancel;
  };
  using Key = std::pair<std::string, std::string>;  // (app, address)

  void Publish(v1::ExecutorChangeKind kind, const v1::ExecutorInfo& info)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Reads executors held by other registry replicas from the store and
  // publishes their arrivals and departures.
  void RefreshRemote(int64_t now_ms) ABSL_LOCKS_EXCLUDED(mu_);
  // One expiry pass: expired members out, other replicas' rows read, stale rows pruned.
  void ExpiryPass() ABSL_LOCKS_EXCLUDED(mu_);
  // A registration that ended, whose store row is to be removed.
  struct Ended {
    v1::ExecutorInfo info;
    int64_t registration_id = 0;
  };
  // Removes expired members; returns their cancel callbacks, and adds them to `expired`.
  std::vector<std::function<void()>> ExpireLocked(int64_t now_ms, std::vector<Ended>* expired)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes the store row of `ended`'s registration (not a later one's, nor
  // another replica's).
  void RemoveRow(const Ended& ended) ABSL_LOCKS_EXCLUDED(mu_);

  store::MembershipStore* const rows_;  // The executors' rows in the store.
  Clock* const clock_;
  const RegistryOptions options_;
  RegistryMetrics* const metrics_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<Key, Member> members_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, Key> sessions_ ABSL_GUARDED_BY(mu_);
  // Live executors whose sessions are held by other registry replicas.
  absl::flat_hash_map<Key, v1::ExecutorInfo> remote_ ABSL_GUARDED_BY(mu_);
  std::vector<std::weak_ptr<Watcher>> watchers_ ABSL_GUARDED_BY(mu_);
  uint64_t next_session_ ABSL_GUARDED_BY(mu_) = 1;
  absl::BitGen bits_ ABSL_GUARDED_BY(mu_);  // Registration ids.
  // Since when store reads have succeeded (-1: the last one failed; 0: from start).
  int64_t store_ok_since_ms_ ABSL_GUARDED_BY(mu_) = 0;
  // Whether executors held by other replicas have been read once.
  bool remote_loaded_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  // The expiry thread only.
  bool remote_read_ = false;
  int64_t last_remote_ms_ = 0;
  int64_t last_prune_ms_ = 0;
  PeriodicWorker expiry_;
};

}  // namespace gnomon::registry

#endif  // GNOMON_SERVICES_REGISTRY_REGISTRY_CORE_H_
