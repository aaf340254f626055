// The SQLite schema, as migrations. Times are INTEGER UTC milliseconds.
#include "services/common/store/migrations.h"

namespace gnomon::store::internal {
namespace {

// Status values 1/2 are PENDING/RUNNING, 3 SUCCEEDED, 4 FAILED (gnomon.v1.RunStatus).
constexpr char kBackfillReportDays[] =
    "INSERT OR IGNORE INTO report_day(day_ms, job_id, running, succeeded, failed) "
    "SELECT trigger_ms - trigger_ms % 86400000, job_id,"
    " SUM(CASE WHEN status IN (1, 2) THEN 1 ELSE 0 END),"
    " SUM(CASE WHEN status = 3 THEN 1 ELSE 0 END),"
    " SUM(CASE WHEN status = 4 THEN 1 ELSE 0 END)"
    " FROM run GROUP BY trigger_ms - trigger_ms % 86400000, job_id";

}  // namespace

const std::vector<Migration>& SqliteMigrations() {
  static const std::vector<Migration>* const migrations = new std::vector<Migration>{
      {1,
       "initial schema",
       {
           "CREATE TABLE IF NOT EXISTS job_group ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " app_name TEXT NOT NULL UNIQUE,"
           " title TEXT NOT NULL DEFAULT '',"
           " membership BLOB NOT NULL,"  // Serialized gnomon.v1.Group holding only the oneof.
           " access_token TEXT NOT NULL DEFAULT '',"
           " create_ms INTEGER NOT NULL,"
           " update_ms INTEGER NOT NULL)",

           "CREATE TABLE IF NOT EXISTS job ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " group_id INTEGER NOT NULL REFERENCES job_group(id),"
           " state INTEGER NOT NULL,"
           " next_fire_ms INTEGER NOT NULL,"
           " last_fire_ms INTEGER NOT NULL DEFAULT 0,"
           " spec BLOB NOT NULL,"  // Serialized gnomon.v1.Job configuration.
           " create_ms INTEGER NOT NULL,"
           " update_ms INTEGER NOT NULL)",
           "CREATE INDEX IF NOT EXISTS job_due ON job(state, next_fire_ms)",
           "CREATE INDEX IF NOT EXISTS job_group_id ON job(group_id)",

           "CREATE TABLE IF NOT EXISTS run ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " job_id INTEGER NOT NULL,"
           " group_id INTEGER NOT NULL,"
           " trigger_type INTEGER NOT NULL,"
           " slot_ms INTEGER,"  // NULL for runs that take no slot; NULLs never clash.
           " scheduled_ms INTEGER NOT NULL DEFAULT 0,"
           " trigger_ms INTEGER NOT NULL DEFAULT 0,"
           " dispatch_ms INTEGER NOT NULL DEFAULT 0,"
           " executor_address TEXT NOT NULL DEFAULT '',"
           " handler TEXT NOT NULL DEFAULT '',"
           " params TEXT NOT NULL DEFAULT '',"
           " shard_index INTEGER NOT NULL DEFAULT 0,"
           " shard_total INTEGER NOT NULL DEFAULT 1,"
           " attempt INTEGER NOT NULL DEFAULT 0,"
           // 0 for a first attempt: read back as the run's own id.
           " first_run_id INTEGER NOT NULL DEFAULT 0,"
           " parent_run_id INTEGER NOT NULL DEFAULT 0,"
           " trigger_code INTEGER NOT NULL DEFAULT 0,"
           " trigger_message TEXT NOT NULL DEFAULT '',"
           " handle_code INTEGER NOT NULL DEFAULT 0,"
           " handle_message TEXT NOT NULL DEFAULT '',"
           " start_ms INTEGER NOT NULL DEFAULT 0,"
           " end_ms INTEGER NOT NULL DEFAULT 0,"
           " status INTEGER NOT NULL,"
           " fence_epoch INTEGER NOT NULL DEFAULT 0,"
           " log_line_count INTEGER NOT NULL DEFAULT 0,"
           " log_truncated INTEGER NOT NULL DEFAULT 0,"
           " UNIQUE (job_id, slot_ms, shard_index, attempt))",
           "CREATE INDEX IF NOT EXISTS run_job ON run(job_id, id)",
           "CREATE INDEX IF NOT EXISTS run_group ON run(group_id, id)",
           "CREATE INDEX IF NOT EXISTS run_status ON run(status, id)",
           "CREATE INDEX IF NOT EXISTS run_trigger ON run(trigger_ms)",
           "CREATE INDEX IF NOT EXISTS run_executor ON run(executor_address, status)",

           "CREATE TABLE IF NOT EXISTS run_log ("
           " run_id INTEGER NOT NULL,"
           " line_number INTEGER NOT NULL,"
           " time_ms INTEGER NOT NULL,"
           " text TEXT NOT NULL,"
           " PRIMARY KEY (run_id, line_number)) WITHOUT ROWID",

           "CREATE TABLE IF NOT EXISTS glue_version ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " job_id INTEGER NOT NULL,"
           " version INTEGER NOT NULL,"
           " language INTEGER NOT NULL,"
           " source TEXT NOT NULL,"
           " note TEXT NOT NULL DEFAULT '',"
           " create_ms INTEGER NOT NULL,"
           " UNIQUE (job_id, version))",

           "CREATE TABLE IF NOT EXISTS registry ("
           " app_name TEXT NOT NULL,"
           " address TEXT NOT NULL,"
           " info BLOB NOT NULL,"  // Serialized gnomon.v1.ExecutorInfo.
           " register_ms INTEGER NOT NULL,"
           " last_beat_ms INTEGER NOT NULL,"
           " PRIMARY KEY (app_name, address))",
           "CREATE INDEX IF NOT EXISTS registry_last_beat ON registry(last_beat_ms)",

           "CREATE TABLE IF NOT EXISTS report_day ("
           " day_ms INTEGER NOT NULL,"
           " job_id INTEGER NOT NULL,"
           " running INTEGER NOT NULL DEFAULT 0,"
           " succeeded INTEGER NOT NULL DEFAULT 0,"
           " failed INTEGER NOT NULL DEFAULT 0,"
           " duration_sum_ms INTEGER NOT NULL DEFAULT 0,"
           " duration_p50_ms INTEGER NOT NULL DEFAULT 0,"
           " duration_p99_ms INTEGER NOT NULL DEFAULT 0,"
           " update_ms INTEGER NOT NULL DEFAULT 0,"
           " PRIMARY KEY (day_ms, job_id))",

           // One statement over several lines, as every table above.
           // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
           "CREATE TABLE IF NOT EXISTS admin_token ("
           " name TEXT NOT NULL UNIQUE,"
           " sha256 TEXT NOT NULL UNIQUE,"
           " create_ms INTEGER NOT NULL)",

           "CREATE TABLE IF NOT EXISTS \"user\" ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " username TEXT NOT NULL UNIQUE,"
           " password_hash TEXT NOT NULL,"
           " role INTEGER NOT NULL,"
           " create_ms INTEGER NOT NULL,"
           " update_ms INTEGER NOT NULL)",

           "CREATE TABLE IF NOT EXISTS lease ("
           " name TEXT NOT NULL PRIMARY KEY,"
           " holder TEXT NOT NULL,"
           " epoch INTEGER NOT NULL,"
           " expires_ms INTEGER NOT NULL)",
       }},
      {2,
       "follow-ups, retry and child uniqueness, report histograms",
       {
           // 1 while the run has ended and its follow-up (retry, children,
           // FIX_DELAY rescheduling) is not yet handled.
           "ALTER TABLE run ADD COLUMN followup_pending INTEGER NOT NULL DEFAULT 0",
           // first_run_id for a retry (attempt > 0), else NULL (NULLs never clash).
           "ALTER TABLE run ADD COLUMN retry_of INTEGER",
           // parent_run_id for a PARENT-triggered run, else NULL.
           "ALTER TABLE run ADD COLUMN child_of INTEGER",
           "CREATE UNIQUE INDEX IF NOT EXISTS run_retry ON run(retry_of, attempt)",
           "CREATE UNIQUE INDEX IF NOT EXISTS run_child ON run(child_of, job_id, shard_index)",
           "CREATE INDEX IF NOT EXISTS run_followup ON run(end_ms, id) WHERE followup_pending = 1",
           "CREATE INDEX IF NOT EXISTS run_end ON run(end_ms, id)",
           "CREATE INDEX IF NOT EXISTS report_day_job ON report_day(job_id, day_ms)",
           // Run-duration histogram per (day, job): see stats_histogram.h.
           "CREATE TABLE IF NOT EXISTS report_duration ("
           " day_ms INTEGER NOT NULL,"
           " job_id INTEGER NOT NULL,"
           " bucket INTEGER NOT NULL,"
           " runs INTEGER NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket)) WITHOUT ROWID",
           // Counters of the runs recorded so far (their durations are not
           // backfilled: histograms start with this version).
           kBackfillReportDays,
       }},
      {3,
       "alarm delivery status on runs",
       {
           "ALTER TABLE run ADD COLUMN alarm_status TEXT NOT NULL DEFAULT ''",
       }},
      {4,
       "follow-ups deferred until due",
       {
           // A pending follow-up is read only from this instant (a retry
           // waiting out its delay); 0: at once.
           "ALTER TABLE run ADD COLUMN followup_due_ms INTEGER NOT NULL DEFAULT 0",
           "CREATE INDEX IF NOT EXISTS run_followup_due ON run(followup_due_ms, end_ms, id) "
           "WHERE followup_pending = 1",
       }},
      {5,
       "fewer run indexes",
       {
           // Every index of run is written with each run inserted, and those
           // on columns a run's life changes (status, executor_address,
           // end_ms, followup_pending) again on each change. Kept: run_slot,
           // run_retry, run_child (unique keys), run_job (per-job listing
           // and trimming, newest first), run_group and run_trigger
           // (listing by group, by trigger time; written once), run_status
           // (listing by status newest first, stale PENDING runs, active
           // runs), run_end (retention by end time), run_followup_due
           // (pending follow-ups).
           // run_followup served the follow-up query before version 4; no
           // query uses it since.
           "DROP INDEX IF EXISTS run_followup",
           // run_executor (executor_address, status) was rewritten at
           // dispatch and at every status change for one query, the active
           // runs on an address; run_status finds the active runs (PENDING
           // and RUNNING: the runs in flight, few) and the address filters them.
           "DROP INDEX IF EXISTS run_executor",
       }},
      {6,
       "a group's previous access token, accepted until it expires",
       {
           "ALTER TABLE job_group ADD COLUMN previous_access_token TEXT NOT NULL DEFAULT ''",
           "ALTER TABLE job_group ADD COLUMN previous_token_expire_ms INTEGER NOT NULL DEFAULT 0",
       }},
      {7,
       "the audit log of admin changes",
       {
           // entry: a serialized v1.AuditEntry (without its id).
           "CREATE TABLE IF NOT EXISTS audit_log ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " at_ms INTEGER NOT NULL,"
           " object TEXT NOT NULL,"
           " entry BLOB NOT NULL)",
           "CREATE INDEX IF NOT EXISTS audit_object ON audit_log(object, id)",
           "CREATE INDEX IF NOT EXISTS audit_at ON audit_log(at_ms)",
       }},
      {8,
       "API tokens that expire and are revoked",
       {
           "ALTER TABLE admin_token ADD COLUMN expire_ms INTEGER NOT NULL DEFAULT 0",
           "ALTER TABLE admin_token ADD COLUMN revoke_ms INTEGER NOT NULL DEFAULT 0",
       }},
      {9,
       "roles and group grants of tokens and users; users' session tokens",
       {
           // role: a v1.Role (existing tokens stay ADMIN); grants: "*" (every
           // group) or group ids joined by ','; user_name: a login session's user.
           "ALTER TABLE admin_token ADD COLUMN role INTEGER NOT NULL DEFAULT 1",
           "ALTER TABLE admin_token ADD COLUMN grants TEXT NOT NULL DEFAULT ''",
           "ALTER TABLE admin_token ADD COLUMN user_name TEXT NOT NULL DEFAULT ''",
           "CREATE INDEX IF NOT EXISTS admin_token_user ON admin_token(user_name)",
           "ALTER TABLE \"user\" ADD COLUMN grants TEXT NOT NULL DEFAULT ''",
       }},
      {10,
       "script versions: who made each",
       {
           // author: the caller as the audit log names it; the remark given
           // with the edit goes to the existing note column.
           "ALTER TABLE glue_version ADD COLUMN author TEXT NOT NULL DEFAULT ''",
       }},
      {11,
       "job names, unique within a group",
       {
           // NULL only inside the transaction that creates an unnamed job.
           "ALTER TABLE job ADD COLUMN name TEXT NULL",
           "UPDATE job SET name = 'job-' || id WHERE name IS NULL",
           "CREATE UNIQUE INDEX IF NOT EXISTS job_group_name ON job(group_id, name)",
           "CREATE INDEX IF NOT EXISTS job_name ON job(name)",
       }},
      {12,
       "lateness histogram of the daily statistics",
       {
           // Dispatch time minus scheduled instant of schedule slots per
           // (day, job), in the buckets of stats_histogram.h (stats_deltas.h).
           // Not backfilled: the histogram starts with this version.
           "CREATE TABLE IF NOT EXISTS report_lateness ("
           " day_ms INTEGER NOT NULL,"
           " job_id INTEGER NOT NULL,"
           " bucket INTEGER NOT NULL,"
           " runs INTEGER NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket)) WITHOUT ROWID",
       }},
      {13,
       "daily statistics in stats_* tables",
       {
           // The daily statistics were called reports, and "report" now
           // means only an executor's report. The counters are deltas, so
           // instead of renaming the tables (a binary of the previous
           // release still writes report_* during a rolling upgrade, see
           // MigrationRules) this release writes stats_* and reads the sum
           // of both; a later release folds report_* into stats_*.
           "CREATE TABLE IF NOT EXISTS stats_day ("
           " day_ms INTEGER NOT NULL,"
           " job_id INTEGER NOT NULL,"
           " running INTEGER NOT NULL DEFAULT 0,"
           " succeeded INTEGER NOT NULL DEFAULT 0,"
           " failed INTEGER NOT NULL DEFAULT 0,"
           " PRIMARY KEY (day_ms, job_id)) WITHOUT ROWID",
           "CREATE INDEX IF NOT EXISTS stats_day_job ON stats_day(job_id, day_ms)",
           "CREATE TABLE IF NOT EXISTS stats_duration ("
           " day_ms INTEGER NOT NULL,"
           " job_id INTEGER NOT NULL,"
           " bucket INTEGER NOT NULL,"
           " runs INTEGER NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket)) WITHOUT ROWID",
           "CREATE TABLE IF NOT EXISTS stats_lateness ("
           " day_ms INTEGER NOT NULL,"
           " job_id INTEGER NOT NULL,"
           " bucket INTEGER NOT NULL,"
           " runs INTEGER NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket)) WITHOUT ROWID",
       }},
      {14,
       "installation settings: the scheduler partition count",
       {
           // Chosen when a store is first initialised and fixed since
           // (SqlStore::Create records it, sql_store_settings.cc).
           "CREATE TABLE IF NOT EXISTS setting ("
           " name TEXT NOT NULL PRIMARY KEY,"
           " value TEXT NOT NULL) WITHOUT ROWID",
           // A store in use before this version hashed its jobs into 64.
           "INSERT OR IGNORE INTO setting(name, value) SELECT 'partitions', '64'"
           " WHERE EXISTS (SELECT 1 FROM job) OR EXISTS (SELECT 1 FROM lease)",
       }},
      {15,
       "runs that need no follow-up when they succeed",
       {
           // 1: a success has a follow-up (child jobs, FIX_DELAY), decided
           // when the run is recorded; 0: a success ends the run in one
           // write. Runs recorded before (and by an earlier binary during
           // a rolling upgrade) keep the default, the old behaviour.
           "ALTER TABLE run ADD COLUMN followup_on_success INTEGER NOT NULL DEFAULT 1",
       }},
      {16,
       "executor rows: the registration that wrote each",
       {
           // A registry replica removes an executor's row only if it is
           // still the one its registration wrote: two replicas can
           // register the same executor in the same millisecond, so the
           // register time alone does not tell them apart. 0: written by
           // an earlier binary (it leaves the value of the row it replaces).
           "ALTER TABLE registry ADD COLUMN registration_id INTEGER NOT NULL DEFAULT 0",
       }},
      {17,
       "runs: the bytes of log text stored",
       {
           // Bounds a run's stored log in bytes as well as in lines
           // (StoreOptions.max_log_bytes_per_run). Runs logged before count
           // from 0 (their lines are already bounded by the line cap).
           "ALTER TABLE run ADD COLUMN log_bytes INTEGER NOT NULL DEFAULT 0",
       }},
      {18,
       "workflows and their runs",
       {
           // spec: the serialized gnomon.v1.Workflow (without id and times).
           "CREATE TABLE IF NOT EXISTS workflow ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " group_id INTEGER NOT NULL,"
           " name TEXT NOT NULL,"
           " state INTEGER NOT NULL,"
           " next_fire_ms INTEGER NOT NULL,"
           " spec BLOB NOT NULL,"
           " create_ms INTEGER NOT NULL,"
           " update_ms INTEGER NOT NULL,"
           " UNIQUE (group_id, name))",
           // state: the serialized gnomon.v1.WorkflowRun (its nodes, params,
           // trigger, slot); version: bumped by every change, which names the
           // version it read (WorkflowStore::UpdateWorkflowRun). A slot
           // (slot_ms, NULL for a run started by hand) starts one run.
           "CREATE TABLE IF NOT EXISTS workflow_run ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " workflow_id INTEGER NOT NULL,"
           " slot_ms INTEGER NULL,"
           " status INTEGER NOT NULL,"
           " version INTEGER NOT NULL,"
           " state BLOB NOT NULL,"
           " create_ms INTEGER NOT NULL,"
           " end_ms INTEGER NOT NULL,"
           " UNIQUE (workflow_id, slot_ms))",
       }},
      {19,
       "runs: the workflow node each belongs to",
       {
           // NULL for a run of no workflow (every run before this version),
           // so run_node never clashes for them; a node's attempt is
           // recorded once per shard and retry attempt.
           "ALTER TABLE run ADD COLUMN workflow_run_id INTEGER NULL",
           "ALTER TABLE run ADD COLUMN workflow_node TEXT NULL",
           "ALTER TABLE run ADD COLUMN workflow_attempt INTEGER NOT NULL DEFAULT 0",
           "CREATE UNIQUE INDEX IF NOT EXISTS run_node ON run(workflow_run_id, workflow_node,"
           " workflow_attempt, shard_index, attempt)",
       }},
      {20,
       "runs: the handler's output and a workflow node's inputs",
       {
           // NULL for most runs: a handler's output (RunResult.output, at
           // most 4 KiB) and a workflow node's parents' outputs (a
           // serialized v1::Run holding only Run.inputs).
           "ALTER TABLE run ADD COLUMN output TEXT NULL",
           "ALTER TABLE run ADD COLUMN inputs BLOB NULL",
       }},
      {21,
       "jobs: consecutive failures, and why a job was paused",
       {
           // Job.pause_after_failures counts a job's runs that failed for
           // good in a row (consecutive_failures), each run once and in id
           // order (failures_counted_run: the last run counted); a job it
           // paused says why (pause_reason).
           "ALTER TABLE job ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0",
           "ALTER TABLE job ADD COLUMN failures_counted_run INTEGER NOT NULL DEFAULT 0",
           "ALTER TABLE job ADD COLUMN pause_reason TEXT NULL",
       }},
      {22,
       "workflow runs: found by status",
       {
           // The follow-ups ask several times a second whether any workflow
           // run is running (Followups: they then look more often), and the
           // workflow scheduler lists the running ones to resume.
           "CREATE INDEX IF NOT EXISTS workflow_run_status ON workflow_run(status, id)",
       }},
      {23,
       "runs: the deadline of their fire",
       {
           // Job.deadline: when a fire's work must be done by (deadline_ms,
           // on every attempt), and, on a first attempt until the deadline
           // watch judged it, the same instant in deadline_watch_ms (NULL
           // once judged, so its index holds only deadlines still to judge).
           "ALTER TABLE run ADD COLUMN deadline_ms INTEGER NULL",
           "ALTER TABLE run ADD COLUMN deadline_watch_ms INTEGER NULL",
           "CREATE INDEX IF NOT EXISTS run_deadline_watch ON run(deadline_watch_ms)",
       }},
      {24,
       "jobs: the slots a job with max_fires will still fire",
       {
           // Job.max_fires: set to it when the job is created, started or its
           // max_fires changes (NULL without one), less each slot fired
           // (AdvanceJobs, with the cursor that fired it).
           "ALTER TABLE job ADD COLUMN fires_left INTEGER NULL",
       }},
      {25,
       "calendars, and the calendar each job and workflow names",
       {
           // spec: the serialized gnomon.v1.Calendar (without id, name and
           // times). AUTOINCREMENT: ids are never reused, so the sum of the
           // ids tells a calendar deleted and another created apart
           // (CalendarStore::GetCalendarsVersion).
           "CREATE TABLE IF NOT EXISTS calendar ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " name TEXT NOT NULL UNIQUE,"
           " spec BLOB NOT NULL,"
           " create_ms INTEGER NOT NULL,"
           " update_ms INTEGER NOT NULL)",
           // Schedule.calendar of the job's or workflow's spec, written with
           // it (NULL: it names none, as every one before this version), so
           // a calendar edited or deleted finds its users by index.
           "ALTER TABLE job ADD COLUMN calendar TEXT NULL",
           "CREATE INDEX IF NOT EXISTS job_calendar ON job(calendar)",
           "ALTER TABLE workflow ADD COLUMN calendar TEXT NULL",
           "CREATE INDEX IF NOT EXISTS workflow_calendar ON workflow(calendar)",
       }},
      {26,
       "alarm channels",
       {
           // kind: AlarmChannel.kind; spec: the serialized gnomon.v1.AlarmChannel
           // (without id, name and times; its url and secret included: only
           // the scheduler's alarm sender reads them).
           "CREATE TABLE IF NOT EXISTS alarm_channel ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " name TEXT NOT NULL UNIQUE,"
           " kind INTEGER NOT NULL,"
           " spec BLOB NOT NULL,"
           " create_ms INTEGER NOT NULL,"
           " update_ms INTEGER NOT NULL)",
       }},
      {27,
       "pools of concurrency slots: the pools, the runs holding their slots and the runs queued",
       {
           "CREATE TABLE IF NOT EXISTS pool ("
           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
           " name TEXT NOT NULL UNIQUE,"
           " description TEXT NOT NULL DEFAULT '',"
           " slots INTEGER NOT NULL,"
           " create_ms INTEGER NOT NULL,"
           " update_ms INTEGER NOT NULL)",
           // A row per run holding a slot of `pool`: the primary key makes a
           // run hold one slot at most; rows go when their run has ended
           // (PoolStore::GrantPoolSlots).
           "CREATE TABLE IF NOT EXISTS pool_slot ("
           " run_id INTEGER"
           " PRIMARY KEY,"
           " pool TEXT"
           " NOT NULL,"
           " since_ms INTEGER NOT NULL)",
           "CREATE INDEX IF NOT EXISTS pool_slot_pool ON pool_slot(pool)",
           // A row per QUEUED run, in its own small table so that the run
           // table (and every run insert) carries no index for pools.
           "CREATE TABLE IF NOT EXISTS pool_queue ("
           " run_id INTEGER PRIMARY KEY,"
           " pool TEXT NOT NULL,"
           " job_id INTEGER NOT NULL,"
           " priority INTEGER NOT NULL)",
           "CREATE INDEX IF NOT EXISTS pool_queue_order ON pool_queue(pool, priority, run_id)",
           // Run.pool, Run.priority and Run.queued_time as recorded.
           "ALTER TABLE run ADD COLUMN pool TEXT NULL",
           "ALTER TABLE run ADD COLUMN priority INTEGER NOT NULL DEFAULT 0",
           "ALTER TABLE run ADD COLUMN queued_ms INTEGER NULL",
       }},
  };
  return *migrations;
}

}  // namespace gnomon::store::internal
