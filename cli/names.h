// Short lower-case words for gnomon's enums, as typed on the command line and
// shown in tables ("succeeded", "consistent-hash", "fire-once-now").
//
//   absl::StatusOr<v1::RouteStrategy> r = ParseRoute("lfu");
//   RouteName(v1::ROUTE_STRATEGY_SHARDING_BROADCAST);  // "broadcast"
//
// Parse* return absl::InvalidArgumentError listing the accepted words.
// Thread safety: pure functions.
#ifndef GNOMON_CLI_NAMES_H_
#define GNOMON_CLI_NAMES_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/workflow.pb.h"

namespace gnomon::cli {

absl::StatusOr<v1::RouteStrategy> ParseRoute(std::string_view word);
std::string RouteName(v1::RouteStrategy route);

absl::StatusOr<v1::BlockStrategy> ParseBlock(std::string_view word);
std::string BlockName(v1::BlockStrategy block);

absl::StatusOr<v1::MisfirePolicy> ParseMisfire(std::string_view word);
std::string MisfireName(v1::MisfirePolicy policy);

absl::StatusOr<v1::RunStatus> ParseRunStatus(std::string_view word);
std::string RunStatusName(v1::RunStatus status);

absl::StatusOr<v1::Role> ParseRole(std::string_view word);
std::string RoleName(v1::Role role);

absl::StatusOr<v1::TriggerType> ParseTriggerType(std::string_view word);
std::string TriggerTypeName(v1::TriggerType type);
std::string JobStateName(v1::JobState state);
absl::StatusOr<v1::JobState> ParseJobState(std::string_view word);
absl::StatusOr<v1::ScheduleType> ParseScheduleType(std::string_view word);
std::string ScriptLanguageName(v1::ScriptLanguage language);
// Calendar weekdays as typed and shown: "MON" .. "SUN" (parsed in any
// case; the full English names are accepted too).
absl::StatusOr<v1::Weekday> ParseWeekday(std::string_view word);
std::string WeekdayName(v1::Weekday day);
// Alarm channels: "dingtalk", "wecom", "feishu", "slack", "telegram";
// AlarmTargets.on: "failure", "success", "both" (unspecified is shown
// "failure", as the server reads it). Both parsed in any case.
absl::StatusOr<v1::AlarmChannelKind> ParseAlarmChannelKind(std::string_view word);
std::string AlarmChannelKindName(v1::AlarmChannelKind kind);
absl::StatusOr<v1::AlarmOn> ParseAlarmOn(std::string_view word);
std::string AlarmOnName(v1::AlarmOn on);
// "200 success", "502 timeout", "0" (no result yet), "417" (custom code).
std::string HandleCodeName(int32_t code);

// Workflows (workflow.proto): "running", "succeeded", "bypassed", "failure".
std::string WorkflowStateName(v1::WorkflowState state);
std::string WorkflowRunStatusName(v1::WorkflowRunStatus status);
std::string WorkflowNodeStateName(v1::WorkflowNodeState state);
std::string WorkflowEdgeWhenName(v1::WorkflowEdgeWhen when);
// "output", "handle-code"; "non-empty", "eq", "ne", "gt", "lt", "contains".
std::string WorkflowConditionSubjectName(v1::WorkflowConditionSubject subject);
std::string WorkflowConditionOpName(v1::WorkflowConditionOp op);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_NAMES_H_
