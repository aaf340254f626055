// FollowupStore: the follow-up outbox (retries, child jobs, FIX_DELAY rescheduling).
//
// Filled by the RunStore transactions that end a run; drained by the scheduler.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_FOLLOWUP_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_FOLLOWUP_STORE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::store {

class FollowupStore {
 public:
  virtual ~FollowupStore() = default;

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

  // Job.deadline: the first attempts whose deadline (Run.deadline_time) is
  // at or before `now_ms` and not yet judged, of jobs in `partitions`
  // (empty: all), earliest first, at most `limit` — each followed by its
  // retries, so a fire's work is judged whole.
  virtual absl::StatusOr<std::vector<v1::Run>> ListDueDeadlines(
      int limit, int64_t now_ms, const std::vector<int>& partitions) = 0;
  // Marks deadlines judged (first attempts' ids); idempotent.
  virtual absl::Status CompleteDeadlines(const std::vector<int64_t>& run_ids) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_FOLLOWUP_STORE_H_
