// Dispatcher::Ask: a new holder's questions about the runs its predecessor
// recorded but left in doubt (see RunRequest.probe).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/scheduler/dispatcher.h"

namespace gnomon::scheduler {

using google::protobuf::util::TimeUtil;

// One run asked about: the answers come in on the links' threads; the last
// one decides.
struct Dispatcher::Asking {
  v1::Run run;
  std::shared_ptr<const v1::Job> job;
  PlannedRun where;
  DispatchTargets targets;
  InDoubtDone done;
  absl::Mutex mu;
  int awaited ABSL_GUARDED_BY(mu) = 0;
  std::string held_by ABSL_GUARDED_BY(mu);  // The first executor that holds it.
  bool unknown ABSL_GUARDED_BY(mu) = false;
};

void Dispatcher::Ask(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership,
                     InDoubtDone done) {
  auto read = JobsOf(runs);
  if (!read) {
    for (const v1::Run& run : runs) done(run.id(), InDoubt::kUnknown);
    return;
  }
  for (v1::Run& run : runs) {
    const int64_t run_id = run.id();
    auto job = read->find(run.job_id());
    if (job == read->end()) {
      done(run_id, InDoubt::kUnknown);  // Resend fails the run of a deleted job.
      continue;
    }
    const FireSpec f = internal::ResendSpec(run, job->second);
    absl::StatusOr<DispatchTargets> targets = TargetsOf(f);
    // Only registered executors can be asked (and all of them must be: one
    // not asked may hold the run), and only those that answer probes: an
    // older executor would take the question for a run to start.
    bool askable = targets.ok() && targets->registered && !targets->executors->empty();
    for (size_t i = 0; askable && i < targets->executors->size(); ++i) {
      askable = (*targets->executors)[i].answers_probes();
    }
    const RoutePlan plan = askable ? PlanRoute(f, *targets->executors) : RoutePlan{};
    if (!askable || plan.runs.empty()) {
      done(run_id, InDoubt::kUnknown);
      continue;
    }
    run.set_fence_epoch(ownership->EpochOfJob(run.job_id()));
    auto asking = std::make_shared<Asking>();
    asking->run = std::move(run);
    asking->job = job->second;
    asking->where = plan.runs.front();
    asking->targets = *std::move(targets);
    asking->done = done;
    const ExecutorList executors = asking->targets.executors;
    {
      absl::MutexLock l(&asking->mu);
      asking->awaited = static_cast<int>(executors->size());
    }
    // In flight here from the question on: the run reaper leaves it alone.
    if (in_flight_ != nullptr) in_flight_->Sending(run_id);
    v1::RunRequest probe =
        internal::RequestFor(asking->run, *asking->job, store_->partition_count());
    probe.set_probe(true);
    for (const v1::ExecutorInfo& e : *executors) {
      executors_->Send(e.address(), asking->targets.group.app_name(), probe,
                       [this, asking, address = e.address()](absl::StatusOr<v1::RunAnswer> r) {
                         Asked(asking, address, r);
                       });
    }
  }
}

void Dispatcher::Asked(const std::shared_ptr<Asking>& asking, const std::string& address,
                       const absl::StatusOr<v1::RunAnswer>& answer) {
  std::string held_by;
  bool unknown = false;
  {
    absl::MutexLock l(&asking->mu);
    if (answer.ok() && answer->has_accepted()) {
      if (asking->held_by.empty()) asking->held_by = address;
    } else if (!answer.ok() || answer->rejected().kind() != v1::REJECT_KIND_NOT_HELD) {
      asking->unknown = true;  // Unreachable, no answer, or not a probe's answer.
    }
    if (--asking->awaited > 0) return;
    held_by = asking->held_by;
    unknown = asking->unknown;
  }
  const v1::Run& run = asking->run;
  if (!held_by.empty()) {
    // Sent by the predecessor and accepted: it runs there (or ran: the
    // recorder keeps the outcome of a run that ended meanwhile).
    store::DispatchUpdate u;
    u.run_id = run.id();
    u.status = v1::RUN_STATUS_RUNNING;
    u.executor_address = held_by;
    u.trigger_code = 200;
    u.trigger_message = absl::StrCat("held by ", held_by, " when asked after a takeover");
    u.dispatch_ms = clock_->NowMillis();
    u.fence_epoch = run.fence_epoch();
    outcomes_->Add(std::move(u));
    asking->done(run.id(), InDoubt::kHeld);
    return;
  }
  if (unknown) {
    if (in_flight_ != nullptr) in_flight_->Dropped(run.id());
    asking->done(run.id(), InDoubt::kUnknown);
    return;
  }
  // Nobody holds it and the question fenced the predecessor off on every
  // executor of the group: send it now (at its instant if that is ahead).
  const int64_t at =
      run.has_scheduled_time() ? TimeUtil::TimestampToMilliseconds(run.scheduled_time()) : 0;
  asking->done(run.id(), InDoubt::kResent);
  Dispatch(run, asking->job, asking->where, asking->targets, at);
}

}  // namespace gnomon::scheduler
