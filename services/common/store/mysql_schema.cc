// The MySQL/MariaDB schema, as migrations. Times are BIGINT UTC milliseconds.
// Tables are InnoDB, utf8mb4 with a binary collation (names compare exactly,
// as they do in SQLite). MySQL commits DDL implicitly, so every statement is
// idempotent (IF NOT EXISTS) and a half-applied step can be re-run.
#include "services/common/store/migrations.h"

namespace gnomon::store::internal {

#define GNOMON_MYSQL_TABLE_OPTIONS " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

const std::vector<Migration>& MysqlMigrations() {
  static const std::vector<Migration>* const migrations = new std::vector<Migration>{
      {1,
       "initial schema",
       {
           "CREATE TABLE IF NOT EXISTS job_group ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " app_name VARCHAR(64) NOT NULL,"
           " title VARCHAR(255) NOT NULL DEFAULT '',"
           " membership MEDIUMBLOB NOT NULL,"  // Serialized gnomon.v1.Group holding the oneof.
           " access_token VARCHAR(255) NOT NULL DEFAULT '',"
           " create_ms BIGINT NOT NULL,"
           " update_ms BIGINT NOT NULL,"
           " UNIQUE KEY job_group_app (app_name))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS job ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " group_id BIGINT NOT NULL,"
           " state INT NOT NULL,"
           " next_fire_ms BIGINT NOT NULL,"
           " last_fire_ms BIGINT NOT NULL DEFAULT 0,"
           " spec MEDIUMBLOB NOT NULL,"  // Serialized gnomon.v1.Job configuration.
           " create_ms BIGINT NOT NULL,"
           " update_ms BIGINT NOT NULL,"
           " KEY job_due (state, next_fire_ms),"
           " KEY job_group_id (group_id),"
           " CONSTRAINT job_group_fk FOREIGN KEY (group_id) REFERENCES "
           "job_group(id))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS run ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " job_id BIGINT NOT NULL,"
           " group_id BIGINT NOT NULL,"
           " trigger_type INT NOT NULL,"
           " slot_ms BIGINT NULL,"  // NULL for runs that take no slot; NULLs never clash.
           " scheduled_ms BIGINT NOT NULL DEFAULT 0,"
           " trigger_ms BIGINT NOT NULL DEFAULT 0,"
           " dispatch_ms BIGINT NOT NULL DEFAULT 0,"
           " executor_address VARCHAR(255) NOT NULL DEFAULT '',"
           " handler VARCHAR(255) NOT NULL DEFAULT '',"
           " params MEDIUMTEXT NOT NULL,"
           " shard_index INT NOT NULL DEFAULT 0,"
           " shard_total INT NOT NULL DEFAULT 1,"
           " attempt INT NOT NULL DEFAULT 0,"
           // 0 for a first attempt: read back as the run's own id.
           " first_run_id BIGINT NOT NULL DEFAULT 0,"
           " parent_run_id BIGINT NOT NULL DEFAULT 0,"
           " trigger_code INT NOT NULL DEFAULT 0,"
           " trigger_message TEXT NOT NULL,"
           " handle_code INT NOT NULL DEFAULT 0,"
           " handle_message MEDIUMTEXT NOT NULL,"
           " start_ms BIGINT NOT NULL DEFAULT 0,"
           " end_ms BIGINT NOT NULL DEFAULT 0,"
           " status INT NOT NULL,"
           " fence_epoch BIGINT NOT NULL DEFAULT 0,"
           " log_line_count BIGINT NOT NULL DEFAULT 0,"
           " log_truncated TINYINT NOT NULL DEFAULT 0,"
           " UNIQUE KEY run_slot (job_id, slot_ms, shard_index, attempt),"
           " KEY run_job (job_id, id),"
           " KEY run_group (group_id, id),"
           " KEY run_status (status, id),"
           " KEY run_trigger (trigger_ms),"
           " KEY run_executor (executor_address, status))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS run_log ("
           " run_id BIGINT NOT NULL,"
           " line_number BIGINT NOT NULL,"
           " time_ms BIGINT NOT NULL,"
           " text MEDIUMTEXT NOT NULL,"
           " PRIMARY KEY (run_id, line_number))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS glue_version ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " job_id BIGINT NOT NULL,"
           " version BIGINT NOT NULL,"
           " language INT NOT NULL,"
           " source MEDIUMTEXT NOT NULL,"
           " note VARCHAR(255) NOT NULL DEFAULT '',"
           " create_ms BIGINT NOT NULL,"
           " UNIQUE KEY glue_job_version (job_id, version))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS registry ("
           " app_name VARCHAR(64) NOT NULL,"
           " address VARCHAR(255) NOT NULL,"
           " info MEDIUMBLOB NOT NULL,"  // Serialized gnomon.v1.ExecutorInfo.
           " register_ms BIGINT NOT NULL,"
           " last_beat_ms BIGINT NOT NULL,"
           " PRIMARY KEY (app_name, address),"
           " KEY registry_last_beat (last_beat_ms))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS report_day ("
           " day_ms BIGINT NOT NULL,"
           " job_id BIGINT NOT NULL,"
           " running BIGINT NOT NULL DEFAULT 0,"
           " succeeded BIGINT NOT NULL DEFAULT 0,"
           " failed BIGINT NOT NULL DEFAULT 0,"
           " duration_sum_ms BIGINT NOT NULL DEFAULT 0,"
           " duration_p50_ms BIGINT NOT NULL DEFAULT 0,"
           " duration_p99_ms BIGINT NOT NULL DEFAULT 0,"
           " update_ms BIGINT NOT NULL DEFAULT 0,"
           " PRIMARY KEY (day_ms, job_id))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS admin_token ("
           " name VARCHAR(128) NOT NULL,"
           " sha256 CHAR(64) NOT NULL,"
           " create_ms BIGINT NOT NULL,"
           " UNIQUE KEY admin_token_name (name),"
           " UNIQUE KEY admin_token_sha256 (sha256))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS `user` ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " username VARCHAR(128) NOT NULL,"
           " password_hash VARCHAR(255) NOT NULL,"
           " role INT NOT NULL,"
           " create_ms BIGINT NOT NULL,"
           " update_ms BIGINT NOT NULL,"
           " UNIQUE KEY user_username (username))" GNOMON_MYSQL_TABLE_OPTIONS,

           "CREATE TABLE IF NOT EXISTS lease ("
           " name VARCHAR(128) NOT NULL PRIMARY KEY,"
           " holder VARCHAR(255) NOT NULL,"
           " epoch BIGINT NOT NULL,"
           " expires_ms BIGINT NOT NULL)" GNOMON_MYSQL_TABLE_OPTIONS,
       }},
      {2,
       "follow-ups, retry and child uniqueness, report histograms",
       {
           // One ALTER, so the step is all or nothing; ApplyMigrations treats
           // "duplicate column/key name" as "applied before a crash".
           // followup_pending: 1 while the run has ended and its follow-up
           // (retry, children, FIX_DELAY rescheduling) is not yet handled.
           // retry_of: first_run_id for a retry (attempt > 0), else NULL.
           // child_of: parent_run_id for a PARENT-triggered run, else NULL.
           // NULLs never clash in a unique key.
           "ALTER TABLE run"
           " ADD COLUMN followup_pending TINYINT NOT NULL DEFAULT 0,"
           " ADD COLUMN retry_of BIGINT NULL,"
           " ADD COLUMN child_of BIGINT NULL,"
           " ADD UNIQUE KEY run_retry (retry_of, attempt),"
           " ADD UNIQUE KEY run_child (child_of, job_id, shard_index),"
           " ADD KEY run_followup (followup_pending, end_ms, id),"
           " ADD KEY run_end (end_ms, id)",
           "ALTER TABLE report_day ADD KEY report_day_job (job_id, day_ms)",
           // Run-duration histogram per (day, job): see stats_histogram.h.
           "CREATE TABLE IF NOT EXISTS report_duration ("
           " day_ms BIGINT NOT NULL,"
           " job_id BIGINT NOT NULL,"
           " bucket INT NOT NULL,"
           " runs BIGINT NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket))" GNOMON_MYSQL_TABLE_OPTIONS,
           // Counters of the runs recorded so far (their durations are not
           // backfilled: histograms start with this version).
           "INSERT IGNORE INTO report_day(day_ms, job_id, running, succeeded, failed) "
           "SELECT trigger_ms - trigger_ms % 86400000, job_id,"
           " SUM(CASE WHEN status IN (1, 2) THEN 1 ELSE 0 END),"
           " SUM(CASE WHEN status = 3 THEN 1 ELSE 0 END),"
           " SUM(CASE WHEN status = 4 THEN 1 ELSE 0 END)"
           " FROM run GROUP BY trigger_ms - trigger_ms % 86400000, job_id",
       }},
      {3,
       "alarm delivery status on runs",
       {
           "ALTER TABLE run ADD COLUMN alarm_status VARCHAR(1024) NOT NULL DEFAULT ''",
       }},
      {4,
       "follow-ups deferred until due",
       {
           // A pending follow-up is read only from this instant (a retry
           // waiting out its delay); 0: at once.
           "ALTER TABLE run"
           " ADD COLUMN followup_due_ms BIGINT NOT NULL DEFAULT 0,"
           " ADD KEY run_followup_due (followup_pending, followup_due_ms, end_ms, id)",
       }},
      {5,
       "fewer run indexes",
       {
           // Why these go: see version 5 in sqlite_schema.cc. One ALTER, so
           // all or nothing; a re-run after a crash fails with 1091 (key
           // gone), which ApplyMigrations takes as "applied".
           "ALTER TABLE run DROP INDEX run_followup, DROP INDEX run_executor",
       }},
      {6,
       "a group's previous access token, accepted until it expires",
       {
           "ALTER TABLE job_group"
           " ADD COLUMN IF NOT EXISTS previous_access_token VARCHAR(255) NOT NULL DEFAULT '',"
           " ADD COLUMN IF NOT EXISTS previous_token_expire_ms BIGINT NOT NULL DEFAULT 0",
       }},
      {7,
       "the audit log of admin changes",
       {
           // entry: a serialized v1.AuditEntry (without its id).
           "CREATE TABLE IF NOT EXISTS audit_log ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " at_ms BIGINT NOT NULL,"
           " object VARCHAR(255) NOT NULL,"
           " entry LONGBLOB NOT NULL,"
           " KEY audit_object (object, id),"
           " KEY audit_at (at_ms))" GNOMON_MYSQL_TABLE_OPTIONS,
       }},
      {8,
       "API tokens that expire and are revoked",
       {
           "ALTER TABLE admin_token"
           " ADD COLUMN IF NOT EXISTS expire_ms BIGINT NOT NULL DEFAULT 0,"
           " ADD COLUMN IF NOT EXISTS revoke_ms BIGINT NOT NULL DEFAULT 0",
       }},
      {9,
       "roles and group grants of tokens and users; users' session tokens",
       {
           // role: a v1.Role (existing tokens stay ADMIN); grants: "*" (every
           // group) or group ids joined by ','; user_name: a login session's user.
           "ALTER TABLE admin_token"
           " ADD COLUMN IF NOT EXISTS role INT NOT NULL DEFAULT 1,"
           " ADD COLUMN IF NOT EXISTS grants TEXT NOT NULL DEFAULT '',"
           " ADD COLUMN IF NOT EXISTS user_name VARCHAR(128) NOT NULL DEFAULT '',"
           " ADD KEY IF NOT EXISTS admin_token_user (user_name)",
           "ALTER TABLE `user` ADD COLUMN IF NOT EXISTS grants TEXT NOT NULL DEFAULT ''",
       }},
      {10,
       "script versions: who made each",
       {
           // author: the caller as the audit log names it; the remark given
           // with the edit goes to the existing note column.
           "ALTER TABLE glue_version ADD COLUMN IF NOT EXISTS author VARCHAR(255) NOT NULL DEFAULT "
           "''",
       }},
      {11,
       "job names, unique within a group",
       {
           // NULL only inside the transaction that creates an unnamed job.
           "ALTER TABLE job ADD COLUMN IF NOT EXISTS name VARCHAR(128) NULL",
           "UPDATE job SET name = CONCAT('job-', id) WHERE name IS NULL",
           "ALTER TABLE job ADD UNIQUE KEY IF NOT EXISTS job_group_name (group_id, name),"
           " ADD KEY IF NOT EXISTS job_name (name)",
       }},
      {12,
       "lateness histogram of the daily statistics",
       {
           // Dispatch time minus scheduled instant of schedule slots per
           // (day, job), in the buckets of stats_histogram.h (stats_deltas.h).
           // Not backfilled: the histogram starts with this version.
           "CREATE TABLE IF NOT EXISTS report_lateness ("
           " day_ms BIGINT NOT NULL,"
           " job_id BIGINT NOT NULL,"
           " bucket INT NOT NULL,"
           " runs BIGINT NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket))" GNOMON_MYSQL_TABLE_OPTIONS,
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
           " day_ms BIGINT NOT NULL,"
           " job_id BIGINT NOT NULL,"
           " running BIGINT NOT NULL DEFAULT 0,"
           " succeeded BIGINT NOT NULL DEFAULT 0,"
           " failed BIGINT NOT NULL DEFAULT 0,"
           " PRIMARY KEY (day_ms, job_id),"
           " KEY stats_day_job (job_id, day_ms))" GNOMON_MYSQL_TABLE_OPTIONS,
           "CREATE TABLE IF NOT EXISTS stats_duration ("
           " day_ms BIGINT NOT NULL,"
           " job_id BIGINT NOT NULL,"
           " bucket INT NOT NULL,"
           " runs BIGINT NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket))" GNOMON_MYSQL_TABLE_OPTIONS,
           "CREATE TABLE IF NOT EXISTS stats_lateness ("
           " day_ms BIGINT NOT NULL,"
           " job_id BIGINT NOT NULL,"
           " bucket INT NOT NULL,"
           " runs BIGINT NOT NULL,"
           " PRIMARY KEY (day_ms, job_id, bucket))" GNOMON_MYSQL_TABLE_OPTIONS,
       }},
      {14,
       "installation settings: the scheduler partition count",
       {
           // Chosen when a store is first initialised and fixed since
           // (SqlStore::Create records it, sql_store_settings.cc).
           "CREATE TABLE IF NOT EXISTS setting ("
           " name VARCHAR(64) NOT NULL PRIMARY KEY,"
           " value VARCHAR(255) NOT NULL)" GNOMON_MYSQL_TABLE_OPTIONS,
           // A store in use before this version hashed its jobs into 64.
           "INSERT IGNORE INTO setting(name, value) SELECT 'partitions', '64' FROM DUAL"
           " WHERE EXISTS (SELECT 1 FROM job) OR EXISTS (SELECT 1 FROM lease)",
       }},
      {15,
       "runs that need no follow-up when they succeed",
       {
           // 1: a success has a follow-up (child jobs, FIX_DELAY), decided
           // when the run is recorded; 0: a success ends the run in one
           // write. Runs recorded before (and by an earlier binary during
           // a rolling upgrade) keep the default, the old behaviour.
           "ALTER TABLE run ADD COLUMN followup_on_success TINYINT NOT NULL DEFAULT 1",
       }},
      {16,
       "executor rows: the registration that wrote each",
       {
           // A registry replica removes an executor's row only if it is
           // still the one its registration wrote: two replicas can
           // register the same executor in the same millisecond, so the
           // register time alone does not tell them apart. 0: written by
           // an earlier binary (it leaves the value of the row it replaces).
           "ALTER TABLE registry ADD COLUMN IF NOT EXISTS registration_id BIGINT NOT NULL"
           " DEFAULT 0",
       }},
      {17,
       "runs: the bytes of log text stored",
       {
           // Bounds a run's stored log in bytes as well as in lines
           // (StoreOptions.max_log_bytes_per_run). Runs logged before count
           // from 0 (their lines are already bounded by the line cap).
           "ALTER TABLE run ADD COLUMN IF NOT EXISTS log_bytes BIGINT NOT NULL DEFAULT 0",
       }},
      {18,
       "workflows and their runs",
       {
           // As SQLite's (sqlite_schema.cc).
           "CREATE TABLE IF NOT EXISTS workflow ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " group_id BIGINT NOT NULL,"
           " name VARCHAR(128) NOT NULL,"
           " state INT NOT NULL,"
           " next_fire_ms BIGINT NOT NULL,"
           " spec MEDIUMBLOB NOT NULL,"
           " create_ms BIGINT NOT NULL,"
           " update_ms BIGINT NOT NULL,"
           " UNIQUE KEY workflow_group_name (group_id, name))" GNOMON_MYSQL_TABLE_OPTIONS,
           "CREATE TABLE IF NOT EXISTS workflow_run ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " workflow_id BIGINT NOT NULL,"
           " slot_ms BIGINT NULL,"
           " status INT NOT NULL,"
           " version BIGINT NOT NULL,"
           " state MEDIUMBLOB NOT NULL,"
           " create_ms BIGINT NOT NULL,"
           " end_ms BIGINT NOT NULL,"
           " UNIQUE KEY workflow_run_slot (workflow_id, slot_ms))" GNOMON_MYSQL_TABLE_OPTIONS,
       }},
      {19,
       "runs: the workflow node each belongs to",
       {
           // As SQLite's (sqlite_schema.cc).
           "ALTER TABLE run ADD COLUMN IF NOT EXISTS workflow_run_id BIGINT NULL,"
           " ADD COLUMN IF NOT EXISTS workflow_node VARCHAR(64) NULL,"
           " ADD COLUMN IF NOT EXISTS workflow_attempt INT NOT NULL DEFAULT 0,"
           " ADD UNIQUE KEY IF NOT EXISTS run_node (workflow_run_id, workflow_node,"
           " workflow_attempt, shard_index, attempt)",
       }},
      {20,
       "runs: the handler's output and a workflow node's inputs",
       {
           // As SQLite's (sqlite_schema.cc).
           "ALTER TABLE run ADD COLUMN IF NOT EXISTS output TEXT NULL,"
           " ADD COLUMN IF NOT EXISTS inputs MEDIUMBLOB NULL",
       }},
      {21,
       "jobs: consecutive failures, and why a job was paused",
       {
           // As SQLite's (sqlite_schema.cc).
           "ALTER TABLE job ADD COLUMN IF NOT EXISTS consecutive_failures INT NOT NULL DEFAULT 0,"
           " ADD COLUMN IF NOT EXISTS failures_counted_run BIGINT NOT NULL DEFAULT 0,"
           " ADD COLUMN IF NOT EXISTS pause_reason TEXT NULL",
       }},
      {22,
       "workflow runs: found by status",
       {
           // As SQLite's (sqlite_schema.cc).
           "ALTER TABLE workflow_run ADD KEY IF NOT EXISTS workflow_run_status (status, id)",
       }},
      {23,
       "runs: the deadline of their fire",
       {
           // As SQLite's (sqlite_schema.cc).
           "ALTER TABLE run ADD COLUMN IF NOT EXISTS deadline_ms BIGINT NULL,"
           " ADD COLUMN IF NOT EXISTS deadline_watch_ms BIGINT NULL,"
           " ADD KEY IF NOT EXISTS run_deadline_watch (deadline_watch_ms)",
       }},
      {24,
       "jobs: the slots a job with max_fires will still fire",
       {
           // As SQLite's (sqlite_schema.cc).
           "ALTER TABLE job ADD COLUMN IF NOT EXISTS fires_left BIGINT NULL",
       }},
      {25,
       "calendars, and the calendar each job and workflow names",
       {
           // As SQLite's (sqlite_schema.cc). Names are at most 64 characters
           // (Calendar.name).
           "CREATE TABLE IF NOT EXISTS calendar ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " name VARCHAR(64) NOT NULL,"
           " spec MEDIUMBLOB NOT NULL,"
           " create_ms BIGINT NOT NULL,"
           " update_ms BIGINT NOT NULL,"
           " UNIQUE KEY calendar_name (name))" GNOMON_MYSQL_TABLE_OPTIONS,
           "ALTER TABLE job ADD COLUMN IF NOT EXISTS calendar VARCHAR(64) NULL,"
           " ADD KEY IF NOT EXISTS job_calendar (calendar)",
           "ALTER TABLE workflow ADD COLUMN IF NOT EXISTS calendar VARCHAR(64) NULL,"
           " ADD KEY IF NOT EXISTS workflow_calendar (calendar)",
       }},
      {26,
       "alarm channels",
       {
           // As SQLite's (sqlite_schema.cc). Names are at most 64 characters
           // (AlarmChannel.name).
           "CREATE TABLE IF NOT EXISTS alarm_channel ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " name VARCHAR(64) NOT NULL,"
           " kind INT NOT NULL,"
           " spec MEDIUMBLOB NOT NULL,"
           " create_ms BIGINT NOT NULL,"
           " update_ms BIGINT NOT NULL,"
           " UNIQUE KEY alarm_channel_name (name))" GNOMON_MYSQL_TABLE_OPTIONS,
       }},
      {27,
       "pools of concurrency slots: the pools, the runs holding their slots and the runs queued",
       {
           // As SQLite's (sqlite_schema.cc). Names are at most 64 characters
           // (Pool.name).
           "CREATE TABLE IF NOT EXISTS pool ("
           " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
           " name VARCHAR(64) NOT NULL,"
           " description TEXT NOT NULL,"
           " slots INT NOT NULL,"
           " create_ms BIGINT NOT NULL,"
           " update_ms BIGINT NOT NULL,"
           " UNIQUE KEY pool_name (name))" GNOMON_MYSQL_TABLE_OPTIONS,
           "CREATE TABLE IF NOT EXISTS pool_slot ("
           " run_id BIGINT NOT NULL PRIMARY KEY,"
           " pool VARCHAR(64) NOT NULL,"
           " since_ms BIGINT NOT NULL,"
           " KEY pool_slot_pool (pool))" GNOMON_MYSQL_TABLE_OPTIONS,
           "CREATE TABLE IF NOT EXISTS pool_queue ("
           " run_id BIGINT NOT NULL PRIMARY KEY,"
           " pool VARCHAR(64) NOT NULL,"
           " job_id BIGINT NOT NULL,"
           " priority INT NOT NULL,"
           " KEY pool_queue_order (pool, priority, run_id))" GNOMON_MYSQL_TABLE_OPTIONS,
           "ALTER TABLE run ADD COLUMN IF NOT EXISTS pool VARCHAR(64) NULL,"
           " ADD COLUMN IF NOT EXISTS priority INT NOT NULL DEFAULT 0,"
           " ADD COLUMN IF NOT EXISTS queued_ms BIGINT NULL",
       }},
  };
  return *migrations;
}

#undef GNOMON_MYSQL_TABLE_OPTIONS

}  // namespace gnomon::store::internal
