// RunLogFiles: the local copy of each run's log, one bounded file per run
// that logs ("<dir>/<run_id>.log", created by its first line), for people
// on the host (every line also goes to the log service), deleted after the
// retention period (checked at start and at most hourly as runs open).
//
//   RunLogFiles files("/var/log/app/gnomon", 16 << 20, /*retention_days=*/7, &logger);
//   files.Init();
//   files.Open(run_id);
//   files.Append(run_id, line);
//   files.Close(run_id);
//   files.Read(run_id, /*from_line=*/1, [](const v1::LogLine& l) { ...; return true; });
//
// With an empty directory every call is a no-op and Read is NotFound.
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_LOG_FILES_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_LOG_FILES_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/v1/common.pb.h"
#include "services/executor-sdk/src/logger.h"

namespace gnomon::executor::internal {

class RunLogFiles {
 public:
  RunLogFiles(std::string dir, int64_t max_bytes, int retention_days, const Logger* logger);
  ~RunLogFiles();
  RunLogFiles(const RunLogFiles&) = delete;
  RunLogFiles& operator=(const RunLogFiles&) = delete;

  // Creates the directory and prunes old files.
  absl::Status Init();
  void Open(int64_t run_id);
  void Append(int64_t run_id, const v1::LogLine& line);
  void Close(int64_t run_id);
  // Streams lines numbered >= from_line to `fn` until it returns false.
  absl::Status Read(int64_t run_id, int64_t from_line,
                    const std::function<bool(const v1::LogLine&)>& fn) const;
  // Deletes run-log files last modified before now - retention. Returns how many.
  int Prune(absl::Time now);
  bool enabled() const { return !dir_.empty(); }

 private:
  struct OpenFile {
    std::FILE* file = nullptr;  // Until the first line.
    int64_t bytes = 0;
    bool truncated = false;
  };
  std::string PathOf(int64_t run_id) const;

  const std::string dir_;
  const int64_t max_bytes_;
  const int retention_days_;
  const Logger* const logger_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<int64_t, OpenFile> open_ ABSL_GUARDED_BY(mu_);
  absl::Time last_prune_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_LOG_FILES_H_
