#include "services/scheduler/alarm/alarm_sender.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/client/backoff.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler::alarm {
namespace {

// Drops (Raise after Stop) are logged at 1, 2, 4, ... and then every 1000th,
// so a flood of them does not flood the log too.
bool ShouldLogDrop(int64_t dropped) {
  return (dropped & (dropped - 1)) == 0 || dropped % 1000 == 0;
}

absl::Time FromTimestamp(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  google::protobuf::Timestamp ts;
  const int64_t seconds = absl::ToUnixSeconds(t);
  ts.set_seconds(seconds);
  ts.set_nanos(static_cast<int32_t>((t - absl::FromUnixSeconds(seconds)) / absl::Nanoseconds(1)));
  return ts;
}

}  // namespace

AlarmSender::AlarmSender(std::vector<std::unique_ptr<AlarmChannel>> channels,
                         AlarmSenderOptions options, AlarmStatusCallback on_status)
    : channels_(std::move(channels)),
      options_(options),
      clock_(options.clock != nullptr ? options.clock : &RealClock()),
      on_status_(std::move(on_status)),
      rng_(std::random_device{}()) {}

AlarmSender::~AlarmSender() { Stop(); }

void AlarmSender::Start() {
  absl::MutexLock start_stop(&start_stop_mu_);
  {
    absl::MutexLock l(&mu_);
    if (started_ || stopping_) return;
    started_ = true;
  }
  worker_ = std::thread([this] { Loop(); });
}

bool AlarmSender::Raise(Alarm alarm) {
  const int64_t run_id = alarm.run.id();
  int64_t dropped = 0;
  {
    absl::MutexLock l(&mu_);
    ++counters_.raised;
    if (!stopping_) {
      const int64_t key = KeyOf(alarm);
      const bool room = pending_.size() < options_.queue_capacity;
      if (room && !queued_jobs_.contains(key) && !summaries_.contains(key) &&
          !silenced_until_.contains(key)) {
        Enqueue(std::move(alarm));
        return true;
      }
      if (!room && !full_logged_) {
        full_logged_ = true;
        GNOMON_LOG(WARNING) << "alarm: queue full (" << pending_.size()
                            << " alarms not yet delivered); further alarms are folded into one "
                               "summary per job until there is room";
      }
      Fold(std::move(alarm));
      ++counters_.aggregated;
      return true;
    }
    dropped = ++counters_.dropped;
  }
  if (ShouldLogDrop(dropped)) {
    GNOMON_LOG(WARNING) << "alarm: dropped the alarm for run " << run_id << " (sender stopped); "
                        << dropped << " dropped so far";
  }
  return false;
}

int64_t AlarmSender::KeyOf(const Alarm& alarm) {
  return alarm.job.id() * 3 + static_cast<int64_t>(alarm.kind);
}

void AlarmSender::Enqueue(Alarm alarm) {
  const uint64_t id = next_id_++;
  queued_jobs_.insert(KeyOf(alarm));
  pending_[id].alarm = std::move(alarm);
  incoming_.push_back(id);
}

void AlarmSender::Fold(Alarm alarm) {
  const int64_t key = KeyOf(alarm);
  auto [it, inserted] = summaries_.try_emplace(key);
  Summary& s = it->second;
  const absl::Time ended =
      alarm.run.has_end_time() ? FromTimestamp(alarm.run.end_time()) : clock_->Now();
  s.since = std::min(s.since, ended);
  s.runs += std::max<int64_t>(1, alarm.failed_runs);
  s.latest = std::move(alarm);
  // A job with an alarm queued gets its summary in line when that finishes.
  if (inserted && !queued_jobs_.contains(key) && !silenced_until_.contains(key)) {
    summaries_ready_.push_back(key);
  }
}

void AlarmSender::QueueSummaries() {
  while (!summaries_ready_.empty() && pending_.size() < options_.queue_capacity) {
    auto node = summaries_.extract(summaries_ready_.front());
    summaries_ready_.pop_front();
    Summary& s = node.mapped();
    Alarm alarm = std::move(s.latest);
    alarm.failed_runs = s.runs;
    alarm.failed_since = s.runs > 1 ? ToTimestamp(s.since) : google::protobuf::Timestamp();
    ++counters_.summaries;
    Enqueue(std::move(alarm));
  }
  if (full_logged_ && summaries_ready_.empty() && pending_.size() < options_.queue_capacity) {
    full_logged_ = false;
    GNOMON_LOG(INFO) << "alarm: queue has room again; " << counters_.aggregated
                     << " alarms folded into summaries so far";
  }
}

void AlarmSender::Stop() {
  absl::MutexLock start_stop(&start_stop_mu_);
  {
    absl::MutexLock l(&mu_);
    stopping_ = true;
  }
  if (worker_.joinable()) worker_.join();
  size_t queued = 0;
  size_t summaries = 0;
  int64_t abandoned_runs = 0;
  std::vector<std::pair<int64_t, std::string>> reports;
  {
    absl::MutexLock l(&mu_);
    reports.swap(to_report_);
    queued = pending_.size();
    summaries = summaries_.size();
    for (const auto& [id, p] : pending_) abandoned_runs += p.alarm.failed_runs;
    for (const auto& [job_id, s] : summaries_) abandoned_runs += s.runs;
    counters_.abandoned += abandoned_runs;
    pending_.clear();
    queued_jobs_.clear();
    summaries_.clear();
    summaries_ready_.clear();
    silenced_until_.clear();
    silence_ends_.clear();
    incoming_.clear();
    ready_.clear();
    waiting_.clear();
  }
  // Alarms that finished just before the worker stopped still get reported.
  for (const auto& [run_id, status] : reports) {
    if (on_status_) on_status_(run_id, status);
  }
  if (!reports.empty()) {
    absl::MutexLock l(&mu_);
    counters_.finished += static_cast<int64_t>(reports.size());
  }
  if (abandoned_runs > 0) {
    GNOMON_LOG(WARNING) << "alarm: stopped with the alarms of " << abandoned_runs
                        << " failed run(s) not delivered: " << queued << " alarm(s) queued, "
                        << summaries << " job summary(ies) not yet queued";
  }
}

AlarmCounters AlarmSender::counters() const {
  absl::MutexLock l(&mu_);
  return counters_;
}

AlarmBacklog AlarmSender::backlog() const {
  absl::MutexLock l(&mu_);
  AlarmBacklog b;
  b.queued = pending_.size();
  b.summaries = summaries_.size();
  for (const auto& [job_id, s] : summaries_) b.summarized_runs += s.runs;
  return b;
}

bool AlarmSender::AwaitCounters(const std::function<bool(const AlarmCounters&)>& pred,
                                absl::Duration timeout) const {
  absl::MutexLock l(&mu_);
  auto holds = [this, &pred]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return pred(counters_); };
  return mu_.AwaitWithTimeout(absl::Condition(&holds), timeout);
}

bool AlarmSender::HasWork() const {
  return stopping_ || !incoming_.empty() || !ready_.empty() || !to_report_.empty();
}

void AlarmSender::Loop() {
  absl::MutexLock l(&mu_);
  while (!stopping_) {
    if (!to_report_.empty()) {
      std::vector<std::pair<int64_t, std::string>> reports;
      reports.swap(to_report_);
      mu_.Unlock();
      for (const auto& [run_id, status] : reports) {
        if (on_status_) on_status_(run_id, status);
      }
      mu_.Lock();
      counters_.finished += static_cast<int64_t>(reports.size());
      continue;
    }
    ExpandIncoming();
    PromoteDue();
    EndSilences();
    if (!ready_.empty()) {
      Delivery d = ready_.front();
      ready_.pop_front();
      const Alarm* alarm = &pending_.at(d.alarm_id).alarm;
      AlarmChannel* channel = channels_[d.channel].get();
      // Raise and this thread only insert into pending_ (a std::map: no
      // element moves) and only this thread erases, so `alarm` stays valid
      // while the lock is released.
      mu_.Unlock();
      absl::Status status = channel->Send(*alarm);
      mu_.Lock();
      RecordAttempt(d, status);
      continue;
    }
    absl::Time deadline = waiting_.empty() ? absl::InfiniteFuture() : waiting_.begin()->first;
    if (!silence_ends_.empty()) deadline = std::min(deadline, silence_ends_.begin()->first);
    clock_->AwaitWithDeadline(&mu_, absl::Condition(this, &AlarmSender::HasWork), deadline);
  }
}

void AlarmSender::ExpandIncoming() {
  while (!incoming_.empty()) {
    uint64_t id = incoming_.front();
    incoming_.pop_front();
    Pending& p = pending_.at(id);
    p.outcomes.assign(channels_.size(), Outcome::kUnwanted);
    p.errors.assign(channels_.size(), "");
    for (size_t i = 0; i < channels_.size(); ++i) {
      if (!channels_[i]->Wants(p.alarm.job)) continue;
      p.outcomes[i] = Outcome::kPending;
      ++p.remaining;
      ready_.push_back({id, i, 0});
    }
    MaybeFinish(id);
  }
}

void AlarmSender::EndSilences() {
  const absl::Time now = clock_->Now();
  bool ended = false;
  while (!silence_ends_.empty() && silence_ends_.begin()->first <= now) {
    const int64_t key = silence_ends_.begin()->second;
    silence_ends_.erase(silence_ends_.begin());
    silenced_until_.erase(key);
    if (summaries_.contains(key) && !queued_jobs_.contains(key)) {
      summaries_ready_.push_back(key);
      ended = true;
    }
  }
  if (ended) QueueSummaries();
}

void AlarmSender::PromoteDue() {
  absl::Time now = clock_->Now();
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    ready_.push_back(waiting_.begin()->second);
    waiting_.erase(waiting_.begin());
  }
}

absl::Duration AlarmSender::RetryDelay(int attempts) {
  // The delay of the attempts-th retry, with a fresh seed per retry so one
  // generator serves every delivery.
  BackoffOptions backoff_options;
  backoff_options.initial = options_.initial_backoff;
  backoff_options.max = options_.max_backoff;
  Backoff backoff(backoff_options, rng_());
  absl::Duration delay;
  for (int i = 0; i < attempts; ++i) delay = backoff.Next();
  return delay;
}

void AlarmSender::RecordAttempt(Delivery d, const absl::Status& status) {
  Pending& p = pending_.at(d.alarm_id);
  const std::string& name = channels_[d.channel]->name();
  ++d.attempts;
  if (status.ok()) {
    p.outcomes[d.channel] = Outcome::kSent;
    --p.remaining;
    ++counters_.sent;
    ++counters_.sent_by_channel[name];
    MaybeFinish(d.alarm_id);
    return;
  }
  bool permanent = absl::IsInvalidArgument(status);
  if (!permanent && d.attempts < options_.max_attempts) {
    absl::Duration delay = RetryDelay(d.attempts);
    GNOMON_LOG(INFO) << "alarm: run " << p.alarm.run.id() << ": " << name << " attempt "
                     << d.attempts << " failed (" << status.message() << "); retrying in " << delay;
    waiting_.emplace(clock_->Now() + delay, d);
    ++counters_.retries;
    return;
  }
  p.outcomes[d.channel] = Outcome::kFailed;
  p.errors[d.channel] = absl::StrCat(name, " ", status.message(), " after ", d.attempts,
                                     d.attempts == 1 ? " attempt" : " attempts");
  --p.remaining;
  ++counters_.failed;
  ++counters_.failed_by_channel[name];
  GNOMON_LOG(WARNING) << "alarm: run " << p.alarm.run.id() << ": " << p.errors[d.channel];
  MaybeFinish(d.alarm_id);
}

void AlarmSender::MaybeFinish(uint64_t alarm_id) {
  auto it = pending_.find(alarm_id);
  if (it == pending_.end() || it->second.remaining > 0) return;
  to_report_.emplace_back(it->second.alarm.run.id(), StatusLine(it->second));
  const int64_t key = KeyOf(it->second.alarm);
  const absl::Duration silence = absl::Seconds(it->second.alarm.job.alarm().silence().seconds()) +
                                 absl::Nanoseconds(it->second.alarm.job.alarm().silence().nanos());
  pending_.erase(it);
  queued_jobs_.erase(key);
  if (silence > absl::ZeroDuration()) {
    // Its silence: what comes meanwhile is folded, and goes out at its end.
    const absl::Time until = clock_->Now() + silence;
    silenced_until_[key] = until;
    silence_ends_.emplace(until, key);
  } else if (summaries_.contains(key)) {
    // The job's summary of that kind gets in line (at once unless the queue
    // is full).
    summaries_ready_.push_back(key);
  }
  QueueSummaries();
}

std::string AlarmSender::StatusLine(const Pending& p) const {
  std::vector<std::string> sent;
  std::vector<std::string> failed;
  for (size_t i = 0; i < channels_.size(); ++i) {
    if (p.outcomes[i] == Outcome::kSent) sent.push_back(channels_[i]->name());
    if (p.outcomes[i] == Outcome::kFailed) failed.push_back(p.errors[i]);
  }
  std::string line;
  if (sent.empty() && failed.empty()) {
    line = "not sent: no alarm targets";
  } else {
    std::vector<std::string> parts;
    if (!sent.empty()) parts.push_back(absl::StrCat("sent: ", absl::StrJoin(sent, ", ")));
    if (!failed.empty()) parts.push_back(absl::StrCat("failed: ", absl::StrJoin(failed, "; ")));
    line = absl::StrJoin(parts, "; ");
  }
  if (p.alarm.failed_runs > 1) absl::StrAppend(&line, " (for ", p.alarm.failed_runs, " runs)");
  return line;
}

}  // namespace gnomon::scheduler::alarm
