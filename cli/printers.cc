#include "cli/printers.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/format.h"
#include "cli/names.h"

namespace gnomon::cli {
namespace {

std::string Id(int64_t id) { return id == 0 ? "-" : absl::StrCat(id); }

std::string RetryText(const v1::RetryPolicy& retry) {
  if (retry.max_retries() == 0) return "none";
  std::string text = absl::StrCat(retry.max_retries(), " times");
  if (retry.has_initial_delay()) {
    absl::StrAppend(&text, ", first after ", FormatDuration(retry.initial_delay()));
  }
  if (retry.multiplier() > 1) absl::StrAppend(&text, ", x", retry.multiplier());
  if (retry.has_max_delay() && ToAbslDuration(retry.max_delay()) > absl::ZeroDuration()) {
    absl::StrAppend(&text, ", at most ", FormatDuration(retry.max_delay()));
  }
  return text;
}

std::string MisfireText(const v1::Misfire& misfire) {
  std::string text = misfire.policy() == v1::MISFIRE_POLICY_UNSPECIFIED
                         ? "fire-once-now"
                         : MisfireName(misfire.policy());
  if (misfire.has_threshold()) {
    absl::StrAppend(&text, " after ", FormatDuration(misfire.threshold()));
  }
  if (misfire.policy() == v1::MISFIRE_POLICY_CATCH_UP && misfire.max_catch_up() > 0) {
    absl::StrAppend(&text, " (at most ", misfire.max_catch_up(), ")");
  }
  return text;
}

// "3 consecutive failures (1 so far)": the pause setting and the count
// towards it.
std::string PauseText(const v1::Job& job) {
  return absl::StrCat(job.pause_after_failures(), " consecutive failures (",
                      job.consecutive_failures(), " so far)");
}

// "5 (3 left)": the slots its schedule fires from when it was last started,
// and those it will still fire; "" (shown "-") without a limit.
std::string MaxFiresText(const v1::Job& job) {
  if (job.max_fires() == 0) return "";
  return absl::StrCat(job.max_fires(), " (", job.fires_left(), " left)");
}

// A job's start or end time in its zone; "-" when unset.
std::string BoundText(bool has, const google::protobuf::Timestamp& ts, absl::TimeZone zone) {
  return has ? FormatAbslScheduleTime(ToAbslTime(ts), zone) : "-";
}

std::string RouteText(const v1::Job& job) {
  return job.route_strategy() == v1::ROUTE_STRATEGY_UNSPECIFIED ? "first"
                                                                : RouteName(job.route_strategy());
}

std::string BlockText(const v1::Job& job) {
  return job.block_strategy() == v1::BLOCK_STRATEGY_UNSPECIFIED ? "serial"
                                                                : BlockName(job.block_strategy());
}

// A job's or run's priority in its pool: "" (shown "-") without a pool and
// with the default 0.
template <typename T>
std::string PriorityText(const T& t) {
  return t.pool().empty() && t.priority() == 0 ? "" : absl::StrCat(t.priority());
}

// The pool rows of a job's or run's details, when it has a pool or a
// priority.
template <typename T>
void AddPool(const T& t, Details& d) {
  if (!t.pool().empty()) d.Add("pool", t.pool());
  if (const std::string priority = PriorityText(t); !priority.empty()) d.Add("priority", priority);
}

// "MON,TUE,WED"; "every day" when none is listed.
std::string WeekdaysText(const v1::Calendar& c) {
  if (c.weekdays().empty()) return "every day";
  std::vector<std::string> days;
  for (int day : c.weekdays()) days.push_back(WeekdayName(static_cast<v1::Weekday>(day)));
  return absl::StrJoin(days, ",");
}

std::string WindowsText(const v1::Calendar& c) {
  return c.windows().empty() ? "all day" : absl::StrJoin(c.windows(), ",");
}

std::string Dash(const std::string& text) { return text.empty() ? "-" : text; }

std::string CalendarZoneText(const v1::Calendar& c) {
  return c.time_zone().empty() ? "-" : c.time_zone();
}

}  // namespace

void PrintCalendarTable(const Repeated<v1::Calendar>& calendars, std::ostream& out) {
  Table table({"NAME", "ZONE", "WEEKDAYS", "EXCLUDED", "INCLUDED", "WINDOWS"});
  for (const v1::Calendar& c : calendars) {
    table.AddRow({c.name(), CalendarZoneText(c), WeekdaysText(c),
                  absl::StrCat(c.excluded_dates_size()), absl::StrCat(c.included_dates_size()),
                  WindowsText(c)});
  }
  table.Render(out);
}

void PrintCalendarDetails(const v1::Calendar& calendar, absl::TimeZone zone, std::ostream& out) {
  Details d;
  d.Add("name", calendar.name());
  d.Add("description", calendar.description());
  d.Add("zone", calendar.time_zone().empty() ? "- (the zone of the schedule using it)"
                                             : calendar.time_zone());
  d.Add("weekdays", WeekdaysText(calendar));
  d.Add("excluded dates", absl::StrJoin(calendar.excluded_dates(), ", "));
  d.Add("included dates", absl::StrJoin(calendar.included_dates(), ", "));
  d.Add("windows", WindowsText(calendar));
  d.Add("created", FormatTime(calendar.create_time(), zone));
  d.Add("updated", FormatTime(calendar.update_time(), zone));
  d.Render(out);
}

void PrintAlarmChannelTable(const Repeated<v1::AlarmChannel>& channels, std::ostream& out) {
  Table table({"NAME", "KIND", "URL", "SECRET", "CHAT", "TEMPLATE"});
  for (const v1::AlarmChannel& c : channels) {
    table.AddRow({c.name(), AlarmChannelKindName(c.kind()), Dash(c.url()),
                  c.has_secret() ? "yes" : "no", Dash(c.chat_id()),
                  c.template_().empty() ? "default" : "custom"});
  }
  table.Render(out);
}

void PrintAlarmChannelDetails(const v1::AlarmChannel& channel, absl::TimeZone zone,
                              std::ostream& out) {
  Details d;
  d.Add("name", channel.name());
  d.Add("kind", AlarmChannelKindName(channel.kind()));
  d.Add("url", channel.url().empty() ? "-" : absl::StrCat(channel.url(), " (its origin only)"));
  d.Add("secret", channel.has_secret() ? "stored (never shown)" : "none");
  d.Add("chat id", channel.chat_id());
  d.Add("template", channel.template_().empty() ? "default" : channel.template_());
  d.Add("created", FormatTime(channel.create_time(), zone));
  d.Add("updated", FormatTime(channel.update_time(), zone));
  d.Render(out);
}

void PrintGroupTable(const Repeated<v1::Group>& groups, absl::TimeZone zone, std::ostream& out) {
  Table table({"ID", "APP", "TITLE", "MEMBERSHIP", "UPDATED"});
  for (const v1::Group& g : groups) {
    table.AddRow({Id(g.id()), g.app_name(), g.title(), DescribeMembership(g),
                  FormatTime(g.update_time(), zone)});
  }
  table.Render(out);
}

void PrintGroupDetails(const v1::Group& group, absl::TimeZone zone, std::ostream& out) {
  Details d;
  d.Add("id", Id(group.id()));
  d.Add("app", group.app_name());
  d.Add("title", group.title());
  d.Add("membership", DescribeMembership(group));
  if (!group.access_token().empty()) d.Add("access token", group.access_token());
  d.Add("created", FormatTime(group.create_time(), zone));
  d.Add("updated", FormatTime(group.update_time(), zone));
  if (group.has_previous_token_expire_time()) {
    d.Add("previous token",
          "accepted until " + FormatTime(group.previous_token_expire_time(), zone));
  }
  d.Render(out);
}

// "run 12 succeeded" (or "-" before the first run).
static std::string LastRunText(const v1::Job& j) {
  if (!j.has_last_run()) return "-";
  return absl::StrCat("run ", j.last_run().run_id(), " ", RunStatusName(j.last_run().status()));
}

void PrintJobTable(const Repeated<v1::Job>& jobs, bool wide, std::ostream& out) {
  std::vector<std::string> header = {"ID",   "NAME",  "GROUP",     "STATE",    "SCHEDULE",
                                     "TASK", "ROUTE", "NEXT FIRE", "LAST RUN", "DESCRIPTION"};
  if (wide) {
    header.insert(header.end(),
                  {"START TIME", "END TIME", "MAX FIRES", "BLOCK", "POOL", "PRIORITY",
                   "RUN TIMEOUT", "DEADLINE", "RETRIES", "CHILDREN", "AUTHOR", "UPDATED"});
  }
  Table table(std::move(header));
  for (const v1::Job& j : jobs) {
    const absl::TimeZone zone = JobZone(j);
    std::vector<std::string> row = {Id(j.id()),
                                    j.name(),
                                    Id(j.group_id()),
                                    JobStateName(j.state()),
                                    DescribeSchedule(j.schedule()),
                                    DescribeTask(j),
                                    RouteText(j),
                                    FormatScheduleTime(j.next_fire_time(), zone),
                                    LastRunText(j),
                                    j.description()};
    if (wide) {
      row.insert(row.end(), {BoundText(j.has_start_time(), j.start_time(), zone),
                             BoundText(j.has_end_time(), j.end_time(), zone), MaxFiresText(j),
                             BlockText(j), j.pool(), PriorityText(j), FormatDuration(j.timeout()),
                             FormatDuration(j.deadline()), absl::StrCat(j.retry().max_retries()),
                             absl::StrJoin(j.child_job_ids(), ","), j.author(),
                             FormatScheduleTime(j.update_time(), zone)});
    }
    table.AddRow(std::move(row));
  }
  table.Render(out);
}

void PrintJobDetails(const v1::Job& job, std::ostream& out) {
  const absl::TimeZone zone = JobZone(job);
  Details d;
  d.Add("id", Id(job.id()));
  d.Add("name", job.name());
  d.Add("group", Id(job.group_id()));
  d.Add("description", job.description());
  d.Add("author", job.author());
  if (job.state() == v1::JOB_STATE_PAUSED) {
    d.Add("state", "paused (gnomonctl job start resumes it)");
    d.Add("pause reason", job.pause_reason());
  } else {
    d.Add("state", JobStateName(job.state()));
  }
  d.Add("schedule", DescribeSchedule(job.schedule()));
  d.Add("start time", BoundText(job.has_start_time(), job.start_time(), zone));
  d.Add("end time", BoundText(job.has_end_time(), job.end_time(), zone));
  d.Add("max fires", MaxFiresText(job));
  d.Add("next fire", FormatScheduleTime(job.next_fire_time(), zone));
  d.Add("last fire", FormatScheduleTime(job.last_fire_time(), zone));
  d.Add("last run", LastRunText(job));
  d.Add("task", DescribeTask(job));
  d.Add("params", job.params());
  d.Add("route", RouteText(job));
  d.Add("block", BlockText(job));
  AddPool(job, d);
  d.Add("run timeout", FormatDuration(job.timeout()));
  d.Add("deadline", FormatDuration(job.deadline()));
  d.Add("retry", RetryText(job.retry()));
  if (job.pause_after_failures() > 0) d.Add("pause after", PauseText(job));
  d.Add("misfire", MisfireText(job.misfire()));
  std::string children = absl::StrJoin(job.child_job_ids(), ",");
  if (!children.empty() &&
      job.child_trigger_mode() == v1::CHILD_TRIGGER_MODE_ALL_SHARDS_SUCCEEDED) {
    absl::StrAppend(&children, " (after all shards)");
  }
  d.Add("children", children);
  d.Add("alarm emails", absl::StrJoin(job.alarm().emails(), ","));
  d.Add("alarm webhooks", absl::StrJoin(job.alarm().webhook_urls(), ","));
  d.Add("alarm channels", absl::StrJoin(job.alarm().channels(), ","));
  d.Add("alarm on", AlarmOnName(job.alarm().on()));
  d.Add("alarm silence", FormatDuration(job.alarm().silence()));
  d.Add("created", FormatScheduleTime(job.create_time(), zone));
  d.Add("updated", FormatScheduleTime(job.update_time(), zone));
  d.Render(out);
}

void PrintRunTable(const Repeated<v1::Run>& runs, absl::TimeZone zone, bool wide,
                   std::ostream& out) {
  std::vector<std::string> header = {"ID",        "JOB",      "STATUS",   "TRIGGER",
                                     "TRIGGERED", "DURATION", "EXECUTOR", "CODE"};
  if (wide) {
    header.insert(header.end(),
                  {"HANDLER", "ATTEMPT", "SHARD", "SCHEDULED", "STARTED", "WAITED", "ENDED"});
  }
  Table table(std::move(header));
  for (const v1::Run& r : runs) {
    std::vector<std::string> row = {Id(r.id()),
                                    Id(r.job_id()),
                                    RunStatusName(r.status()),
                                    TriggerTypeName(r.trigger_type()),
                                    FormatTime(r.trigger_time(), zone),
                                    RunDuration(r),
                                    r.executor_address(),
                                    r.handle_code() == 0 ? "-" : HandleCodeName(r.handle_code())};
    if (wide) {
      row.insert(row.end(),
                 {r.handler(), absl::StrCat(r.attempt()),
                  r.shard_total() > 1 ? absl::StrCat(r.shard_index(), "/", r.shard_total()) : "",
                  FormatTime(r.scheduled_time(), zone), FormatTime(r.start_time(), zone),
                  RunWait(r), FormatTime(r.end_time(), zone)});
    }
    table.AddRow(std::move(row));
  }
  table.Render(out);
}

void PrintRunDetails(const v1::Run& run, absl::TimeZone zone, std::ostream& out) {
  Details d;
  d.Add("id", Id(run.id()));
  d.Add("job", Id(run.job_id()));
  d.Add("group", Id(run.group_id()));
  d.Add("status", RunStatusName(run.status()));
  d.Add("trigger", TriggerTypeName(run.trigger_type()));
  AddPool(run, d);
  d.Add("scheduled", FormatTime(run.scheduled_time(), zone));
  // Waiting for a slot of its pool from then; "triggered" is when it got one.
  if (run.has_queued_time()) d.Add("queued", FormatTime(run.queued_time(), zone));
  d.Add("triggered", FormatTime(run.trigger_time(), zone));
  d.Add("dispatched", FormatTime(run.dispatch_time(), zone));
  d.Add("started", FormatTime(run.start_time(), zone));
  d.Add("ended", FormatTime(run.end_time(), zone));
  if (run.has_deadline_time()) d.Add("deadline", FormatTime(run.deadline_time(), zone));
  d.Add("duration", RunDuration(run));
  d.Add("executor", run.executor_address());
  d.Add("handler", run.handler());
  d.Add("params", run.params());
  if (run.shard_total() > 1) {
    d.Add("shard", absl::StrCat(run.shard_index(), "/", run.shard_total()));
  }
  if (run.attempt() > 0) {
    d.Add("attempt", absl::StrCat(run.attempt(), " (first run ", run.first_run_id(), ")"));
  }
  if (run.parent_run_id() != 0) d.Add("parent run", Id(run.parent_run_id()));
  d.Add("trigger result", absl::StrCat(run.trigger_code(), run.trigger_message().empty() ? "" : " ",
                                       run.trigger_message()));
  d.Add("handle result",
        run.handle_code() == 0
            ? std::string()
            : absl::StrCat(HandleCodeName(run.handle_code()),
                           run.handle_message().empty() ? "" : ": ", run.handle_message()));
  d.Add("log lines", absl::StrCat(run.log_line_count(), run.log_truncated() ? " (truncated)" : ""));
  d.Render(out);
}

void PrintLogLine(const v1::LogLine& line, absl::TimeZone zone, std::ostream& out) {
  out << FormatTime(line.time(), zone) << "  " << line.text() << "\n";
}

}  // namespace gnomon::cli
