#include "services/scheduler/job_validation.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/schedule/param_template.h"
#include "services/common/schedule/schedule.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {
namespace {

using checks::Charset;
using checks::CheckCount;
using checks::CheckDuration;
using checks::CheckFinite;
using checks::CheckRange;
using checks::CheckString;
using checks::CheckText;
using checks::FirstError;
using checks::Indexed;
using checks::Invalid;

constexpr int kMaxAddresses = 100;
constexpr int kMaxChildren = 100;
constexpr int kMaxAlarmTargets = 20;
constexpr int kMaxAlarmChannels = 16;
// Catch-up fires one slot per tick; tests and users use large values to mean
// "every missed slot" (a 100 ms job down for a day misses 864,000).
constexpr uint32_t kMaxCatchUp = 1'000'000;

absl::Status CheckAlarm(const v1::AlarmTargets& alarm) {
  RETURN_IF_ERROR(
      FirstError({CheckCount("job.alarm.emails", alarm.emails_size(), kMaxAlarmTargets),
                  CheckCount("job.alarm.webhook_urls", alarm.webhook_urls_size(), kMaxAlarmTargets),
                  CheckCount("job.alarm.channels", alarm.channels_size(), kMaxAlarmChannels),
                  v1::AlarmOn_IsValid(alarm.on()) ? absl::OkStatus()
                                                  : Invalid("job.alarm.on", "not an AlarmOn value"),
                  CheckDuration("job.alarm.silence", alarm.silence(), absl::ZeroDuration(),
                                absl::Hours(24))}));
  for (int i = 0; i < alarm.channels_size(); ++i) {
    RETURN_IF_ERROR(
        CheckString(Indexed("job.alarm.channels", i), alarm.channels(i), 64, Charset::kName, 1));
  }
  for (int i = 0; i < alarm.emails_size(); ++i) {
    const std::string field = Indexed("job.alarm.emails", i);
    const std::string& e = alarm.emails(i);
    RETURN_IF_ERROR(CheckString(field, e, 254, Charset::kToken, 1));
    if (e.find('@') == std::string::npos)
      return Invalid(field, absl::StrCat(checks::Prefix(e), " is not an email address"));
  }
  for (int i = 0; i < alarm.webhook_urls_size(); ++i) {
    const std::string field = Indexed("job.alarm.webhook_urls", i);
    const std::string& u = alarm.webhook_urls(i);
    RETURN_IF_ERROR(CheckString(field, u, 2048, Charset::kToken, 1));
    if (!absl::StartsWith(u, "http://") && !absl::StartsWith(u, "https://")) {
      return Invalid(field, absl::StrCat(checks::Prefix(u), " is not an http(s) URL"));
    }
  }
  return absl::OkStatus();
}

// start_time before end_time; max_fires only where the schedule counts slots.
absl::Status CheckLifetime(const v1::Job& job) {
  RETURN_IF_ERROR(
      FirstError({job.has_start_time() ? checks::CheckTimestamp("job.start_time", job.start_time())
                                       : absl::OkStatus(),
                  job.has_end_time() ? checks::CheckTimestamp("job.end_time", job.end_time())
                                     : absl::OkStatus(),
                  CheckRange("job.max_fires", job.max_fires(), 0, 1000000)}));
  using google::protobuf::util::TimeUtil;
  if (job.has_start_time() && job.has_end_time() &&
      TimeUtil::TimestampToMilliseconds(job.end_time()) <=
          TimeUtil::TimestampToMilliseconds(job.start_time())) {
    return Invalid("job.end_time", "must be after start_time");
  }
  if (job.max_fires() > 0 && !job.schedule().has_cron() && !job.schedule().has_fix_rate()) {
    return Invalid("job.max_fires", "needs a cron or fixed-rate schedule");
  }
  return absl::OkStatus();
}

// 0 (none), or 1 s to 7 days.
absl::Status CheckDeadline(const v1::Job& job) {
  RETURN_IF_ERROR(
      CheckDuration("job.deadline", job.deadline(), absl::ZeroDuration(), absl::Hours(24 * 7)));
  const int64_t ms = google::protobuf::util::TimeUtil::DurationToMilliseconds(job.deadline());
  if (ms > 0 && ms < 1000) return Invalid("job.deadline", "at least 1s (0: no deadline)");
  return absl::OkStatus();
}

absl::Status CheckTask(const v1::Job& job, const JobLimits& limits) {
  switch (job.task_case()) {
    case v1::Job::kBean:
      return CheckString("job.bean.handler", job.bean().handler(), 128, Charset::kToken, 1);
    case v1::Job::kScript:
      if (job.script().language() == v1::SCRIPT_LANGUAGE_UNSPECIFIED ||
          !v1::ScriptLanguage_IsValid(job.script().language())) {
        return Invalid("job.script.language", "must be SHELL, PYTHON, NODEJS or POWERSHELL");
      }
      return FirstError(
          {CheckString("job.script.source", job.script().source(), limits.max_script_bytes,
                       Charset::kBytes, 1),
           CheckRange("job.script.version", job.script().version(), 0, INT32_MAX),
           CheckText("job.script.remark", job.script().remark(), kMaxScriptRemarkBytes)});
    default:
      return Invalid("job.task", "set bean (a handler name) or script");
  }
}

absl::Status CheckGroupFields(const v1::Group& group, size_t min_app_name) {
  RETURN_IF_ERROR(FirstError({
      CheckRange("group.id", group.id(), 0, INT64_MAX),
      CheckString("group.app_name", group.app_name(), 64, Charset::kName, min_app_name),
      CheckText("group.title", group.title(), 256),
      CheckString("group.access_token", group.access_token(), 64, Charset::kToken),
      checks::CheckOutputTimestamp("group.create_time", group.has_create_time(),
                                   group.create_time()),
      checks::CheckOutputTimestamp("group.update_time", group.has_update_time(),
                                   group.update_time()),
      CheckString("group.previous_access_token", group.previous_access_token(), 64,
                  Charset::kToken),
      checks::CheckOutputTimestamp("group.previous_token_expire_time",
                                   group.has_previous_token_expire_time(),
                                   group.previous_token_expire_time()),
  }));
  if (!group.has_manual()) return absl::OkStatus();
  const auto& addresses = group.manual().addresses();
  RETURN_IF_ERROR(CheckCount("group.manual.addresses", addresses.size(), kMaxAddresses, 1));
  for (int i = 0; i < addresses.size(); ++i) {
    RETURN_IF_ERROR(checks::CheckExecutorName(Indexed("group.manual.addresses", i), addresses[i]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateJobFields(const v1::Job& job, const JobLimits& limits) {
  const v1::RetryPolicy& retry = job.retry();
  return FirstError({
      CheckRange("job.id", job.id(), 0, INT64_MAX),
      CheckRange("job.group_id", job.group_id(), 1, INT64_MAX),
      CheckString("job.name", job.name(), 128, Charset::kName),
      CheckText("job.description", job.description(), 1024),
      CheckText("job.author", job.author(), 256),
      CheckRange("job.pause_after_failures", job.pause_after_failures(), 0, 1000),
      CheckString("job.pool", job.pool(), 64, Charset::kName),
      CheckRange("job.priority", job.priority(), -1000, 1000),
      CheckText("job.pause_reason", job.pause_reason(), 1024),  // Output only.
      CheckTask(job, limits),
      ValidateScheduleFields("job.schedule", job.schedule()),
      CheckParams("job.params", job.params(), limits),
      v1::RouteStrategy_IsValid(job.route_strategy())
          ? absl::OkStatus()
          : Invalid("job.route_strategy", "unknown value"),
      v1::BlockStrategy_IsValid(job.block_strategy())
          ? absl::OkStatus()
          : Invalid("job.block_strategy", "unknown value"),
      v1::MisfirePolicy_IsValid(job.misfire().policy())
          ? absl::OkStatus()
          : Invalid("job.misfire.policy", "unknown value"),
      v1::ChildTriggerMode_IsValid(job.child_trigger_mode())
          ? absl::OkStatus()
          : Invalid("job.child_trigger_mode", "unknown value"),
      CheckDuration("job.misfire.threshold", job.misfire().threshold(), absl::ZeroDuration(),
                    absl::Hours(24)),
      CheckRange("job.misfire.max_catch_up", job.misfire().max_catch_up(), 0, kMaxCatchUp),
      CheckDuration("job.timeout", job.timeout(), absl::ZeroDuration(), absl::Hours(24 * 7)),
      CheckDeadline(job),
      CheckLifetime(job),
      CheckRange("job.retry.max_retries", retry.max_retries(), 0, limits.max_retries),
      CheckDuration("job.retry.initial_delay", retry.initial_delay(), absl::ZeroDuration(),
                    absl::Hours(24)),
      CheckDuration("job.retry.max_delay", retry.max_delay(), absl::ZeroDuration(),
                    absl::Hours(24 * 7)),
      CheckFinite("job.retry.multiplier", retry.multiplier(), 0, 100),
      CheckCount("job.child_job_ids", job.child_job_ids_size(), kMaxChildren),
      CheckAlarm(job.alarm()),
      v1::JobState_IsValid(job.state()) ? absl::OkStatus() : Invalid("job.state", "unknown value"),
      checks::CheckOutputTimestamp("job.next_fire_time", job.has_next_fire_time(),
                                   job.next_fire_time()),
      checks::CheckOutputTimestamp("job.create_time", job.has_create_time(), job.create_time()),
      checks::CheckOutputTimestamp("job.update_time", job.has_update_time(), job.update_time()),
      checks::CheckOutputTimestamp("job.last_fire_time", job.has_last_fire_time(),
                                   job.last_fire_time()),
      // Output only, ignored; an echoed value is still well-formed.
      CheckRange("job.last_run.run_id", job.last_run().run_id(), 0, INT64_MAX),
      v1::TriggerType_IsValid(job.last_run().trigger_type())
          ? absl::OkStatus()
          : Invalid("job.last_run.trigger_type", "unknown value"),
      v1::RunStatus_IsValid(job.last_run().status())
          ? absl::OkStatus()
          : Invalid("job.last_run.status", "unknown value"),
      checks::CheckOutputTimestamp("job.last_run.trigger_time", job.last_run().has_trigger_time(),
                                   job.last_run().trigger_time()),
      checks::CheckOutputTimestamp("job.last_run.end_time", job.last_run().has_end_time(),
                                   job.last_run().end_time()),
  });
}

namespace {

// Walks the child graph from `job`'s children; a path back to job.id() is a cycle.
absl::Status CheckChildren(const v1::Job& job, store::JobStore* store) {
  absl::flat_hash_set<int64_t> seen;
  std::vector<int64_t> stack;
  for (int i = 0; i < job.child_job_ids_size(); ++i) {
    const int64_t c = job.child_job_ids(i);
    const std::string field = Indexed("job.child_job_ids", i);
    if (c <= 0) return Invalid(field, absl::StrCat(c, " is not a job id"));
    if (job.id() != 0 && c == job.id()) return Invalid(field, "a job cannot be its own child");
    absl::StatusOr<v1::Job> child = store->GetJob(c);
    if (absl::IsNotFound(child.status())) {
      return absl::NotFoundError(absl::StrCat(field, ": job ", c, " does not exist"));
    }
    RETURN_IF_ERROR(child);
    stack.push_back(c);
  }
  if (job.id() == 0) return absl::OkStatus();  // A new job cannot be anyone's child yet.
  while (!stack.empty()) {
    int64_t id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    absl::StatusOr<v1::Job> j = store->GetJob(id);
    if (absl::IsNotFound(j.status())) continue;
    RETURN_IF_ERROR(j);
    for (int64_t c : j->child_job_ids()) {
      if (c == job.id()) {
        return Invalid("job.child_job_ids", absl::StrCat("job ", id, " already leads back to job ",
                                                         job.id(), " (a cycle)"));
      }
      stack.push_back(c);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateGroup(const v1::Group& group) { return CheckGroupFields(group, 1); }

absl::Status ValidateGroupUpdate(const v1::Group& group) { return CheckGroupFields(group, 0); }

absl::Status CheckParams(std::string_view field_name, const std::string& params,
                         const JobLimits& limits) {
  const std::string field(field_name);
  RETURN_IF_ERROR(CheckString(field, params, limits.max_params_bytes, Charset::kBytes));
  return schedule::ValidateParams(field, params);
}

absl::Status ValidateScheduleFields(std::string_view field_name, const v1::Schedule& schedule) {
  const std::string field(field_name);
  if (schedule.has_cron()) {
    const std::string cron = field + ".cron";
    RETURN_IF_ERROR(FirstError({CheckString(absl::StrCat(cron, ".expression"),
                                            schedule.cron().expression(), 256, Charset::kText, 1),
                                CheckString(absl::StrCat(cron, ".time_zone"),
                                            schedule.cron().time_zone(), 64, Charset::kToken)}));
  }
  RETURN_IF_ERROR(
      FirstError({CheckString(field + ".calendar", schedule.calendar(), 64, Charset::kName),
                  CheckDuration(field + ".jitter", schedule.jitter(), absl::ZeroDuration(),
                                schedule::kMaxJitter)}));
  // The schedule library names its fields "schedule.<...>".
  if (absl::Status s = schedule::ValidateSchedule(schedule); !s.ok()) {
    absl::string_view message = s.message();
    absl::ConsumePrefix(&message, "schedule");
    return absl::InvalidArgumentError(absl::StrCat(field, message));
  }
  return absl::OkStatus();
}

namespace {

// "job-<id>" names an unnamed job; no other job may take it.
absl::Status CheckReservedName(const v1::Job& job) {
  absl::string_view digits(job.name());
  int64_t id = 0;
  if (!absl::ConsumePrefix(&digits, "job-") || !absl::SimpleAtoi(digits, &id) ||
      digits.find_first_not_of("0123456789") != absl::string_view::npos) {
    return absl::OkStatus();
  }
  if (job.id() != 0 && id == job.id() && digits == absl::StrCat(id)) return absl::OkStatus();
  return Invalid("job.name",
                 "names of the form job-<number> are reserved for jobs created without a name");
}

}  // namespace

absl::Status ValidateJob(const v1::Job& job, const JobLimits& limits, store::JobStore* store) {
  RETURN_IF_ERROR(ValidateJobFields(job, limits));
  RETURN_IF_ERROR(CheckReservedName(job));
  absl::StatusOr<v1::Group> group = store->GetGroup(job.group_id());
  if (absl::IsNotFound(group.status())) {
    return absl::NotFoundError(
        absl::StrCat("job.group_id: group ", job.group_id(), " does not exist"));
  }
  RETURN_IF_ERROR(group);
  return CheckChildren(job, store);
}

}  // namespace gnomon::scheduler
