#include "cli/names.h"

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gnomon::cli {
namespace {

template <typename E>
using Table = std::vector<std::pair<E, const char*>>;

const Table<v1::RouteStrategy>& Routes() {
  static const auto* t = new Table<v1::RouteStrategy>{
      {v1::ROUTE_STRATEGY_FIRST, "first"},
      {v1::ROUTE_STRATEGY_LAST, "last"},
      {v1::ROUTE_STRATEGY_ROUND, "round"},
      {v1::ROUTE_STRATEGY_RANDOM, "random"},
      {v1::ROUTE_STRATEGY_CONSISTENT_HASH, "consistent-hash"},
      {v1::ROUTE_STRATEGY_LEAST_FREQUENTLY_USED, "lfu"},
      {v1::ROUTE_STRATEGY_LEAST_RECENTLY_USED, "lru"},
      {v1::ROUTE_STRATEGY_FAILOVER, "failover"},
      {v1::ROUTE_STRATEGY_BUSYOVER, "busyover"},
      {v1::ROUTE_STRATEGY_SHARDING_BROADCAST, "broadcast"},
  };
  return *t;
}

const Table<v1::BlockStrategy>& Blocks() {
  static const auto* t = new Table<v1::BlockStrategy>{
      {v1::BLOCK_STRATEGY_SERIAL_EXECUTION, "serial"},
      {v1::BLOCK_STRATEGY_DISCARD_LATER, "discard-later"},
      {v1::BLOCK_STRATEGY_COVER_EARLY, "cover-early"},
  };
  return *t;
}

const Table<v1::MisfirePolicy>& Misfires() {
  static const auto* t = new Table<v1::MisfirePolicy>{
      {v1::MISFIRE_POLICY_DO_NOTHING, "do-nothing"},
      {v1::MISFIRE_POLICY_FIRE_ONCE_NOW, "fire-once-now"},
      {v1::MISFIRE_POLICY_CATCH_UP, "catch-up"},
  };
  return *t;
}

const Table<v1::RunStatus>& Statuses() {
  static const auto* t = new Table<v1::RunStatus>{
      {v1::RUN_STATUS_PENDING, "pending"},
      {v1::RUN_STATUS_RUNNING, "running"},
      {v1::RUN_STATUS_SUCCEEDED, "succeeded"},
      {v1::RUN_STATUS_FAILED, "failed"},
      // Waiting for a slot of its job's pool (Job.pool).
      {v1::RUN_STATUS_QUEUED, "queued"},
  };
  return *t;
}

const Table<v1::TriggerType>& TriggerTypes() {
  static const auto* t = new Table<v1::TriggerType>{
      {v1::TRIGGER_TYPE_CRON, "cron"},
      {v1::TRIGGER_TYPE_FIX_RATE, "fix_rate"},
      {v1::TRIGGER_TYPE_FIX_DELAY, "fix_delay"},
      {v1::TRIGGER_TYPE_MANUAL, "manual"},
      {v1::TRIGGER_TYPE_API, "api"},
      {v1::TRIGGER_TYPE_PARENT, "parent"},
      {v1::TRIGGER_TYPE_RETRY, "retry"},
      {v1::TRIGGER_TYPE_MISFIRE, "misfire"},
      {v1::TRIGGER_TYPE_BACKFILL, "backfill"},
  };
  return *t;
}

const Table<v1::Role>& Roles() {
  static const auto* t = new Table<v1::Role>{
      {v1::ROLE_ADMIN, "admin"},
      {v1::ROLE_OPERATOR, "operator"},
      {v1::ROLE_VIEWER, "viewer"},
  };
  return *t;
}

template <typename E>
absl::StatusOr<E> Parse(const Table<E>& table, std::string_view what, std::string_view word) {
  std::vector<std::string> words;
  for (const auto& [value, name] : table) {
    if (word == name) return value;
    words.push_back(name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown ", absl::string_view(what.data(), what.size()), " '",
      absl::string_view(word.data(), word.size()), "'; use one of ", absl::StrJoin(words, ", ")));
}

template <typename E>
std::string Name(const Table<E>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  if (static_cast<int>(value) == 0) return "-";
  return absl::StrCat("unknown(", static_cast<int>(value), ")");
}

}  // namespace

absl::StatusOr<v1::RouteStrategy> ParseRoute(std::string_view word) {
  return Parse(Routes(), "route", word);
}
std::string RouteName(v1::RouteStrategy route) { return Name(Routes(), route); }

absl::StatusOr<v1::BlockStrategy> ParseBlock(std::string_view word) {
  return Parse(Blocks(), "block strategy", word);
}
std::string BlockName(v1::BlockStrategy block) { return Name(Blocks(), block); }

absl::StatusOr<v1::MisfirePolicy> ParseMisfire(std::string_view word) {
  return Parse(Misfires(), "misfire policy", word);
}
std::string MisfireName(v1::MisfirePolicy policy) { return Name(Misfires(), policy); }

absl::StatusOr<v1::RunStatus> ParseRunStatus(std::string_view word) {
  return Parse(Statuses(), "run status", word);
}
std::string RunStatusName(v1::RunStatus status) { return Name(Statuses(), status); }

absl::StatusOr<v1::Role> ParseRole(std::string_view word) { return Parse(Roles(), "role", word); }
std::string RoleName(v1::Role role) { return Name(Roles(), role); }

absl::StatusOr<v1::TriggerType> ParseTriggerType(std::string_view word) {
  return Parse(TriggerTypes(), "trigger type", word);
}
std::string TriggerTypeName(v1::TriggerType type) { return Name(TriggerTypes(), type); }

static const Table<v1::JobState>& JobStates() {
  static const auto* t = new Table<v1::JobState>{
      {v1::JOB_STATE_STOPPED, "stopped"},
      {v1::JOB_STATE_RUNNING, "running"},
      {v1::JOB_STATE_PAUSED, "paused"},
  };
  return *t;
}
std::string JobStateName(v1::JobState state) { return Name(JobStates(), state); }
absl::StatusOr<v1::JobState> ParseJobState(std::string_view word) {
  return Parse(JobStates(), "job state", word);
}

absl::StatusOr<v1::ScheduleType> ParseScheduleType(std::string_view word) {
  static const auto* t = new Table<v1::ScheduleType>{
      {v1::SCHEDULE_TYPE_CRON, "cron"},
      {v1::SCHEDULE_TYPE_FIX_RATE, "fix-rate"},
      {v1::SCHEDULE_TYPE_FIX_DELAY, "fix-delay"},
      {v1::SCHEDULE_TYPE_NONE, "none"},
  };
  return Parse(*t, "schedule kind", word);
}

absl::StatusOr<v1::Weekday> ParseWeekday(std::string_view word) {
  static const auto* t = new Table<v1::Weekday>{
      {v1::MONDAY, "MON"}, {v1::TUESDAY, "TUE"},  {v1::WEDNESDAY, "WED"}, {v1::THURSDAY, "THU"},
      {v1::FRIDAY, "FRI"}, {v1::SATURDAY, "SAT"}, {v1::SUNDAY, "SUN"},
  };
  std::string upper(word);
  absl::AsciiStrToUpper(&upper);
  // The enum's own names (MONDAY, ...) read too.
  v1::Weekday full;
  if (v1::Weekday_Parse(upper, &full) && full != v1::WEEKDAY_UNSPECIFIED) return full;
  return Parse(*t, "weekday", upper);
}

std::string WeekdayName(v1::Weekday day) {
  const std::string full = v1::Weekday_Name(day);
  if (day == v1::WEEKDAY_UNSPECIFIED || full.size() < 3) return absl::StrCat(static_cast<int>(day));
  return full.substr(0, 3);
}

static const Table<v1::AlarmChannelKind>& AlarmChannelKinds() {
  static const auto* t = new Table<v1::AlarmChannelKind>{
      {v1::DINGTALK, "dingtalk"}, {v1::WECOM, "wecom"},       {v1::FEISHU, "feishu"},
      {v1::SLACK, "slack"},       {v1::TELEGRAM, "telegram"},
  };
  return *t;
}

absl::StatusOr<v1::AlarmChannelKind> ParseAlarmChannelKind(std::string_view word) {
  std::string lower(word);
  absl::AsciiStrToLower(&lower);
  return Parse(AlarmChannelKinds(), "alarm channel kind", lower);
}
std::string AlarmChannelKindName(v1::AlarmChannelKind kind) {
  return Name(AlarmChannelKinds(), kind);
}

static const Table<v1::AlarmOn>& AlarmOns() {
  static const auto* t = new Table<v1::AlarmOn>{
      {v1::ALARM_ON_FAILURE, "failure"},
      {v1::ALARM_ON_SUCCESS, "success"},
      {v1::ALARM_ON_BOTH, "both"},
  };
  return *t;
}

absl::StatusOr<v1::AlarmOn> ParseAlarmOn(std::string_view word) {
  std::string lower(word);
  absl::AsciiStrToLower(&lower);
  return Parse(AlarmOns(), "alarm-on value", lower);
}
std::string AlarmOnName(v1::AlarmOn on) {
  return Name(AlarmOns(), on == v1::ALARM_ON_UNSPECIFIED ? v1::ALARM_ON_FAILURE : on);
}

std::string ScriptLanguageName(v1::ScriptLanguage language) {
  static const auto* t = new Table<v1::ScriptLanguage>{
      {v1::SCRIPT_LANGUAGE_SHELL, "shell"},
      {v1::SCRIPT_LANGUAGE_PYTHON, "python"},
      {v1::SCRIPT_LANGUAGE_NODEJS, "nodejs"},
      {v1::SCRIPT_LANGUAGE_POWERSHELL, "powershell"},
  };
  return Name(*t, language);
}

std::string HandleCodeName(int32_t code) {
  switch (code) {
    case v1::HANDLE_CODE_SUCCESS:
      return "200 success";
    case v1::HANDLE_CODE_FAILURE:
      return "500 failure";
    case v1::HANDLE_CODE_TIMEOUT:
      return "502 timeout";
    case v1::HANDLE_CODE_KILLED:
      return "503 killed";
    case v1::HANDLE_CODE_EXECUTOR_LOST:
      return "504 executor-lost";
    case v1::HANDLE_CODE_NO_EXECUTOR:
      return "505 no-executor";
    case v1::HANDLE_CODE_REJECTED:
      return "506 rejected";
    default:
      return absl::StrCat(code);
  }
}

std::string WorkflowStateName(v1::WorkflowState state) {
  static const auto* t = new Table<v1::WorkflowState>{
      {v1::WORKFLOW_STATE_STOPPED, "stopped"},
      {v1::WORKFLOW_STATE_RUNNING, "running"},
  };
  return Name(*t, state);
}

std::string WorkflowRunStatusName(v1::WorkflowRunStatus status) {
  static const auto* t = new Table<v1::WorkflowRunStatus>{
      {v1::WORKFLOW_RUN_STATUS_RUNNING, "running"},
      {v1::WORKFLOW_RUN_STATUS_SUCCEEDED, "succeeded"},
      {v1::WORKFLOW_RUN_STATUS_FAILED, "failed"},
      {v1::WORKFLOW_RUN_STATUS_CANCELLED, "cancelled"},
  };
  return Name(*t, status);
}

std::string WorkflowNodeStateName(v1::WorkflowNodeState state) {
  static const auto* t = new Table<v1::WorkflowNodeState>{
      {v1::WORKFLOW_NODE_STATE_PENDING, "pending"},
      {v1::WORKFLOW_NODE_STATE_RUNNING, "running"},
      {v1::WORKFLOW_NODE_STATE_SUCCEEDED, "succeeded"},
      {v1::WORKFLOW_NODE_STATE_FAILED, "failed"},
      {v1::WORKFLOW_NODE_STATE_SKIPPED, "skipped"},
      {v1::WORKFLOW_NODE_STATE_BYPASSED, "bypassed"},
      {v1::WORKFLOW_NODE_STATE_CANCELLED, "cancelled"},
  };
  return Name(*t, state);
}

std::string WorkflowEdgeWhenName(v1::WorkflowEdgeWhen when) {
  static const auto* t = new Table<v1::WorkflowEdgeWhen>{
      {v1::WORKFLOW_EDGE_WHEN_SUCCESS, "success"},
      {v1::WORKFLOW_EDGE_WHEN_FAILURE, "failure"},
      {v1::WORKFLOW_EDGE_WHEN_COMPLETION, "completion"},
      {v1::WORKFLOW_EDGE_WHEN_TRUE, "true"},
      {v1::WORKFLOW_EDGE_WHEN_FALSE, "false"},
  };
  return Name(*t, when);
}

std::string WorkflowConditionSubjectName(v1::WorkflowConditionSubject subject) {
  static const auto* t = new Table<v1::WorkflowConditionSubject>{
      {v1::WORKFLOW_CONDITION_SUBJECT_OUTPUT, "output"},
      {v1::WORKFLOW_CONDITION_SUBJECT_HANDLE_CODE, "handle-code"},
  };
  return Name(*t, subject);
}

std::string WorkflowConditionOpName(v1::WorkflowConditionOp op) {
  static const auto* t = new Table<v1::WorkflowConditionOp>{
      {v1::WORKFLOW_CONDITION_OP_NON_EMPTY, "non-empty"},
      {v1::WORKFLOW_CONDITION_OP_EQ, "eq"},
      {v1::WORKFLOW_CONDITION_OP_NE, "ne"},
      {v1::WORKFLOW_CONDITION_OP_GT, "gt"},
      {v1::WORKFLOW_CONDITION_OP_LT, "lt"},
      {v1::WORKFLOW_CONDITION_OP_CONTAINS, "contains"},
  };
  return Name(*t, op);
}

}  // namespace gnomon::cli
