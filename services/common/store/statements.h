// Statements: every DML statement SqlStore runs, as text, per SQL dialect.
//
// All SQL of the store lives in statements.cc (queries) and the two schema
// files (sqlite_schema.cc, mysql_schema.cc: migrations). Most statements are
// portable; the few that are not (insert-or-ignore, upsert, row locks,
// multi-row updates) are chosen by dialect.
//
// The hot paths (runs inserted, dispatched, reported; job cursors advanced;
// report counters) use multi-row statements (BatchSql, batch_sql.h): one
// statement per kind per batch of up to kMaxBatchRows rows, not one per row.
//
// Example:
//   const Statements& sql = StatementsFor(Dialect::kSqlite);
//   conn.Query(sql.select_job, {SqlInt(id)});
//
// Thread safety: the returned objects are immutable and live forever.
#ifndef GNOMON_SERVICES_COMMON_STORE_STATEMENTS_H_
#define GNOMON_SERVICES_COMMON_STORE_STATEMENTS_H_

#include <string>
#include <vector>

#include "services/common/store/batch_sql.h"

namespace gnomon::store::internal {

enum class Dialect { kSqlite, kMysql };

// Column lists, in the order the row codecs (row_codec.h) read them.
inline constexpr char kGroupColumns[] =
    "id, app_name, title, membership, access_token, create_ms, update_ms, previous_access_token, "
    "previous_token_expire_ms";
inline constexpr char kTokenColumns[] =
    "name, sha256, create_ms, expire_ms, revoke_ms, role, grants, user_name";
inline constexpr char kUserColumns[] =
    "username, role, grants, create_ms, update_ms, password_hash";
inline constexpr char kJobColumns[] =
    "id, group_id, state, next_fire_ms, last_fire_ms, spec, create_ms, update_ms, name, "
    "consecutive_failures, pause_reason, fires_left";
inline constexpr char kWorkflowColumns[] =
    "id, group_id, name, state, next_fire_ms, spec, create_ms, update_ms";
inline constexpr char kCalendarColumns[] = "id, name, spec, create_ms, update_ms";
inline constexpr char kAlarmChannelColumns[] = "id, name, kind, spec, create_ms, update_ms";
inline constexpr char kPoolColumns[] = "id, name, description, slots, create_ms, update_ms";
inline constexpr char kRunColumns[] =
    "id, job_id, group_id, trigger_type, slot_ms, scheduled_ms, trigger_ms, dispatch_ms, "
    "executor_address, handler, params, shard_index, shard_total, attempt, first_run_id, "
    "parent_run_id, trigger_code, trigger_message, handle_code, handle_message, start_ms, "
    "end_ms, status, fence_epoch, log_line_count, log_truncated, alarm_status, "
    "followup_on_success, "
    "workflow_run_id, workflow_node, workflow_attempt, output, inputs, deadline_ms, pool, "
    "priority, "
    "queued_ms";
// What SqlStore reads of a run before it changes it (run_state.h), and
// writes back whole (WriteRuns), in this order.
inline constexpr char kRunStateColumns[] =
    "id, job_id, group_id, trigger_ms, status, trigger_code, executor_address, dispatch_ms, "
    "handle_code, start_ms, end_ms, fence_epoch, followup_pending, log_line_count, log_truncated, "
    "trigger_message, handle_message, followup_due_ms, log_bytes, output, "
    "followup_on_success, scheduled_ms, trigger_type";  // The last three are read only.
// The key columns a run's unique keys are made of (after its id), as read
// back by the select_runs_by_* statements.
inline constexpr char kRunKeyColumns[] =
    "id, job_id, slot_ms, shard_index, attempt, retry_of, child_of, workflow_run_id, "
    "workflow_node, "
    "workflow_attempt";

// The statements of one set of daily statistics tables (day counters,
// duration and lateness histograms). Selects take (job_id,) from_day, to_day;
// deletes (job_id).
struct StatsTables {
  std::string select_days_of_job;
  std::string select_days_total;
  std::string select_durations_of_job;
  std::string select_durations_total;
  std::string select_lateness_of_job;
  std::string select_lateness_total;
  std::string delete_job_days;
  std::string delete_job_durations;
  std::string delete_job_lateness;
};

struct Statements {
  // Migrations bookkeeping.
  std::string create_migrations_table;
  std::string select_migrations;
  std::string insert_migration;
  // Installation settings (name, value), recorded once (SqlStore::Create).
  std::string ensure_setting;  // Insert-or-ignore: name, value.
  std::string select_setting;  // name.

  // Groups.
  std::string insert_group;
  std::string select_group;
  std::string select_group_by_app;
  std::string select_groups;
  std::string update_group;
  std::string count_group_jobs;
  std::string delete_group;
  std::string count_group_workflows;

  // Workflows (sql_store_workflows.cc).
  std::string insert_workflow;
  std::string select_workflow;
  std::string select_workflows;
  std::string select_group_workflows;
  std::string update_workflow;
  std::string count_running_workflow_runs;
  std::string delete_workflow_runs;
  std::string delete_workflow;
  std::string insert_workflow_run;
  std::string select_workflow_run;
  std::string update_workflow_run;
  std::string select_workflow_runs;
  std::string advance_workflow;

  // Calendars (sql_store_calendars.cc).
  std::string insert_calendar;  // (name, spec, create_ms, update_ms)
  std::string select_calendar;  // (name)
  std::string select_calendars;
  // The newest update time of any calendar, locking the calendars where the
  // dialect has row locks (UpdateCalendar writes a later one).
  std::string lock_calendars_newest_update;
  std::string update_calendar;  // (spec, update_ms, name)
  std::string delete_calendar;  // (name)
  // (name): the first job / workflow whose schedule names the calendar.
  std::string select_calendar_job;
  std::string select_calendar_workflow;
  // (name): kJobColumns / kWorkflowColumns of its users, by id.
  std::string select_calendar_jobs;
  std::string select_calendar_workflows;
  // (next_fire_ms, now_ms, now_ms, id, name): a RUNNING user's new cursor,
  // and an update time later than both now and the one it had.
  std::string move_calendar_job;
  std::string move_calendar_workflow;
  std::string select_calendars_version;  // (count, newest update_ms, sum of ids)

  // Pools (sql_store_pools.cc).
  std::string insert_pool;  // (name, description, slots, create_ms, update_ms)
  std::string select_pool;  // (name)
  std::string select_pools;
  std::string update_pool;  // (description, slots, update_ms, name)
  std::string delete_pool;  // (name)
  // (name): its slots, locking its row where the dialect has row locks, so
  // that grants of one pool follow one another across replicas.
  std::string lock_pool;
  // (pool): each run holding a slot: run_id, then its status, handle_code
  // and end_ms (NULL when the run is gone), oldest slot first.
  std::string select_pool_slots;
  std::string insert_pool_slot;  // (run_id, pool, since_ms)
  std::string delete_pool_slot;  // (run_id)
  // (pool, limit): run_id, job_id of the queue's head, in grant order.
  std::string select_pool_queue_head;
  std::string insert_pool_queue;  // (run_id, pool, job_id, priority)
  std::string delete_pool_queue;  // (run_id)
  std::string count_pool_queue;   // (pool)
  // (pool, limit): kRunColumns of the queued runs in grant order.
  std::string select_pool_queue_runs;
  // (trigger_ms, fence_epoch, run_id): a QUEUED run let go (PENDING).
  std::string grant_pool_run;
  std::string count_pool_queues;  // pool, count, by pool

  // Alarm channels (sql_store_alarm_channels.cc).
  std::string insert_alarm_channel;  // (name, kind, spec, create_ms, update_ms)
  std::string select_alarm_channel;  // (name)
  std::string select_alarm_channels;
  // The newest update time of any channel, locking the channels where the
  // dialect has row locks (Create/UpdateAlarmChannel write a later one).
  std::string lock_alarm_channels_newest_update;
  std::string update_alarm_channel;  // (kind, spec, update_ms, name)
  std::string delete_alarm_channel;  // (name)
  // (id, spec) of every job, by id: DeleteAlarmChannel looks for the jobs
  // whose AlarmTargets.channels name the channel (no column of its own).
  std::string select_job_specs;
  std::string select_alarm_channels_version;  // TableVersion's columns

  // Jobs.
  std::string insert_job;
  std::string select_job;
  std::string name_job_by_id;    // Names an unnamed job "job-<id>".
  BatchSql select_last_run_ids;  // Multi-row: rows of (job_id); each job's newest run id.
  BatchSql select_runs_by_id;    // Multi-row: rows of (id).
  std::string select_all_jobs;   // Every job (DeleteJob looks for its parents).
  std::string update_job_spec;
  std::string update_job_spec_and_cursor;
  std::string set_job_state;
  std::string set_fires_left;
  std::string count_job_end;
  std::string select_job_failures;
  std::string pause_job;
  std::string delete_job_logs;
  std::string delete_job_runs;
  std::string delete_job_glue;
  // Script versions (glue_version).
  std::string lock_job;  // (id): the job row, locked where the dialect has row locks.
  std::string
      insert_script_version;       // (job_id, version, language, source, note, author, create_ms)
  std::string max_script_version;  // (job_id)
  std::string prune_script_versions;  // (job_id, oldest version kept)
  // (job_id, before_version, before_version, limit): newest first, with the
  // source's length in bytes in place of the source.
  std::string select_script_versions;
  std::string select_script_version;  // (job_id, version)
  std::string delete_job;
  std::string select_due_jobs;
  std::string count_jobs_by_group_state;
  // Multi-row: rows of (id); the jobs' (id, state, next_fire_ms), by id,
  // locked for update where the dialect has row locks.
  BatchSql lock_jobs;
  BatchSql select_jobs_by_id;  // Multi-row: rows of (id).
  // Multi-row: rows of (id, next_fire_ms, last_fire_ms).
  BatchSql update_job_cursors;

  // Runs.
  std::string insert_run;  // One row (the per-row fallback of InsertRuns).
  std::string select_slot_holder;
  std::string select_retry_holder;
  std::string select_child_holder;
  std::string select_node_holder;
  // Multi-row: rows of the 32 RunInsertArgs; fails as a whole on a clash.
  BatchSql insert_runs;
  // Multi-row: kRunKeyColumns of the runs holding the given keys; rows of
  // (job_id, slot_ms, shard_index, attempt), (retry_of, attempt),
  // (child_of, job_id, shard_index) and (workflow_run_id, workflow_node,
  // workflow_attempt, shard_index, attempt).
  BatchSql select_runs_by_slot;
  BatchSql select_runs_by_retry;
  BatchSql select_runs_by_child;
  BatchSql select_runs_by_node;
  // Multi-row: rows of (id); kRunStateColumns by id, locked for update
  // where the dialect has row locks.
  BatchSql lock_runs;
  // Multi-row: rows of (id, job_id, group_id, trigger_type, status,
  // trigger_code, trigger_message, executor_address, dispatch_ms,
  // handle_code, handle_message, start_ms, end_ms, fence_epoch,
  // followup_pending, log_line_count, log_truncated, followup_due_ms,
  // log_bytes): every
  // writable column of runs locked by lock_runs in the same transaction.
  BatchSql update_runs;
  std::string select_run;
  // Multi-row: rows of (run_id, line_number, time_ms, text); fails as a
  // whole if a line is stored already.
  BatchSql insert_log_lines;
  // Multi-row: rows of (run_id, from line, to line); (run_id, line_number)
  // of the stored lines in those ranges.
  BatchSql select_log_lines;
  std::string update_alarm_status;
  std::string select_run_log;
  std::string select_active_runs_on;

  // Follow-ups and retention.
  std::string select_pending_followups;
  BatchSql complete_followups;  // Multi-row: rows of (id).
  BatchSql defer_followups;     // Multi-row: rows of (id, followup_due_ms).
  BatchSql complete_deadlines;  // Multi-row: rows of (id).
  BatchSql select_retries_of;   // Multi-row: rows of (first attempt's id).
  std::string select_runs_ended_before;
  std::string select_job_ids_after;
  std::string select_keep_cutoff;
  std::string select_trimmable_runs;
  std::string delete_ended_run;  // Only if ended and its follow-up is handled.
  std::string delete_run_logs;

  // Daily statistics.
  // Multi-row: rows of (day, job, running, succeeded, failed) added to the counters.
  BatchSql upsert_stats_days;
  // Multi-row: rows of (day, job, bucket, runs) added to the histogram buckets.
  BatchSql upsert_stats_durations;
  // Multi-row: rows of (day_ms, job_id, bucket, runs) added to stats_lateness.
  BatchSql upsert_stats_lateness;
  // Reads and purges of the stats_* tables, and of the report_* tables that
  // releases before migration 13 wrote (counts are deltas, so a day's
  // statistics are the sum of both; see migration 13).
  StatsTables stats;
  StatsTables legacy_stats;

  // Registry.
  std::string upsert_executor_keep_register;
  std::string upsert_executor_set_register;
  std::string delete_executor;
  std::string select_executors;
  std::string prune_executors;

  // Admin tokens.
  std::string insert_audit;
  std::string select_audit;          // (before_id, before_id, object, object, limit)
  std::string select_audit_cutoff;   // (before_ms, limit): ids to delete
  std::string delete_audit_through;  // (max_id, before_ms)
  std::string count_admin_tokens;
  std::string insert_admin_token;
  std::string select_admin_token;
  std::string select_admin_token_by_name;
  std::string select_admin_tokens;
  std::string revoke_admin_token;     // (now_ms, name)
  std::string revoke_user_tokens;     // (now_ms, user_name)
  std::string select_ended_sessions;  // (before_ms, before_ms, limit) -> name
  std::string delete_token;           // (name)

  // Users.
  std::string insert_user;  // (username, password_hash, role, grants, create_ms, update_ms)
  std::string select_user;  // (username)
  std::string select_users;
  std::string update_user;           // (role, grants, update_ms, username)
  std::string update_user_password;  // (password_hash, username)
  std::string delete_user;           // (username)

  // Leases.
  std::string store_now_ms;  // The database's clock, unix ms.
  std::string ensure_lease;  // Insert-or-ignore of a free row: name, expired since (ms).
  std::string update_lease;
  // Renewal of every lease a holder keeps: expires_ms, holder, then names.
  std::string renew_leases_prefix;
  std::string release_leases_prefix;         // expired since (ms), holder, then names.
  std::string delete_expired_leases_prefix;  // expired before (ms), then names.
  std::string lock_leases_prefix;  // names; " FOR UPDATE" appended where the dialect has it.
  std::string lock_suffix;
  std::string list_leases;  // name LIKE ?.
};

const Statements& StatementsFor(Dialect dialect);

// SELECT for ListPendingFollowups (now, limit), with an extra condition.
std::string PendingFollowupsSql(const std::string& and_where);
// First attempts whose deadline is due and not yet judged, of `partitions`
// (empty: all): parameters (now_ms, limit).
std::string DueDeadlinesSql(int partition_count, const std::vector<int>& partitions);
std::string PendingFollowupsInPartitionsSql(int partition_count,
                                            const std::vector<int>& partitions);

// " AND <job_id_column> % <partition_count> IN (...)": rows of jobs in
// `partitions` (numbers below partition_count, JobStore::partition_count).
// The pools with runs queued for jobs of these partitions (all: none given).
std::string QueuedPoolsSql(int partition_count, const std::vector<int>& partitions);
std::string InPartitions(const std::string& job_id_column, int partition_count,
                         const std::vector<int>& partitions);
// SELECT for ListDueJobs (until, limit), with an extra condition.
std::string DueJobsSql(const std::string& and_where);
// SELECT for ListDueJobs restricted to `partitions` (of partition_count).
std::string DueJobsInPartitionsSql(int partition_count, const std::vector<int>& partitions);
// SELECT of the due workflows (parameters until_ms, limit), of `partitions`
// only when given; and of the running workflow runs (parameter limit).
std::string DueWorkflowsSql(int partition_count, const std::vector<int>& partitions);
std::string RunningWorkflowRunsSql(int partition_count, const std::vector<int>& partitions);

// SELECT for ListJobs: parameters after_id, group_count group ids, limit.
std::string ListJobsSql(int group_count);
// SELECT of the jobs with a name: parameters name, group_count group ids (0: any group).
std::string JobsNamedSql(int group_count);
// SELECT for ListRuns with the optional conditions switched on, in this
// parameter order: job_id, workflow_run_id, group ids..., statuses...,
// trigger_type, from, to, before_id, limit (partitions, of partition_count,
// are inlined when given).
std::string ListRunsSql(bool job, bool workflow_run, int group_count, int status_count,
                        bool trigger_type, bool from, bool to, bool before, int partition_count,
                        const std::vector<int>& partitions);

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_STATEMENTS_H_
