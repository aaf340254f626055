#include "services/common/store/row_codec.h"

#include <utility>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "services/common/status/status_macros.h"

namespace gnomon::store::internal {

int64_t ColInt(const SqlRow& row, size_t i) {
  if (i >= row.size()) return 0;
  if (const int64_t* v = std::get_if<int64_t>(&row[i])) return *v;
  if (const std::string* s = std::get_if<std::string>(&row[i])) {
    // Drivers may hand back numbers as text (e.g. MySQL DECIMAL from COUNT).
    int64_t v = 0;
    bool neg = false;
    size_t k = 0;
    if (k < s->size() && (*s)[k] == '-') neg = true, ++k;
    for (; k < s->size() && (*s)[k] >= '0' && (*s)[k] <= '9'; ++k) v = v * 10 + ((*s)[k] - '0');
    return neg ? -v : v;
  }
  return 0;
}

std::string ColStr(const SqlRow& row, size_t i) {
  if (i >= row.size()) return "";
  if (const std::string* s = std::get_if<std::string>(&row[i])) return *s;
  if (const SqlBlob* b = std::get_if<SqlBlob>(&row[i])) return b->bytes;
  if (const int64_t* v = std::get_if<int64_t>(&row[i])) return absl::StrCat(*v);
  return "";
}

bool ColIsNull(const SqlRow& row, size_t i) {
  return i >= row.size() || std::holds_alternative<std::monostate>(row[i]);
}

int64_t ToMs(const google::protobuf::Timestamp& t) {
  return t.seconds() * 1000 + t.nanos() / 1000000;
}

void SetMs(int64_t ms, google::protobuf::Timestamp* t) {
  t->Clear();
  if (ms <= 0) return;
  t->set_seconds(ms / 1000);
  t->set_nanos(static_cast<int32_t>(ms % 1000) * 1000000);
}

namespace {

template <typename Msg, typename Fn>
void MaybeSet(int64_t ms, Msg* msg, Fn mutable_field) {
  if (ms > 0) SetMs(ms, (msg->*mutable_field)());
}

}  // namespace

std::string MembershipBlob(const v1::Group& group) {
  v1::Group m;
  switch (group.membership_case()) {
    case v1::Group::kAutoRegistration:
      *m.mutable_auto_registration() = group.auto_registration();
      break;
    case v1::Group::kManual:
      *m.mutable_manual() = group.manual();
      break;
    case v1::Group::MEMBERSHIP_NOT_SET:
      break;
  }
  return m.SerializeAsString();
}

absl::StatusOr<v1::Group> GroupFromRow(const SqlRow& row) {
  v1::Group g;
  if (!g.ParseFromString(ColStr(row, 3))) {
    return absl::InternalError(absl::StrCat("group ", ColInt(row, 0), ": corrupt membership"));
  }
  g.set_id(ColInt(row, 0));
  g.set_app_name(ColStr(row, 1));
  g.set_title(ColStr(row, 2));
  g.set_access_token(ColStr(row, 4));
  MaybeSet(ColInt(row, 5), &g, &v1::Group::mutable_create_time);
  MaybeSet(ColInt(row, 6), &g, &v1::Group::mutable_update_time);
  g.set_previous_access_token(ColStr(row, 7));
  MaybeSet(ColInt(row, 8), &g, &v1::Group::mutable_previous_token_expire_time);
  return g;
}

std::string JobSpecBlob(const v1::Job& job) {
  v1::Job spec = job;
  spec.clear_id();
  spec.clear_group_id();
  spec.clear_state();
  spec.clear_next_fire_time();
  spec.clear_create_time();
  spec.clear_update_time();
  spec.clear_name();  // Its own column, unique per group.
  spec.clear_last_fire_time();
  spec.clear_last_run();
  spec.clear_pause_reason();  // Columns of their own, kept by the store.
  spec.clear_consecutive_failures();
  spec.clear_fires_left();
  return spec.SerializeAsString();
}

absl::StatusOr<v1::Job> JobFromRow(const SqlRow& row) {
  v1::Job job;
  if (!job.ParseFromString(ColStr(row, 5))) {
    return absl::InternalError(absl::StrCat("job ", ColInt(row, 0), ": corrupt spec"));
  }
  job.set_id(ColInt(row, 0));
  job.set_group_id(ColInt(row, 1));
  job.set_state(static_cast<v1::JobState>(ColInt(row, 2)));
  const int64_t next = ColInt(row, 3);
  if (next >= 0) SetMs(next, job.mutable_next_fire_time());
  MaybeSet(ColInt(row, 4), &job, &v1::Job::mutable_last_fire_time);
  MaybeSet(ColInt(row, 6), &job, &v1::Job::mutable_create_time);
  MaybeSet(ColInt(row, 7), &job, &v1::Job::mutable_update_time);
  job.set_name(ColStr(row, 8));
  job.set_consecutive_failures(static_cast<uint32_t>(ColInt(row, 9)));
  job.set_pause_reason(ColStr(row, 10));
  if (!ColIsNull(row, 11)) job.set_fires_left(static_cast<uint32_t>(ColInt(row, 11)));
  return job;
}

absl::StatusOr<DueJob> DueJobFromRow(const SqlRow& row) {
  ASSIGN_OR_RETURN(v1::Job job, JobFromRow(row));
  DueJob due;
  due.job = std::move(job);
  due.next_fire_ms = ColInt(row, 3);
  due.last_fire_ms = ColInt(row, 4);
  return due;
}

SqlValue CalendarValue(const v1::Schedule& schedule) {
  return schedule.calendar().empty() ? SqlNull() : SqlText(schedule.calendar());
}

absl::StatusOr<v1::Workflow> WorkflowFromRow(const SqlRow& row) {
  v1::Workflow w;
  if (!w.ParseFromString(ColStr(row, 5))) {
    return absl::InternalError(absl::StrCat("workflow ", ColInt(row, 0), ": corrupt spec"));
  }
  w.set_id(ColInt(row, 0));
  w.set_group_id(ColInt(row, 1));
  w.set_name(ColStr(row, 2));
  w.set_state(static_cast<v1::WorkflowState>(ColInt(row, 3)));
  SetMs(ColInt(row, 6), w.mutable_create_time());
  SetMs(ColInt(row, 7), w.mutable_update_time());
  return w;
}

bool IsEnded(v1::RunStatus status) {
  return status == v1::RUN_STATUS_SUCCEEDED || status == v1::RUN_STATUS_FAILED;
}

bool TakesSlot(const v1::Run& run) {
  return run.has_scheduled_time() && IsSlotType(run.trigger_type());
}

bool IsSlotType(v1::TriggerType type) {
  switch (type) {
    case v1::TRIGGER_TYPE_CRON:
    case v1::TRIGGER_TYPE_FIX_RATE:
    case v1::TRIGGER_TYPE_FIX_DELAY:
    case v1::TRIGGER_TYPE_MISFIRE:
    case v1::TRIGGER_TYPE_BACKFILL:
      return true;
    default:
      return false;
  }
}

// A workflow node run's inputs, stored as a v1::Run holding only them (the
// repeated field has no message of its own).
std::string InputsBytes(const v1::Run& r) {
  v1::Run only;
  *only.mutable_inputs() = r.inputs();
  return only.SerializeAsString();
}

std::vector<SqlValue> RunInsertArgs(const v1::Run& r) {
  const int64_t scheduled_ms = r.has_scheduled_time() ? ToMs(r.scheduled_time()) : 0;
  const v1::RunStatus status =
      r.status() == v1::RUN_STATUS_UNSPECIFIED ? v1::RUN_STATUS_PENDING : r.status();
  return {
      SqlInt(r.job_id()), SqlInt(r.group_id()), SqlInt(r.trigger_type()),
      TakesSlot(r) ? SqlInt(scheduled_ms) : SqlNull(), SqlInt(scheduled_ms),
      SqlInt(ToMs(r.trigger_time())), SqlInt(ToMs(r.dispatch_time())),
      SqlText(r.executor_address()), SqlText(r.handler()), SqlText(r.params()),
      SqlInt(r.shard_index()), SqlInt(r.shard_total()), SqlInt(r.attempt()),
      SqlInt(r.first_run_id()), SqlInt(r.parent_run_id()), SqlInt(r.trigger_code()),
      SqlText(r.trigger_message()), SqlInt(r.handle_code()), SqlText(r.handle_message()),
      SqlInt(ToMs(r.start_time())), SqlInt(ToMs(r.end_time())), SqlInt(status),
      SqlInt(r.fence_epoch()), SqlInt(r.log_line_count()), SqlInt(r.log_truncated() ? 1 : 0),
      SqlInt(IsEnded(status) && (status != v1::RUN_STATUS_SUCCEEDED || r.success_has_followups())
                 ? 1
                 : 0),
      r.attempt() > 0 && r.first_run_id() > 0 ? SqlInt(r.first_run_id()) : SqlNull(),
      r.trigger_type() == v1::TRIGGER_TYPE_PARENT && r.parent_run_id() > 0
          ? SqlInt(r.parent_run_id())
          : SqlNull(),
      SqlInt(r.success_has_followups() ? 1 : 0),
      // NULL for a run of no workflow: the node key (run_node) never clashes.
      r.workflow_run_id() > 0 ? SqlInt(r.workflow_run_id()) : SqlNull(),
      r.workflow_run_id() > 0 ? SqlText(r.workflow_node()) : SqlNull(),
      SqlInt(r.workflow_attempt()), r.output().empty() ? SqlNull() : SqlText(r.output()),
      r.inputs().empty() ? SqlNull() : SqlBytes(InputsBytes(r)),
      r.has_deadline_time() ? SqlInt(ToMs(r.deadline_time())) : SqlNull(),
      // Only a first attempt is watched: it judges its retries with it.
      r.has_deadline_time() && r.attempt() == 0 ? SqlInt(ToMs(r.deadline_time())) : SqlNull(),
      r.pool().empty() ? SqlNull() : SqlText(r.pool()), SqlInt(r.priority()),
      r.has_queued_time() ? SqlInt(ToMs(r.queued_time())) : SqlNull()};
}

v1::Run RunFromRow(const SqlRow& row) {
  v1::Run r;
  r.set_id(ColInt(row, 0));
  r.set_job_id(ColInt(row, 1));
  r.set_group_id(ColInt(row, 2));
  r.set_trigger_type(static_cast<v1::TriggerType>(ColInt(row, 3)));
  // Column 4 (slot_ms) is the unique-slot copy of scheduled_ms.
  MaybeSet(ColInt(row, 5), &r, &v1::Run::mutable_scheduled_time);
  MaybeSet(ColInt(row, 6), &r, &v1::Run::mutable_trigger_time);
  MaybeSet(ColInt(row, 7), &r, &v1::Run::mutable_dispatch_time);
  r.set_executor_address(ColStr(row, 8));
  r.set_handler(ColStr(row, 9));
  r.set_params(ColStr(row, 10));
  r.set_shard_index(static_cast<uint32_t>(ColInt(row, 11)));
  r.set_shard_total(static_cast<uint32_t>(ColInt(row, 12)));
  r.set_attempt(static_cast<uint32_t>(ColInt(row, 13)));
  // A first attempt is stored with first_run_id 0 (its own id is not known
  // when it is inserted; an UPDATE per run would cost a statement per run).
  r.set_first_run_id(ColInt(row, 14) == 0 ? r.id() : ColInt(row, 14));
  r.set_parent_run_id(ColInt(row, 15));
  r.set_trigger_code(static_cast<int32_t>(ColInt(row, 16)));
  r.set_trigger_message(ColStr(row, 17));
  r.set_handle_code(static_cast<int32_t>(ColInt(row, 18)));
  r.set_handle_message(ColStr(row, 19));
  MaybeSet(ColInt(row, 20), &r, &v1::Run::mutable_start_time);
  MaybeSet(ColInt(row, 21), &r, &v1::Run::mutable_end_time);
  r.set_status(static_cast<v1::RunStatus>(ColInt(row, 22)));
  r.set_fence_epoch(ColInt(row, 23));
  r.set_log_line_count(ColInt(row, 24));
  r.set_log_truncated(ColInt(row, 25) != 0);
  r.set_alarm_status(ColStr(row, 26));
  r.set_success_has_followups(ColInt(row, 27) != 0);
  r.set_workflow_run_id(ColInt(row, 28));
  r.set_workflow_node(ColStr(row, 29));
  r.set_workflow_attempt(static_cast<int32_t>(ColInt(row, 30)));
  r.set_output(ColStr(row, 31));
  if (!ColIsNull(row, 32)) {
    v1::Run inputs;
    if (inputs.ParseFromString(ColStr(row, 32))) r.mutable_inputs()->Swap(inputs.mutable_inputs());
  }
  if (!ColIsNull(row, 33)) MaybeSet(ColInt(row, 33), &r, &v1::Run::mutable_deadline_time);
  r.set_pool(ColStr(row, 34));
  r.set_priority(static_cast<int32_t>(ColInt(row, 35)));
  if (!ColIsNull(row, 36)) MaybeSet(ColInt(row, 36), &r, &v1::Run::mutable_queued_time);
  return r;
}

v1::ApiToken TokenFromRow(const SqlRow& row) {
  v1::ApiToken t;
  t.set_name(ColStr(row, 0));
  t.set_fingerprint(ColStr(row, 1).substr(0, 16));
  MaybeSet(ColInt(row, 2), &t, &v1::ApiToken::mutable_create_time);
  MaybeSet(ColInt(row, 3), &t, &v1::ApiToken::mutable_expire_time);
  MaybeSet(ColInt(row, 4), &t, &v1::ApiToken::mutable_revoke_time);
  t.set_role(static_cast<v1::Role>(ColInt(row, 5)));
  *t.mutable_grants() = GrantsFromColumn(ColStr(row, 6));
  t.set_user(ColStr(row, 7));
  return t;
}

v1::User UserFromRow(const SqlRow& row, std::string* password_hash) {
  v1::User u;
  u.set_name(ColStr(row, 0));
  u.set_role(static_cast<v1::Role>(ColInt(row, 1)));
  *u.mutable_grants() = GrantsFromColumn(ColStr(row, 2));
  MaybeSet(ColInt(row, 3), &u, &v1::User::mutable_create_time);
  MaybeSet(ColInt(row, 4), &u, &v1::User::mutable_update_time);
  if (password_hash != nullptr) *password_hash = ColStr(row, 5);
  return u;
}

std::string GrantsToColumn(const v1::Grants& grants) {
  if (grants.all_groups()) return "*";
  return absl::StrJoin(grants.group_ids(), ",");
}

v1::Grants GrantsFromColumn(std::string_view column) {
  v1::Grants g;
  if (column == "*") {
    g.set_all_groups(true);
    return g;
  }
  for (absl::string_view id :
       absl::StrSplit(absl::string_view(column.data(), column.size()), ',', absl::SkipEmpty())) {
    int64_t v = 0;
    if (absl::SimpleAtoi(id, &v)) g.add_group_ids(v);
  }
  return g;
}

absl::StatusOr<v1::ExecutorInfo> ExecutorFromRow(const SqlRow& row) {
  v1::ExecutorInfo info;
  if (!info.ParseFromString(ColStr(row, 0))) {
    return absl::InternalError("registry: corrupt executor info");
  }
  info.clear_register_time();
  info.clear_last_beat_time();
  MaybeSet(ColInt(row, 1), &info, &v1::ExecutorInfo::mutable_register_time);
  MaybeSet(ColInt(row, 2), &info, &v1::ExecutorInfo::mutable_last_beat_time);
  return info;
}

}  // namespace gnomon::store::internal
