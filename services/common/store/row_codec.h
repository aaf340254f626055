// Row codecs: conversions between store rows (SqlRow, in the column orders of
// statements.h) and gnomon.v1 messages, shared by both backends.
//
// Example:
//   absl::StatusOr<v1::Run> run = RunFromRow(rows[0]);
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_COMMON_STORE_ROW_CODEC_H_
#define GNOMON_SERVICES_COMMON_STORE_ROW_CODEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/workflow.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "services/common/store/sql_conn.h"
#include "services/common/store/store.h"

namespace gnomon::store::internal {

// Milliseconds of a Timestamp (0 when unset).
int64_t ToMs(const google::protobuf::Timestamp& t);
// Sets *t from ms; leaves it unset (cleared) when ms <= 0.
void SetMs(int64_t ms, google::protobuf::Timestamp* t);

// The membership oneof of a group, serialized (a Group with only that field).
std::string MembershipBlob(const v1::Group& group);
absl::StatusOr<v1::Group> GroupFromRow(const SqlRow& row);

// The configuration of a job, serialized without its output-only fields.
std::string JobSpecBlob(const v1::Job& job);
absl::StatusOr<v1::Job> JobFromRow(const SqlRow& row);
absl::StatusOr<DueJob> DueJobFromRow(const SqlRow& row);

// The calendar column of a job or workflow with this schedule: the
// calendar it names, NULL for none.
SqlValue CalendarValue(const v1::Schedule& schedule);

// A row of kWorkflowColumns.
absl::StatusOr<v1::Workflow> WorkflowFromRow(const SqlRow& row);

// True for SUCCEEDED and FAILED.
bool IsEnded(v1::RunStatus status);
// True if the run takes the unique slot (job, scheduled instant, shard, attempt).
bool TakesSlot(const v1::Run& run);
// The trigger types whose runs fire a schedule slot (cron, fixed rate or
// delay, misfire, backfill); TakesSlot when the run has its instant.
bool IsSlotType(v1::TriggerType type);
// The 28 parameters of Statements::insert_run: the run's columns, then
// followup_pending (1 for a run inserted already ended), retry_of
// (first_run_id of a retry with attempt > 0, else NULL) and child_of
// (parent_run_id of a PARENT-triggered run, else NULL).
std::vector<SqlValue> RunInsertArgs(const v1::Run& run);
v1::Run RunFromRow(const SqlRow& row);

// A row of kTokenColumns.
v1::ApiToken TokenFromRow(const SqlRow& row);
// A row of kUserColumns: the user, and its password hash.
v1::User UserFromRow(const SqlRow& row, std::string* password_hash);
// Grants as stored: "*" for every group, else the ids joined by ','.
std::string GrantsToColumn(const v1::Grants& grants);
v1::Grants GrantsFromColumn(std::string_view column);
// A row of Statements::select_executors.
absl::StatusOr<v1::ExecutorInfo> ExecutorFromRow(const SqlRow& row);

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_ROW_CODEC_H_
