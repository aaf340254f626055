#include "services/scheduler/deliveries.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

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

int64_t InstantOf(const v1::Run& run) {
  return run.has_scheduled_time() ? TimeUtil::TimestampToMilliseconds(run.scheduled_time()) : 0;
}

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
  req.set_workflow_run_id(run.workflow_run_id());
  *req.mutable_inputs() = run.inputs();
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

}  // namespace internal

Deliveries::Deliveries(DeliveryParts parts) : parts_(parts), probe_(parts.executors) {
  for (int s = v1::RouteStrategy_MIN; s <= v1::RouteStrategy_MAX; ++s) {
    if (!v1::RouteStrategy_IsValid(s)) continue;
    auto strategy = static_cast<v1::RouteStrategy>(s);
    routers_[strategy] = MakeRouter(strategy, &probe_);
  }
}

Deliveries::~Deliveries() { Stop(); }

Router& Deliveries::RouterOf(v1::RouteStrategy strategy) {
  auto router = routers_.find(strategy);
  if (router == routers_.end()) router = routers_.find(v1::ROUTE_STRATEGY_FIRST);
  return *router->second;
}

// The queue and the loop.

void Deliveries::Start() {
  absl::MutexLock l(&mu_);
  if (started_) return;
  started_ = true;
  loop_ = std::thread([this] { Loop(); });
}

void Deliveries::Flush() {
  {
    absl::MutexLock l(&mu_);
    if (started_ && !stopping_) {
      flushing_ = true;
      mu_.Await(absl::Condition(
          +[](bool* f) { return !*f; }, &flushing_));
      return;
    }
  }
  absl::MutexLock o(&owner_);  // Not started: the caller handles it.
  Due(0, /*all=*/true);
  drop_timers_ = true;
}

void Deliveries::Stop() {
  {
    absl::MutexLock l(&mu_);
    if (!started_ || stopping_) return;
    stopping_ = true;
  }
  loop_.join();
}

void Deliveries::Post(Event e) {
  std::vector<Event> one;
  one.push_back(std::move(e));
  Post(std::move(one));
}

void Deliveries::Post(std::vector<Event> events) {
  mu_.Lock();
  if (events_.empty()) {
    events_ = std::move(events);
  } else {
    for (Event& e : events) events_.push_back(std::move(e));
  }
  if (started_ || handling_) {  // The loop, or the thread handling now, takes it.
    mu_.Unlock();
    return;
  }
  handling_ = true;
  while (!events_.empty()) {
    std::vector<Event> events;
    events.swap(events_);
    mu_.Unlock();
    {
      absl::MutexLock o(&owner_);
      Handle(std::move(events));
      Due(0, /*all=*/true);  // Without the loop nothing waits.
    }
    mu_.Lock();
  }
  handling_ = false;
  mu_.Unlock();
}

void Deliveries::Loop() {
  int64_t wake_ms = 0;  // The earliest timer; 0: none.
  mu_.Lock();
  while (true) {
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !events_.empty() || flushing_ || stopping_;
    };
    if (!ready()) {
      const Clock& clock = *parts_.clock;
      const absl::Time deadline =
          wake_ms == 0 ? clock.Now() + absl::Seconds(1) : absl::FromUnixMillis(wake_ms);
      parts_.clock->AwaitWithDeadline(&mu_, absl::Condition(&ready), deadline);
    }
    std::vector<Event> events;
    events.swap(events_);
    const bool flush = flushing_;
    const bool stop = stopping_ && events.empty();
    mu_.Unlock();
    {
      absl::MutexLock o(&owner_);
      Handle(std::move(events));
      Due(parts_.clock->NowMillis(), flush);
      if (flush) drop_timers_ = true;
      wake_ms = timers_.empty() ? 0 : timers_.begin()->first;
    }
    mu_.Lock();
    if (flush) flushing_ = false;
    if (stop) break;
  }
  mu_.Unlock();
}

void Deliveries::Handle(std::vector<Event> events) {
  for (Event& e : events) {
    if (auto* b = std::get_if<Begun>(&e)) {
      Begin(std::move(*b));
    } else {
      OnAnswer(std::move(std::get<Answer>(e)));
    }
  }
}

void Deliveries::Due(int64_t now_ms, bool all) {
  while (!timers_.empty() && (all || timers_.begin()->first <= now_ms)) {
    const auto [run_id, seq] = timers_.begin()->second;
    timers_.erase(timers_.begin());
    auto it = deliveries_.find(run_id);
    if (it != deliveries_.end() && it->second.seq == seq && it->second.stage == Stage::kWaiting) {
      RouteNow(it->second);
    }
  }
}

void Deliveries::At(int64_t at_ms, Delivery& d) {
  const int64_t run_id = d.parcel->run.id();
  if (drop_timers_) {
    // Stopping: the partition's next holder sends it (or asks about it).
    GNOMON_LOG(INFO) << "scheduler: run " << run_id << " left PENDING: this replica is stopping";
    if (parts_.in_flight != nullptr) parts_.in_flight->Dropped(run_id);
    End(run_id);
    return;
  }
  d.stage = Stage::kWaiting;
  ++d.seq;
  timers_.emplace(at_ms, std::make_pair(run_id, d.seq));
}

// The events.

void Deliveries::Send(std::vector<Outgoing> runs) {
  std::vector<Event> events;
  events.reserve(runs.size());
  for (Outgoing& o : runs) {
    Delivery d;
    d.parcel = std::make_shared<const Parcel>(
        Parcel{std::move(o.run), std::move(o.job), std::move(o.where), std::move(o.targets)});
    events.emplace_back(Begun{std::move(d), o.at_ms});
  }
  Post(std::move(events));
}

void Deliveries::Send(v1::Run run, std::shared_ptr<const v1::Job> job, PlannedRun where,
                      DispatchTargets targets, int64_t at_ms) {
  std::vector<Outgoing> one;
  one.push_back({std::move(run), std::move(job), std::move(where), std::move(targets), at_ms});
  Send(std::move(one));
}

void Deliveries::Ask(v1::Run run, std::shared_ptr<const v1::Job> job, PlannedRun where,
                     DispatchTargets targets, InDoubtDone done) {
  Delivery d;
  d.parcel = std::make_shared<const Parcel>(
      Parcel{std::move(run), std::move(job), std::move(where), std::move(targets)});
  d.done = std::move(done);
  Post(Begun{std::move(d), 0});
}

void Deliveries::Begin(Begun b) {
  const v1::Run& run = b.delivery.parcel->run;
  const int64_t run_id = run.id();
  auto [it, added] = deliveries_.try_emplace(run_id, std::move(b.delivery));
  if (!added) {
    // Sent or asked about twice at once (a resend racing a send): the one
    // under way goes on alone.
    GNOMON_LOG(WARNING) << "scheduler: run " << run_id << " is already on its way; not sent twice";
    if (b.delivery.done) b.delivery.done(run_id, InDoubt::kUnknown);
    return;
  }
  Delivery& d = it->second;
  if (d.done) {
    Question(d);
    return;
  }
  Go(d, b.at_ms);
}

void Deliveries::Go(Delivery& d, int64_t at_ms) {
  // Compared with the batch's recording instant rather than now, so that the
  // runs of one batch keep their order whichever way each one goes.
  if (at_ms > TimeUtil::TimestampToMilliseconds(d.parcel->run.trigger_time())) {
    At(at_ms, d);
  } else {
    RouteNow(d);
  }
}

void Deliveries::RouteNow(Delivery& d) {
  d.stage = Stage::kOut;
  ++d.seq;
  RouteTask t{d.parcel, d.seq, d.refused, d.asking, d.instance, d.asks};
  if (parts_.pools == nullptr) {
    Route(std::move(t));
    return;
  }
  // Runs once: the task moves into the pool rather than copy.
  parts_.pools->Submit(d.parcel->run.job_id(),
                       [this, t = std::move(t)]() mutable { Route(std::move(t)); });
}

bool Deliveries::TookRoute(Delivery& d, Routed r) {
  d.candidates = std::move(r.candidates);
  if (!r.address.ok()) {
    Fail(d.parcel->run.id(), FireResult::kNoExecutor, v1::HANDLE_CODE_NO_EXECUTOR,
         std::string(r.address.status().message()));
    return false;
  }
  d.address = *std::move(r.address);
  if (d.asking.empty()) d.instance = std::move(r.instance);
  d.sent_ms = r.sent_ms;
  d.submitted = r.submitted;
  d.message = std::move(r.message);
  d.receipt = r.receipt;
  return true;
}

void Deliveries::OnAnswer(Answer a) {
  auto it = deliveries_.find(a.run_id);
  if (it == deliveries_.end() || it->second.seq != a.seq) return;
  Delivery& d = it->second;
  if (d.stage == Stage::kAsking) {
    OnProbeAnswer(d, a);
    return;
  }
  if (d.stage != Stage::kOut || !a.routed || !TookRoute(d, *std::move(a.routed))) return;
  const Parcel& p = *d.parcel;
  const absl::Duration took = a.at - d.submitted;
  if (parts_.pools != nullptr) parts_.pools->RecordDispatch(p.run.job_id(), took);
  if (parts_.metrics != nullptr) parts_.metrics->DispatchAnswered(p.job->route_strategy(), took);
  const absl::StatusOr<v1::RunAnswer>& r = a.answer;
  if (!p.where.executor && AnotherMayTake(r)) {
    // Route it again among the live executors that have not refused it.
    d.refused.push_back(d.address);
    d.candidates = parts_.targets->StillLive(p.targets);
    for (const v1::ExecutorInfo& e : *d.candidates) {
      if (std::find(d.refused.begin(), d.refused.end(), e.address()) == d.refused.end()) {
        RouteNow(d);
        return;
      }
    }
    d.refused.pop_back();  // None left: the refusal is the verdict.
  }
  if (r.ok() && r->has_rejected() && r->rejected().kind() == v1::REJECT_KIND_STALE_EPOCH) {
    // A newer holder of the run's partition exists: the run stays PENDING
    // under its old epoch, and that holder's Redispatcher sends it.
    GNOMON_LOG(INFO) << "scheduler: run " << a.run_id << " fenced off by " << d.address
                     << "; left to the partition's current holder";
    if (parts_.metrics != nullptr) parts_.metrics->Fired(p.run.trigger_type(), FireResult::kFenced);
    if (parts_.in_flight != nullptr) parts_.in_flight->Dropped(a.run_id);
    End(a.run_id);
    return;
  }
  if (!r.ok() && absl::IsUnknown(r.status())) {
    AskAgain(d, r.status());
    return;
  }
  if (!r.ok() || !r->has_accepted()) {
    const FireResult why = !r.ok() ? FireResult::kFailed
                           : r->rejected().kind() == v1::REJECT_KIND_BLOCK_STRATEGY
                               ? FireResult::kBlockDiscarded
                               : FireResult::kRejected;
    const std::string route = RouteOf(*p.job, d.address);
    const std::string address = d.address;
    Fail(a.run_id, why, r.ok() ? r->rejected().code() : v1::HANDLE_CODE_FAILURE,
         absl::StrCat(route, ": ", r.ok() ? r->rejected().reason() : r.status().ToString()),
         address);
    return;
  }
  Accepted(d, *r);
}

void Deliveries::Accepted(Delivery& d, const v1::RunAnswer& answer) {
  const v1::Run& run = d.parcel->run;
  store::DispatchUpdate u;
  u.run_id = run.id();
  u.status = v1::RUN_STATUS_RUNNING;
  u.executor_address = d.address;
  u.trigger_code = 200;
  // An answer to a resent dispatch of a run the executor had already
  // accepted: it did not start it again (RecordDispatches keeps the outcome
  // of a run that ended meanwhile).
  const bool again = answer.accepted().already_accepted();
  u.trigger_message = again ? TriggerMessage(*d.parcel->job, d.refused, d.asks, d.address, again)
                            : std::move(d.message);
  // As the receipt says, if one was sent.
  const int64_t now = parts_.clock->NowMillis();
  u.dispatch_ms = d.receipt ? d.sent_ms : now;
  u.fence_epoch = run.fence_epoch();
  // A resent run already accepted was counted by its first dispatch.
  if (parts_.metrics != nullptr && !again) parts_.metrics->Accepted(run, now);
  // The run's start, with the receipt, most likely records this first.
  if (d.receipt && !again) {
    parts_.outcomes->Defer(std::move(u));
  } else {
    parts_.outcomes->Add(std::move(u));
  }
  End(run.id());
}

void Deliveries::AskAgain(Delivery& d, const absl::Status& why) {
  const v1::Run& run = d.parcel->run;
  // Only a registered executor's instance is known; a manual or explicit
  // address is asked again for as long as it fails to answer.
  bool gone = false;
  if (!d.instance.empty()) {
    const std::optional<std::string> now =
        parts_.targets->LiveInstance(d.parcel->targets.group.app_name(), d.address);
    gone = !now || *now != d.instance;
  }
  if (gone || d.asks >= kAsksAfterLostAnswer) {
    const std::string address = d.address;
    Fail(run.id(), FireResult::kFailed, v1::HANDLE_CODE_EXECUTOR_LOST,
         absl::StrCat("executor lost: ", address,
                      gone ? " left or restarted" : " never answered when asked again",
                      " after the run was sent (", why.message(), ")"),
         address);
    return;
  }
  const absl::Duration delay = kFirstAskDelay * (1 << d.asks);
  ++d.asks;
  d.asking = d.address;
  At(parts_.clock->NowMillis() + absl::ToInt64Milliseconds(delay), d);
}

// A run left in doubt by an earlier holder.

void Deliveries::Question(Delivery& d) {
  const Parcel& p = *d.parcel;
  d.stage = Stage::kAsking;
  ++d.seq;
  const ExecutorList executors = p.targets.executors;
  d.awaited = static_cast<int>(executors->size());
  v1::RunRequest probe = internal::RequestFor(p.run, *p.job, parts_.partition_count);
  probe.set_probe(true);
  const int64_t run_id = p.run.id();
  for (const v1::ExecutorInfo& e : *executors) {
    parts_.executors->Send(
        e.address(), p.targets.group.app_name(), probe,
        [this, run_id, seq = d.seq, address = e.address()](absl::StatusOr<v1::RunAnswer> r) {
          Post(Answer{run_id, seq, address, std::move(r), absl::Time(), std::nullopt});
        });
  }
}

void Deliveries::OnProbeAnswer(Delivery& d, const Answer& a) {
  if (a.answer.ok() && a.answer->has_accepted()) {
    if (d.held_by.empty()) d.held_by = a.address;
  } else if (!a.answer.ok() || a.answer->rejected().kind() != v1::REJECT_KIND_NOT_HELD) {
    d.unknown = true;  // Unreachable, no answer, or not a probe's answer.
  }
  if (--d.awaited > 0) return;
  const v1::Run& run = d.parcel->run;
  const int64_t run_id = run.id();
  InDoubtDone done = std::move(d.done);
  d.done = nullptr;
  if (!d.held_by.empty()) {
    // Sent by the predecessor and accepted: it runs there (or ran: the
    // recorder keeps the outcome of a run that ended meanwhile).
    store::DispatchUpdate u;
    u.run_id = run_id;
    u.status = v1::RUN_STATUS_RUNNING;
    u.executor_address = d.held_by;
    u.trigger_code = 200;
    u.trigger_message = absl::StrCat("held by ", d.held_by, " when asked after a takeover");
    u.dispatch_ms = parts_.clock->NowMillis();
    u.fence_epoch = run.fence_epoch();
    parts_.outcomes->Add(std::move(u));
    End(run_id);
    done(run_id, InDoubt::kHeld);
    return;
  }
  if (d.unknown) {
    if (parts_.in_flight != nullptr) parts_.in_flight->Dropped(run_id);
    End(run_id);
    done(run_id, InDoubt::kUnknown);
    return;
  }
  // Nobody holds it and the question fenced the predecessor off on every
  // executor of the group: send it now (at its instant if that is ahead).
  done(run_id, InDoubt::kResent);
  Go(d, internal::InstantOf(run));
}

// Endings.

void Deliveries::Fail(int64_t run_id, FireResult why, int32_t code, const std::string& message,
                      const std::string& address) {
  auto it = deliveries_.find(run_id);
  if (it == deliveries_.end()) return;
  RecordFailure(it->second.parcel->run, why, code, message, address);
  End(run_id);
}

void Deliveries::FailUnsent(const v1::Run& run, const std::string& message) {
  RecordFailure(run, FireResult::kFailed, v1::HANDLE_CODE_FAILURE, message, "");
}

void Deliveries::RecordFailure(const v1::Run& run, FireResult why, int32_t code,
                               const std::string& message, const std::string& address) {
  if (parts_.metrics != nullptr) {
    parts_.metrics->Fired(run.trigger_type(), why);
    parts_.metrics->RunsEnded(code, 1);
  }
  store::DispatchUpdate u;
  u.run_id = run.id();
  u.status = v1::RUN_STATUS_FAILED;
  u.executor_address = address;
  u.trigger_code = code;
  u.trigger_message = message;
  u.handle_code = code;
  u.handle_message = message;
  u.dispatch_ms = parts_.clock->NowMillis();
  u.end_ms = u.dispatch_ms;
  u.fence_epoch = run.fence_epoch();
  parts_.outcomes->Add(std::move(u));
}

void Deliveries::End(int64_t run_id) { deliveries_.erase(run_id); }

}  // namespace gnomon::scheduler
