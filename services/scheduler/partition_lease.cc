#include "services/scheduler/partition_lease.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/client/log.h"
#include "services/common/server/tokens.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/partition_assignment.h"

namespace gnomon::scheduler {
namespace {

constexpr char kReplicaPrefix[] = "replica/";
constexpr char kPartitionPrefix[] = "partition/";

std::string PartitionName(int p) { return absl::StrCat(kPartitionPrefix, p); }

}  // namespace

bool Ownership::Holds(int partition) const {
  return std::binary_search(partitions.begin(), partitions.end(), partition);
}

bool Ownership::HoldsJob(int64_t job_id) const {
  return partition_count() > 0 && Holds(store::PartitionOf(job_id, partition_count()));
}

void HeldPartitions::Set(std::shared_ptr<const Ownership> ownership) {
  absl::MutexLock l(&mu_);
  ownership_ = std::move(ownership);
}

std::optional<std::vector<int>> HeldPartitions::At(int64_t now_ms) const {
  absl::MutexLock l(&mu_);
  if (!ownership_) return std::vector<int>{};
  if (ownership_->partitions.empty() || now_ms >= ownership_->valid_until_ms) return std::nullopt;
  return ownership_->partitions;
}

int64_t Ownership::EpochOfJob(int64_t job_id) const {
  return partition_count() > 0 ? epochs[store::PartitionOf(job_id, partition_count())] : 0;
}

PartitionLease::PartitionLease(store::LeaseStore* store, int partition_count,
                               std::string replica_id, Clock* clock, PartitionLeaseOptions options,
                               Listener listener)
    : store_(store),
      partition_count_(partition_count),
      replica_id_(std::move(replica_id)),
      holder_(absl::StrCat(replica_id_, "#", NewToken().substr(0, 8))),
      clock_(clock),
      options_(options),
      listener_(std::move(listener)),
      ownership_(std::make_shared<const Ownership>()),
      worker_(clock) {}

std::string PartitionLease::PresenceName() const {
  return absl::StrCat(kReplicaPrefix, replica_id_);
}

int PartitionLease::PartitionOfName(const std::string& name) const {
  int p = -1;
  if (!absl::StartsWith(name, kPartitionPrefix)) return -1;
  if (!absl::SimpleAtoi(name.substr(sizeof(kPartitionPrefix) - 1), &p)) return -1;
  return p >= 0 && p < partition_count_ ? p : -1;
}

absl::Duration PartitionLease::renew_interval() const {
  return options_.renew_interval > absl::ZeroDuration() ? options_.renew_interval
                                                        : options_.ttl / 5;
}

std::shared_ptr<const Ownership> PartitionLease::ownership() const {
  absl::MutexLock l(&mu_);
  return ownership_;
}

void PartitionLease::Publish(std::shared_ptr<const Ownership> o) {
  std::shared_ptr<const Ownership> before;
  {
    absl::MutexLock l(&mu_);
    before = ownership_;
    ownership_ = o;
  }
  if (before->partitions != o->partitions) {
    GNOMON_LOG(INFO) << "scheduler: " << holder_ << " holds " << o->partitions.size() << " of "
                     << partition_count_ << " partitions (" << o->live_replicas
                     << " live replicas)";
  }
  listener_(std::move(o));
}

void PartitionLease::Renew() {
  const int64_t start_ms = clock_->NowMillis();
  const std::shared_ptr<const Ownership> held = ownership();
  absl::StatusOr<store::Leases> all = store_->ListLeases("");
  absl::StatusOr<store::Leases> got = absl::UnavailableError("not tried");
  auto next = std::make_shared<Ownership>();
  next->epochs.assign(partition_count_, 0);
  size_t share_size = 0;
  if (all.ok()) {
    std::vector<std::string> replicas = {replica_id_};
    for (const store::Lease& l : all->leases) {
      if (const int p = PartitionOfName(l.name); p >= 0) next->epochs[p] = l.epoch;
      if (absl::StartsWith(l.name, kReplicaPrefix) && !l.holder.empty() &&
          l.expires_ms > all->now_ms) {
        replicas.push_back(l.name.substr(sizeof(kReplicaPrefix) - 1));
      }
    }
    PruneDeparted(*all);
    std::sort(replicas.begin(), replicas.end());
    replicas.erase(std::unique(replicas.begin(), replicas.end()), replicas.end());
    next->live_replicas = static_cast<int>(replicas.size());
    const std::vector<int> share = PartitionsFor(replica_id_, replicas, partition_count_);
    share_size = share.size();
    // Hand over what is no longer ours: stop firing it first, then release.
    std::vector<std::string> release;
    for (int p : held->partitions) {
      if (!std::binary_search(share.begin(), share.end(), p)) release.push_back(PartitionName(p));
    }
    if (!release.empty()) {
      auto kept = std::make_shared<Ownership>(*held);
      kept->partitions.clear();
      for (int p : held->partitions) {
        if (std::binary_search(share.begin(), share.end(), p)) kept->partitions.push_back(p);
      }
      Publish(kept);
      if (absl::Status s = store_->ReleaseLeases(release, holder_); !s.ok()) {
        GNOMON_LOG(WARNING) << "scheduler: releasing " << release.size() << " partitions: " << s;
      }
    }
    std::vector<std::string> names = {PresenceName()};
    for (int p : share) names.push_back(PartitionName(p));
    got = store_->AcquireLeases(names, holder_, absl::ToInt64Milliseconds(options_.ttl));
  } else {
    got = all.status();
  }
  if (!got.ok()) {
    // The store is unreachable: keep what is surely still ours, then nothing.
    GNOMON_LOG(WARNING) << "scheduler: renewing partition leases failed: " << got.status();
    if (start_ms >= held->valid_until_ms && !held->partitions.empty()) {
      auto none = std::make_shared<Ownership>(*held);
      none->partitions.clear();
      Publish(none);
    }
    return;
  }
  for (const store::Lease& l : got->leases) {
    if (const int p = PartitionOfName(l.name); p >= 0) {
      next->partitions.push_back(p);
      next->epochs[p] = l.epoch;
    }
  }
  std::sort(next->partitions.begin(), next->partitions.end());
  {
    absl::MutexLock l(&mu_);
    share_ = share_size;
    if (next->partitions.size() >= share_size) {
      short_since_ms_ = 0;
    } else if (short_since_ms_ == 0) {
      short_since_ms_ = start_ms;
    }
  }
  next->valid_until_ms = start_ms + absl::ToInt64Milliseconds(options_.ttl - renew_interval());
  // A renewal that takes half the lease is a lease about to be lost to the
  // store's latency alone: say so (what the TTL must be judged against).
  if (const int64_t took = clock_->NowMillis() - start_ms;
      took * 2 >= absl::ToInt64Milliseconds(options_.ttl)) {
    GNOMON_LOG(WARNING) << "scheduler: renewing partition leases took " << took << " ms of a "
                        << absl::ToInt64Milliseconds(options_.ttl) << " ms lease";
  }
  Publish(std::move(next));
}

void PartitionLease::PruneDeparted(const store::Leases& all) {
  // Pod names of a Deployment never come back: without this their rows
  // would pile up, one per pod ever started. Only presence rows: a
  // partition's row holds its fencing epoch, which must only grow.
  const int64_t before = all.now_ms - absl::ToInt64Milliseconds(options_.prune_departed_after);
  std::vector<std::string> departed;
  for (const store::Lease& l : all.leases) {
    if (absl::StartsWith(l.name, kReplicaPrefix) && l.expires_ms < before &&
        l.name != PresenceName()) {
      departed.push_back(l.name);
    }
  }
  if (departed.empty()) return;
  // The store deletes each only if it is still expired since before `before`.
  if (absl::Status s = store_->DeleteExpiredLeases(departed, before); !s.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: pruning " << departed.size() << " departed replicas: " << s;
  } else {
    GNOMON_LOG(INFO) << "scheduler: pruned the presence rows of " << departed.size()
                     << " replicas gone for over "
                     << absl::FormatDuration(options_.prune_departed_after);
  }
}

absl::Status PartitionLease::Health() const {
  absl::MutexLock l(&mu_);
  const int64_t now = clock_->NowMillis();
  if (now >= ownership_->valid_until_ms) {
    return absl::UnavailableError("partition leases not renewed in time (store unreachable?)");
  }
  const int64_t limit = 2 * absl::ToInt64Milliseconds(options_.ttl);
  if (short_since_ms_ > 0 && now - short_since_ms_ > limit) {
    return absl::UnavailableError(
        absl::StrCat("holds ", ownership_->partitions.size(), " of the ", share_,
                     " partitions it should; other replicas have kept the rest for ",
                     (now - short_since_ms_) / 1000, " s"));
  }
  return absl::OkStatus();
}

void PartitionLease::ReleaseAll() {
  const std::shared_ptr<const Ownership> held = ownership();
  auto none = std::make_shared<Ownership>(*held);
  none->partitions.clear();
  none->valid_until_ms = 0;
  Publish(none);
  std::vector<std::string> names = {PresenceName()};
  for (int p : held->partitions) names.push_back(PartitionName(p));
  if (absl::Status s = store_->ReleaseLeases(names, holder_); !s.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: releasing partition leases failed: " << s;
  }
}

void PartitionLease::Start() {
  if (running_) return;
  running_ = true;
  worker_.Start(renew_interval(), [this] { Renew(); });
}

void PartitionLease::Stop() {
  if (!running_) return;
  running_ = false;
  worker_.Stop();
  ReleaseAll();
}

}  // namespace gnomon::scheduler
