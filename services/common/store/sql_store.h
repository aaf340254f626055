// SqlStore: the Store logic, written once over SqlDb (a driver seam) and the
// statements of one SQL dialect. The SQLite and MySQL backends construct it
// with their own SqlDb (see sqlite_store.h, mysql_store.h).
//
// Example (on a migrated database):
//   absl::StatusOr<std::unique_ptr<SqlStore>> store =
//       SqlStore::Create(std::move(db), Dialect::kSqlite, options);
//   absl::StatusOr<v1::Group> g = (*store)->CreateGroup(group, now_ms);
//
// Thread safety: thread-safe as its SqlDb is; its only state of its own is the
// statistics waiting to be written (StatsWriter, thread-safe).
#ifndef GNOMON_SERVICES_COMMON_STORE_SQL_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_SQL_STORE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "services/common/store/run_state.h"
#include "services/common/store/sql_conn.h"
#include "services/common/store/statements.h"
#include "services/common/store/stats_deltas.h"
#include "services/common/store/stats_writer.h"
#include "services/common/store/store.h"

namespace gnomon::store::internal {

// The id of the first job (by id) whose spec `matches`, 0 if none: the
// user a delete of an object jobs name by its spec is refused for.
absl::StatusOr<int64_t> FirstJobWhere(SqlConn& c, const Statements& sql,
                                      const std::function<bool(const v1::Job&)>& matches);

class SqlStore final : public Store {
 public:
  // The store over `db`, whose migrations are applied. Records
  // options.initial_partitions as the partition count unless the store has
  // one (sql_store_settings.cc); InvalidArgument if it is out of range,
  // FailedPrecondition if the recorded one is not a count.
  static absl::StatusOr<std::unique_ptr<SqlStore>> Create(std::unique_ptr<SqlDb> db,
                                                          Dialect dialect,
                                                          const StoreOptions& options);

  int partition_count() const override { return partitions_; }

  uint64_t committed_transactions() const override { return db_->committed(); }
  uint64_t executed_statements() const override { return db_->executed_statements(); }

  // Groups (sql_store_jobs.cc).
  absl::StatusOr<v1::Group> CreateGroup(const v1::Group& group, int64_t now_ms) override;
  absl::StatusOr<v1::Group> GetGroup(int64_t group_id) override;
  absl::StatusOr<v1::Group> GetGroupByApp(std::string_view app_name) override;
  absl::StatusOr<std::vector<v1::Group>> ListGroups() override;
  absl::StatusOr<v1::Group> UpdateGroup(const v1::Group& group, int64_t now_ms) override;
  absl::Status DeleteGroup(int64_t group_id) override;

  // Jobs (sql_store_jobs.cc).
  absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state, int64_t next_fire_ms,
                                    int64_t now_ms, std::string_view author) override;
  absl::StatusOr<std::vector<v1::Job>> CreateJobs(const std::vector<NewJob>& jobs, int64_t now_ms,
                                                  std::string_view author) override;
  absl::StatusOr<v1::Job> GetJob(int64_t job_id) override;
  absl::StatusOr<std::vector<v1::Job>> GetJobsNamed(std::string_view name,
                                                    const std::vector<int64_t>& group_ids) override;
  absl::StatusOr<std::vector<v1::Run>> LastRuns(const std::vector<int64_t>& job_ids) override;
  absl::StatusOr<std::vector<v1::Job>> GetJobs(const std::vector<int64_t>& job_ids) override;
  absl::StatusOr<std::vector<v1::Job>> ListJobs(const std::vector<int64_t>& group_ids,
                                                int64_t after_id, int limit) override;
  absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms,
                                    int64_t now_ms, std::string_view author) override;
  absl::Status DeleteJob(int64_t job_id, bool purge_runs) override;
  absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state, int64_t next_fire_ms,
                                      int64_t now_ms) override;
  absl::StatusOr<uint32_t> RecordJobEnd(int64_t job_id, int64_t run_id, bool failed) override;
  absl::StatusOr<bool> PauseJob(int64_t job_id, std::string_view reason, int64_t now_ms) override;
  absl::StatusOr<std::vector<DueJob>> ListDueJobs(int64_t until_ms, int limit,
                                                  const std::vector<int>& partitions) override;
  absl::StatusOr<std::vector<bool>> AdvanceJobs(const std::vector<JobAdvance>& advances) override;
  absl::StatusOr<std::vector<JobCount>> CountJobs() override;
  absl::StatusOr<int64_t> CountGroupJobs(int64_t group_id) override;

  // Script versions (sql_store_scripts.cc).
  absl::StatusOr<std::vector<v1::ScriptVersion>> ListScriptVersions(int64_t job_id,
                                                                    int64_t before_version,
                                                                    int limit) override;
  absl::StatusOr<v1::ScriptVersion> GetScriptVersion(int64_t job_id, int64_t version) override;

  // Runs (sql_store_runs.cc).
  absl::StatusOr<std::vector<RunInsertOutcome>> InsertRuns(std::vector<v1::Run>& runs) override;
  absl::Status RecordDispatches(const std::vector<DispatchUpdate>& updates) override;
  absl::StatusOr<std::vector<v1::ReportAck>> ApplyReports(const std::vector<v1::ReportItem>& items,
                                                          int64_t group_id) override;
  absl::StatusOr<v1::Run> GetRun(int64_t run_id) override;
  absl::StatusOr<std::vector<v1::Run>> ListRuns(const RunFilter& filter) override;
  absl::StatusOr<std::vector<v1::LogLine>> ReadRunLog(int64_t run_id, int64_t from_line,
                                                      int limit) override;
  absl::StatusOr<std::vector<v1::Run>> ListActiveRunsOn(std::string_view address) override;

  // Follow-ups and retention (sql_store_followups.cc).
  absl::StatusOr<std::vector<v1::Run>> ListPendingFollowups(
      int limit, int64_t now_ms, const std::vector<int>& partitions) override;
  absl::Status CompleteFollowups(const std::vector<int64_t>& run_ids) override;
  absl::Status DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) override;
  absl::StatusOr<std::vector<v1::Run>> ListDueDeadlines(
      int limit, int64_t now_ms, const std::vector<int>& partitions) override;
  absl::Status CompleteDeadlines(const std::vector<int64_t>& run_ids) override;
  absl::Status RecordAlarmStatus(int64_t run_id, std::string_view status) override;
  absl::StatusOr<int64_t> FailRuns(const std::vector<int64_t>& run_ids, int32_t handle_code,
                                   std::string_view handle_message, int64_t now_ms) override;
  absl::StatusOr<int64_t> DeleteRunsEndedBefore(int64_t before_ms, int limit) override;
  absl::StatusOr<int64_t> TrimRunsPerJob(int64_t keep, int limit) override;
  absl::Status AppendAudit(const v1::AuditEntry& entry) override;
  absl::StatusOr<std::vector<v1::AuditEntry>> ListAudit(std::string_view object, int64_t before_id,
                                                        int limit) override;
  absl::StatusOr<int64_t> DeleteAuditBefore(int64_t before_ms, int limit) override;

  // Reports (sql_store_stats.cc).
  absl::StatusOr<std::vector<v1::StatsRow>> GetStats(int64_t from_day_ms, int64_t to_day_ms,
                                                     int64_t job_id) override;

  // Registry (sql_store_misc.cc), API tokens and users (sql_store_credentials.cc),
  // leases (sql_store_leases.cc).
  absl::Status UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms,
                              int64_t registration_id) override;
  absl::Status RemoveExecutor(std::string_view app_name, std::string_view address,
                              int64_t register_ms, int64_t registration_id) override;
  absl::StatusOr<std::vector<v1::ExecutorInfo>> ListExecutors() override;
  absl::StatusOr<int64_t> PruneExecutors(int64_t before_ms) override;
  absl::StatusOr<bool> HasAdminTokens() override;
  absl::Status CreateAdminToken(std::string_view name, std::string_view sha256_hex, int64_t now_ms,
                                int64_t expire_ms, const TokenScope& scope) override;
  absl::StatusOr<v1::ApiToken> FindAdminToken(std::string_view sha256_hex) override;
  absl::StatusOr<std::vector<v1::ApiToken>> ListAdminTokens() override;
  absl::StatusOr<v1::ApiToken> RevokeAdminToken(std::string_view name, int64_t now_ms) override;
  absl::StatusOr<v1::User> CreateUser(const v1::User& user, std::string_view password_hash,
                                      int64_t now_ms) override;
  absl::StatusOr<StoredUser> GetUser(std::string_view name) override;
  absl::StatusOr<std::vector<v1::User>> ListUsers() override;
  absl::StatusOr<v1::User> UpdateUser(const v1::User& user,
                                      std::optional<std::string> password_hash,
                                      int64_t now_ms) override;
  absl::Status DeleteUser(std::string_view name, int64_t now_ms) override;
  absl::StatusOr<int64_t> DeleteEndedSessions(int64_t before_ms, int limit) override;
  absl::StatusOr<Leases> AcquireLeases(const std::vector<std::string>& names,
                                       std::string_view holder, int64_t ttl_ms) override;
  absl::Status ReleaseLeases(const std::vector<std::string>& names,
                             std::string_view holder) override;
  absl::Status DeleteExpiredLeases(const std::vector<std::string>& names,
                                   int64_t expired_before_ms) override;
  absl::StatusOr<Leases> ListLeases(std::string_view prefix) override;
  absl::Status Ping() override;

  // WorkflowStore (sql_store_workflows.cc).
  absl::StatusOr<v1::Workflow> CreateWorkflow(const v1::Workflow& workflow, int64_t next_fire_ms,
                                              int64_t now_ms) override;
  absl::StatusOr<v1::Workflow> GetWorkflow(int64_t workflow_id) override;
  absl::StatusOr<std::vector<v1::Workflow>> ListWorkflows(int64_t group_id) override;
  absl::StatusOr<v1::Workflow> UpdateWorkflow(const v1::Workflow& workflow,
                                              std::optional<int64_t> next_fire_ms,
                                              int64_t now_ms) override;
  absl::StatusOr<std::vector<DueWorkflow>> ListDueWorkflows(
      int64_t until_ms, int limit, const std::vector<int>& partitions) override;
  absl::StatusOr<bool> AdvanceWorkflow(int64_t workflow_id, int64_t expected_ms,
                                       int64_t next_ms) override;
  absl::Status DeleteWorkflow(int64_t workflow_id) override;
  absl::StatusOr<v1::WorkflowRun> CreateWorkflowRun(const v1::WorkflowRun& run,
                                                    int64_t now_ms) override;
  absl::StatusOr<v1::WorkflowRun> GetWorkflowRun(int64_t run_id) override;
  absl::StatusOr<v1::WorkflowRun> UpdateWorkflowRun(const v1::WorkflowRun& run,
                                                    int64_t now_ms) override;
  absl::StatusOr<std::vector<v1::WorkflowRun>> ListWorkflowRuns(int64_t workflow_id,
                                                                int limit) override;
  absl::StatusOr<std::vector<v1::WorkflowRun>> ListRunningWorkflowRuns(
      int limit, const std::vector<int>& partitions) override;

  // CalendarStore (sql_store_calendars.cc).
  absl::StatusOr<v1::Calendar> CreateCalendar(const v1::Calendar& calendar,
                                              int64_t now_ms) override;
  absl::StatusOr<v1::Calendar> GetCalendar(std::string_view name) override;
  absl::StatusOr<std::vector<v1::Calendar>> ListCalendars() override;
  absl::StatusOr<v1::Calendar> UpdateCalendar(const v1::Calendar& calendar,
                                              const std::vector<CalendarCursor>& cursors,
                                              int64_t now_ms) override;
  absl::Status DeleteCalendar(std::string_view name) override;
  absl::StatusOr<std::vector<CalendarUser>> ListCalendarUsers(std::string_view name) override;
  absl::StatusOr<TableVersion> GetCalendarsVersion() override;

  // AlarmChannelStore (sql_store_alarm_channels.cc).
  absl::StatusOr<v1::AlarmChannel> CreateAlarmChannel(const v1::AlarmChannel& channel,
                                                      int64_t now_ms) override;
  absl::StatusOr<v1::AlarmChannel> GetAlarmChannel(std::string_view name) override;
  absl::StatusOr<std::vector<v1::AlarmChannel>> ListAlarmChannels() override;
  absl::StatusOr<v1::AlarmChannel> UpdateAlarmChannel(const v1::AlarmChannel& channel,
                                                      int64_t now_ms) override;
  absl::Status DeleteAlarmChannel(std::string_view name) override;
  absl::StatusOr<TableVersion> GetAlarmChannelsVersion() override;

  // PoolStore (sql_store_pools.cc).
  absl::StatusOr<v1::Pool> CreatePool(const v1::Pool& pool, int64_t now_ms) override;
  absl::StatusOr<v1::Pool> GetPool(std::string_view name, int64_t now_ms) override;
  absl::StatusOr<std::vector<v1::Pool>> ListPools(int64_t now_ms) override;
  absl::StatusOr<v1::Pool> UpdatePool(const v1::Pool& pool, int64_t now_ms) override;
  absl::Status DeletePool(std::string_view name) override;
  absl::StatusOr<PoolQueue> ListPoolQueue(std::string_view name, int limit,
                                          int64_t now_ms) override;
  absl::StatusOr<std::vector<std::string>> ListQueuedPools(
      const std::vector<int>& partitions) override;
  absl::StatusOr<std::vector<v1::Run>> GrantPoolSlots(std::string_view pool,
                                                      const EpochOf& epoch_of,
                                                      int64_t now_ms) override;

 private:
  // The jobs `sql` (selecting kJobColumns) reads with `args`, in one read.
  absl::StatusOr<std::vector<v1::Job>> QueryJobs(const std::string& sql,
                                                 const std::vector<SqlValue>& args);
  // Inserts one job (naming it "job-<id>" when it has no name); AlreadyExists
  // names the field when its group has a job of that name.
  absl::StatusOr<int64_t> InsertJob(SqlConn& c, const v1::Job& job, v1::JobState state,
                                    int64_t next_fire_ms, int64_t now_ms);
  // A new job's spec as stored: a script gets version 1 and loses its
  // remark (sql_store_scripts.cc).
  static v1::Job NewJobSpec(const v1::Job& job);
  // Stores version 1 of new job `job_id`'s script, `requested` being the
  // job as asked (its remark); nothing for a job without a script.
  absl::Status RecordFirstScript(SqlConn& c, int64_t job_id, const v1::Job& requested,
                                 std::string_view author, int64_t now_ms);
  // For an update from `current` to `spec` (the job as asked): sets
  // spec's script version — current's if the script is unchanged, else a
  // new version stored (and old ones pruned) — and clears its remark.
  absl::Status RecordScriptEdit(SqlConn& c, const v1::Job& current, v1::Job& spec,
                                std::string_view author, int64_t now_ms);
  absl::Status InsertScriptVersion(SqlConn& c, int64_t job_id, int64_t version,
                                   const v1::ScriptTask& script, std::string_view remark,
                                   std::string_view author, int64_t at_ms);
  // Removes `job_id` from every job's child list (in DeleteJob's transaction).
  absl::Status DropChild(SqlConn& c, int64_t job_id);
  // The tokens `sql` selects (kTokenColumns), with `arg` as its one parameter if given.
  absl::StatusOr<std::vector<v1::ApiToken>> ReadTokens(const std::string& sql,
                                                       std::optional<std::string> arg);
  // Stored run-log lines, as (run id, line number).
  using LineSet = absl::flat_hash_set<std::pair<int64_t, int64_t>>;

  // Inserts runs[which] in multi-row INSERTs, filling `out` (see
  // sql_store_inserts.cc); `retry` when a clash was already handled once.
  absl::Status InsertRunBatch(SqlConn& c, const std::vector<v1::Run>& runs,
                              const std::vector<size_t>& which, bool retry,
                              std::vector<RunInsertOutcome>& out);
  // Inserts runs[which] one statement each (clashes within the batch).
  absl::Status InsertRunsOneByOne(SqlConn& c, const std::vector<v1::Run>& runs,
                                  const std::vector<size_t>& which,
                                  std::vector<RunInsertOutcome>& out);
  // The id of the run holding a unique key `run` clashed on; 0 if none.
  absl::StatusOr<int64_t> FindClashingRun(SqlConn& c, const v1::Run& run);
  // A start's dispatch receipt (RunStarted.receipt): a PENDING run whose
  // dispatch is not recorded yet takes it as RecordDispatches would take the
  // accepted outcome (RUNNING, route, dispatch time, epoch).
  static void ApplyReceipt(const v1::RunStarted& started, RunState& run, StatsDeltas& deltas);
  // Applies a start or result to its run in memory. `started` (may be null)
  // is the run's start folded into this result: its receipt, executor
  // address (if the run has none yet) and start time (if the result lacks one).
  v1::ReportAck ApplyReport(const v1::ReportItem& item, const v1::RunStarted* started,
                            RunState& run, StatsDeltas& deltas);
  // The stored lines among those the log items of `items` send.
  absl::StatusOr<LineSet> ReadStoredLines(SqlConn& c, const std::vector<v1::ReportItem>& items,
                                          const RunStates& runs);
  // Applies log lines to their run in memory: new lines (also added to
  // `stored`) go to new_lines as rows of Statements::insert_log_lines.
  v1::ReportAck ApplyLogLines(const v1::RunLogLines& log, LineSet& stored, RunState& run,
                              std::vector<SqlRow>& new_lines);
  // Deletes ended runs (if still ended and their follow-up handled) with
  // their log lines, inside a transaction; returns how many.
  absl::StatusOr<int64_t> DeleteEndedRuns(SqlConn& c, const std::vector<int64_t>& run_ids);
  absl::StatusOr<v1::Job> ReadJob(SqlConn& c, int64_t job_id);
  // The jobs among `job_ids` that exist, in the order asked, each once.
  absl::StatusOr<std::vector<v1::Job>> ReadJobs(SqlConn& c, const std::vector<int64_t>& job_ids);
  absl::StatusOr<v1::Group> ReadGroup(SqlConn& c, const std::string& sql, SqlValue key,
                                      const std::string& what);

  SqlStore(std::unique_ptr<CountingSqlDb> db, const Statements& sql, const StoreOptions& options,
           int partitions)
      : db_(std::move(db)),
        sql_(sql),
        options_(options),
        partitions_(partitions),
        stats_(std::make_unique<StatsWriter>(db_.get(), sql_, options.stats_flush_interval)) {}

  const std::unique_ptr<CountingSqlDb> db_;
  const Statements& sql_;
  const StoreOptions options_;
  const int partitions_;  // partition_count().
  // The statistics of committed run transactions; destroyed (flushed) before db_.
  const std::unique_ptr<StatsWriter> stats_;
};

// Prefixes a status message with context, keeping the code.
absl::Status Annotate(const absl::Status& s, std::string_view context);

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_SQL_STORE_H_
