#include "services/scheduler/trigger.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int64_t kGroupCacheMillis = 5'000;

std::string HandlerName(const v1::Job& job) {
  if (job.has_script()) {
    return job.script().language() == v1::SCRIPT_LANGUAGE_PYTHON ? "script:python" : "script:shell";
  }
  return job.bean().handler();
}

const char* RouteName(v1::RouteStrategy s) {
  switch (s) {
    case v1::ROUTE_STRATEGY_UNSPECIFIED: return "FIRST";
    default: return v1::RouteStrategy_Name(s).c_str() + sizeof("ROUTE_STRATEGY_") - 1;
  }
}

}  // namespace

Trigger::Trigger(store::Store* store, Membership* membership, ExecutorLinks* links,
                 DispatchRecorder* recorder, Clock* clock, TriggerPools* pools,
                 ManualProber* prober, DispatchTimer* timer)
    : store_(store),
      membership_(membership),
      links_(links),
      recorder_(recorder),
      clock_(clock),
      pools_(pools),
      prober_(prober),
      timer_(timer) {
  for (int s = v1::RouteStrategy_MIN; s <= v1::RouteStrategy_MAX; ++s) {
    if (!v1::RouteStrategy_IsValid(s)) continue;
    auto strategy = static_cast<v1::RouteStrategy>(s);
    routers_[strategy] = MakeRouter(strategy, this);
  }
}

absl::StatusOr<v1::Group> Trigger::GroupOf(int64_t group_id) {
  const int64_t now = clock_->NowMillis();
  {
    absl::MutexLock l(&mu_);
    auto it = groups_.find(group_id);
    if (it != groups_.end() && it->second.second > now) return it->second.first;
  }
  absl::StatusOr<v1::Group> g = store_->GetGroup(group_id);
  if (!g.ok()) return g.status();
  absl::MutexLock l(&mu_);
  groups_[group_id] = {*g, now + kGroupCacheMillis};
  return g;
}

void Trigger::set_ownership(std::shared_ptr<const Ownership> o) {
  absl::MutexLock l(&mu_);
  ownership_ = std::move(o);
}

void Trigger::ForgetGroup(int64_t group_id) {
  absl::MutexLock l(&mu_);
  groups_.erase(group_id);
}

ExecutorList Trigger::Candidates(const FireSpec& f, const v1::Group& g) {
  if (f.addresses.empty() && !g.has_manual()) {
    ExecutorList live = membership_->Live(g.app_name());
    RememberTokens(*live, g);
    return live;
  }
  auto out = std::make_shared<std::vector<v1::ExecutorInfo>>();
  const auto& list = !f.addresses.empty()
                         ? std::vector<std::string>(f.addresses.begin(), f.addresses.end())
                         : std::vector<std::string>(g.manual().addresses().begin(),
                                                    g.manual().addresses().end());
  for (const std::string& a : list) {
    // A manual group's addresses that failed their last beat are skipped
    // (an explicit address list from a trigger is used as given).
    if (f.addresses.empty() && prober_ != nullptr && !prober_->Alive(a)) continue;
    v1::ExecutorInfo e;
    e.set_app_name(g.app_name());
    e.set_address(a);
    out->push_back(std::move(e));
  }
  std::sort(out->begin(), out->end(),
            [](const auto& a, const auto& b) { return a.address() < b.address(); });
  RememberTokens(*out, g);
  return out;
}

void Trigger::RememberTokens(const std::vector<v1::ExecutorInfo>& executors, const v1::Group& g) {
  absl::MutexLock l(&mu_);
  for (const auto& e : executors) tokens_.insert_or_assign(e.address(), g.access_token());
}

Router* Trigger::RouterFor(v1::RouteStrategy s) {
  auto it = routers_.find(s);
  return it == routers_.end() ? routers_.at(v1::ROUTE_STRATEGY_FIRST).get() : it->second.get();
}

absl::StatusOr<std::vector<FireOutcome>> Trigger::Fire(std::vector<FireSpec> fires) {
  const int64_t now = clock_->NowMillis();
  struct Planned {
    size_t fire;
    v1::Group group;
    ExecutorList executors;
    RoutePlan route;
  };
  std::vector<Planned> plans;
  std::vector<v1::Run> runs;
  std::vector<std::pair<size_t, size_t>> run_plan;  // (plan, run of its route)
  std::shared_ptr<const Ownership> ownership;
  {
    absl::MutexLock l(&mu_);
    ownership = ownership_;
  }
  for (size_t i = 0; i < fires.size(); ++i) {
    const FireSpec& f = fires[i];
    absl::StatusOr<v1::Group> g = GroupOf(f.job->group_id());
    if (!g.ok()) return g.status();
    Planned p{i, *g, Candidates(f, *g), {}};
    p.route = PlanRoute(f, *p.executors);
    for (size_t n = 0; n < p.route.runs.size(); ++n) {
      const PlannedRun& planned = p.route.runs[n];
      v1::Run r;
      r.set_job_id(f.job->id());
      r.set_group_id(f.job->group_id());
      r.set_trigger_type(f.type);
      if (f.scheduled_ms > 0) *r.mutable_scheduled_time() = TimeUtil::MillisecondsToTimestamp(f.scheduled_ms);
      *r.mutable_trigger_time() = TimeUtil::MillisecondsToTimestamp(now);
      r.set_handler(HandlerName(*f.job));
      r.set_params(f.params ? *f.params : f.job->params());
      r.set_shard_index(planned.shard_index);
      r.set_shard_total(planned.shard_total);
      r.set_parent_run_id(f.parent_run_id);
      r.set_attempt(f.attempt);
      r.set_first_run_id(f.first_run_id);
      r.set_status(v1::RUN_STATUS_PENDING);
      r.set_fence_epoch(ownership ? ownership->EpochOfJob(f.job->id()) : 0);
      runs.push_back(std::move(r));
      run_plan.push_back({plans.size(), n});
    }
    plans.push_back(std::move(p));
  }
  absl::StatusOr<std::vector<store::RunInsertOutcome>> inserted = store_->InsertRuns(runs);
  if (!inserted.ok()) return inserted.status();

  std::vector<FireOutcome> outcomes(fires.size());
  std::vector<std::shared_ptr<const FireSpec>> shared(fires.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    const Planned& p = plans[run_plan[k].first];
    const std::optional<std::string>& bound = p.route.runs[run_plan[k].second].executor;
    FireOutcome& out = outcomes[p.fire];
    if (!(*inserted)[k].inserted) {
      out.slot_already_fired = true;
      continue;
    }
    runs[k].set_id((*inserted)[k].run_id);
    if (runs[k].first_run_id() == 0) runs[k].set_first_run_id(runs[k].id());
    out.run_ids.push_back(runs[k].id());
    // One shared copy of the fire for all its runs (shards) and their failovers.
    if (shared[p.fire] == nullptr) {
      shared[p.fire] = std::make_shared<const FireSpec>(std::move(fires[p.fire]));
    }
    std::shared_ptr<const FireSpec> f = shared[p.fire];
    if (pools_ == nullptr) {
      Dispatch(runs[k], f, p.group, p.executors, bound);
      continue;
    }
    // The run is recorded; routing and sending happen on the job's pool, at
    // the slot's instant for a fire recorded ahead.
    // Runs once: its captures move into the pool task rather than copy.
    auto send = [this, run = runs[k], f, g = p.group, e = p.executors, bound]() mutable {
      const int64_t job_id = run.job_id();
      pools_->Submit(job_id, [this, run = std::move(run), f = std::move(f), g = std::move(g),
                              e = std::move(e), bound = std::move(bound)]() mutable {
        Dispatch(std::move(run), std::move(f), std::move(g), std::move(e), std::move(bound));
      });
    };
    if (timer_ != nullptr && f->dispatch_at_ms > now) {
      timer_->At(f->dispatch_at_ms, std::move(send));
    } else {
      send();
    }
  }
  return outcomes;
}

void Trigger::Fail(const v1::Run& run, int32_t code, const std::string& message) {
  store::DispatchUpdate u;
  u.run_id = run.id();
  u.status = v1::RUN_STATUS_FAILED;
  u.trigger_code = code;
  u.trigger_message = message;
  u.handle_code = code;
  u.handle_message = message;
  u.dispatch_ms = clock_->NowMillis();
  u.end_ms = u.dispatch_ms;
  u.fence_epoch = run.fence_epoch();
  recorder_->Add(std::move(u));
}

namespace {

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

void Trigger::Dispatch(v1::Run run, std::shared_ptr<const FireSpec> f, v1::Group g,
                       ExecutorList executors, std::optional<std::string> bound,
                       std::vector<std::string> tried) {
  // A dispatch's duration (for the slow pool) runs from here, excluding time
  // queued in the pool: under overload that wait would mark every job slow.
  const absl::Time submitted = clock_->Now();
  if (executors->empty()) {
    Fail(run, v1::HANDLE_CODE_NO_EXECUTOR,
         absl::StrCat("no live executor in group ", g.id(), " (app \"", g.app_name(), "\")"));
    return;
  }
  std::string address;
  const v1::RouteStrategy strategy = f->job->route_strategy();
  if (bound) {
    address = *bound;  // The route plan's executor for this run (a broadcast shard's).
  } else {
    const std::vector<v1::ExecutorInfo>* candidates = executors.get();
    std::vector<v1::ExecutorInfo> rest;  // only after a refusal
    if (!tried.empty()) {
      for (const v1::ExecutorInfo& e : *executors) {
        if (std::find(tried.begin(), tried.end(), e.address()) == tried.end()) rest.push_back(e);
      }
      candidates = &rest;
    }
    absl::StatusOr<std::string> picked = RouterFor(strategy)->Pick(f->job->id(), *candidates);
    if (!picked.ok()) {
      Fail(run, v1::HANDLE_CODE_NO_EXECUTOR, std::string(picked.status().message()));
      return;
    }
    address = *picked;
  }

  v1::RunRequest req;
  req.set_run_id(run.id());
  req.set_job_id(run.job_id());
  if (f->job->has_script()) {
    *req.mutable_script() = f->job->script();
  } else {
    *req.mutable_bean() = f->job->bean();
  }
  req.set_params(run.params());
  req.set_shard_index(run.shard_index());
  req.set_shard_total(run.shard_total());
  req.set_attempt(run.attempt());
  req.set_trigger_type(run.trigger_type());
  req.set_block_strategy(f->job->block_strategy());
  *req.mutable_timeout() = f->job->timeout();
  *req.mutable_scheduled_time() = run.has_scheduled_time() ? run.scheduled_time() : run.trigger_time();
  req.set_fence_epoch(run.fence_epoch());
  req.set_fence_partition(store::PartitionOf(run.job_id()));

  std::string route = absl::StrCat("route ", RouteName(strategy), " -> ", address);
  const std::string token = g.access_token();
  links_->Send(address, token, std::move(req),
               [this, run = std::move(run), f = std::move(f), g = std::move(g), executors = std::move(executors),
                bound = std::move(bound), tried = std::move(tried), address, route,
                submitted](absl::StatusOr<v1::RunAnswer> r) mutable {
                 if (pools_ != nullptr) {
                   pools_->RecordDispatch(run.job_id(), clock_->Now() - submitted);
                 }
                 if (!bound && AnotherMayTake(r) && tried.size() + 1 < executors->size()) {
                   // Route it again among the executors that have not refused it.
                   // Not on this (the link's) thread: routing may probe executors.
                   tried.push_back(address);
                   const int64_t job_id = run.job_id();
                   auto again = [this, run = std::move(run), f = std::move(f), g = std::move(g),
                                 executors = std::move(executors),
                                 tried = std::move(tried)]() mutable {
                     Dispatch(std::move(run), std::move(f), std::move(g), std::move(executors),
                              std::nullopt, std::move(tried));
                   };
                   if (pools_ != nullptr) {
                     pools_->Submit(job_id, std::move(again));
                   } else {
                     again();
                   }
                   return;
                 }
                 store::DispatchUpdate u;
                 u.run_id = run.id();
                 u.executor_address = address;
                 u.dispatch_ms = clock_->NowMillis();
                 u.fence_epoch = run.fence_epoch();
                 if (r.ok() && r->has_accepted()) {
                   u.status = v1::RUN_STATUS_RUNNING;
                   u.trigger_code = 200;
                   u.trigger_message = tried.empty()
                                           ? route
                                           : absl::StrCat(route, " (refused by ",
                                                          absl::StrJoin(tried, ", "), ")");
                 } else {
                   u.status = v1::RUN_STATUS_FAILED;
                   u.trigger_code = r.ok() ? r->rejected().code() : v1::HANDLE_CODE_FAILURE;
                   u.trigger_message = absl::StrCat(
                       route, ": ", r.ok() ? r->rejected().reason() : r.status().ToString());
                   u.handle_code = u.trigger_code;
                   u.handle_message = u.trigger_message;
                   u.end_ms = u.dispatch_ms;
                 }
                 recorder_->Add(std::move(u));
               });
}

std::string Trigger::TokenFor(const std::string& address) {
  absl::MutexLock l(&mu_);
  auto it = tokens_.find(address);
  return it == tokens_.end() ? "" : it->second;
}

bool Trigger::Alive(const v1::ExecutorInfo& executor) {
  return links_->Get(executor.address(), TokenFor(executor.address()))->Beat(absl::Seconds(1));
}

bool Trigger::Idle(const v1::ExecutorInfo& executor, int64_t job_id) {
  return links_->Get(executor.address(), TokenFor(executor.address()))->Idle(job_id, absl::Seconds(1));
}

}  // namespace gnomon::scheduler
