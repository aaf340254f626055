// Store: the one persistence interface of gnomon, with a SQLite and a MySQL backend.
//
// Every role reads and writes through this interface; SQL lives only in the
// backends (sqlite_store.cc, mysql_store.cc). Calls are batch-oriented so the
// scheduler and the log service can keep store transactions per run low.
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
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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

// Filter and page for ListRuns. Runs come newest first (by id, descending).
struct RunFilter {
  int64_t job_id = 0;    // 0 = any.
  int64_t group_id = 0;  // 0 = any.
  std::vector<v1::RunStatus> statuses;  // empty = any.
  int64_t trigger_from_ms = 0;          // inclusive; 0 = unbounded.
  int64_t trigger_to_ms = 0;            // exclusive; 0 = unbounded.
  int64_t before_id = 0;                // page cursor: ids < before_id; 0 = from newest.
  int limit = 50;
};

// A scheduler lease with its fencing epoch.
struct Lease {
  std::string holder;
  int64_t epoch = 0;       // Increases every time the holder changes.
  int64_t expires_ms = 0;
};

class Store {
 public:
  virtual ~Store() = default;

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
  // Inserts `job` (id ignored) with the given state and cursor. NotFound if
  // job.group_id does not exist. Returns it with id, state, times.
  virtual absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state,
                                            int64_t next_fire_ms, int64_t now_ms) = 0;
  virtual absl::StatusOr<v1::Job> GetJob(int64_t job_id) = 0;
  // Jobs with id > after_id (0 = from the start), ascending, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::Job>> ListJobs(int64_t group_id, int64_t after_id,
                                                        int limit) = 0;
  // Replaces the configuration of job.id; keeps state and cursor unless
  // next_fire_ms is given (then it replaces the cursor too).
  virtual absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms,
                                            int64_t now_ms) = 0;
  virtual absl::Status DeleteJob(int64_t job_id) = 0;
  // Sets state and cursor (kNever when stopped).
  virtual absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state,
                                              int64_t next_fire_ms, int64_t now_ms) = 0;
  // RUNNING jobs with 0 <= next_fire_ms <= until_ms, earliest first, at most `limit`.
  virtual absl::StatusOr<std::vector<DueJob>> ListDueJobs(int64_t until_ms, int limit) = 0;
  // Applies each advance in one transaction; returns, per advance, whether it applied.
  virtual absl::StatusOr<std::vector<bool>> AdvanceJobs(const std::vector<JobAdvance>& advances) = 0;

  // ---- Runs ---------------------------------------------------------------
  // Inserts runs in one transaction. A run with scheduled_time set and a
  // trigger type of CRON, FIX_RATE, FIX_DELAY, MISFIRE or BACKFILL takes the
  // unique slot (job_id, scheduled_ms, shard_index, attempt); if that slot is
  // taken it is not inserted. first_run_id 0 means "itself". Fills ids in `runs`.
  virtual absl::StatusOr<std::vector<RunInsertOutcome>> InsertRuns(std::vector<v1::Run>& runs) = 0;
  // Applies dispatch outcomes in one transaction (only to PENDING runs).
  virtual absl::Status RecordDispatches(const std::vector<DispatchUpdate>& updates) = 0;
  // Applies executor reports in one transaction and returns one ack per item:
  // started (RUNNING/PENDING runs get start time), log lines (appended, capped,
  // duplicates by line number ignored), results (only if the run is not yet
  // SUCCEEDED/FAILED; otherwise DUPLICATE). UNKNOWN_RUN for a missing run, or
  // one whose group is not `group_id` (when group_id != 0).
  virtual absl::StatusOr<std::vector<v1::ReportAck>> ApplyReports(
      const std::vector<v1::ReportResultsRequest>& items, int64_t group_id) = 0;
  virtual absl::StatusOr<v1::Run> GetRun(int64_t run_id) = 0;
  virtual absl::StatusOr<std::vector<v1::Run>> ListRuns(const RunFilter& filter) = 0;
  // Lines with line_number >= from_line (1-based), ascending, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::LogLine>> ReadRunLog(int64_t run_id, int64_t from_line,
                                                              int limit) = 0;
  // Runs RUNNING or PENDING on an executor address (for lost-executor handling).
  virtual absl::StatusOr<std::vector<v1::Run>> ListActiveRunsOn(std::string_view address) = 0;

  // ---- Registry -----------------------------------------------------------
  // Inserts or replaces the row of (app_name, address) with last beat now_ms.
  virtual absl::Status UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms) = 0;
  virtual absl::Status RemoveExecutor(std::string_view app_name, std::string_view address) = 0;
  virtual absl::StatusOr<std::vector<v1::ExecutorInfo>> ListExecutors() = 0;
  // Deletes rows whose last beat is older than before_ms; returns how many.
  virtual absl::StatusOr<int64_t> PruneExecutors(int64_t before_ms) = 0;

  // ---- Admin tokens (stored as SHA-256 hex digests, never in clear) --------
  virtual absl::StatusOr<bool> HasAdminTokens() = 0;
  // AlreadyExists if the name is taken.
  virtual absl::Status CreateAdminToken(std::string_view name, std::string_view sha256_hex,
                                        int64_t now_ms) = 0;
  // The token's name; NotFound if no such digest.
  virtual absl::StatusOr<std::string> FindAdminToken(std::string_view sha256_hex) = 0;

  // ---- Leases ---------------------------------------------------------------
  // Takes or renews lease `name` for `holder` until now_ms + ttl_ms if it is
  // free, expired or already held by `holder`; the epoch increases when the
  // holder changes. FailedPrecondition (naming the holder) if someone else holds it.
  virtual absl::StatusOr<Lease> AcquireLease(std::string_view name, std::string_view holder,
                                             int64_t now_ms, int64_t ttl_ms) = 0;
  // Gives the lease up if `holder` holds it.
  virtual absl::Status ReleaseLease(std::string_view name, std::string_view holder) = 0;
};

// Opens "sqlite:PATH" or "mysql://user:password@host:port/database" and
// applies pending migrations. InvalidArgument names the problem with the URL.
absl::StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view url, const StoreOptions& options);

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_STORE_H_
