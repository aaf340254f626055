// WorkflowDriver: moves workflow runs on through the store, from any
// replica. Every change to a run is made by the engine (WorkflowRun) on the
// run as read, and written back only from the version read
// (WorkflowStore::UpdateWorkflowRun); a replica that lost that race reads
// the run again and redoes its change, which then finds the work done. So a
// node is marked RUNNING for an attempt by exactly one replica, and only
// that replica fires its job (through the FireSink, as Trigger records runs),
// after the change is stored.
//
//   WorkflowDriver driver(store, store, &trigger, &clock);
//   absl::StatusOr<v1::WorkflowRun> run = driver.Start(workflow_id, v1::TRIGGER_TYPE_API, 0, {});
//   driver.NodeEnded(run->id(), "merge", 1, 0, 1, {.handle_code = 200, .output = "42"});
//
// Its fires are recorded with their node (v1::Run.workflow_*), once per
// shard and attempt: a fire repeated after a crash records nothing twice.
// The follow-ups tell it of node runs that ended (Followups), the admin API
// starts and acts on runs (WorkflowAdmin), and WorkflowScheduler fires
// scheduled runs and resumes those a dead replica left.
//
// Thread safety: thread-safe (its state is the store's).
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_DRIVER_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_DRIVER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/workflow.pb.h"
#include "services/common/client/clock.h"
#include "services/common/store/job_store.h"
#include "services/common/store/run_store.h"
#include "services/common/store/workflow_store.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/scheduler/workflow/workflow_run.h"

namespace gnomon::scheduler {

class WorkflowDriver {
 public:
  // `runs` (for Resume) and `metrics` (runs that ended) may be null.
  WorkflowDriver(store::WorkflowStore* workflows, store::JobStore* jobs, FireSink* sink,
                 Clock* clock, store::RunStore* runs = nullptr, SchedulerMetrics* metrics = nullptr)
      : workflows_(workflows),
        jobs_(jobs),
        sink_(sink),
        clock_(clock),
        runs_(runs),
        metrics_(metrics) {}

  // Starts a run of the workflow and fires its first nodes. A slot's run
  // (scheduled_ms > 0) starts once: AlreadyExists for a second. `params`
  // replaces the workflow's.
  absl::StatusOr<v1::WorkflowRun> Start(int64_t workflow_id, v1::TriggerType type,
                                        int64_t scheduled_ms,
                                        const std::optional<std::string>& params);
  // Shard `shard` of `shard_total` of attempt `attempt` of node `node` of
  // run `run_id` ended for good (after its job's retries) with `result`;
  // fires what may run now. A result the run no longer waits for changes
  // nothing.
  absl::StatusOr<v1::WorkflowRun> NodeEnded(int64_t run_id, const std::string& node, int attempt,
                                            int shard, int shard_total,
                                            const workflow::NodeResult& result);
  // The engine's operations (WorkflowRun), stored and acted on. Cancel
  // returns the nodes that were running in `running` (to be killed).
  absl::StatusOr<v1::WorkflowRun> Cancel(int64_t run_id, std::vector<std::string>* running);
  absl::StatusOr<v1::WorkflowRun> RerunFrom(int64_t run_id, const std::string& node);
  absl::StatusOr<v1::WorkflowRun> Skip(int64_t run_id, const std::string& node);
  absl::StatusOr<v1::WorkflowRun> MarkSucceeded(int64_t run_id, const std::string& node,
                                                const std::string& output);
  // Finishes what a replica that died left undone on a running run: starts
  // it if it was created and never started, and fires each running node
  // whose attempt has no run recorded (it died between storing the change
  // and firing; a fire that did happen records nothing twice). Returns the
  // nodes fired.
  absl::StatusOr<std::vector<std::string>> Resume(int64_t run_id);
  // Whether any workflow run of the installation is running (one indexed read).
  absl::StatusOr<bool> AnyRunning();

 private:
  using Change =
      std::function<absl::StatusOr<std::vector<workflow::NodeFire>>(workflow::WorkflowRun&)>;
  // Reads the run, applies `change`, writes it back from the version read
  // (from the top if another replica wrote first), then fires what the
  // change returned.
  absl::StatusOr<v1::WorkflowRun> Apply(int64_t run_id, const Change& change);
  // Fires `fires` of `run` of `workflow`: each node's job, with the run's
  // params.
  absl::Status FireNodes(const v1::WorkflowRun& run, const workflow::WorkflowRun& engine,
                         const std::vector<workflow::NodeFire>& fires);

  store::WorkflowStore* const workflows_;
  store::JobStore* const jobs_;
  FireSink* const sink_;
  Clock* const clock_;
  store::RunStore* const runs_;
  SchedulerMetrics* const metrics_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_DRIVER_H_
