#include "services/registry/registry_core.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/common/status/status_macros.h"
#include "services/registry/session_validation.h"

namespace gnomon::registry {
namespace {

using google::protobuf::util::TimeUtil;

// Puts what `beat` says into `info`, keeping at most kBusyJobsKept busy jobs
// (the first ones listed: the most loaded). Returns whether that changed it.
bool ApplyBeat(const v1::Beat& beat, v1::ExecutorInfo& info) {
  const int kept = std::min(beat.busy_jobs_size(), kBusyJobsKept);
  uint32_t busy_jobs = beat.busy_job_count();
  uint32_t queued = beat.queued_runs();
  if (busy_jobs == 0 && beat.busy_jobs_size() > 0) {
    // An executor older than the totals lists every busy job.
    busy_jobs = static_cast<uint32_t>(beat.busy_jobs_size());
    uint64_t sum = 0;
    for (const v1::JobBusy& b : beat.busy_jobs()) sum += b.queued();
    queued = static_cast<uint32_t>(std::min<uint64_t>(sum, UINT32_MAX));
  }
  busy_jobs = std::max(busy_jobs, static_cast<uint32_t>(beat.busy_jobs_size()));
  const bool partial = busy_jobs > static_cast<uint32_t>(kept);
  bool changed = info.running_runs() != beat.running_runs() || info.busy_job_count() != busy_jobs ||
                 info.queued_runs() != queued || info.busy_jobs_partial() != partial ||
                 info.busy_jobs_size() != kept;
  for (int i = 0; !changed && i < kept; ++i) {
    const v1::JobBusy& a = info.busy_jobs(i);
    const v1::JobBusy& b = beat.busy_jobs(i);
    changed = a.job_id() != b.job_id() || a.running() != b.running() || a.queued() != b.queued();
  }
  if (!changed) return false;
  info.mutable_busy_jobs()->Clear();
  info.mutable_busy_jobs()->Reserve(kept);
  for (int i = 0; i < kept; ++i) *info.add_busy_jobs() = beat.busy_jobs(i);
  info.set_running_runs(beat.running_runs());
  info.set_busy_job_count(busy_jobs);
  info.set_queued_runs(queued);
  info.set_busy_jobs_partial(partial);
  return true;
}

}  // namespace

std::optional<v1::WatchExecutorsResponse> Watcher::Next(absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closed_ || !queue_.empty(); };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  if (queue_.empty()) return std::nullopt;
  v1::WatchExecutorsResponse msg = std::move(queue_.front());
  queue_.pop_front();
  return msg;
}

void Watcher::Push(v1::WatchExecutorsResponse msg) {
  absl::MutexLock l(&mu_);
  if (!closed_) queue_.push_back(std::move(msg));
}

void Watcher::Close() {
  absl::MutexLock l(&mu_);
  closed_ = true;
}

bool Watcher::closed() const {
  absl::MutexLock l(&mu_);
  return closed_;
}

RegistryCore::RegistryCore(store::MembershipStore* rows, Clock* clock, RegistryOptions options,
                           RegistryMetrics* metrics)
    : rows_(rows), clock_(clock), options_(options), metrics_(metrics), expiry_(clock) {}

void RegistryCore::RefreshMetrics() const {
  std::map<std::string, int> by_app;
  size_t sessions;
  {
    absl::MutexLock l(&mu_);
    sessions = sessions_.size();
    for (const auto& [key, m] : members_) ++by_app[key.first];
    for (const auto& [key, info] : remote_) ++by_app[key.first];
  }
  metrics_->SetMembership(sessions, by_app);
}

RegistryCore::~RegistryCore() { Stop(); }

absl::StatusOr<uint64_t> RegistryCore::Join(const v1::Register& reg, std::function<void()> cancel,
                                            std::string token_fingerprint) {
  RETURN_IF_ERROR(ValidateRegister(reg));
  int64_t now = clock_->NowMillis();
  v1::ExecutorInfo info;
  info.set_app_name(reg.app_name());
  info.set_address(reg.address());
  *info.mutable_handlers() = reg.handlers();
  info.set_capacity(reg.capacity());
  info.set_version(reg.version());
  *info.mutable_labels() = reg.labels();
  info.set_instance_id(reg.instance_id());
  info.set_answers_probes(reg.answers_probes());
  info.set_token_fingerprint(std::move(token_fingerprint));
  info.set_registry_replica(options_.replica_id);
  *info.mutable_register_time() = TimeUtil::MillisecondsToTimestamp(now);
  *info.mutable_last_beat_time() = info.register_time();

  std::function<void()> replaced_cancel;
  uint64_t id;
  int64_t registration_id;
  {
    absl::MutexLock l(&mu_);
    if (stopped_) return absl::UnavailableError("registry is shutting down");
    id = next_session_++;
    registration_id = absl::Uniform<int64_t>(bits_, 1, std::numeric_limits<int64_t>::max());
    Key key{reg.app_name(), reg.address()};
    auto it = members_.find(key);
    bool rejoin = it != members_.end();
    if (!rejoin && options_.max_executors_per_app > 0) {
      // A registration is cheap to make and every scheduler routes over the
      // app's members: their number is bounded.
      int of_app = 0;
      for (const auto& [k, m] : members_) of_app += k.first == reg.app_name() ? 1 : 0;
      for (const auto& [k, info] : remote_) {
        of_app += k.first == reg.app_name() && k != key ? 1 : 0;
      }
      if (of_app >= options_.max_executors_per_app) {
        return absl::ResourceExhaustedError(
            absl::StrCat("app_name: app already has ", of_app,
                         " live executors, the most "
                         "this installation allows (gnomond --max-executors-per-app)"));
      }
    }
    if (rejoin) {
      // A quick reconnect keeps its identity: the old stream is ended and the
      // member is updated in place, without a LEFT/JOINED pair.
      sessions_.erase(it->second.session);
      replaced_cancel = std::move(it->second.cancel);
    }
    remote_.erase(key);  // It moved here from another replica.
    Member& m = members_[key];
    m.session = id;
    m.registration_id = registration_id;
    m.info = info;
    m.last_beat_ms = now;
    m.persisted_ms = now;
    m.cancel = std::move(cancel);
    sessions_[id] = key;
    Publish(rejoin ? v1::EXECUTOR_CHANGE_KIND_UPDATED : v1::EXECUTOR_CHANGE_KIND_JOINED, info);
  }
  if (metrics_ != nullptr) {
    metrics_->Opened();
    if (replaced_cancel) metrics_->Closed(SessionEnd::kReplaced);
  }
  if (replaced_cancel) replaced_cancel();
  if (absl::Status s = rows_->UpsertExecutor(info, now, registration_id); !s.ok()) {
    GNOMON_LOG(WARNING) << "registry: cannot persist " << info.address() << ": " << s;
  }
  GNOMON_LOG(INFO) << "registry: " << reg.app_name() << " executor " << reg.address()
                   << " registered with " << reg.handlers_size() << " handlers";
  return id;
}

absl::Status RegistryCore::Beat(uint64_t session, const v1::Beat& beat) {
  int64_t now = clock_->NowMillis();
  std::optional<v1::ExecutorInfo> persist;
  int64_t registration_id = 0;
  {
    absl::MutexLock l(&mu_);
    auto s = sessions_.find(session);
    if (s == sessions_.end())
      return absl::FailedPreconditionError("session is no longer registered");
    if (metrics_ != nullptr) metrics_->Beat();
    Member& m = members_[s->second];
    m.last_beat_ms = now;
    *m.info.mutable_last_beat_time() = TimeUtil::MillisecondsToTimestamp(now);
    if (ApplyBeat(beat, m.info)) Publish(v1::EXECUTOR_CHANGE_KIND_UPDATED, m.info);
    if (now - m.persisted_ms >= absl::ToInt64Milliseconds(options_.persist_interval)) {
      m.persisted_ms = now;
      persist = m.info;
      registration_id = m.registration_id;
    }
  }
  if (persist) {
    if (absl::Status s = rows_->UpsertExecutor(*persist, now, registration_id); !s.ok()) {
      GNOMON_LOG(WARNING) << "registry: cannot persist beat of " << persist->address() << ": " << s;
    }
  }
  return absl::OkStatus();
}

void RegistryCore::Leave(uint64_t session, const std::string& reason) {
  Ended ended;
  const v1::ExecutorInfo& info = ended.info;
  bool shutting_down;
  {
    absl::MutexLock l(&mu_);
    auto s = sessions_.find(session);
    if (s == sessions_.end()) return;  // Already replaced or reaped.
    auto m = members_.find(s->second);
    ended.info = m->second.info;
    ended.registration_id = m->second.registration_id;
    members_.erase(m);
    sessions_.erase(s);
    Publish(v1::EXECUTOR_CHANGE_KIND_LEFT, info);
    shutting_down = stopped_;
  }
  // This registry is shutting down and ended the session itself: the
  // executor is alive and registers with another replica in a moment. Its
  // row stays (live for the others until it goes stale), or every other
  // replica reading the store meanwhile would see it leave and route to an
  // empty group until its next read.
  if (shutting_down) {
    GNOMON_LOG(INFO) << "registry: " << info.app_name() << " executor " << info.address()
                     << " disconnected by shutdown; its row stays for the other replicas";
    return;
  }
  if (metrics_ != nullptr) metrics_->Closed(SessionEnd::kLeft);
  RemoveRow(ended);
  GNOMON_LOG(INFO) << "registry: " << info.app_name() << " executor " << info.address()
                   << " left: " << reason;
}

void RegistryCore::RemoveRow(const Ended& ended) {
  // Only our registration's row: if the executor already registered with
  // another replica, its row there is left alone (else every other replica
  // would see it leave until its next beat is persisted). The registration
  // id tells the rows apart; the register time alone does not when both
  // replicas registered it in the same millisecond.
  const v1::ExecutorInfo& info = ended.info;
  if (absl::Status s = rows_->RemoveExecutor(
          info.app_name(), info.address(), TimeUtil::TimestampToMilliseconds(info.register_time()),
          ended.registration_id);
      !s.ok() && !absl::IsNotFound(s)) {
    GNOMON_LOG(WARNING) << "registry: cannot remove " << info.address() << ": " << s;
  }
}

std::shared_ptr<Watcher> RegistryCore::Watch(std::vector<std::string> apps) {
  auto watcher = std::make_shared<Watcher>(std::move(apps));
  absl::MutexLock l(&mu_);
  // A replica that just started knows no executor held by the others until
  // it has read them once: a snapshot before that would make its scheduler
  // fail runs "no live executor" (bounded: a store that is down cannot hold
  // the watch up for long).
  auto loaded = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return remote_loaded_ || stopped_; };
  if (options_.remote_refresh > absl::ZeroDuration()) {
    mu_.AwaitWithTimeout(absl::Condition(&loaded), absl::Seconds(5));
  }
  v1::WatchExecutorsResponse snapshot;
  for (const auto& [key, m] : members_) {
    if (watcher->Wants(key.first)) *snapshot.mutable_snapshot()->add_executors() = m.info;
  }
  for (const auto& [key, info] : remote_) {
    if (watcher->Wants(key.first)) *snapshot.mutable_snapshot()->add_executors() = info;
  }
  snapshot.mutable_snapshot();  // An empty snapshot is still a snapshot.
  watcher->Push(std::move(snapshot));
  if (stopped_) watcher->Close();
  watchers_.push_back(watcher);
  return watcher;
}

void RegistryCore::Publish(v1::ExecutorChangeKind kind, const v1::ExecutorInfo& info) {
  v1::WatchExecutorsResponse msg;
  msg.mutable_change()->set_kind(kind);
  *msg.mutable_change()->mutable_executor() = info;
  auto live =
      std::remove_if(watchers_.begin(), watchers_.end(), [](const std::weak_ptr<Watcher>& w) {
        auto p = w.lock();
        return p == nullptr || p->closed();
      });
  watchers_.erase(live, watchers_.end());
  for (const auto& w : watchers_) {
    if (auto p = w.lock(); p != nullptr && p->Wants(info.app_name())) p->Push(msg);
  }
}

std::vector<std::function<void()>> RegistryCore::ExpireLocked(int64_t now_ms,
                                                              std::vector<Ended>* expired) {
  const int64_t timeout = absl::ToInt64Milliseconds(options_.beat_interval * options_.missed_beats);
  std::vector<std::function<void()>> cancels;
  for (auto it = members_.begin(); it != members_.end();) {
    Member& m = it->second;
    if (now_ms - m.last_beat_ms <= timeout) {
      ++it;
      continue;
    }
    GNOMON_LOG(INFO) << "registry: " << m.info.app_name() << " executor " << m.info.address()
                     << " missed " << options_.missed_beats << " beats; removed";
    Publish(v1::EXECUTOR_CHANGE_KIND_LEFT, m.info);
    if (metrics_ != nullptr) metrics_->Closed(SessionEnd::kMissedBeats);
    sessions_.erase(m.session);
    cancels.push_back(std::move(m.cancel));
    expired->push_back({std::move(m.info), m.registration_id});
    members_.erase(it++);
  }
  return cancels;
}

void RegistryCore::RefreshRemote(int64_t now_ms) {
  absl::StatusOr<std::vector<v1::ExecutorInfo>> rows = rows_->ListExecutors();
  absl::MutexLock l(&mu_);
  if (!rows.ok()) {
    GNOMON_LOG(WARNING) << "registry: reading other replicas' executors failed: " << rows.status();
    store_ok_since_ms_ = -1;
    return;
  }
  if (store_ok_since_ms_ < 0) store_ok_since_ms_ = now_ms;
  const int64_t stale_ms = 3 * absl::ToInt64Milliseconds(options_.persist_interval);
  const int64_t fresh_after = now_ms - stale_ms;
  // Just after a store outage every row looks stale: their registries could
  // not persist beats either. Until they have had time to, a row keeps an
  // executor we already count as live (routing must not see an empty group
  // while its executors are connected to a live replica).
  const bool settling = now_ms - store_ok_since_ms_ < stale_ms;
  absl::flat_hash_map<Key, v1::ExecutorInfo> now_remote;
  for (v1::ExecutorInfo& e : *rows) {
    Key key{e.app_name(), e.address()};
    if (members_.contains(key)) continue;  // Ours.
    // A row this replica wrote that no session here holds is a predecessor's:
    // this process restarted and the executor has not registered again yet.
    // It is not live (counting it so routed runs to executors that may be
    // gone, and failed them once the row went stale); the scheduler waits
    // for such executors to come back instead (executor_return_grace).
    if (!options_.replica_id.empty() && e.registry_replica() == options_.replica_id) continue;
    const bool stale = TimeUtil::TimestampToMilliseconds(e.last_beat_time()) < fresh_after;
    if (stale && !(settling && remote_.contains(key))) continue;
    now_remote.emplace(std::move(key), std::move(e));
  }
  for (const auto& [key, info] : remote_) {
    if (!now_remote.contains(key)) Publish(v1::EXECUTOR_CHANGE_KIND_LEFT, info);
  }
  for (const auto& [key, info] : now_remote) {
    auto before = remote_.find(key);
    if (before == remote_.end()) {
      Publish(v1::EXECUTOR_CHANGE_KIND_JOINED, info);
    } else if (before->second.instance_id() != info.instance_id()) {
      // Restarted and registered again with another replica between two
      // reads: watchers must learn of the new instance (the old one's runs
      // are lost), not only of arrivals and departures.
      Publish(v1::EXECUTOR_CHANGE_KIND_UPDATED, info);
    }
  }
  remote_ = std::move(now_remote);
  remote_loaded_ = true;
}

void RegistryCore::StartExpiry() {
  expiry_.Start(options_.beat_interval / 4, [this] { ExpiryPass(); });
}

void RegistryCore::ExpiryPass() {
  std::vector<std::function<void()>> cancels;
  std::vector<Ended> expired;
  {
    absl::MutexLock l(&mu_);
    cancels = ExpireLocked(clock_->NowMillis(), &expired);
  }
  for (auto& c : cancels) {
    if (c) c();
  }
  // Its stream's end finds the session gone (Leave does nothing): the row
  // goes here, so other replicas drop it at their next read, not only once
  // it is stale.
  for (const Ended& ended : expired) RemoveRow(ended);
  int64_t now = clock_->NowMillis();
  // The first pass reads at once: watches wait for it.
  if (options_.remote_refresh > absl::ZeroDuration() &&
      (!remote_read_ ||
       now - last_remote_ms_ >= absl::ToInt64Milliseconds(options_.remote_refresh))) {
    remote_read_ = true;
    last_remote_ms_ = now;
    RefreshRemote(now);
  }
  if (now - last_prune_ms_ >= absl::ToInt64Milliseconds(options_.stale_row_age) / 10) {
    last_prune_ms_ = now;
    absl::StatusOr<int64_t> pruned =
        rows_->PruneExecutors(now - absl::ToInt64Milliseconds(options_.stale_row_age));
    if (!pruned.ok()) GNOMON_LOG(WARNING) << "registry: prune failed: " << pruned.status();
  }
}

void RegistryCore::Stop() {
  std::vector<std::function<void()>> cancels;
  {
    absl::MutexLock l(&mu_);
    if (stopped_) return;
    stopped_ = true;
    for (auto& [key, m] : members_) cancels.push_back(std::move(m.cancel));
    for (const auto& w : watchers_) {
      if (auto p = w.lock()) p->Close();
    }
  }
  for (auto& c : cancels) {
    if (c) c();
  }
  expiry_.Stop();
}

}  // namespace gnomon::registry
