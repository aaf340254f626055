// Store: the one persistence interface of gnomon, with a SQLite and a MySQL backend.
//
// Every role reads and writes through this interface; SQL lives only in the
// backends (statements.cc and the schema files). Calls are batch-oriented so
// the scheduler and the log service can keep store transactions and SQL
// statements per run low: a batch costs a few multi-row statements per kind,
// not one per run (batch_sql.h).
//
// Example:
//   absl::StatusOr<std::unique_ptr<Store>> store =
//       OpenStore("sqlite:/var/lib/gnomon/gnomon.db", StoreOptions{});
//   if (!store.ok()) return store.status();
//   absl::StatusOr<v1::Group> g = (*store)->CreateGroup(group);
//
// Times are UTC milliseconds since the Unix epoch (int64). Errors are values:
// NotFound for a missing row, AlreadyExists for a unique-key clash,
// FailedPrecondition for a refused change, Unavailable for a store that is down
// or timed out (callers retry), Internal for anything else. No exception escapes.
//
// Thread safety: every method may be called concurrently from any thread.
#ifndef GNOMON_SERVICES_COMMON_STORE_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::store {

// Sentinel for "no further fire" in next_fire_ms.
inline constexpr int64_t kNever = -1;

struct StoreOptions {
  // Lines kept per run; further lines are dropped and the run is marked truncated.
  int64_t max_log_lines_per_run = 10000;
  // Per-statement timeout for the MySQL backend (connect, read, write).
  int timeout_seconds = 5;
  // Busy timeout for the SQLite backend.
  int sqlite_busy_timeout_ms = 5000;
  // Apply the backend's migrations only up to this version (0: all). Tests
  // set it to play a binary of the previous release against a newer store.
  int64_t migrate_up_to = 0;
  // Script versions kept per job (the newest; at least 1), as XXL-JOB's 30.
  int64_t script_versions_kept = 30;
};

// A job to create (CreateJobs): its configuration, state and first cursor.
struct NewJob {
  v1::Job job;
  v1::JobState state = v1::JOB_STATE_STOPPED;
  int64_t next_fire_ms = kNever;
};

// A job due to fire, with its schedule cursor.
struct DueJob {
  v1::Job job;  // Full configuration; job.next_fire_time mirrors next_fire_ms.
  int64_t next_fire_ms = kNever;
  int64_t last_fire_ms = 0;  // 0 = never fired.
};

// Compare-and-set of a job's schedule cursor: applied only if the stored
// next_fire_ms still equals expected_next_fire_ms and the job is RUNNING.
struct JobAdvance {
  int64_t job_id = 0;
  int64_t expected_next_fire_ms = kNever;
  int64_t next_fire_ms = kNever;
  int64_t last_fire_ms = 0;
};

// How many jobs of one group are in one state (CountJobs).
struct JobCount {
  std::string app_name;  // The group's.
  v1::JobState state = v1::JOB_STATE_UNSPECIFIED;
  int64_t jobs = 0;
};

// Outcome of inserting one run.
struct RunInsertOutcome {
  bool inserted = false;  // false: its slot was already taken.
  int64_t run_id = 0;     // The new id, or the id of the run that holds the slot.
};

// Result of dispatching (or failing to dispatch) one run, written by the scheduler.
struct DispatchUpdate {
  int64_t run_id = 0;
  v1::RunStatus status = v1::RUN_STATUS_RUNNING;  // RUNNING or FAILED.
  int32_t trigger_code = 200;
  std::string trigger_message;
  std::string executor_address;
  int64_t dispatch_ms = 0;
  // Only for FAILED: the handle code/message and end time recorded with it.
  int32_t handle_code = 0;
  std::string handle_message;
  int64_t end_ms = 0;
  int64_t fence_epoch = 0;
};

// What an API token may do: a service account's role and grants, or the user
// whose session it is (then the user's role and grants apply).
struct TokenScope {
  v1::Role role = v1::ROLE_ADMIN;
  v1::Grants grants;
  std::string user;
};

// A user as stored.
struct StoredUser {
  v1::User user;
  std::string password_hash;
};

// Filter and page for ListRuns. Runs come newest first (by id, descending).
struct RunFilter {
  int64_t job_id = 0;    // 0 = any.
  std::vector<int64_t> group_ids;       // Any of these; empty = any.
  std::vector<v1::RunStatus> statuses;  // empty = any.
  v1::TriggerType trigger_type = v1::TRIGGER_TYPE_UNSPECIFIED;  // UNSPECIFIED = any.
  int64_t trigger_from_ms = 0;          // inclusive; 0 = unbounded.
  int64_t trigger_to_ms = 0;            // exclusive; 0 = unbounded.
  int64_t before_id = 0;                // page cursor: ids < before_id; 0 = from newest.
  std::vector<int> partitions;          // Jobs of these scheduler partitions; empty = any.
  int limit = 50;
};

// Scheduler partitions: job j is scheduled by the holder of partition
// j % kPartitions (a lease in the store, see AcquireLeases). Fixed: changing
// it would move every job at once.
inline constexpr int kPartitions = 64;
inline int PartitionOf(int64_t job_id) { return static_cast<int>(job_id % kPartitions); }

// A lease (a scheduler partition, a replica's presence) with its fencing epoch.
struct Lease {
  std::string name;
  std::string holder;      // "" when free.
  int64_t epoch = 0;       // Increases every time the holder changes.
  int64_t expires_ms = 0;  // In the store's clock.
};

// Leases as read at one instant of the store's clock.
struct Leases {
  int64_t now_ms = 0;  // The store's clock when they were read.
  std::vector<Lease> leases;
};

class Store {
 public:
  virtual ~Store() = default;

  // Write transactions committed since the store was opened (for stats and
  // benchmarks; 0 where not counted).
  virtual uint64_t committed_transactions() const { return 0; }
  // OK if the store answers a trivial read now (health checks).
  virtual absl::Status Ping() = 0;
  // SQL statements executed since the store was opened, one per round trip
  // to the database (transaction control not counted); with
  // committed_transactions() it gives a benchmark its statements per run.
  // 0 where not counted.
  virtual uint64_t executed_statements() const { return 0; }

  // ---- Groups -------------------------------------------------------------
  // Inserts `group` (id ignored; access_token must be set by the caller).
  // AlreadyExists if the app name is taken. Returns it with id and times.
  virtual absl::StatusOr<v1::Group> CreateGroup(const v1::Group& group, int64_t now_ms) = 0;
  // Groups are returned with their access_token; callers strip it for display.
  virtual absl::StatusOr<v1::Group> GetGroup(int64_t group_id) = 0;
  virtual absl::StatusOr<v1::Group> GetGroupByApp(std::string_view app_name) = 0;
  virtual absl::StatusOr<std::vector<v1::Group>> ListGroups() = 0;
  // Replaces title, membership and access_token of group.id. NotFound if missing.
  virtual absl::StatusOr<v1::Group> UpdateGroup(const v1::Group& group, int64_t now_ms) = 0;
  // FailedPrecondition (naming the count) if any job uses it; NotFound if missing.
  virtual absl::Status DeleteGroup(int64_t group_id) = 0;

  // ---- Jobs ---------------------------------------------------------------
  // Script versions (glue versions): creating a script job stores its
  // script as version 1, and an update that changes a script job's language
  // or source stores the new script as the next version, in the same
  // transaction as the job (an update that changes neither stores none and
  // keeps the version). The job's script.version is the store's, whatever
  // the caller set; script.remark is stored with the version, never in the
  // job; `author` (the caller, as the audit log names it) too. Only the
  // newest StoreOptions::script_versions_kept versions of a job are kept.
  //
  // Inserts `job` (id ignored) with the given state and cursor. NotFound if
  // job.group_id does not exist. Returns it with id, state, times.
  virtual absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state,
                                            int64_t next_fire_ms, int64_t now_ms,
                                            std::string_view author = {}) = 0;
  // Inserts every job of `jobs` with its state and cursor in one transaction:
  // all or none (NotFound naming the group if one is missing). Returns them
  // with ids, in order.
  virtual absl::StatusOr<std::vector<v1::Job>> CreateJobs(const std::vector<NewJob>& jobs,
                                                          int64_t now_ms,
                                                          std::string_view author = {}) = 0;
  virtual absl::StatusOr<v1::Job> GetJob(int64_t job_id) = 0;
  // The jobs called `name` in `group_ids` (empty: any group), by id: at most
  // one per group, since names are unique within a group.
  virtual absl::StatusOr<std::vector<v1::Job>> GetJobsNamed(std::string_view name,
                                                           const std::vector<int64_t>& group_ids) = 0;
  // The newest run of each of `job_ids` that has one, in one statement per
  // kMaxBatchRows ids (what a job list shows as its last result).
  virtual absl::StatusOr<std::vector<v1::Run>> LastRuns(const std::vector<int64_t>& job_ids) = 0;
  // The jobs among `job_ids` that exist (missing ids are left out), in one
  // statement per kMaxBatchRows ids: for passes that need many jobs at once.
  virtual absl::StatusOr<std::vector<v1::Job>> GetJobs(const std::vector<int64_t>& job_ids) = 0;
  // Jobs with id > after_id (0 = from the start), ascending, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::Job>> ListJobs(const std::vector<int64_t>& group_ids, int64_t after_id,
                                                        int limit) = 0;
  // Replaces the configuration of job.id; keeps state and cursor unless
  // next_fire_ms is given (then it replaces the cursor too).
  virtual absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms,
                                            int64_t now_ms, std::string_view author = {}) = 0;
  // Deletes the job and its script versions and takes it out of its parents'
  // child lists, in one transaction; with purge_runs its runs, their logs
  // and its report rows go too (otherwise they stay until retention).
  virtual absl::Status DeleteJob(int64_t job_id, bool purge_runs) = 0;
  // Sets state and cursor (kNever when stopped).
  virtual absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state,
                                              int64_t next_fire_ms, int64_t now_ms) = 0;
  // RUNNING jobs with 0 <= next_fire_ms <= until_ms, earliest first, at most
  // `limit` (0 or less: all of them), of the given partitions (empty: all).
  virtual absl::StatusOr<std::vector<DueJob>> ListDueJobs(int64_t until_ms, int limit,
                                                          const std::vector<int>& partitions) = 0;
  // Applies each advance in one transaction; returns, per advance, whether it applied.
  virtual absl::StatusOr<std::vector<bool>> AdvanceJobs(const std::vector<JobAdvance>& advances) = 0;
  // Jobs per (group, state), in one aggregate query (for metrics); groups
  // without jobs are left out.
  virtual absl::StatusOr<std::vector<JobCount>> CountJobs() = 0;
  // A job's kept script versions with version < before_version (0: from
  // the newest), newest first, at most `limit`, without their source (its
  // length is in source_bytes). Empty for a job without any.
  virtual absl::StatusOr<std::vector<v1::ScriptVersion>> ListScriptVersions(int64_t job_id,
                                                                            int64_t before_version,
                                                                            int limit) = 0;
  // One kept version with its source; NotFound naming it if not kept.
  virtual absl::StatusOr<v1::ScriptVersion> GetScriptVersion(int64_t job_id, int64_t version) = 0;

  // ---- Runs ---------------------------------------------------------------
  // Inserts runs in one transaction. A run with scheduled_time set and a
  // trigger type of CRON, FIX_RATE, FIX_DELAY, MISFIRE or BACKFILL takes the
  // unique slot (job_id, scheduled_ms, shard_index, attempt); if that slot is
  // taken it is not inserted. A run with attempt > 0 is also unique per
  // (first_run_id, attempt), and a PARENT-triggered run per (parent_run_id,
  // job_id, shard_index), so a follow-up handled twice inserts nothing twice.
  // first_run_id 0 means "itself". Fills ids in `runs`. A run inserted
  // already SUCCEEDED or FAILED has ended: it is a pending follow-up too.
  virtual absl::StatusOr<std::vector<RunInsertOutcome>> InsertRuns(std::vector<v1::Run>& runs) = 0;
  // Applies dispatch outcomes in one transaction. A PENDING run takes the
  // status and every field. A run that already ended (its result raced ahead
  // of the dispatch answer) keeps its status, handle code/message and times
  // but still gets trigger code/message, executor address (if empty),
  // dispatch time and fence epoch. A FAILED outcome ends the run, so it
  // becomes a pending follow-up (see ListPendingFollowups).
  virtual absl::Status RecordDispatches(const std::vector<DispatchUpdate>& updates) = 0;
  // Applies executor reports in one transaction and returns one ack per item:
  // started (RUNNING/PENDING runs get start time), log lines (appended, capped,
  // duplicates by line number ignored), results (only if the run is not yet
  // SUCCEEDED/FAILED, or was failed by the provisional executor-lost verdict
  // — see FailRuns; otherwise DUPLICATE). UNKNOWN_RUN for a missing run, or
  // one whose group is not `group_id` (when group_id != 0).
  //
  // A late result replacing the executor-lost verdict sets the run's status,
  // handle code/message and end time (and its start time if none was
  // reported), and moves the run's report counts (failed -> the result's
  // outcome, duration). Its follow-up is decided once:
  //  * not handled yet (still listed, or deferred waiting for a retry's
  //    delay): it stays pending, is handled on the result instead (children
  //    or FIX_DELAY for a success; the retry policy for the executor's own
  //    failure) and is listed at once;
  //  * already handled (CompleteFollowups): what the verdict's follow-up did
  //    stands — its retry, alarm or FIX_DELAY next fire — and nothing more
  //    follows: no second retry, no child jobs for the late success.
  // The same result again is then a DUPLICATE like any other.
  virtual absl::StatusOr<std::vector<v1::ReportAck>> ApplyReports(
      const std::vector<v1::ReportItem>& items, int64_t group_id) = 0;
  virtual absl::StatusOr<v1::Run> GetRun(int64_t run_id) = 0;
  virtual absl::StatusOr<std::vector<v1::Run>> ListRuns(const RunFilter& filter) = 0;
  // Lines with line_number >= from_line (1-based), ascending, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::LogLine>> ReadRunLog(int64_t run_id, int64_t from_line,
                                                              int limit) = 0;
  // ---- Follow-ups (retries, child jobs, FIX_DELAY rescheduling) ------------
  // Every run that ends (SUCCEEDED or FAILED, through ApplyReports or
  // RecordDispatches, or FailRuns) becomes a pending follow-up in the same
  // transaction. This lists those due at `now_ms` (not deferred past it) of
  // jobs in `partitions` (empty: all; each scheduler replica handles its
  // own), earliest due first, then earliest end, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::Run>> ListPendingFollowups(
      int limit, int64_t now_ms, const std::vector<int>& partitions) = 0;
  // Marks follow-ups handled; idempotent.
  virtual absl::Status CompleteFollowups(const std::vector<int64_t>& run_ids) = 0;
  // Leaves follow-ups pending but unlisted until their due instant (run id,
  // due unix ms), so retries waiting out a delay do not hold up the others.
  virtual absl::Status DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) = 0;
  // Ends PENDING or RUNNING runs as FAILED with the code and message (e.g.
  // 504 "executor lost"), end time now_ms; runs already ended are left alone.
  // Returns how many changed. HANDLE_CODE_EXECUTOR_LOST (504) makes the
  // verdict provisional: a result the executor reports later replaces it
  // (ApplyReports); any other code is final.
  virtual absl::StatusOr<int64_t> FailRuns(const std::vector<int64_t>& run_ids, int32_t handle_code,
                                           std::string_view handle_message, int64_t now_ms) = 0;

  // Records how the alarm of a run was delivered (truncated to 1024 bytes).
  virtual absl::Status RecordAlarmStatus(int64_t run_id, std::string_view status) = 0;

  // Runs RUNNING or PENDING on an executor address (for lost-executor handling).
  virtual absl::StatusOr<std::vector<v1::Run>> ListActiveRunsOn(std::string_view address) = 0;

  // ---- Reports and retention ---------------------------------------------
  // Per-day (UTC) counts and duration percentiles, maintained incrementally
  // in the transactions that change run status (no re-aggregation of runs).
  // Days in [from_day_ms, to_day_ms); job_id 0 gives one total row per day,
  // otherwise that job's rows. Rows come ordered by day; days without runs
  // are absent. A run counts on the UTC day of its trigger time: running
  // while PENDING/RUNNING, then succeeded or failed; durations (end - start
  // of runs that started) go to a log-scale histogram, so p50/p99 are
  // within 12.5% of the true nearest-rank value (report_histogram.h).
  virtual absl::StatusOr<std::vector<v1::ReportRow>> GetReport(int64_t from_day_ms, int64_t to_day_ms,
                                                               int64_t job_id) = 0;
  // Deletes at most `limit` ended runs (with their log lines) that ended
  // before before_ms, oldest first, in one short transaction; returns how many.
  // Runs whose follow-up is still pending are never deleted (nor by Trim).
  virtual absl::StatusOr<int64_t> DeleteRunsEndedBefore(int64_t before_ms, int limit) = 0;
  // Deletes at most `limit` of the oldest ended runs of jobs holding more
  // than `keep` runs; returns how many.
  virtual absl::StatusOr<int64_t> TrimRunsPerJob(int64_t keep, int limit) = 0;

  // ---- Audit --------------------------------------------------------------
  // Appends `entry` (its time and fields as given; the id is assigned).
  virtual absl::Status AppendAudit(const v1::AuditEntry& entry) = 0;
  // Entries newest first with id < before_id (0: from the newest), only
  // those whose object is `object` unless it is empty; at most `limit`.
  virtual absl::StatusOr<std::vector<v1::AuditEntry>> ListAudit(std::string_view object, int64_t before_id,
                                                                int limit) = 0;
  // Deletes at most `limit` of the oldest entries written before before_ms;
  // returns how many.
  virtual absl::StatusOr<int64_t> DeleteAuditBefore(int64_t before_ms, int limit) = 0;

  // ---- Registry -----------------------------------------------------------
  // Inserts or replaces the row of (app_name, address) with last beat now_ms.
  virtual absl::Status UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms) = 0;
  // Removes the row of (app_name, address) if it is still the registration
  // made at register_ms: an executor that registered again meanwhile
  // (through another registry replica) keeps its row. NotFound otherwise.
  virtual absl::Status RemoveExecutor(std::string_view app_name, std::string_view address,
                                      int64_t register_ms) = 0;
  virtual absl::StatusOr<std::vector<v1::ExecutorInfo>> ListExecutors() = 0;
  // Deletes rows whose last beat is older than before_ms; returns how many.
  virtual absl::StatusOr<int64_t> PruneExecutors(int64_t before_ms) = 0;

  // ---- API tokens (stored as SHA-256 hex digests, never in clear) ----------
  virtual absl::StatusOr<bool> HasAdminTokens() = 0;
  // AlreadyExists if the name is taken; expire_ms 0: never expires.
  // `scope`: role, grants and (for a login session) user.
  virtual absl::Status CreateAdminToken(std::string_view name, std::string_view sha256_hex, int64_t now_ms,
                                        int64_t expire_ms = 0, const TokenScope& scope = {}) = 0;
  // The token with that digest, revoked or expired ones too (the caller
  // judges); NotFound if none.
  virtual absl::StatusOr<v1::ApiToken> FindAdminToken(std::string_view sha256_hex) = 0;
  // Every token, by name.
  virtual absl::StatusOr<std::vector<v1::ApiToken>> ListAdminTokens() = 0;
  // Marks it revoked at now_ms (kept revoked if it already was); NotFound
  // if there is no token of that name.
  virtual absl::StatusOr<v1::ApiToken> RevokeAdminToken(std::string_view name, int64_t now_ms) = 0;

  // ---- Users (passwords stored only as hashes) ------------------------------
  // AlreadyExists if the name is taken.
  virtual absl::StatusOr<v1::User> CreateUser(const v1::User& user, std::string_view password_hash,
                                              int64_t now_ms) = 0;
  // The user and its password hash; NotFound if none.
  virtual absl::StatusOr<StoredUser> GetUser(std::string_view name) = 0;
  // Every user, by name.
  virtual absl::StatusOr<std::vector<v1::User>> ListUsers() = 0;
  // Replaces role and grants (and the password hash, if given); NotFound if none.
  virtual absl::StatusOr<v1::User> UpdateUser(const v1::User& user, std::optional<std::string> password_hash,
                                              int64_t now_ms) = 0;
  // Deletes the user and revokes its session tokens, in one transaction;
  // NotFound if none.
  virtual absl::Status DeleteUser(std::string_view name, int64_t now_ms) = 0;

  // ---- Leases ---------------------------------------------------------------
  // Leases expire by the store's clock (the database server's for MySQL), so
  // replicas need not agree on the time.
  //
  // Takes or renews, in one transaction, each lease of `names` that is free,
  // expired, held by `holder`, or held by an earlier incarnation of it: a
  // holder "replica#incarnation" takes over at once a lease held by
  // "replica#other" (a restarted process does not wait out its
  // predecessor's lease). Each is held until the store's now + ttl_ms; the
  // epoch increases when the holder changes. Returns the store's clock and
  // the leases of `names` now held by `holder` (those held by others are left out).
  virtual absl::StatusOr<Leases> AcquireLeases(const std::vector<std::string>& names,
                                               std::string_view holder, int64_t ttl_ms) = 0;
  // Gives up those of `names` that `holder` holds (their epochs stay).
  virtual absl::Status ReleaseLeases(const std::vector<std::string>& names,
                                     std::string_view holder) = 0;
  // Deletes those of `names` that expired before `expired_before_ms` (the
  // store's clock; a lease taken again meanwhile stays). For presence rows
  // only: a partition's row keeps its epoch for ever.
  virtual absl::Status DeleteExpiredLeases(const std::vector<std::string>& names,
                                           int64_t expired_before_ms) = 0;
  // Every lease whose name starts with `prefix` (letters, digits, '/', '-',
  // '.' and ':'), held or not, by name, and the store's clock.
  virtual absl::StatusOr<Leases> ListLeases(std::string_view prefix) = 0;
};

// Opens "sqlite:PATH" or "mysql://user:password@host:port/database" and
// applies pending migrations. InvalidArgument names the problem with the URL.
absl::StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view url, const StoreOptions& options);

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_STORE_H_
