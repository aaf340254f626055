// Resender: how the Redispatcher's runs go out again — runs recorded under a
// partition's earlier holder and never sent, sent again (same run, same
// slot) with the partition's current epoch, or first asked about on every
// executor of their group when the earlier holder may have sent them.
// Routing, sending and the answers are Deliveries'.
//
//   Resender resender(store, &targets, &deliveries, &in_flight);
//   Redispatcher redispatcher(store, &resender, &clock, options, &in_flight);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_RESENDER_H_
#define GNOMON_SERVICES_SCHEDULER_RESENDER_H_

#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/deliveries.h"
#include "services/scheduler/group_targets.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/redispatcher.h"

namespace gnomon::scheduler {

class Resender final : public RunResender {
 public:
  // `in_flight` may be null; else every run handed on is in it until its
  // outcome is committed.
  Resender(store::JobStore* store, GroupTargets* targets, Deliveries* deliveries,
           InFlightRuns* in_flight = nullptr)
      : store_(store), targets_(targets), deliveries_(deliveries), in_flight_(in_flight) {}

  // Routed as a first dispatch would be (a broadcast shard to its executor;
  // a run pinned to an address by a manual trigger among the group); a run
  // whose job was deleted is failed.
  void Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership) override;
  // Only a group's registered executors can be asked, all of them, and only
  // if each answers probes (an older executor would take the question for a
  // run to start): otherwise, or with no live executor, or a manual group,
  // kUnknown at once.
  void Ask(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership,
           InDoubtDone done) override;

 private:
  // The runs' jobs (a job deleted meanwhile is absent); nullopt if unreadable.
  std::optional<absl::flat_hash_map<int64_t, std::shared_ptr<const v1::Job>>> JobsOf(
      const std::vector<v1::Run>& runs);

  store::JobStore* const store_;
  GroupTargets* const targets_;
  Deliveries* const deliveries_;
  InFlightRuns* const in_flight_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_RESENDER_H_
