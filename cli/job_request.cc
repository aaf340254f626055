// Job flags (job create / job update) applied to a v1::Job.
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli/format.h"
#include "cli/names.h"
#include "cli/requests.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

// Counts how many of `names` were given.
int CountGiven(const ParsedArgs& args, std::initializer_list<const char*> names) {
  int n = 0;
  for (const char* name : names) n += args.Has(name) ? 1 : 0;
  return n;
}

// Sets the duration field `mutable_field()` returns, only if flag `name` was
// given (calling a mutable_ accessor would create an empty message).
template <typename MutableField>
absl::Status SetDuration(const ParsedArgs& args, const char* name, MutableField mutable_field) {
  auto text = args.Get(name);
  if (!text) return absl::OkStatus();
  ASSIGN_OR_RETURN(absl::Duration d, ParseDurationFlag(absl::StrCat("--", name), *text));
  *mutable_field() = ToDurationProto(d);
  return absl::OkStatus();
}

// The --script-* flags and the language each names.
struct ScriptFlag {
  const char* flag;
  v1::ScriptLanguage language;
};
constexpr ScriptFlag kScriptFlags[] = {
    {"script-shell", v1::SCRIPT_LANGUAGE_SHELL},
    {"script-python", v1::SCRIPT_LANGUAGE_PYTHON},
    {"script-node", v1::SCRIPT_LANGUAGE_NODEJS},
    {"script-powershell", v1::SCRIPT_LANGUAGE_POWERSHELL},
};

absl::Status ApplyTask(const ParsedArgs& args, bool creating, const FileReader& read_file,
                       v1::Job* job) {
  const int tasks = CountGiven(
      args, {"handler", "script-shell", "script-python", "script-node", "script-powershell"});
  if (tasks > 1) {
    return absl::InvalidArgumentError(
        "give one of --handler, --script-shell, --script-python, "
        "--script-node, --script-powershell");
  }
  if (tasks == 0) {
    if (creating) {
      return absl::InvalidArgumentError(
          "a job needs --handler NAME or --script-shell|--script-python|"
          "--script-node|--script-powershell FILE");
    }
    if (args.Has("remark")) {
      return absl::InvalidArgumentError(
          "--remark goes with a new script (--script-shell FILE, ...)");
    }
    return absl::OkStatus();
  }
  if (auto handler = args.Get("handler")) {
    if (handler->empty()) return absl::InvalidArgumentError("--handler is empty");
    if (args.Has("remark")) {
      return absl::InvalidArgumentError("--remark is for script jobs");
    }
    job->mutable_bean()->set_handler(*handler);
    return absl::OkStatus();
  }
  for (const ScriptFlag& f : kScriptFlags) {
    auto path = args.Get(f.flag);
    if (!path) continue;
    ASSIGN_OR_RETURN(std::string source, read_file(*path));
    // The server numbers versions: whatever is sent here is ignored.
    v1::ScriptTask* script = job->mutable_script();
    script->set_language(f.language);
    script->set_source(std::move(source));
    if (auto remark = args.Get("remark")) script->set_remark(*remark);
  }
  return absl::OkStatus();
}

// --calendar NAME ('' for none) and --jitter DUR (0 for none), after the
// schedule's kind: --manual clears both, and neither goes with a schedule
// that never fires by itself. The server looks the calendar up.
absl::Status ApplyCalendarAndJitter(const ParsedArgs& args, v1::Schedule* schedule) {
  if (auto name = args.Get("calendar")) schedule->set_calendar(*name);
  if (auto text = args.Get("jitter")) {
    ASSIGN_OR_RETURN(absl::Duration d, ParseDurationFlag("--jitter", *text));
    if (d == absl::ZeroDuration()) {
      schedule->clear_jitter();
    } else {
      *schedule->mutable_jitter() = ToDurationProto(d);
    }
  }
  if (schedule->kind_case() != v1::Schedule::KIND_NOT_SET) return absl::OkStatus();
  if (args.Has("calendar") && !schedule->calendar().empty()) {
    return absl::InvalidArgumentError(
        "--calendar goes with a schedule that fires: --cron, --every or --delay");
  }
  if (args.Has("jitter") && schedule->has_jitter()) {
    return absl::InvalidArgumentError(
        "--jitter goes with a schedule that fires: --cron, --every or --delay");
  }
  return absl::OkStatus();
}

absl::Status ApplySchedule(const ParsedArgs& args, bool creating, v1::Job* job) {
  const int kinds = CountGiven(args, {"cron", "every", "delay", "manual"});
  if (kinds > 1) {
    return absl::InvalidArgumentError("give one of --cron, --every, --delay, --manual");
  }
  if (kinds == 0 && creating) {
    return absl::InvalidArgumentError(
        "a job needs a schedule: --cron 'EXPR', --every 2s, --delay 10s or "
        "--manual");
  }
  if (kinds == 0 && !args.Has("tz") && !args.Has("calendar") && !args.Has("jitter")) {
    return absl::OkStatus();
  }
  v1::Schedule* schedule = job->mutable_schedule();
  if (auto expr = args.Get("cron")) {
    // Keep the zone of an existing cron schedule unless --tz changes it.
    std::string zone = schedule->has_cron() ? schedule->cron().time_zone() : std::string();
    schedule->mutable_cron()->set_expression(*expr);
    schedule->mutable_cron()->set_time_zone(zone);
  } else if (args.Has("every")) {
    ASSIGN_OR_RETURN(absl::Duration d, ParseDurationFlag("--every", *args.Get("every")));
    *schedule->mutable_fix_rate() = ToDurationProto(d);
  } else if (args.Has("delay")) {
    ASSIGN_OR_RETURN(absl::Duration d, ParseDurationFlag("--delay", *args.Get("delay")));
    *schedule->mutable_fix_delay() = ToDurationProto(d);
  } else if (args.Has("manual")) {
    schedule->Clear();
  }
  if (auto zone = args.Get("tz")) {
    if (!schedule->has_cron()) {
      return absl::InvalidArgumentError("--tz applies to cron schedules only");
    }
    schedule->mutable_cron()->set_time_zone(*zone);
  }
  return ApplyCalendarAndJitter(args, schedule);
}

absl::Status ApplyRetry(const ParsedArgs& args, v1::Job* job) {
  if (CountGiven(args, {"retries", "retry-delay", "retry-max-delay", "retry-multiplier"}) == 0) {
    return absl::OkStatus();
  }
  v1::RetryPolicy* retry = job->mutable_retry();
  if (auto n = args.Get("retries")) {
    ASSIGN_OR_RETURN(int64_t count, ParseCount("--retries", *n));
    retry->set_max_retries(static_cast<uint32_t>(count));
  }
  RETURN_IF_ERROR(
      SetDuration(args, "retry-delay", [retry] { return retry->mutable_initial_delay(); }));
  RETURN_IF_ERROR(
      SetDuration(args, "retry-max-delay", [retry] { return retry->mutable_max_delay(); }));
  if (auto m = args.Get("retry-multiplier")) {
    double multiplier = 0;
    if (!absl::SimpleAtod(*m, &multiplier) || !(multiplier >= 1.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--retry-multiplier must be a number of at least 1, not '", *m, "'"));
    }
    retry->set_multiplier(multiplier);
  }
  return absl::OkStatus();
}

// --pause-after-failures N: the server checks the range (0..1000); here only
// that N fits the field, so a huge N is not sent as a wrapped-around count.
absl::Status ApplyPause(const ParsedArgs& args, v1::Job* job) {
  auto n = args.Get("pause-after-failures");
  if (!n) return absl::OkStatus();
  ASSIGN_OR_RETURN(int64_t count, ParseCount("--pause-after-failures", *n));
  if (count > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("--pause-after-failures is too large: ", *n));
  }
  job->set_pause_after_failures(static_cast<uint32_t>(count));
  return absl::OkStatus();
}

// --deadline DUR: 0 clears it (no deadline, as unset); the server checks the
// range (1 s to 7 days).
absl::Status ApplyDeadline(const ParsedArgs& args, v1::Job* job) {
  auto text = args.Get("deadline");
  if (!text) return absl::OkStatus();
  ASSIGN_OR_RETURN(absl::Duration d, ParseDurationFlag("--deadline", *text));
  if (d == absl::ZeroDuration()) {
    job->clear_deadline();
  } else {
    *job->mutable_deadline() = ToDurationProto(d);
  }
  return absl::OkStatus();
}

// Sets the timestamp field `mutable_field()` returns from flag `name`, an
// RFC 3339 time, only if the flag was given; '' clears it (`clear_field()`).
template <typename MutableField, typename ClearField>
absl::Status SetTimeOrClear(const ParsedArgs& args, const char* name, MutableField mutable_field,
                            ClearField clear_field) {
  auto text = args.Get(name);
  if (!text) return absl::OkStatus();
  if (text->empty()) {
    clear_field();
    return absl::OkStatus();
  }
  const std::string flag = absl::StrCat("--", name);
  ASSIGN_OR_RETURN(absl::Time t, ParseTimeFlag(flag, *text));
  // absl::ParseTime also takes "infinite-future" and "infinite-past".
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast()) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " must be an RFC 3339 time such as 2024-05-01T12:00:00Z, not '", *text, "'"));
  }
  *mutable_field() = ToTimestamp(t);
  return absl::OkStatus();
}

// --start-time / --end-time TIME ('' clears either) and --max-fires N (0
// clears it). The server checks the rest: years 1970..9999, the end after
// the start, max_fires 0..1000000 and only with a cron or fixed-rate
// schedule; here only that N fits the field.
absl::Status ApplyLifetime(const ParsedArgs& args, v1::Job* job) {
  RETURN_IF_ERROR(SetTimeOrClear(
      args, "start-time", [job] { return job->mutable_start_time(); },
      [job] { job->clear_start_time(); }));
  RETURN_IF_ERROR(SetTimeOrClear(
      args, "end-time", [job] { return job->mutable_end_time(); },
      [job] { job->clear_end_time(); }));
  auto n = args.Get("max-fires");
  if (!n) return absl::OkStatus();
  ASSIGN_OR_RETURN(int64_t count, ParseCount("--max-fires", *n));
  if (count > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat("--max-fires is too large: ", *n));
  }
  job->set_max_fires(static_cast<uint32_t>(count));
  return absl::OkStatus();
}

absl::Status ApplyMisfire(const ParsedArgs& args, v1::Job* job) {
  if (CountGiven(args, {"misfire", "max-catch-up", "misfire-threshold"}) == 0) {
    return absl::OkStatus();
  }
  v1::Misfire* misfire = job->mutable_misfire();
  if (auto word = args.Get("misfire")) {
    ASSIGN_OR_RETURN(v1::MisfirePolicy policy, ParseMisfire(*word));
    misfire->set_policy(policy);
  }
  if (auto n = args.Get("max-catch-up")) {
    ASSIGN_OR_RETURN(int64_t count, ParseCount("--max-catch-up", *n));
    misfire->set_max_catch_up(static_cast<uint32_t>(count));
  }
  return SetDuration(args, "misfire-threshold", [misfire] { return misfire->mutable_threshold(); });
}

absl::Status ApplyChildren(const ParsedArgs& args, v1::Job* job) {
  if (args.Has("children")) {
    job->clear_child_job_ids();
    for (const std::string& item : SplitList(args.GetAll("children"))) {
      ASSIGN_OR_RETURN(int64_t id, ParseId("--children", item));
      job->add_child_job_ids(id);
    }
  }
  if (args.Has("children-after-all-shards") && args.Has("children-after-each")) {
    return absl::InvalidArgumentError(
        "give --children-after-all-shards or --children-after-each, not both");
  }
  if (args.Has("children-after-all-shards")) {
    job->set_child_trigger_mode(v1::CHILD_TRIGGER_MODE_ALL_SHARDS_SUCCEEDED);
  } else if (args.Has("children-after-each")) {
    job->set_child_trigger_mode(v1::CHILD_TRIGGER_MODE_EACH_SUCCESS);
  }
  return absl::OkStatus();
}

// The --alarm-* flags; the server looks the channels up.
absl::Status ApplyAlarm(const ParsedArgs& args, v1::Job* job) {
  if (CountGiven(args, {"alarm-email", "alarm-webhook", "alarm-channel", "alarm-on",
                        "alarm-silence"}) == 0) {
    return absl::OkStatus();
  }
  v1::AlarmTargets* alarm = job->mutable_alarm();
  ReplaceListFlag(args, "alarm-email", alarm->mutable_emails());
  ReplaceListFlag(args, "alarm-webhook", alarm->mutable_webhook_urls());
  ReplaceListFlag(args, "alarm-channel", alarm->mutable_channels());
  if (auto word = args.Get("alarm-on")) {
    absl::StatusOr<v1::AlarmOn> on = ParseAlarmOn(*word);
    if (!on.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--alarm-on: ", on.status().message()));
    }
    alarm->set_on(*on);
  }
  if (auto text = args.Get("alarm-silence")) {
    ASSIGN_OR_RETURN(absl::Duration d, ParseDurationFlag("--alarm-silence", *text));
    if (d == absl::ZeroDuration()) {
      alarm->clear_silence();
    } else {
      *alarm->mutable_silence() = ToDurationProto(d);
    }
  }
  return absl::OkStatus();
}

// --pool NAME ('' for none) and --priority N; the server looks the pool up
// and checks the range (-1000 to 1000). Here only that N is an integer that
// fits the field.
absl::Status ApplyPool(const ParsedArgs& args, v1::Job* job) {
  if (auto name = args.Get("pool")) job->set_pool(*name);
  if (auto text = args.Get("priority")) {
    int32_t priority = 0;
    if (!absl::SimpleAtoi(*text, &priority)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--priority must be an integer from -1000 to 1000 (higher first), not '", *text, "'"));
    }
    job->set_priority(priority);
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<FlagSpec> JobFlagSpecs() {
  return {
      {"group", "", true, "ID", "Executor group that runs the job (required on create)."},
      {"handler", "", true, "NAME", "Run the handler registered under NAME."},
      {"script-shell", "", true, "FILE", "Run the shell script in FILE (/bin/sh)."},
      {"script-python", "", true, "FILE", "Run the Python script in FILE (python3)."},
      {"script-node", "", true, "FILE",
       "Run the JavaScript in FILE (node, if the executor has it)."},
      {"script-powershell", "", true, "FILE",
       "Run the PowerShell script in FILE (pwsh, if the executor has it)."},
      {"remark", "", true, "TEXT",
       "Why the script changed, kept with its new version (gnomonctl job "
       "script versions)."},
      {"cron", "", true, "EXPR", "Quartz cron schedule, e.g. '0 */5 * * * ?'."},
      {"tz", "", true, "ZONE", "IANA time zone of the cron schedule (default UTC)."},
      {"every", "", true, "DUR", "Fixed rate: fire every DUR (e.g. 2s, 500ms)."},
      {"delay", "", true, "DUR", "Fixed delay: fire DUR after the previous run ended."},
      {"manual", "", false, "", "No schedule: fire only on trigger (drops --calendar, --jitter)."},
      {"calendar", "", true, "NAME",
       "Fire only the slots calendar NAME allows (gnomonctl calendar list); the others are "
       "skipped, not misfires; '' for none."},
      {"jitter", "", true, "DUR",
       "Start each scheduled fire up to DUR late (the same amount per slot on every replica, "
       "never past the next slot), so jobs sharing an instant spread out: up to 24h; 0 for "
       "none."},
      {"start-time", "", true, "TIME",
       "Its schedule fires no slot before TIME (RFC 3339, e.g. 2024-05-01T12:00:00Z); "
       "'' for none."},
      {"end-time", "", true, "TIME",
       "Its schedule fires no slot at or after TIME (RFC 3339): then the job stays running "
       "with no next fire; '' for none."},
      {"max-fires", "", true, "N",
       "Its schedule fires at most N slots from when the job was last started (job start, or "
       "create --start), then has no next fire; 0: no limit; only with --cron or --every."},
      {"desc", "", true, "D", "Description."},
      {"author", "", true, "NAME", "Owner, for people."},
      {"name", "", true, "NAME",
       "Unique within the group (default job-<id>); other commands accept it for the id."},
      {"params", "", true, "P", "Parameters passed to every run."},
      {"route", "", true, "R",
       "Executor choice: first, last, round, random, consistent-hash, lfu, "
       "lru, "
       "failover, busyover, broadcast."},
      {"block", "", true, "B", "When a run is still running: serial, discard-later, cover-early."},
      {"pool", "", true, "NAME",
       "Its runs take a slot of pool NAME (gnomonctl pool list) and wait queued while none is "
       "free, across every replica; '' for none."},
      {"priority", "", true, "N",
       "Among the runs queued for its pool, a higher priority gets a free slot first (then the "
       "oldest): -1000 to 1000, default 0."},
      {"run-timeout", "", true, "DUR",
       "Per-run timeout (0 for none); the executor stops a run after it."},
      {"retries", "", true, "N", "Retry a failed run up to N times."},
      {"retry-delay", "", true, "DUR", "Delay before the first retry."},
      {"retry-multiplier", "", true, "X", "Each further retry delay is X times the previous."},
      {"retry-max-delay", "", true, "DUR", "Upper bound for any retry delay."},
      {"pause-after-failures", "", true, "N",
       "Pause the job once N of its runs in a row failed for good (after retries); "
       "0: never. gnomonctl job start resumes it."},
      {"deadline", "", true, "DUR",
       "Alarm, killing nothing, when a fire's work is not done DUR after its slot (its "
       "trigger time without one): 1s to 168h (7 days); 0 for none."},
      {"children", "", true, "ID,...", "Jobs triggered after a successful run ('' clears)."},
      {"children-after-all-shards", "", false, "",
       "Trigger children once, after every shard of a broadcast succeeded."},
      {"children-after-each", "", false, "",
       "Trigger children after each successful run (the default)."},
      {"misfire", "", true, "P", "Late slots: do-nothing, fire-once-now, catch-up."},
      {"misfire-threshold", "", true, "DUR", "A slot later than this is a misfire (default 5s)."},
      {"max-catch-up", "", true, "N", "At most N missed slots fired by catch-up."},
      {"alarm-email", "", true, "ADDR,...", "Email recipients of its alarms ('' for none)."},
      {"alarm-webhook", "", true, "URL,...",
       "Webhooks that receive its alarms as a JSON POST ('' for none)."},
      {"alarm-channel", "", true, "NAME,...",
       "Alarm channels (gnomonctl alarm-channel list) that receive its alarms (repeatable or a "
       "comma list; at most 16); '' for none."},
      {"alarm-on", "", true, "WHEN",
       "Which run ends raise an alarm: failure (the default; a run failed for good, after its "
       "retries), success or both. A missed --deadline alarms whatever this says."},
      {"alarm-silence", "", true, "DUR",
       "After an alarm, hold more of the same kind for DUR and send them as one summary when it "
       "ends: up to 24h; 0 for none."},
      {"start", "", false, "", "Start scheduling the job right away."},
  };
}

absl::Status ApplyJobFlags(const ParsedArgs& args, bool creating, const FileReader& read_file,
                           v1::Job* job) {
  if (auto group = args.Get("group")) {
    ASSIGN_OR_RETURN(int64_t id, ParseId("--group", *group));
    job->set_group_id(id);
  } else if (creating) {
    return absl::InvalidArgumentError("a job needs --group ID");
  }
  RETURN_IF_ERROR(ApplyTask(args, creating, read_file, job));
  RETURN_IF_ERROR(ApplySchedule(args, creating, job));
  RETURN_IF_ERROR(ApplyLifetime(args, job));
  if (auto desc = args.Get("desc")) job->set_description(*desc);
  if (auto author = args.Get("author")) job->set_author(*author);
  if (auto name = args.Get("name")) job->set_name(*name);
  if (auto params = args.Get("params")) job->set_params(*params);
  if (auto word = args.Get("route")) {
    ASSIGN_OR_RETURN(v1::RouteStrategy route, ParseRoute(*word));
    job->set_route_strategy(route);
  }
  if (auto word = args.Get("block")) {
    ASSIGN_OR_RETURN(v1::BlockStrategy block, ParseBlock(*word));
    job->set_block_strategy(block);
  }
  RETURN_IF_ERROR(ApplyPool(args, job));
  RETURN_IF_ERROR(SetDuration(args, "run-timeout", [job] { return job->mutable_timeout(); }));
  RETURN_IF_ERROR(ApplyRetry(args, job));
  RETURN_IF_ERROR(ApplyPause(args, job));
  RETURN_IF_ERROR(ApplyDeadline(args, job));
  RETURN_IF_ERROR(ApplyMisfire(args, job));
  RETURN_IF_ERROR(ApplyChildren(args, job));
  return ApplyAlarm(args, job);
}

absl::StatusOr<v1::CreateJobRequest> BuildCreateJobRequest(const ParsedArgs& args,
                                                           const FileReader& read_file) {
  RETURN_IF_ERROR(ExpectPositionals(args, {}));
  v1::CreateJobRequest req;
  RETURN_IF_ERROR(ApplyJobFlags(args, true, read_file, req.mutable_job()));
  req.set_start(args.Has("start"));
  return req;
}

}  // namespace gnomon::cli
