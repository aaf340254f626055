// Deliveries, routing a run: on its job's trigger pool, off the loop (a
// router may probe executors, and a burst routes thousands of runs at once).
// It reads only the run's fixed parcel and a copy of its refusals; what it
// did reaches the loop with the executor's answer.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/client/report_limits.h"
#include "services/scheduler/deliveries.h"

namespace gnomon::scheduler {
namespace {

// "FIRST" for ROUTE_STRATEGY_FIRST (and UNSPECIFIED, which means it).
std::string RouteName(v1::RouteStrategy s) {
  if (s == v1::ROUTE_STRATEGY_UNSPECIFIED) s = v1::ROUTE_STRATEGY_FIRST;
  return v1::RouteStrategy_Name(s).substr(sizeof("ROUTE_STRATEGY_") - 1);
}

}  // namespace

std::string Deliveries::RouteOf(const v1::Job& job, const std::string& address) {
  return absl::StrCat("route ", RouteName(job.route_strategy()), " -> ", address);
}

std::string Deliveries::TriggerMessage(const v1::Job& job, const std::vector<std::string>& refused,
                                       int asks, const std::string& address,
                                       bool already_accepted) {
  std::string m = RouteOf(job, address);
  if (!refused.empty()) absl::StrAppend(&m, " (refused by ", absl::StrJoin(refused, ", "), ")");
  if (already_accepted) m += " (already accepted)";
  if (asks > 0) absl::StrAppend(&m, " (answer lost; asked again ", asks, "x)");
  return m;
}

void Deliveries::Unroutable(int64_t run_id, uint64_t seq, Routed why) {
  Answer a;
  a.run_id = run_id;
  a.seq = seq;
  a.answer = absl::FailedPreconditionError("not sent");
  a.at = why.submitted;
  a.routed = std::move(why);
  Post(std::move(a));
}

void Deliveries::Route(RouteTask t) {
  const Parcel& p = *t.parcel;
  const int64_t run_id = p.run.id();
  Routed r;
  // A dispatch's duration (for the slow pool) runs from here, excluding time
  // queued in the pool: under overload that wait would mark every job slow.
  r.submitted = parts_.clock->Now();
  // Executors may have left since the fire was planned (its run waited for
  // its instant, in a pool, or for a refusal): only those still live are
  // candidates. An executor asked again is asked whatever happened.
  r.candidates = t.asking.empty() ? parts_.targets->StillLive(p.targets) : p.targets.executors;
  if (r.candidates->empty()) {
    r.address =
        absl::UnavailableError(absl::StrCat("no live executor in group ", p.targets.group.id(),
                                            " (app \"", p.targets.group.app_name(), "\")"));
    Unroutable(run_id, t.seq, std::move(r));
    return;
  }
  r.address = t.asking.empty() ? Pick(t, r.candidates) : t.asking;
  if (!r.address.ok()) {
    Unroutable(run_id, t.seq, std::move(r));
    return;
  }
  const std::string address = *r.address;
  r.instance = t.instance;
  if (t.asking.empty()) {
    for (const v1::ExecutorInfo& e : *r.candidates) {
      if (e.address() == address) r.instance = e.instance_id();
    }
  }
  v1::RunRequest req = internal::RequestFor(p.run, *p.job, parts_.partition_count);
  // The receipt records the dispatch with the run's start (one store write
  // for both); the accepted outcome then waits (DispatchRecorder::Defer).
  r.sent_ms = parts_.clock->NowMillis();
  r.message = TriggerMessage(*p.job, t.refused, t.asks, address);
  v1::DispatchReceipt receipt;
  receipt.set_run_id(run_id);
  receipt.set_trigger_message(r.message);
  receipt.set_dispatch_ms(r.sent_ms);
  receipt.set_fence_epoch(p.run.fence_epoch());
  r.receipt = receipt.ByteSizeLong() <= kMaxReceiptBytes;
  if (r.receipt) req.set_receipt(receipt.SerializeAsString());
  // The loop learns where the run went with its answer.
  parts_.executors->Send(
      address, p.targets.group.app_name(), std::move(req),
      [this, run_id, seq = t.seq, address, r = std::move(r)](absl::StatusOr<v1::RunAnswer> a) {
        Post(Answer{run_id, seq, address, std::move(a), parts_.clock->Now(), std::move(r)});
      });
}

absl::StatusOr<std::string> Deliveries::Pick(const RouteTask& t, const ExecutorList& live) {
  const Parcel& p = *t.parcel;
  if (p.where.executor) {
    // A broadcast's shard goes to its own executor or nowhere: another
    // executor runs another shard.
    for (const v1::ExecutorInfo& e : *live) {
      if (e.address() == *p.where.executor) return e.address();
    }
    return absl::UnavailableError(absl::StrCat("executor ", *p.where.executor, " of shard ",
                                               p.run.shard_index(), " of ", p.run.shard_total(),
                                               " left before the run was sent"));
  }
  const std::vector<v1::ExecutorInfo>* candidates = live.get();
  std::vector<v1::ExecutorInfo> rest;  // only after a refusal
  if (!t.refused.empty()) {
    for (const v1::ExecutorInfo& e : *candidates) {
      if (std::find(t.refused.begin(), t.refused.end(), e.address()) == t.refused.end())
        rest.push_back(e);
    }
    if (rest.empty()) {
      return absl::UnavailableError(
          absl::StrCat("no live executor left that has not refused the run (refused by ",
                       absl::StrJoin(t.refused, ", "), ")"));
    }
    candidates = &rest;
  }
  return RouterOf(p.job->route_strategy()).Pick(p.job->id(), *candidates);
}

}  // namespace gnomon::scheduler
