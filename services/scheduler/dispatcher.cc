#include "services/scheduler/dispatcher.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/common/client/report_limits.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

// "FIRST" for ROUTE_STRATEGY_FIRST (and UNSPECIFIED, which means it).
std::string RouteName(v1::RouteStrategy s) {
  if (s == v1::ROUTE_STRATEGY_UNSPECIFIED) s = v1::ROUTE_STRATEGY_FIRST;
  return v1::RouteStrategy_Name(s).substr(sizeof("ROUTE_STRATEGY_") - 1);
}

// A lost answer is asked about again this many times, after 0.5, 1, 2, 4
// and 8 s: 15.5 s in all, well inside the run reaper's 30 s pending timeout
// (the run stays PENDING meanwhile). An executor reconnecting after a blip
// answers within that.
constexpr int kAsksAfterLostAnswer = 5;
constexpr absl::Duration kFirstAskDelay = absl::Milliseconds(500);

// Refusals about the executor rather than the job: another executor may take the run.
bool AnotherMayTake(const absl::StatusOr<v1::RunAnswer>& r) {
  if (!r.ok() || !r->has_rejected()) return false;
  switch (r->rejected().kind()) {
    case v1::REJECT_KIND_QUEUE_FULL:
    case v1::REJECT_KIND_UNSUPPORTED:
    case v1::REJECT_KIND_SHUTTING_DOWN:
      return true;
    default:
      return false;
  }
}

}  // namespace

namespace internal {

v1::RunRequest RequestFor(const v1::Run& run, const v1::Job& job, int partition_count) {
  v1::RunRequest req;
  req.set_run_id(run.id());
  req.set_job_id(run.job_id());
  if (job.has_script()) {
    *req.mutable_script() = job.script();
  } else {
    *req.mutable_bean() = job.bean();
  }
  req.set_params(run.params());
  req.set_shard_index(run.shard_index());
  req.set_shard_total(run.shard_total());
  req.set_attempt(run.attempt());
  req.set_trigger_type(run.trigger_type());
  req.set_block_strategy(job.block_strategy());
  *req.mutable_timeout() = job.timeout();
  *req.mutable_scheduled_time() =
      run.has_scheduled_time() ? run.scheduled_time() : run.trigger_time();
  req.set_fence_epoch(run.fence_epoch());
  req.set_fence_partition(store::PartitionOf(run.job_id(), partition_count));
  return req;
}

FireSpec ResendSpec(const v1::Run& run, std::shared_ptr<const v1::Job> job) {
  FireSpec f;
  f.job = std::move(job);
  f.shard = run.shard_index();
  f.shard_total = run.shard_total();
  return f;
}

}  // namespace internal

Dispatcher::Dispatcher(store::JobStore* store, Membership* membership, ExecutorClient* executors,
                       DispatchRecorder* outcomes, Clock* clock, TriggerPools* pools,
                       ManualProber* prober, DispatchTimer* timer, SchedulerMetrics* metrics,
                       InFlightRuns* in_flight)
    : store_(store),
      membership_(membership),
      executors_(executors),
      outcomes_(outcomes),
      clock_(clock),
      pools_(pools),
      prober_(prober),
      timer_(timer),
      metrics_(metrics),
      in_flight_(in_flight) {
  for (int s = v1::RouteStrategy_MIN; s <= v1::RouteStrategy_MAX; ++s) {
    if (!v1::RouteStrategy_IsValid(s)) continue;
    auto strategy = static_cast<v1::RouteStrategy>(s);
    routers_[strategy] = MakeRouter(strategy, this);
  }
}
void Dispatcher::Dispatch(v1::Run run, std::shared_ptr<const v1::Job> job, PlannedRun where,
                          DispatchTargets targets, int64_t at_ms) {
  // Compared with the batch's recording instant rather than now, so that the
  // runs of one batch keep their order whichever way each one goes.
  const int64_t recorded_ms = TimeUtil::TimestampToMilliseconds(run.trigger_time());
  Delivery d;
  d.run = std::move(run);
  d.job = std::move(job);
  d.where = std::move(where);
  d.targets = std::move(targets);
  auto send = [this, d = std::move(d)]() mutable { RouteOnPool(std::move(d)); };
  // Without pools everything happens on the caller's thread, at once.
  if (pools_ != nullptr && timer_ != nullptr && at_ms > recorded_ms) {
    timer_->At(at_ms, std::move(send));
  } else {
    send();
  }
}

void Dispatcher::RouteOnPool(Delivery d) {
  if (pools_ == nullptr) {
    Route(std::move(d));
    return;
  }
  const int64_t job_id = d.run.job_id();
  // Runs once: the delivery moves into the pool task rather than copy.
  pools_->Submit(job_id, [this, d = std::move(d)]() mutable { Route(std::move(d)); });
}

void Dispatcher::Route(Delivery d) {
  // A dispatch's duration (for the slow pool) runs from here, excluding time
  // queued in the pool: under overload that wait would mark every job slow.
  const absl::Time submitted = clock_->Now();
  // Executors may have left since the fire was planned (its run waited in
  // the dispatch timer, in a pool, or for a refusal): only those still live
  // are candidates. An executor asked again is asked whatever happened.
  if (d.asking.empty()) d.targets.executors = StillLive(d.targets);
  if (d.targets.executors->empty()) {
    Fail(d.run, FireResult::kNoExecutor, v1::HANDLE_CODE_NO_EXECUTOR,
         absl::StrCat("no live executor in group ", d.targets.group.id(), " (app \"",
                      d.targets.group.app_name(), "\")"));
    return;
  }
  absl::StatusOr<std::string> address = d.asking.empty() ? Pick(d) : d.asking;
  if (!address.ok()) {
    Fail(d.run, FireResult::kNoExecutor, v1::HANDLE_CODE_NO_EXECUTOR,
         std::string(address.status().message()));
    return;
  }
  const v1::ExecutorInfo* executor = nullptr;
  for (const v1::ExecutorInfo& e : *d.targets.executors) {
    if (e.address() == *address) executor = &e;
  }
  if (d.asking.empty()) d.instance = executor != nullptr ? executor->instance_id() : "";
  v1::RunRequest req = internal::RequestFor(d.run, *d.job, store_->partition_count());
  // The receipt records the dispatch with the run's start (one store write
  // for both); the accepted outcome then waits (DispatchRecorder::Defer).
  d.sent_ms = clock_->NowMillis();
  v1::DispatchReceipt receipt;
  receipt.set_run_id(d.run.id());
  d.message = TriggerMessage(d, *address);
  receipt.set_trigger_message(d.message);
  receipt.set_dispatch_ms(d.sent_ms);
  receipt.set_fence_epoch(d.run.fence_epoch());
  d.receipt = receipt.ByteSizeLong() <= kMaxReceiptBytes;
  if (d.receipt) req.set_receipt(receipt.SerializeAsString());
  const std::string app = d.targets.group.app_name();
  auto answered = [this, d = std::move(d), address = *address,
                   submitted](absl::StatusOr<v1::RunAnswer> r) mutable {
    Answered(std::move(d), address, submitted, std::move(r));
  };
  executors_->Send(*address, app, std::move(req), std::move(answered));
}

std::optional<absl::flat_hash_map<int64_t, std::shared_ptr<const v1::Job>>> Dispatcher::JobsOf(
    const std::vector<v1::Run>& runs) {
  std::vector<int64_t> ids;
  for (const v1::Run& r : runs) ids.push_back(r.job_id());
  absl::StatusOr<std::vector<v1::Job>> read = store_->GetJobs(ids);
  if (!read.ok()) return std::nullopt;
  absl::flat_hash_map<int64_t, std::shared_ptr<const v1::Job>> jobs;
  for (v1::Job& j : *read) {
    const int64_t id = j.id();  // Read before the move (the right side is evaluated first).
    jobs[id] = std::make_shared<const v1::Job>(std::move(j));
  }
  return jobs;
}

void Dispatcher::Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership) {
  auto read = JobsOf(runs);
  if (!read) return;  // The Redispatcher tries again later.
  const auto& jobs = *read;
  for (v1::Run& run : runs) {
    auto job = jobs.find(run.job_id());
    if (job == jobs.end()) {
      Fail(run, FireResult::kFailed, v1::HANDLE_CODE_FAILURE,
           "job was deleted before its run was sent");
      continue;
    }
    const FireSpec f = internal::ResendSpec(run, job->second);
    absl::StatusOr<DispatchTargets> targets = TargetsOf(f);
    if (!targets.ok()) continue;
    const RoutePlan plan = PlanRoute(f, *targets->executors);
    if (plan.runs.empty()) continue;
    run.set_fence_epoch(ownership->EpochOfJob(run.job_id()));
    // Recorded runs are in flight from their recording (RunRecorder); a
    // resent one from here.
    if (in_flight_ != nullptr) in_flight_->Sending(run.id());
    const int64_t at =
        run.has_scheduled_time() ? TimeUtil::TimestampToMilliseconds(run.scheduled_time()) : 0;
    Dispatch(std::move(run), job->second, plan.runs.front(), *std::move(targets), at);
  }
}

absl::StatusOr<std::string> Dispatcher::Pick(const Delivery& d) {
  const std::vector<v1::ExecutorInfo>* candidates = d.targets.executors.get();
  if (d.where.executor) {
    // A broadcast's shard goes to its own executor or nowhere: another
    // executor runs another shard.
    for (const v1::ExecutorInfo& e : *candidates) {
      if (e.address() == *d.where.executor) return e.address();
    }
    return absl::UnavailableError(absl::StrCat("executor ", *d.where.executor, " of shard ",
                                               d.run.shard_index(), " of ", d.run.shard_total(),
                                               " left before the run was sent"));
  }
  std::vector<v1::ExecutorInfo> rest;  // only after a refusal
  if (!d.refused.empty()) {
    for (const v1::ExecutorInfo& e : *candidates) {
      if (std::find(d.refused.begin(), d.refused.end(), e.address()) == d.refused.end())
        rest.push_back(e);
    }
    if (rest.empty()) {
      return absl::UnavailableError(
          absl::StrCat("no live executor left that has not refused the run (refused by ",
                       absl::StrJoin(d.refused, ", "), ")"));
    }
    candidates = &rest;
  }
  auto router = routers_.find(d.job->route_strategy());
  if (router == routers_.end()) router = routers_.find(v1::ROUTE_STRATEGY_FIRST);
  return router->second->Pick(d.job->id(), *candidates);
}

ExecutorList Dispatcher::StillLive(const DispatchTargets& t) {
  if (!t.registered) return t.executors;
  ExecutorList live = membership_->Live(t.group.app_name());
  if (live == t.executors) return live;  // Unchanged since planned: the common case.
  // Beats replace the snapshot often while its members stay: the planned list
  // is kept, and copied (per run, in a burst) only if one of them left.
  auto is_live = [&live](const v1::ExecutorInfo& e) {  // Both lists sorted by address.
    auto it = std::lower_bound(
        live->begin(), live->end(), e.address(),
        [](const v1::ExecutorInfo& l, const std::string& a) { return l.address() < a; });
    return it != live->end() && it->address() == e.address();
  };
  if (std::all_of(t.executors->begin(), t.executors->end(), is_live)) return t.executors;
  auto still = std::make_shared<std::vector<v1::ExecutorInfo>>();
  for (const v1::ExecutorInfo& e : *t.executors) {
    if (is_live(e)) still->push_back(e);
  }
  return still;
}

bool Dispatcher::AnotherCandidate(Delivery& d, const std::string& address) {
  d.targets.executors = StillLive(d.targets);
  for (const v1::ExecutorInfo& e : *d.targets.executors) {
    if (e.address() != address &&
        std::find(d.refused.begin(), d.refused.end(), e.address()) == d.refused.end()) {
      return true;
    }
  }
  return false;
}

void Dispatcher::Answered(Delivery d, const std::string& address, absl::Time submitted,
                          absl::StatusOr<v1::RunAnswer> r) {
  const absl::Duration took = clock_->Now() - submitted;
  if (pools_ != nullptr) pools_->RecordDispatch(d.run.job_id(), took);
  if (metrics_ != nullptr) metrics_->DispatchAnswered(d.job->route_strategy(), took);
  if (!d.where.executor && AnotherMayTake(r) && AnotherCandidate(d, address)) {
    // Route it again among the executors that have not refused it; not on
    // this (the link's) thread: routing may probe executors.
    d.refused.push_back(address);
    RouteOnPool(std::move(d));
    return;
  }
  if (r.ok() && r->has_rejected() && r->rejected().kind() == v1::REJECT_KIND_STALE_EPOCH) {
    // A newer holder of the run's partition exists: the run stays PENDING
    // under its old epoch, and that holder's Redispatcher sends it.
    GNOMON_LOG(INFO) << "scheduler: run " << d.run.id() << " fenced off by " << address
                     << "; left to the partition's current holder";
    if (metrics_ != nullptr) metrics_->Fired(d.run.trigger_type(), FireResult::kFenced);
    if (in_flight_ != nullptr) in_flight_->Dropped(d.run.id());
    return;
  }
  if (!r.ok() && absl::IsUnknown(r.status())) {
    AskAgain(std::move(d), address, r.status());
    return;
  }
  if (!r.ok() || !r->has_accepted()) {
    const FireResult why = !r.ok() ? FireResult::kFailed
                           : r->rejected().kind() == v1::REJECT_KIND_BLOCK_STRATEGY
                               ? FireResult::kBlockDiscarded
                               : FireResult::kRejected;
    const std::string route =
        absl::StrCat("route ", RouteName(d.job->route_strategy()), " -> ", address);
    Fail(d.run, why, r.ok() ? r->rejected().code() : v1::HANDLE_CODE_FAILURE,
         absl::StrCat(route, ": ", r.ok() ? r->rejected().reason() : r.status().ToString()),
         address);
    return;
  }
  store::DispatchUpdate u;
  u.run_id = d.run.id();
  u.status = v1::RUN_STATUS_RUNNING;
  u.executor_address = address;
  u.trigger_code = 200;
  // An answer to a resent dispatch of a run the executor had already
  // accepted: it did not start it again (RecordDispatches keeps the outcome
  // of a run that ended meanwhile).
  const bool again = r->accepted().already_accepted();
  u.trigger_message = again ? TriggerMessage(d, address, again) : std::move(d.message);
  // As the receipt says, if one was sent.
  u.dispatch_ms = d.receipt ? d.sent_ms : clock_->NowMillis();
  u.fence_epoch = d.run.fence_epoch();
  // A resent run already accepted was counted by its first dispatch.
  if (metrics_ != nullptr && !again) metrics_->Accepted(d.run, clock_->NowMillis());
  // The run's start, with the receipt, most likely records this first.
  if (d.receipt && !again) {
    outcomes_->Defer(std::move(u));
  } else {
    outcomes_->Add(std::move(u));
  }
}

std::string Dispatcher::TriggerMessage(const Delivery& d, const std::string& address,
                                       bool already_accepted) {
  std::string m = absl::StrCat("route ", RouteName(d.job->route_strategy()), " -> ", address);
  if (!d.refused.empty()) absl::StrAppend(&m, " (refused by ", absl::StrJoin(d.refused, ", "), ")");
  if (already_accepted) m += " (already accepted)";
  if (d.asks > 0) absl::StrAppend(&m, " (answer lost; asked again ", d.asks, "x)");
  return m;
}

void Dispatcher::AskAgain(Delivery d, const std::string& address, const absl::Status& why) {
  // Only a registered executor's instance is known; a manual or explicit
  // address is asked again for as long as it fails to answer.
  bool gone = false;
  if (!d.instance.empty()) {
    const std::optional<std::string> now = LiveInstance(d.targets.group.app_name(), address);
    gone = !now || *now != d.instance;
  }
  if (gone || d.asks >= kAsksAfterLostAnswer) {
    Fail(d.run, FireResult::kFailed, v1::HANDLE_CODE_EXECUTOR_LOST,
         absl::StrCat("executor lost: ", address,
                      gone ? " left or restarted" : " never answered when asked again",
                      " after the run was sent (", why.message(), ")"),
         address);
    return;
  }
  const absl::Duration delay = kFirstAskDelay * (1 << d.asks);
  ++d.asks;
  d.asking = address;
  auto ask = [this, d = std::move(d)]() mutable { RouteOnPool(std::move(d)); };
  if (timer_ != nullptr) {
    timer_->At(clock_->NowMillis() + absl::ToInt64Milliseconds(delay), std::move(ask));
  } else {
    ask();
  }
}

std::optional<std::string> Dispatcher::LiveInstance(const std::string& app,
                                                    const std::string& address) {
  const ExecutorList live = membership_->Live(app);  // Kept alive by the loop.
  for (const v1::ExecutorInfo& e : *live) {
    if (e.address() == address) return e.instance_id();
  }
  return std::nullopt;
}

void Dispatcher::Fail(const v1::Run& run, FireResult why, int32_t code, const std::string& message,
                      const std::string& address) {
  if (metrics_ != nullptr) {
    metrics_->Fired(run.trigger_type(), why);
    metrics_->RunsEnded(code, 1);
  }
  store::DispatchUpdate u;
  u.run_id = run.id();
  u.status = v1::RUN_STATUS_FAILED;
  u.executor_address = address;
  u.trigger_code = code;
  u.trigger_message = message;
  u.handle_code = code;
  u.handle_message = message;
  u.dispatch_ms = clock_->NowMillis();
  u.end_ms = u.dispatch_ms;
  u.fence_epoch = run.fence_epoch();
  outcomes_->Add(std::move(u));
}
}  // namespace gnomon::scheduler
