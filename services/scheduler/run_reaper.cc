#include "services/scheduler/run_reaper.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler {

using google::protobuf::util::TimeUtil;

void RunReaper::ExecutorLeft(const v1::ExecutorInfo& executor) {
  {
    absl::MutexLock l(&mu_);
    const int64_t now = clock_->NowMillis();
    left_.push_back({executor, now, now + absl::ToInt64Milliseconds(options_.lost_grace)});
  }
  worker_.Wake();  // Its check may be due before the next pass.
}

void RunReaper::SetOwnership(std::shared_ptr<const Ownership> ownership) {
  absl::MutexLock l(&mu_);
  ownership_ = std::move(ownership);
}

std::shared_ptr<const Ownership> RunReaper::Held() {
  absl::MutexLock l(&mu_);
  return ownership_;
}

void RunReaper::FailLost(const Left& left, const Ownership* held) {
  const v1::ExecutorInfo& executor = left.executor;
  bool restarted = false;
  // Held in a local: a temporary in the range expression would be freed
  // before the loop runs, and a rebuild may drop the last other reference.
  const ExecutorList executors = membership_->Live(executor.app_name());
  for (const v1::ExecutorInfo& live : *executors) {
    if (live.address() != executor.address()) continue;
    // The same process came back in time (a registry blip); a new instance
    // at the address does not hold the runs the old one had.
    if (live.instance_id() == executor.instance_id()) return;
    restarted = true;
  }
  absl::StatusOr<std::vector<v1::Run>> runs = store_->ListActiveRunsOn(executor.address());
  if (!runs.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: runs on lost executor " << executor.address() << ": "
                        << runs.status() << "; will try again";
    TryAgainLater(left);
    return;
  }
  std::vector<int64_t> ids;
  for (const v1::Run& r : *runs) {
    // Runs sent after it left went to its successor at the address.
    const bool ours = held == nullptr || held->HoldsJob(r.job_id());
    if (ours && r.status() == v1::RUN_STATUS_RUNNING &&
        TimeUtil::TimestampToMilliseconds(r.dispatch_time()) <= left.left_ms) {
      ids.push_back(r.id());
    }
  }
  if (ids.empty()) return;
  absl::StatusOr<int64_t> n =
      FailRuns(ids, v1::HANDLE_CODE_EXECUTOR_LOST,
               absl::StrCat("executor lost: ", executor.address(),
                            restarted ? " restarted" : " left", " while the run was in flight"),
               clock_->NowMillis());
  if (n.ok()) {
    GNOMON_LOG(INFO) << "scheduler: failed " << *n << " runs of lost executor "
                     << executor.address();
  } else {
    GNOMON_LOG(WARNING) << "scheduler: failing runs of " << executor.address() << ": " << n.status()
                        << "; will try again";
    TryAgainLater(left);
  }
}

void RunReaper::TryAgainLater(const Left& left) {
  absl::MutexLock l(&mu_);
  // Due after every entry queued so far (each is due within lost_grace of now).
  left_.push_back({left.executor, left.left_ms,
                   clock_->NowMillis() + absl::ToInt64Milliseconds(options_.lost_grace)});
}

void RunReaper::FailStalePending(int64_t now_ms, const std::vector<int>& partitions) {
  store::RunFilter filter;
  filter.partitions = partitions;
  filter.statuses = {v1::RUN_STATUS_PENDING};
  filter.trigger_to_ms = now_ms - absl::ToInt64Milliseconds(options_.pending_timeout);
  filter.limit = 1000;
  // Read after BeginScan: an outcome committed meanwhile is remembered.
  if (in_flight_ != nullptr) in_flight_->BeginScan();
  absl::StatusOr<std::vector<v1::Run>> runs = store_->ListRuns(filter);
  std::vector<int64_t> ids;
  if (runs.ok()) {
    for (const v1::Run& r : *runs) {
      if (in_flight_ == nullptr || !in_flight_->Holds(r)) ids.push_back(r.id());
    }
  }
  if (in_flight_ != nullptr) in_flight_->EndScan();
  if (ids.empty()) return;
  // Provisional (504): an executor that did accept it (its answer lost with
  // the scheduler that sent it) reports its result, which replaces this.
  absl::StatusOr<int64_t> n = FailRuns(
      ids, v1::HANDLE_CODE_EXECUTOR_LOST,
      "dispatch never confirmed: the scheduler that recorded the run stopped before the executor "
      "answered",
      now_ms);
  if (n.ok() && *n > 0) GNOMON_LOG(INFO) << "scheduler: failed " << *n << " unconfirmed runs";
}

void RunReaper::FailOrphaned(int64_t now_ms, const std::vector<int>& partitions) {
  if (!membership_->synced()) return;  // "Not live" is unknown before the first snapshot.
  if (now_ms < started_ms_ + absl::ToInt64Milliseconds(options_.returning_grace)) return;
  store::RunFilter filter;
  filter.partitions = partitions;
  filter.statuses = {v1::RUN_STATUS_RUNNING};
  filter.limit = 10000;
  absl::StatusOr<std::vector<v1::Run>> runs = store_->ListRuns(filter);
  if (!runs.ok()) return;
  absl::flat_hash_map<std::string, int64_t> absent;
  std::vector<int64_t> lost;
  for (const v1::Run& r : *runs) {
    const std::string& address = r.executor_address();
    if (address.empty() || membership_->HasLive(address)) continue;
    auto [it, fresh] = absent.try_emplace(address, now_ms);
    if (fresh) {
      if (auto before = absent_since_.find(address); before != absent_since_.end()) {
        it->second = before->second;
      }
    }
    if (now_ms - it->second >= absl::ToInt64Milliseconds(options_.lost_grace))
      lost.push_back(r.id());
  }
  absent_since_ = std::move(absent);
  if (lost.empty()) return;
  absl::StatusOr<int64_t> n = FailRuns(
      lost, v1::HANDLE_CODE_EXECUTOR_LOST,
      "executor lost: its executor is no longer registered with any registry replica", now_ms);
  if (n.ok() && *n > 0)
    GNOMON_LOG(INFO) << "scheduler: failed " << *n << " runs of absent executors";
}

absl::StatusOr<int64_t> RunReaper::FailRuns(const std::vector<int64_t>& run_ids,
                                            v1::HandleCode code, std::string_view message,
                                            int64_t now_ms) {
  absl::StatusOr<int64_t> n = store_->FailRuns(run_ids, code, message, now_ms);
  if (n.ok() && metrics_ != nullptr) metrics_->RunsEnded(code, *n);
  return n;
}

absl::Time RunReaper::Pass() {
  std::vector<Left> due;
  {
    absl::MutexLock l(&mu_);
    const int64_t now = clock_->NowMillis();
    while (!left_.empty() && left_.front().check_at_ms <= now) {
      due.push_back(std::move(left_.front()));
      left_.pop_front();
    }
  }
  const std::shared_ptr<const Ownership> held = Held();
  const bool holds = held == nullptr || !held->partitions.empty();
  const std::vector<int> partitions = held ? held->partitions : std::vector<int>{};
  if (holds) {
    for (const Left& e : due) FailLost(e, held.get());
  }
  const int64_t now = clock_->NowMillis();
  if (now >= next_scan_ms_) {
    // A replica holding nothing scans nothing but still sleeps the
    // interval (it used to wake at once, forever: a core spent on a standby).
    if (holds) {
      FailStalePending(now, partitions);
      FailOrphaned(now, partitions);
    }
    next_scan_ms_ = now + absl::ToInt64Milliseconds(options_.scan_interval);
  }
  absl::MutexLock l(&mu_);
  int64_t wake = next_scan_ms_;
  if (!left_.empty()) wake = std::min(wake, left_.front().check_at_ms);
  return absl::FromUnixMillis(wake);
}

}  // namespace gnomon::scheduler
