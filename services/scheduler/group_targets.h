// GroupTargets: where a fire of a job may go — its group (read from the
// store, kept a few seconds) and the executors its runs are routed among —
// and which of them are still live when a run is sent.
//
//   GroupTargets targets(store, &membership, &clock, &prober);
//   absl::StatusOr<DispatchTargets> t = targets.TargetsOf(fire);
//   ExecutorList live = targets.StillLive(*t);   // later, just before a send
//   targets.ForgetGroup(group_id);               // after an update or token rotation
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_GROUP_TARGETS_H_
#define GNOMON_SERVICES_SCHEDULER_GROUP_TARGETS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/client/clock.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/manual_prober.h"
#include "services/scheduler/membership.h"

namespace gnomon::scheduler {

// What a fire's runs are dispatched among: its job's group and the
// executors the fire may use, sorted by address (shared, never copied).
struct DispatchTargets {
  v1::Group group;
  ExecutorList executors;
  // Whether `executors` are the group's registered executors as they were
  // live when the fire was planned (not a trigger's explicit addresses, not
  // a manual group's, which are used as given): routed among only while live.
  bool registered = false;
};

class GroupTargets {
 public:
  // `prober` may be null: every address of a manual group counts as alive.
  GroupTargets(store::JobStore* store, Membership* membership, Clock* clock,
               ManualProber* prober = nullptr);

  // The group of the fire's job and the executors the fire may use: its
  // explicit addresses, else a manual group's addresses that answer beats,
  // else the group's live registered executors. Fails only if the group
  // cannot be read.
  absl::StatusOr<DispatchTargets> TargetsOf(const FireSpec& fire) ABSL_LOCKS_EXCLUDED(mu_);
  // The targets' executors that are still live (all of them unless
  // `registered`). The planned list itself while none of it left.
  ExecutorList StillLive(const DispatchTargets& targets);
  // The instance id of the live registered executor of `app` at `address`;
  // nullopt if none is live there.
  std::optional<std::string> LiveInstance(const std::string& app, const std::string& address);
  // Drops the cached group (after an update or token rotation).
  void ForgetGroup(int64_t group_id) ABSL_LOCKS_EXCLUDED(mu_);
  // OK if every address is an executor of the group: one of its manual
  // addresses, or an online executor of its app. FailedPrecondition naming
  // executor_addresses[i] otherwise: a run goes only to an executor of its
  // own group.
  absl::Status CheckMembers(int64_t group_id, const std::vector<std::string>& addresses);
  // `group`'s executors as routing sees them: registered ones online, or a
  // manual group's addresses with whether each answered its latest probe.
  v1::GroupExecutors Members(const v1::Group& group);

 private:
  // The group (cached), without executors.
  absl::StatusOr<DispatchTargets> GroupOf(int64_t group_id) ABSL_LOCKS_EXCLUDED(mu_);
  ExecutorList Candidates(const FireSpec& fire, const DispatchTargets& group);

  store::JobStore* const store_;
  Membership* const membership_;
  Clock* const clock_;
  ManualProber* const prober_;

  absl::Mutex mu_;
  // Group id -> (group, cached until ms).
  absl::flat_hash_map<int64_t, std::pair<DispatchTargets, int64_t>> groups_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_GROUP_TARGETS_H_
