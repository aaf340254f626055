// SqlStore: groups and jobs.
#include <algorithm>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/batch_sql.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

// A page size that is never zero or absurd.
int64_t ClampLimit(int limit) { return limit <= 0 ? 100 : std::min(limit, 10000); }

}  // namespace

absl::Status Annotate(const absl::Status& s, std::string_view context) {
  if (s.ok()) return s;
  return absl::Status(
      s.code(), absl::StrCat(absl::string_view(context.data(), context.size()), ": ", s.message()));
}

// ---- Groups -----------------------------------------------------------------

absl::StatusOr<v1::Group> SqlStore::ReadGroup(SqlConn& c, const std::string& sql, SqlValue key,
                                              const std::string& what) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, {std::move(key)}));
  if (rows.empty()) return absl::NotFoundError(absl::StrCat(what, " does not exist"));
  return GroupFromRow(rows.front());
}

absl::StatusOr<v1::Group> SqlStore::CreateGroup(const v1::Group& group, int64_t now_ms) {
  v1::Group out = group;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<int64_t> id =
        c.Insert(sql_.insert_group, {SqlText(group.app_name()), SqlText(group.title()),
                                     SqlBytes(MembershipBlob(group)), SqlText(group.access_token()),
                                     SqlInt(now_ms), SqlInt(now_ms)});
    if (absl::IsAlreadyExists(id.status())) {
      return absl::AlreadyExistsError(
          absl::StrCat("group app name '", group.app_name(), "' is taken"));
    }
    RETURN_IF_ERROR(id);
    out.set_id(*id);
    return absl::OkStatus();
  }));
  SetMs(now_ms, out.mutable_create_time());
  SetMs(now_ms, out.mutable_update_time());
  return out;
}

absl::StatusOr<v1::Group> SqlStore::GetGroup(int64_t group_id) {
  absl::StatusOr<v1::Group> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadGroup(c, sql_.select_group, SqlInt(group_id), absl::StrCat("group ", group_id));
    return out.status();
  }));
  return out;
}

absl::StatusOr<v1::Group> SqlStore::GetGroupByApp(std::string_view app_name) {
  absl::StatusOr<v1::Group> out;
  const std::string app(app_name);
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadGroup(c, sql_.select_group_by_app, SqlText(app),
                    absl::StrCat("group with app name '", app, "'"));
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Group>> SqlStore::ListGroups() {
  std::vector<v1::Group> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_groups, {}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::Group g, GroupFromRow(row));
      out.push_back(std::move(g));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::Group> SqlStore::UpdateGroup(const v1::Group& group, int64_t now_ms) {
  absl::StatusOr<v1::Group> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.update_group,
                                          {SqlText(group.title()), SqlBytes(MembershipBlob(group)),
                                           SqlText(group.access_token()), SqlInt(now_ms),
                                           SqlText(group.previous_access_token()),
                                           SqlInt(group.has_previous_token_expire_time()
                                                      ? ToMs(group.previous_token_expire_time())
                                                      : 0),
                                           SqlInt(group.id())}));
    if (r.affected_rows == 0) {
      return absl::NotFoundError(absl::StrCat("group ", group.id(), " does not exist"));
    }
    out = ReadGroup(c, sql_.select_group, SqlInt(group.id()), absl::StrCat("group ", group.id()));
    return out.status();
  }));
  return out;
}

absl::Status SqlStore::DeleteGroup(int64_t group_id) {
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.count_group_jobs, {SqlInt(group_id)}));
    const int64_t jobs = rows.empty() ? 0 : ColInt(rows.front(), 0);
    if (jobs > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("group ", group_id, " is used by ", jobs, jobs == 1 ? " job" : " jobs"));
    }
    ASSIGN_OR_RETURN(rows, c.Query(sql_.count_group_workflows, {SqlInt(group_id)}));
    const int64_t workflows = rows.empty() ? 0 : ColInt(rows.front(), 0);
    if (workflows > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("group ", group_id, " is used by ", workflows,
                       workflows == 1 ? " workflow" : " workflows"));
    }
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.delete_group, {SqlInt(group_id)}));
    if (r.affected_rows == 0) {
      return absl::NotFoundError(absl::StrCat("group ", group_id, " does not exist"));
    }
    return absl::OkStatus();
  });
}

// ---- Jobs -------------------------------------------------------------------

absl::StatusOr<v1::Job> SqlStore::ReadJob(SqlConn& c, int64_t job_id) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_job, {SqlInt(job_id)}));
  if (rows.empty()) return absl::NotFoundError(absl::StrCat("job ", job_id, " does not exist"));
  return JobFromRow(rows.front());
}

namespace {

// The name column's value: NULL for a job to be named "job-<id>".
SqlValue NameValue(const v1::Job& job) {
  return job.name().empty() ? SqlNull() : SqlText(job.name());
}

// The fires_left column's value for a job started afresh: all its
// max_fires, NULL without one.
SqlValue FiresLeftValue(const v1::Job& job) {
  return job.max_fires() > 0 ? SqlInt(job.max_fires()) : SqlNull();
}

// A clash of the (group, name) key, said in the API's words.
absl::Status NameTaken(const absl::Status& s, const v1::Job& job) {
  if (!absl::IsAlreadyExists(s)) return s;
  return absl::AlreadyExistsError(absl::StrCat("job.name: group ", job.group_id(),
                                               " already has a job named '", job.name(), "'"));
}

absl::Status CheckGroupExists(SqlConn& c, const Statements& sql, int64_t group_id) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_group, {SqlInt(group_id)}));
  if (rows.empty()) {
    return absl::NotFoundError(absl::StrCat("job.group_id: group ", group_id, " does not exist"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::Job> SqlStore::CreateJob(const v1::Job& job, v1::JobState state,
                                            int64_t next_fire_ms, int64_t now_ms,
                                            std::string_view author) {
  absl::StatusOr<v1::Job> out;
  const v1::Job spec = NewJobSpec(job);
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(CheckGroupExists(c, sql_, job.group_id()));
    ASSIGN_OR_RETURN(int64_t id, InsertJob(c, spec, state, next_fire_ms, now_ms));
    RETURN_IF_ERROR(RecordFirstScript(c, id, job, author, now_ms));
    out = ReadJob(c, id);
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Job>> SqlStore::CreateJobs(const std::vector<NewJob>& jobs,
                                                          int64_t now_ms, std::string_view author) {
  std::vector<v1::Job> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    out.clear();
    absl::flat_hash_set<int64_t> groups;
    for (const NewJob& n : jobs) {
      if (!groups.insert(n.job.group_id()).second) continue;
      RETURN_IF_ERROR(CheckGroupExists(c, sql_, n.job.group_id()));
    }
    std::vector<int64_t> ids;
    ids.reserve(jobs.size());
    for (const NewJob& n : jobs) {
      ASSIGN_OR_RETURN(int64_t id,
                       InsertJob(c, NewJobSpec(n.job), n.state, n.next_fire_ms, now_ms));
      RETURN_IF_ERROR(RecordFirstScript(c, id, n.job, author, now_ms));
      ids.push_back(id);
    }
    ASSIGN_OR_RETURN(std::vector<v1::Job> read, ReadJobs(c, ids));
    if (read.size() != ids.size())
      return absl::InternalError("created jobs could not be read back");
    out = std::move(read);
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<int64_t> SqlStore::InsertJob(SqlConn& c, const v1::Job& job, v1::JobState state,
                                            int64_t next_fire_ms, int64_t now_ms) {
  absl::StatusOr<int64_t> id = c.Insert(
      sql_.insert_job, {SqlInt(job.group_id()), SqlInt(state), SqlInt(next_fire_ms),
                        SqlBytes(JobSpecBlob(job)), SqlInt(now_ms), SqlInt(now_ms), NameValue(job),
                        FiresLeftValue(job), CalendarValue(job.schedule())});
  if (!id.ok()) return NameTaken(id.status(), job);
  if (job.name().empty()) {
    RETURN_IF_ERROR(c.Exec(sql_.name_job_by_id, {SqlInt(*id)}));
  }
  return id;
}

absl::StatusOr<v1::Job> SqlStore::GetJob(int64_t job_id) {
  absl::StatusOr<v1::Job> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadJob(c, job_id);
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Job>> SqlStore::ReadJobs(SqlConn& c,
                                                        const std::vector<int64_t>& job_ids) {
  std::vector<v1::Job> out;
  if (job_ids.empty()) return out;
  std::vector<SqlRow> keys;
  keys.reserve(job_ids.size());
  for (int64_t id : job_ids) keys.push_back({SqlInt(id)});
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, QueryPadded(c, sql_.select_jobs_by_id, keys));
  absl::flat_hash_map<int64_t, v1::Job> read;  // padding repeats the last id
  for (const SqlRow& row : rows) {
    ASSIGN_OR_RETURN(v1::Job job, JobFromRow(row));
    read.insert_or_assign(job.id(), std::move(job));
  }
  for (int64_t id : job_ids) {
    auto it = read.find(id);
    if (it == read.end()) continue;
    out.push_back(std::move(it->second));
    read.erase(it);  // an id asked twice comes back once
  }
  return out;
}

absl::StatusOr<std::vector<v1::Job>> SqlStore::GetJobs(const std::vector<int64_t>& job_ids) {
  absl::StatusOr<std::vector<v1::Job>> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadJobs(c, job_ids);
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Job>> SqlStore::GetJobsNamed(std::string_view name,
                                                            const std::vector<int64_t>& group_ids) {
  std::vector<SqlValue> args = {SqlText(std::string(name))};
  for (int64_t g : group_ids) args.push_back(SqlInt(g));
  return QueryJobs(JobsNamedSql(static_cast<int>(group_ids.size())), args);
}

absl::StatusOr<std::vector<v1::Job>> SqlStore::QueryJobs(const std::string& sql,
                                                         const std::vector<SqlValue>& args) {
  std::vector<v1::Job> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, args));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::Job job, JobFromRow(row));
      out.push_back(std::move(job));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Run>> SqlStore::LastRuns(const std::vector<int64_t>& job_ids) {
  std::vector<v1::Run> out;
  if (job_ids.empty()) return out;
  std::vector<SqlRow> jobs;
  for (int64_t id : job_ids) jobs.push_back({SqlInt(id)});
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    // Two indexed reads: the newest id per job (run_job is (job_id, id)), then those runs.
    ASSIGN_OR_RETURN(std::vector<SqlRow> ids, QueryPadded(c, sql_.select_last_run_ids, jobs));
    absl::flat_hash_set<int64_t> seen;  // Padding repeats the last job.
    std::vector<SqlRow> runs;
    for (const SqlRow& row : ids) {
      if (seen.insert(ColInt(row, 0)).second) runs.push_back({SqlInt(ColInt(row, 0))});
    }
    if (runs.empty()) return absl::OkStatus();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, QueryPadded(c, sql_.select_runs_by_id, runs));
    seen.clear();
    for (const SqlRow& row : rows) {
      if (seen.insert(ColInt(row, 0)).second) out.push_back(RunFromRow(row));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Job>> SqlStore::ListJobs(const std::vector<int64_t>& group_ids,
                                                        int64_t after_id, int limit) {
  std::vector<SqlValue> args = {SqlInt(after_id)};
  for (int64_t g : group_ids) args.push_back(SqlInt(g));
  args.push_back(SqlInt(ClampLimit(limit)));
  return QueryJobs(ListJobsSql(static_cast<int>(group_ids.size())), args);
}

absl::StatusOr<v1::Job> SqlStore::UpdateJob(const v1::Job& requested,
                                            std::optional<int64_t> next_fire_ms, int64_t now_ms,
                                            std::string_view author) {
  absl::StatusOr<v1::Job> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    v1::Job job = requested;
    if (job.has_script()) {
      // Two edits of one script must not both take the next version.
      RETURN_IF_ERROR(c.Query(sql_.lock_job, {SqlInt(job.id())}));
    }
    ASSIGN_OR_RETURN(v1::Job current, ReadJob(c, job.id()));
    if (current.group_id() != job.group_id()) {
      RETURN_IF_ERROR(CheckGroupExists(c, sql_, job.group_id()));
    }
    // An update without a name keeps the job's.
    const std::string name = job.name().empty() ? current.name() : job.name();
    RETURN_IF_ERROR(RecordScriptEdit(c, current, job, author, now_ms));
    absl::StatusOr<ExecResult> r =
        next_fire_ms.has_value()
            ? c.Exec(sql_.update_job_spec_and_cursor,
                     {SqlInt(job.group_id()), SqlBytes(JobSpecBlob(job)), SqlText(name),
                      CalendarValue(job.schedule()), SqlInt(*next_fire_ms), SqlInt(now_ms),
                      SqlInt(job.id())})
            : c.Exec(sql_.update_job_spec,
                     {SqlInt(job.group_id()), SqlBytes(JobSpecBlob(job)), SqlText(name),
                      CalendarValue(job.schedule()), SqlInt(now_ms), SqlInt(job.id())});
    if (!r.ok()) return NameTaken(r.status(), job);
    if (current.max_fires() != job.max_fires()) {  // Counted afresh.
      RETURN_IF_ERROR(
          c.Exec(sql_.set_fires_left, {FiresLeftValue(job), SqlInt(job.id())}).status());
    }
    out = ReadJob(c, job.id());
    return out.status();
  }));
  return out;
}

absl::Status SqlStore::DeleteJob(int64_t job_id, bool purge_runs) {
  // Its runs stay by default (results of running ones still arrive and are
  // counted; retention removes them); purging takes them, their logs and the
  // daily statistics rows at once (what this process has not written yet
  // first, so it does not bring them back). It is also taken out of its
  // parents' child lists.
  if (purge_runs) RETURN_IF_ERROR(stats_->Flush());
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    std::vector<const std::string*> deletes = {&sql_.delete_job_glue};
    if (purge_runs) {
      deletes.insert(deletes.end(), {&sql_.delete_job_logs, &sql_.delete_job_runs});
      for (const StatsTables* t : {&sql_.stats, &sql_.legacy_stats}) {
        deletes.insert(deletes.end(),
                       {&t->delete_job_days, &t->delete_job_durations, &t->delete_job_lateness});
      }
    }
    for (const std::string* sql : deletes) {
      RETURN_IF_ERROR(c.Exec(*sql, {SqlInt(job_id)}));
    }
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.delete_job, {SqlInt(job_id)}));
    if (r.affected_rows == 0) {
      return absl::NotFoundError(absl::StrCat("job ", job_id, " does not exist"));
    }
    return DropChild(c, job_id);
  });
}

absl::Status SqlStore::DropChild(SqlConn& c, int64_t job_id) {
  // Parents are found by reading every job: deleting is rare, and a parent's
  // children live in its spec (no index can find them).
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_all_jobs, {}));
  for (const SqlRow& row : rows) {
    ASSIGN_OR_RETURN(v1::Job parent, JobFromRow(row));
    auto* children = parent.mutable_child_job_ids();
    const auto kept = std::remove(children->begin(), children->end(), job_id);
    if (kept == children->end()) continue;
    children->erase(kept, children->end());
    RETURN_IF_ERROR(
        c.Exec(sql_.update_job_spec, {SqlInt(parent.group_id()), SqlBytes(JobSpecBlob(parent)),
                                      SqlText(parent.name()), CalendarValue(parent.schedule()),
                                      SqlInt(ToMs(parent.update_time())), SqlInt(parent.id())}));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Job> SqlStore::SetJobState(int64_t job_id, v1::JobState state,
                                              int64_t next_fire_ms, int64_t now_ms) {
  absl::StatusOr<v1::Job> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    // Started (or stopped): a job with max_fires has all of them again.
    ASSIGN_OR_RETURN(v1::Job current, ReadJob(c, job_id));
    RETURN_IF_ERROR(c.Exec(sql_.set_job_state, {SqlInt(state), SqlInt(next_fire_ms), SqlInt(now_ms),
                                                FiresLeftValue(current), SqlInt(job_id)})
                        .status());
    out = ReadJob(c, job_id);
    return out.status();
  }));
  return out;
}

absl::StatusOr<uint32_t> SqlStore::RecordJobEnd(int64_t job_id, int64_t run_id, bool failed) {
  uint32_t count = 0;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(c.Exec(sql_.count_job_end,
                           {SqlInt(failed ? 1 : 0), SqlInt(run_id), SqlInt(job_id), SqlInt(run_id)})
                        .status());
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_job_failures, {SqlInt(job_id)}));
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("job ", job_id, " does not exist"));
    count = static_cast<uint32_t>(ColInt(rows.front(), 0));
    return absl::OkStatus();
  }));
  return count;
}

absl::StatusOr<bool> SqlStore::PauseJob(int64_t job_id, std::string_view reason, int64_t now_ms) {
  bool paused = false;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(ExecResult r,
                     c.Exec(sql_.pause_job, {SqlInt(kNever), SqlText(std::string(reason)),
                                             SqlInt(now_ms), SqlInt(job_id)}));
    paused = r.affected_rows > 0;
    return absl::OkStatus();
  }));
  return paused;
}

absl::StatusOr<std::vector<DueJob>> SqlStore::ListDueJobs(int64_t until_ms, int limit,
                                                          const std::vector<int>& partitions) {
  std::vector<DueJob> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(partitions.empty() ? sql_.select_due_jobs
                                                : DueJobsInPartitionsSql(partitions_, partitions),
                             {SqlInt(until_ms),
                              SqlInt(limit > 0 ? limit : std::numeric_limits<int64_t>::max())}));
    out.reserve(rows.size());
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(DueJob due, DueJobFromRow(row));
      out.push_back(std::move(due));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<bool>> SqlStore::AdvanceJobs(const std::vector<JobAdvance>& advances) {
  std::vector<bool> applied;
  if (advances.empty()) return applied;
  std::vector<int64_t> ids;
  ids.reserve(advances.size());
  for (const JobAdvance& a : advances) ids.push_back(a.job_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<SqlRow> keys;
  keys.reserve(ids.size());
  for (int64_t id : ids) keys.push_back({SqlInt(id)});
  // One SELECT of the cursors (locking the jobs in id order on MySQL), the
  // compare-and-sets worked out in memory in the order given, one UPDATE.
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    applied.assign(advances.size(), false);
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, QueryPadded(c, sql_.lock_jobs, keys));
    struct Cursor {
      bool running = false;
      int64_t next_fire_ms = kNever;
      int64_t last_fire_ms = 0;
      int64_t fires_left = -1;  // -1: no max_fires.
      bool changed = false;
    };
    std::map<int64_t, Cursor> jobs;  // By id, ascending.
    for (const SqlRow& row : rows) {
      jobs[ColInt(row, 0)] = Cursor{ColInt(row, 1) == v1::JOB_STATE_RUNNING, ColInt(row, 2), 0,
                                    ColIsNull(row, 3) ? -1 : ColInt(row, 3)};
    }
    for (size_t i = 0; i < advances.size(); ++i) {
      const JobAdvance& a = advances[i];
      auto it = jobs.find(a.job_id);
      if (it == jobs.end() || !it->second.running ||
          it->second.next_fire_ms != a.expected_next_fire_ms) {
        continue;
      }
      it->second.next_fire_ms = a.next_fire_ms;
      it->second.last_fire_ms = a.last_fire_ms;
      if (it->second.fires_left >= 0) {
        it->second.fires_left = std::max<int64_t>(0, it->second.fires_left - a.fired);
      }
      it->second.changed = true;
      applied[i] = true;
    }
    std::vector<SqlRow> updates;
    for (const auto& [id, job] : jobs) {
      if (!job.changed) continue;
      updates.push_back({SqlInt(id), SqlInt(job.next_fire_ms), SqlInt(job.last_fire_ms),
                         job.fires_left >= 0 ? SqlInt(job.fires_left) : SqlNull()});
    }
    if (updates.empty()) return absl::OkStatus();
    return ExecPadded(c, sql_.update_job_cursors, updates);
  }));
  return applied;
}

absl::StatusOr<std::vector<JobCount>> SqlStore::CountJobs() {
  std::vector<JobCount> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.count_jobs_by_group_state, {}));
    for (const SqlRow& row : rows) {
      out.push_back({ColStr(row, 0), static_cast<v1::JobState>(ColInt(row, 1)), ColInt(row, 2)});
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<int64_t> SqlStore::CountGroupJobs(int64_t group_id) {
  int64_t n = 0;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.count_group_jobs, {SqlInt(group_id)}));
    if (!rows.empty()) n = ColInt(rows.front(), 0);
    return absl::OkStatus();
  }));
  return n;
}

absl::StatusOr<int64_t> FirstJobWhere(SqlConn& c, const Statements& sql,
                                      const std::function<bool(const v1::Job&)>& matches) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> jobs, c.Query(sql.select_job_specs, {}));
  for (const SqlRow& row : jobs) {
    v1::Job job;
    if (!job.ParseFromString(ColStr(row, 1))) {
      return absl::InternalError(absl::StrCat("job ", ColInt(row, 0), ": corrupt spec"));
    }
    if (matches(job)) return ColInt(row, 0);
  }
  return 0;
}

}  // namespace gnomon::store::internal
