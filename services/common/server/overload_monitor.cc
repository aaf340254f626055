#include "services/common/server/overload_monitor.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "services/common/client/log.h"

namespace gnomon {

OverloadMonitor::OverloadMonitor(Clock* clock, metrics::MetricsRegistry* metrics,
                                 OverloadMonitorOptions options)
    : clock_(clock), options_(options), metrics_(metrics), worker_(clock) {
  if (metrics_ != nullptr) {
    overloaded_ =
        &metrics_->Gauge("gnomon_overloaded",
                         "1 while this process is behind the work offered to it (a stage of "
                         "gnomon_overload_backlog has been behind for a while), else 0.");
    episodes_ = &metrics_->Counter("gnomon_overload_episodes_total",
                                   "Times this process fell behind the work offered to it.");
  }
}

void OverloadMonitor::AddStage(std::string name, Stage stage) {
  absl::MutexLock l(&mu_);
  StageEntry e{std::move(name), std::move(stage)};
  if (metrics_ != nullptr) {
    e.gauge = &metrics_->Gauge("gnomon_overload_backlog",
                               "How far behind each stage of this process is, in the unit its "
                               "name gives (seconds, or items waiting).",
                               {{"stage", e.name}});
  }
  stages_.push_back(std::move(e));
}

void OverloadMonitor::AddCounter(std::string name, std::function<int64_t()> count) {
  absl::MutexLock l(&mu_);
  counters_.push_back({std::move(name), std::move(count)});
}

std::string OverloadMonitor::Describe(bool worst) const {
  std::vector<std::string> parts;
  for (const StageEntry& s : stages_) {
    const double v = worst ? s.worst : s.last;
    if (!worst && !s.last_behind) continue;
    if (worst && v == 0) continue;
    parts.push_back(absl::StrFormat("%s %g", s.name, std::round(v * 10) / 10));
  }
  return parts.empty() ? "nothing" : absl::StrJoin(parts, ", ");
}

void OverloadMonitor::SampleNow() {
  // Stages are read outside the lock: they take their owners' locks.
  std::vector<std::pair<size_t, Sample>> samples;
  std::vector<Stage> stages;
  {
    absl::MutexLock l(&mu_);
    for (const StageEntry& s : stages_) stages.push_back(s.sample);
  }
  std::vector<Sample> read;
  read.reserve(stages.size());
  for (const Stage& s : stages) read.push_back(s());
  std::vector<int64_t> counts;
  {
    absl::MutexLock l(&mu_);
    for (const CounterEntry& c : counters_) counts.push_back(c.count());
  }

  absl::MutexLock l(&mu_);
  bool any = false;
  for (size_t i = 0; i < stages_.size() && i < read.size(); ++i) {
    StageEntry& s = stages_[i];
    s.last = read[i].value;
    s.last_behind = read[i].behind;
    if (s.gauge != nullptr) s.gauge->Set(read[i].value);
    any = any || read[i].behind;
    if (behind_) s.worst = std::max(s.worst, read[i].value);
  }
  behind_run_ = any ? behind_run_ + 1 : 0;
  on_time_run_ = any ? 0 : on_time_run_ + 1;
  const absl::Time now = clock_->Now();
  if (!behind_ && behind_run_ >= options_.enter_samples) {
    behind_ = true;
    since_ = now;
    for (StageEntry& s : stages_) s.worst = s.last;
    for (size_t i = 0; i < counters_.size() && i < counts.size(); ++i) {
      counters_[i].at_enter = counts[i];
    }
    if (overloaded_ != nullptr) overloaded_->Set(1);
    if (episodes_ != nullptr) episodes_->Increment();
    GNOMON_LOG(WARNING) << "overload: behind the work offered (" << Describe(false)
                        << "); lateness grows, slots later than their misfire threshold follow "
                           "their policy, results wait in the executors' spools";
  } else if (behind_ && on_time_run_ >= options_.leave_samples) {
    behind_ = false;
    std::vector<std::string> counted;
    for (size_t i = 0; i < counters_.size() && i < counts.size(); ++i) {
      counted.push_back(absl::StrCat(counters_[i].name, " ", counts[i] - counters_[i].at_enter));
    }
    if (overloaded_ != nullptr) overloaded_->Set(0);
    GNOMON_LOG(INFO) << "overload: on time again after " << absl::ToInt64Seconds(now - since_)
                     << " s (worst: " << Describe(true) << (counted.empty() ? "" : "; meanwhile ")
                     << absl::StrJoin(counted, ", ") << ")";
  }
}

absl::Status OverloadMonitor::Status() const {
  absl::MutexLock l(&mu_);
  if (!behind_) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("behind since ", absl::FormatTime(since_), " (now: ", Describe(false), ")"));
}

bool OverloadMonitor::behind() const {
  absl::MutexLock l(&mu_);
  return behind_;
}

}  // namespace gnomon
