// Run queries shared by LogService (queries) and JobAdmin (runs): request
// validation, paging and the store calls.
//
//   absl::StatusOr<v1::ListRunsResponse> page = ListRuns(jobs, runs, caller.access, request);
//
// Thread safety: thread-safe (the store is).
#ifndef GNOMON_SERVICES_COMMON_SERVER_RUN_QUERIES_H_
#define GNOMON_SERVICES_COMMON_SERVER_RUN_QUERIES_H_

#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/log.pb.h"
#include "services/common/server/access.h"
#include "services/common/store/job_store.h"
#include "services/common/store/run_store.h"

namespace gnomon {

// InvalidArgument for a bad page size, page token or time range; limited to
// the groups `access` reaches (PermissionDenied for a job or group beyond).
absl::StatusOr<v1::ListRunsResponse> ListRuns(store::JobStore* jobs, store::RunStore* runs,
                                              const Access& access,
                                              const v1::ListRunsRequest& request);
// NotFound naming the run id.
absl::StatusOr<v1::Run> GetRun(store::RunStore* runs, int64_t run_id);
// InvalidArgument for a bad run id or log_lines (before any store access).
absl::Status ValidateGetRunRequest(const v1::GetRunRequest& request);
// Bytes of log text GetRunWithLog answers at most (the rest: StreamRunLog
// from the line after its last).
inline constexpr size_t kMaxGetRunLogBytes = 3 * 1024 * 1024;
// The run and up to `log_lines` (0 = 1000) of its log from the first line,
// as many as fit in kMaxGetRunLogBytes (at least one).
absl::StatusOr<v1::GetRunResponse> GetRunWithLog(store::RunStore* runs,
                                                 const v1::GetRunRequest& request);

inline bool IsTerminal(v1::RunStatus s) {
  return s == v1::RUN_STATUS_SUCCEEDED || s == v1::RUN_STATUS_FAILED;
}

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_RUN_QUERIES_H_
