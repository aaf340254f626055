#include "services/scheduler/deadline_watch.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/scheduler/alarm/alarm.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

int64_t Ms(const google::protobuf::Timestamp& t) { return TimeUtil::TimestampToMilliseconds(t); }

bool Ended(const v1::Run& r) {
  return r.status() == v1::RUN_STATUS_SUCCEEDED || r.status() == v1::RUN_STATUS_FAILED;
}

// Whether `attempts` (a fire's first attempt and its retries) did the fire's
// work by `deadline_ms`: one succeeded by then, or failed for good by then.
bool DoneBy(const std::vector<const v1::Run*>& attempts, const v1::Job& job, int64_t deadline_ms) {
  for (const v1::Run* r : attempts) {
    if (!Ended(*r) || Ms(r->end_time()) > deadline_ms) continue;
    if (r->status() == v1::RUN_STATUS_SUCCEEDED || r->handle_code() == v1::HANDLE_CODE_KILLED ||
        r->attempt() >= job.retry().max_retries()) {
      return true;
    }
  }
  return false;
}

// What the fire's latest attempt was doing at the deadline, for people.
std::string StateAt(const v1::Run& latest, int64_t deadline_ms) {
  if (Ended(latest) && Ms(latest.end_time()) <= deadline_ms) {
    return absl::StrCat("attempt ", latest.attempt() + 1, " failed, a retry was due");
  }
  if (Ended(latest)) {
    return absl::StrCat("attempt ", latest.attempt() + 1, " ended late, at ",
                        alarm::FormatTimestamp(latest.end_time()));
  }
  return absl::StrCat(
      "attempt ", latest.attempt() + 1,
      latest.status() == v1::RUN_STATUS_RUNNING ? " still running" : " not started");
}

}  // namespace

absl::Time DeadlineWatch::Tick() {
  const int64_t now = clock_->NowMillis();
  const absl::Time next = clock_->Now() + options_.poll_interval;
  const std::optional<std::vector<int>> partitions = held_.At(now);  // Empty: all.
  if (!partitions) return next;
  absl::StatusOr<std::vector<v1::Run>> due =
      runs_->ListDueDeadlines(options_.batch, now, *partitions);
  if (!due.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading due deadlines failed: " << due.status();
    return next;
  }
  // Each fire: its first attempt (judged) and every attempt, in attempt order.
  std::map<int64_t, std::vector<const v1::Run*>> fires;
  std::vector<int64_t> job_ids;
  for (const v1::Run& r : *due) {
    const int64_t first = r.attempt() == 0 ? r.id() : r.first_run_id();
    fires[first].push_back(&r);
    job_ids.push_back(r.job_id());
  }
  absl::StatusOr<std::vector<v1::Job>> jobs = jobs_->GetJobs(job_ids);
  if (!jobs.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading the jobs of due deadlines failed: " << jobs.status();
    return next;
  }
  absl::flat_hash_map<int64_t, const v1::Job*> by_id;
  for (const v1::Job& j : *jobs) by_id[j.id()] = &j;
  std::vector<int64_t> judged;
  std::vector<alarm::Alarm> missed;
  int listed_firsts = 0;
  for (auto& [first, attempts] : fires) {
    const v1::Run* head = nullptr;  // The judged first attempt.
    const v1::Run* latest = attempts.front();
    for (const v1::Run* r : attempts) {
      if (r->id() == first) head = r;
      if (r->attempt() > latest->attempt()) latest = r;
    }
    if (head == nullptr) continue;  // Retries only: their first is in a later batch.
    ++listed_firsts;
    judged.push_back(first);
    auto job = by_id.find(head->job_id());
    if (job == by_id.end()) continue;  // Deleted since: nobody to tell.
    const int64_t deadline = Ms(head->deadline_time());
    if (DoneBy(attempts, *job->second, deadline)) continue;
    const std::string reason = absl::StrCat(
        "not done by its deadline ", alarm::FormatTimestamp(head->deadline_time()), " (",
        absl::FormatDuration(
            absl::Milliseconds(TimeUtil::DurationToMilliseconds(job->second->deadline()))),
        " after its ", head->has_scheduled_time() ? "slot" : "trigger",
        "): ", StateAt(*latest, deadline));
    alarm::Alarm a;
    a.kind = alarm::AlarmKind::kDeadlineMissed;
    a.job = *job->second;
    a.run = *latest;
    a.reason = reason;
    missed.push_back(std::move(a));
  }
  // Judged first, then told: a fire is never alarmed twice (a failed write
  // is judged again next pass, and alarmed then).
  if (absl::Status s = runs_->CompleteDeadlines(judged); !s.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: marking " << judged.size()
                        << " deadlines judged failed (judged again next pass): " << s;
    return next;
  }
  for (alarm::Alarm& a : missed) {
    GNOMON_LOG(INFO) << "scheduler: job " << a.job.id() << " run " << a.run.id() << " " << a.reason;
    if (metrics_ != nullptr) metrics_->DeadlineMissed();
    if (alarms_ != nullptr) alarms_->Raise(std::move(a));
  }
  if (listed_firsts == options_.batch) return clock_->Now();  // More are likely waiting.
  return next;
}

}  // namespace gnomon::scheduler
