// RunSpool: the executor's queue of reported items (RunStarted, log batches,
// RunResult) not yet acknowledged by the log service.
//
// With a directory, every item is a file "<id>.item" written before it is
// sent (results are fsync'd; log batches are written without fsync) and
// deleted when acknowledged; Open() loads what a previous process left. An
// exclusive lock file keeps two executors from sharing one spool. Without a
// directory the spool lives in memory only.
//
//   auto spool = RunSpool::Open("/var/lib/app/spool");
//   uint64_t id = (*spool)->Append(item, /*sync=*/true, &status);
//   ... send, then on acknowledgement:
//   (*spool)->Remove(id);
//
// Thread safety: not thread-safe; the owner serialises access.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_SPOOL_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_SPOOL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::executor::internal {

class RunSpool {
 public:
  static absl::StatusOr<std::unique_ptr<RunSpool>> Open(const std::string& dir);
  ~RunSpool();
  RunSpool(const RunSpool&) = delete;
  RunSpool& operator=(const RunSpool&) = delete;

  // Adds an item (its sequence is ignored) and returns its id. The item is
  // kept in memory even if writing it to disk fails (`disk_status` says so).
  uint64_t Append(const v1::ReportResultsRequest& item, bool sync, absl::Status* disk_status);
  // Drops an acknowledged item.
  void Remove(uint64_t id);
  // The first item with an id above `after`, or nullptr.
  const std::pair<const uint64_t, v1::ReportResultsRequest>* Next(uint64_t after) const;

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  bool durable() const { return !dir_.empty(); }
  // Items loaded from disk by Open().
  size_t recovered() const { return recovered_; }

 private:
  explicit RunSpool(std::string dir) : dir_(std::move(dir)) {}
  absl::Status Load();
  std::string PathOf(uint64_t id) const;

  std::string dir_;
  int lock_fd_ = -1;
  uint64_t next_id_ = 1;
  size_t recovered_ = 0;
  std::map<uint64_t, v1::ReportResultsRequest> items_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_SPOOL_H_
