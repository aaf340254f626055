// RunSpool: the executor's queue of reported items (RunStarted, log batches,
// RunResult) not yet acknowledged by the log service.
//
// With a directory, items are appended to a journal of segment files
// ("<first id>.seg", each record length + checksum + id + item) as they are
// added, and made durable with one fdatasync for everything appended so far
// (group commit: many finishing runs share one sync instead of one fsync
// each). A segment is deleted once all its items are acknowledged; Open()
// loads what a previous process left (acknowledged items of a segment still
// in use come back too and are re-sent; the log service answers DUPLICATE).
// A torn record at a segment's end (crash mid-write) ends that segment. An
// exclusive lock file keeps two executors from sharing one spool. Without a
// directory the spool lives in memory only.
//
//   auto spool = RunSpool::Open("/var/lib/app/spool");
//   uint64_t id = (*spool)->Append(item, &status);
//   (*spool)->SyncThrough(id);   // durable; concurrent callers share a sync
//   ... send, then on acknowledgement:
//   (*spool)->Remove(id);
//
// Thread safety: thread-safe. Next() returns a pointer valid until that item
// is removed; the owner serialises Next() with Remove().
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_SPOOL_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_SPOOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::executor::internal {

class RunSpool {
 public:
  static absl::StatusOr<std::unique_ptr<RunSpool>> Open(const std::string& dir);
  ~RunSpool();
  RunSpool(const RunSpool&) = delete;
  RunSpool& operator=(const RunSpool&) = delete;

  // Adds an item (its sequence is ignored) and returns its id. The item is
  // written to the journal but not synced; it is kept in memory even if
  // writing fails (`disk_status` says so).
  uint64_t Append(const v1::ReportItem& item, absl::Status* disk_status) ABSL_LOCKS_EXCLUDED(mu_);
  // Returns once every item up to `id` is on stable storage (or the sync
  // failed). One caller syncs for all who wait meanwhile.
  absl::Status SyncThrough(uint64_t id) ABSL_LOCKS_EXCLUDED(mu_);
  // Drops an acknowledged item.
  void Remove(uint64_t id) ABSL_LOCKS_EXCLUDED(mu_);
  // The first item with an id above `after`, or nullptr.
  const std::pair<const uint64_t, v1::ReportItem>* Next(uint64_t after) const
      ABSL_LOCKS_EXCLUDED(mu_);

  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);
  bool empty() const { return size() == 0; }
  // The end time of the earliest-added result still here (results are
  // added as runs end, so it is the oldest), or nullopt if none is.
  std::optional<absl::Time> OldestResultEnd() const ABSL_LOCKS_EXCLUDED(mu_);
  bool durable() const { return !dir_.empty(); }
  // Items loaded from disk by Open().
  size_t recovered() const { return recovered_; }
  // The run ids of the results among them, in the order they were added:
  // runs an earlier process of this executor accepted and finished, which a
  // restarted executor must not run again if a scheduler resends them
  // (RunManagerOptions::remembered_run_ids). Acknowledged results of a
  // segment still in use come back too, so these are the unacknowledged
  // results and the recently acknowledged ones.
  //
  // No separate list of accepted run ids is kept on disk. A run whose result
  // was acknowledged and whose segment is gone has its result committed in
  // the store, which ends it there, and schedulers resend only runs still
  // PENDING there (after a take-over) or to the same executor instance;
  // a list written as runs are accepted would cost a write per run, and an
  // fsync per run to be of use after a crash. A run that an earlier process
  // accepted but did not finish has no result here and is run again if
  // resent: answering "already accepted" for it would leave it RUNNING with
  // no result ever coming.
  const std::vector<int64_t>& recovered_result_runs() const { return recovered_result_runs_; }

  // Intact records in the segments of `dir`, read without taking the lock
  // (for inspection and tests; a live spool may be appending meanwhile).
  static size_t CountRecords(const std::string& dir);

  // Segments are rotated past this size (bytes).
  static constexpr size_t kSegmentBytes = 1 << 20;

 private:
  explicit RunSpool(std::string dir) : dir_(std::move(dir)) {}
  absl::Status Load() ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status LoadSegment(uint64_t first_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string PathOf(uint64_t first_id) const;
  // Opens a new current segment starting at `first_id`.
  absl::Status StartSegment(uint64_t first_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Deletes a non-current segment with nothing left in it.
  void MaybeDelete(uint64_t first_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string dir_;
  int lock_fd_ = -1;
  size_t recovered_ = 0;
  std::vector<int64_t> recovered_result_runs_;  // Set by Load(), then read-only.

  mutable absl::Mutex mu_;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, v1::ReportItem> items_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, size_t> segments_ ABSL_GUARDED_BY(mu_);  // first id -> items not yet removed
  int fd_ ABSL_GUARDED_BY(mu_) = -1;                          // current segment
  uint64_t current_ ABSL_GUARDED_BY(mu_) = 0;                 // its first id
  size_t current_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t written_id_ ABSL_GUARDED_BY(mu_) = 0;  // Highest id written to the journal.
  uint64_t synced_id_ ABSL_GUARDED_BY(mu_) = 0;   // Highest id known durable.
  bool syncing_ ABSL_GUARDED_BY(mu_) = false;     // A sync runs unlocked; fd_ stays open.
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_SPOOL_H_
