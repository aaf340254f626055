// PartitionLease: holds this replica's share of the scheduler partitions.
//
// Jobs are hashed into the installation's partitions (JobStore::
// partition_count, chosen at install), each a lease in the store with its
// own fencing epoch. Every replica also holds a presence lease
// ("replica/ID"); from the live ones it computes its share
// (partition_assignment.h), gives up what is no longer its share (after the
// listener has stopped firing it) and takes what is. Leases expire by the
// store's clock; renewals run every `renew_interval`, so a crashed replica's
// partitions are taken over within about ttl + renew_interval. Presence
// rows expired for longer than `prune_departed_after` are deleted (replica
// ids are often pod names, which never come back); partition rows never are
// (their epochs must only grow).
//
// A replica owns what it holds only until `valid_until_ms` on its own clock
// (the last successful renewal's start + ttl − renew_interval): a replica
// whose store calls hang stops firing before anyone else may take over.
// The holder is "ID#incarnation"; a restarted process with the same ID
// takes over its predecessor's leases at once (with a new epoch).
//
//   PartitionLease lease(store, store->partition_count(), "host-1:7070", &RealClock(), {},
//                        [&](std::shared_ptr<const Ownership> o) { loop.SetOwnership(o); });
//   lease.Start();   // renews now, then every renew_interval, on its own thread
//   lease.Stop();    // stops firing, then releases: others take over at once
//
// Thread safety: Start and Stop from one thread; the rest from any.
#ifndef GNOMON_SERVICES_SCHEDULER_PARTITION_LEASE_H_
#define GNOMON_SERVICES_SCHEDULER_PARTITION_LEASE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/lease_store.h"

namespace gnomon::scheduler {

struct PartitionLeaseOptions {
  absl::Duration ttl = absl::Milliseconds(1500);
  // How often leases are renewed and live replicas re-read; 0: ttl / 5.
  absl::Duration renew_interval = absl::ZeroDuration();
  // Presence rows of replicas expired (crashed, or stopped) for longer than
  // this are deleted by the live replicas. Generous: a replica back within
  // it finds its row (and nothing depends on a presence row's epoch).
  absl::Duration prune_departed_after = absl::Minutes(10);
};

// What this replica holds, as of one renewal. Immutable once published.
struct Ownership {
  std::vector<int> partitions;  // Held, ascending.
  // Fencing epoch per partition (index = partition, so its size is the
  // installation's partition count; empty before the first renewal): ours
  // for those held, the latest read for the others (admin-API fires of
  // their jobs carry it).
  std::vector<int64_t> epochs;
  // Local clock: past this instant nothing held may be fired.
  int64_t valid_until_ms = 0;
  int live_replicas = 0;

  int partition_count() const { return static_cast<int>(epochs.size()); }
  bool Holds(int partition) const;
  // Both know no job before the first renewal (no count yet): false, 0.
  bool HoldsJob(int64_t job_id) const;
  int64_t EpochOfJob(int64_t job_id) const;
};

// The partitions a periodic worker acts on, as the last Ownership given
// says (set from PartitionLease's listener, read at each pass).
class HeldPartitions {
 public:
  void Set(std::shared_ptr<const Ownership> ownership) ABSL_LOCKS_EXCLUDED(mu_);
  // At `now_ms`: nullopt when nothing may be acted on (none held, or the
  // hold lapsed); empty for all (never Set: a single replica, tests); else
  // the partitions held.
  std::optional<std::vector<int>> At(int64_t now_ms) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
};

class PartitionLease {
 public:
  // Called from the renewing thread after every renewal (and from Stop's on stand-down).
  using Listener = std::function<void(std::shared_ptr<const Ownership>)>;

  // `partition_count`: the installation's (JobStore::partition_count()).
  PartitionLease(store::LeaseStore* store, int partition_count, std::string replica_id,
                 Clock* clock, PartitionLeaseOptions options, Listener listener);

  void Start() ABSL_LOCKS_EXCLUDED(mu_);
  // Stops renewing, then ReleaseAll().
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  // One renewal at the clock's time (the worker calls it; tests too).
  void Renew() ABSL_LOCKS_EXCLUDED(mu_);
  // Gives everything up: stops firing (listener), then releases the leases.
  void ReleaseAll() ABSL_LOCKS_EXCLUDED(mu_);

  std::shared_ptr<const Ownership> ownership() const ABSL_LOCKS_EXCLUDED(mu_);
  // OK while this replica holds what it should: its last renewal is still
  // valid, and it holds its whole share of the partitions — or has been
  // short of it for less than twice the ttl (a hand-over under way).
  // Otherwise Unavailable with why (the scheduler's health check).
  absl::Status Health() const ABSL_LOCKS_EXCLUDED(mu_);
  const std::string& holder() const { return holder_; }
  const std::string& replica_id() const { return replica_id_; }

 private:
  void Publish(std::shared_ptr<const Ownership> o) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Duration renew_interval() const;
  std::string PresenceName() const;  // "replica/ID".
  // The partition a lease name stands for, or -1.
  int PartitionOfName(const std::string& name) const;
  // Deletes the presence rows among `all` expired for prune_departed_after.
  void PruneDeparted(const store::Leases& all);

  store::LeaseStore* const store_;
  const int partition_count_;
  const std::string replica_id_;
  const std::string holder_;
  Clock* const clock_;
  const PartitionLeaseOptions options_;
  const Listener listener_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
  size_t share_ ABSL_GUARDED_BY(mu_) = 0;  // Partitions it should hold.
  // Since when it has held fewer than its share (0: it holds them all).
  int64_t short_since_ms_ ABSL_GUARDED_BY(mu_) = 0;
  bool running_ = false;  // Start and Stop's thread only.
  PeriodicWorker worker_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_PARTITION_LEASE_H_
