// RunStore: runs, their logs and their lifecycle (insert, dispatch, reports, failure, retention).
//
// What the scheduler records and the log service appends to.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_RUN_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_RUN_STORE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::store {

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
  int64_t job_id = 0;                                           // 0 = any.
  int64_t workflow_run_id = 0;                                  // 0 = any.
  std::vector<int64_t> group_ids;                               // Any of these; empty = any.
  std::vector<v1::RunStatus> statuses;                          // empty = any.
  v1::TriggerType trigger_type = v1::TRIGGER_TYPE_UNSPECIFIED;  // UNSPECIFIED = any.
  int64_t trigger_from_ms = 0;                                  // inclusive; 0 = unbounded.
  int64_t trigger_to_ms = 0;                                    // exclusive; 0 = unbounded.
  int64_t before_id = 0;        // page cursor: ids < before_id; 0 = from newest.
  std::vector<int> partitions;  // Jobs of these scheduler partitions; empty = any.
  int limit = 50;
};

class RunStore {
 public:
  virtual ~RunStore() = default;

  // The newest run of each of `job_ids` that has one, in one statement per
  // kMaxBatchRows ids (what a job list shows as its last result).
  virtual absl::StatusOr<std::vector<v1::Run>> LastRuns(const std::vector<int64_t>& job_ids) = 0;
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

  // Retention (the log service's):
  // Deletes at most `limit` ended runs (with their log lines) that ended
  // before before_ms, oldest first, in one short transaction; returns how many.
  // Runs whose follow-up is still pending are never deleted (nor by Trim).
  virtual absl::StatusOr<int64_t> DeleteRunsEndedBefore(int64_t before_ms, int limit) = 0;
  // Deletes at most `limit` of the oldest ended runs of jobs holding more
  // than `keep` runs; returns how many.
  virtual absl::StatusOr<int64_t> TrimRunsPerJob(int64_t keep, int limit) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_RUN_STORE_H_
