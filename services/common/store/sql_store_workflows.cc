// SqlStore: workflows (the workflow table: a row per workflow, its
// definition in `spec`) and their runs (workflow_run: a row per run, its
// nodes in `state`, changed only from the version read).
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

// The definition as stored: the workflow without what has columns of its own.
std::string WorkflowSpec(const v1::Workflow& w) {
  v1::Workflow spec = w;
  spec.clear_id();
  spec.clear_group_id();
  spec.clear_name();
  spec.clear_state();
  spec.clear_create_time();
  spec.clear_update_time();
  return spec.SerializeAsString();
}

// The run as stored in `state`: without what has columns of its own.
std::string WorkflowRunState(const v1::WorkflowRun& run) {
  v1::WorkflowRun state = run;
  state.clear_id();
  state.clear_workflow_id();
  state.clear_status();
  state.clear_version();
  state.clear_create_time();
  state.clear_end_time();
  return state.SerializeAsString();
}

// Columns: id, workflow_id, status, version, state, create_ms, end_ms.
absl::StatusOr<v1::WorkflowRun> WorkflowRunFromRow(const SqlRow& row) {
  v1::WorkflowRun run;
  if (!run.ParseFromString(ColStr(row, 4))) {
    return absl::InternalError(absl::StrCat("workflow run ", ColInt(row, 0), ": corrupt state"));
  }
  run.set_id(ColInt(row, 0));
  run.set_workflow_id(ColInt(row, 1));
  run.set_status(static_cast<v1::WorkflowRunStatus>(ColInt(row, 2)));
  run.set_version(ColInt(row, 3));
  SetMs(ColInt(row, 5), run.mutable_create_time());
  if (const int64_t end = ColInt(row, 6); end > 0) SetMs(end, run.mutable_end_time());
  return run;
}

absl::Status NameTaken(const absl::Status& s, const v1::Workflow& w) {
  if (!absl::IsAlreadyExists(s)) return s;
  return absl::AlreadyExistsError(absl::StrCat("workflow.name: group ", w.group_id(),
                                               " already has a workflow named '", w.name(), "'"));
}

absl::StatusOr<v1::Workflow> ReadWorkflow(SqlConn& c, const Statements& sql, int64_t id) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_workflow, {SqlInt(id)}));
  if (rows.empty()) return absl::NotFoundError(absl::StrCat("workflow ", id, " does not exist"));
  return WorkflowFromRow(rows.front());
}

absl::StatusOr<v1::WorkflowRun> ReadWorkflowRun(SqlConn& c, const Statements& sql, int64_t id) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_workflow_run, {SqlInt(id)}));
  if (rows.empty()) {
    return absl::NotFoundError(absl::StrCat("workflow run ", id, " does not exist"));
  }
  return WorkflowRunFromRow(rows.front());
}

}  // namespace

absl::StatusOr<v1::Workflow> SqlStore::CreateWorkflow(const v1::Workflow& workflow,
                                                      int64_t next_fire_ms, int64_t now_ms) {
  absl::StatusOr<v1::Workflow> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> groups,
                     c.Query(sql_.select_group, {SqlInt(workflow.group_id())}));
    if (groups.empty()) {
      return absl::NotFoundError(
          absl::StrCat("workflow.group_id: group ", workflow.group_id(), " does not exist"));
    }
    absl::StatusOr<int64_t> id =
        c.Insert(sql_.insert_workflow,
                 {SqlInt(workflow.group_id()), SqlText(workflow.name()), SqlInt(workflow.state()),
                  SqlInt(next_fire_ms), SqlBytes(WorkflowSpec(workflow)), SqlInt(now_ms),
                  SqlInt(now_ms), CalendarValue(workflow.schedule())});
    if (!id.ok()) return NameTaken(id.status(), workflow);
    out = ReadWorkflow(c, sql_, *id);
    return out.status();
  }));
  return out;
}

absl::StatusOr<v1::Workflow> SqlStore::GetWorkflow(int64_t workflow_id) {
  absl::StatusOr<v1::Workflow> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadWorkflow(c, sql_, workflow_id);
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Workflow>> SqlStore::ListWorkflows(int64_t group_id) {
  std::vector<v1::Workflow> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     group_id == 0 ? c.Query(sql_.select_workflows, {})
                                   : c.Query(sql_.select_group_workflows, {SqlInt(group_id)}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::Workflow w, WorkflowFromRow(row));
      out.push_back(std::move(w));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::Workflow> SqlStore::UpdateWorkflow(const v1::Workflow& workflow,
                                                      std::optional<int64_t> next_fire_ms,
                                                      int64_t now_ms) {
  absl::StatusOr<v1::Workflow> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(v1::Workflow current, ReadWorkflow(c, sql_, workflow.id()));
    v1::Workflow w = workflow;
    w.set_group_id(current.group_id());
    absl::StatusOr<ExecResult> r = c.Exec(
        sql_.update_workflow, {SqlText(w.name()), SqlInt(w.state()), SqlBytes(WorkflowSpec(w)),
                               CalendarValue(w.schedule()), SqlInt(now_ms),
                               next_fire_ms ? SqlInt(*next_fire_ms) : SqlNull(), SqlInt(w.id())});
    if (!r.ok()) return NameTaken(r.status(), w);
    out = ReadWorkflow(c, sql_, w.id());
    return out.status();
  }));
  return out;
}

absl::Status SqlStore::DeleteWorkflow(int64_t workflow_id) {
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql_.count_running_workflow_runs, {SqlInt(workflow_id)}));
    if (const int64_t running = rows.empty() ? 0 : ColInt(rows.front(), 0); running > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("workflow ", workflow_id, " has ", running, running == 1 ? " run" : " runs",
                       " still running: cancel ", running == 1 ? "it" : "them", " first"));
    }
    RETURN_IF_ERROR(c.Exec(sql_.delete_workflow_runs, {SqlInt(workflow_id)}).status());
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.delete_workflow, {SqlInt(workflow_id)}));
    if (r.affected_rows == 0) {
      return absl::NotFoundError(absl::StrCat("workflow ", workflow_id, " does not exist"));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<v1::WorkflowRun> SqlStore::CreateWorkflowRun(const v1::WorkflowRun& run,
                                                            int64_t now_ms) {
  absl::StatusOr<v1::WorkflowRun> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(ReadWorkflow(c, sql_, run.workflow_id()).status());
    const SqlValue slot = run.has_scheduled_time() ? SqlInt(ToMs(run.scheduled_time())) : SqlNull();
    absl::StatusOr<int64_t> id =
        c.Insert(sql_.insert_workflow_run, {SqlInt(run.workflow_id()), slot, SqlInt(run.status()),
                                            SqlBytes(WorkflowRunState(run)), SqlInt(now_ms)});
    if (absl::IsAlreadyExists(id.status())) {
      return absl::AlreadyExistsError(absl::StrCat("workflow ", run.workflow_id(),
                                                   " already has a run for slot ",
                                                   ToMs(run.scheduled_time())));
    }
    RETURN_IF_ERROR(id.status());
    out = ReadWorkflowRun(c, sql_, *id);
    return out.status();
  }));
  return out;
}

absl::StatusOr<v1::WorkflowRun> SqlStore::GetWorkflowRun(int64_t run_id) {
  absl::StatusOr<v1::WorkflowRun> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadWorkflowRun(c, sql_, run_id);
    return out.status();
  }));
  return out;
}

absl::StatusOr<v1::WorkflowRun> SqlStore::UpdateWorkflowRun(const v1::WorkflowRun& run,
                                                            int64_t now_ms) {
  absl::StatusOr<v1::WorkflowRun> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    const int64_t end_ms = run.status() == v1::WORKFLOW_RUN_STATUS_RUNNING ? 0 : now_ms;
    ASSIGN_OR_RETURN(ExecResult r,
                     c.Exec(sql_.update_workflow_run,
                            {SqlInt(run.status()), SqlBytes(WorkflowRunState(run)), SqlInt(end_ms),
                             SqlInt(run.id()), SqlInt(run.version())}));
    if (r.affected_rows == 0) {
      RETURN_IF_ERROR(ReadWorkflowRun(c, sql_, run.id()).status());  // NotFound if it is gone.
      return absl::AbortedError(absl::StrCat("workflow run ", run.id(), " changed since version ",
                                             run.version(), " was read"));
    }
    out = ReadWorkflowRun(c, sql_, run.id());
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::WorkflowRun>> SqlStore::ListWorkflowRuns(int64_t workflow_id,
                                                                        int limit) {
  std::vector<v1::WorkflowRun> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql_.select_workflow_runs, {SqlInt(workflow_id), SqlInt(limit)}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::WorkflowRun run, WorkflowRunFromRow(row));
      out.push_back(std::move(run));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<DueWorkflow>> SqlStore::ListDueWorkflows(
    int64_t until_ms, int limit, const std::vector<int>& partitions) {
  const std::string sql = DueWorkflowsSql(partitions_, partitions);
  std::vector<DueWorkflow> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, {SqlInt(until_ms), SqlInt(limit)}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::Workflow w, WorkflowFromRow(row));
      out.push_back({std::move(w), ColInt(row, 4)});
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<bool> SqlStore::AdvanceWorkflow(int64_t workflow_id, int64_t expected_ms,
                                               int64_t next_ms) {
  bool moved = false;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        ExecResult r,
        c.Exec(sql_.advance_workflow, {SqlInt(next_ms), SqlInt(workflow_id), SqlInt(expected_ms)}));
    moved = r.affected_rows > 0;
    return absl::OkStatus();
  }));
  return moved;
}

absl::StatusOr<std::vector<v1::WorkflowRun>> SqlStore::ListRunningWorkflowRuns(
    int limit, const std::vector<int>& partitions) {
  const std::string sql = RunningWorkflowRunsSql(partitions_, partitions);
  std::vector<v1::WorkflowRun> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, {SqlInt(limit)}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::WorkflowRun run, WorkflowRunFromRow(row));
      out.push_back(std::move(run));
    }
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal
