#include "services/scheduler/workflow_driver.h"

#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/common/schedule/param_template.h"
#include "services/common/schedule/schedule.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/workflow/workflow_proto.h"

namespace gnomon::scheduler {
namespace {

using workflow::NodeFire;
using workflow::WorkflowRun;

// Another replica changing the same run this many times in a row while this
// one redoes its change means something is wrong; the caller retries later.
constexpr int kMaxRaces = 16;

// The run's graph, as it was when the run started.
absl::StatusOr<std::shared_ptr<const workflow::Dag>> GraphOf(const v1::WorkflowRun& run) {
  ASSIGN_OR_RETURN(workflow::Dag dag, workflow::DagOf(run.workflow()));
  return std::make_shared<const workflow::Dag>(std::move(dag));
}

}  // namespace

absl::StatusOr<v1::WorkflowRun> WorkflowDriver::Start(int64_t workflow_id, v1::TriggerType type,
                                                      int64_t scheduled_ms,
                                                      const std::optional<std::string>& params) {
  ASSIGN_OR_RETURN(v1::Workflow w, workflows_->GetWorkflow(workflow_id));
  v1::WorkflowRun run;
  run.set_workflow_id(workflow_id);
  run.set_trigger_type(type);
  // Rendered once, here: its nodes, their retries and reruns all see this.
  const std::string text = params.value_or(w.params());
  const int64_t at = scheduled_ms > 0 ? scheduled_ms : clock_->NowMillis();
  absl::StatusOr<std::string> rendered =
      schedule::RenderParams(text, absl::FromUnixMillis(at), schedule::ZoneOf(w.schedule()));
  // A template that does not render was saved before templates were
  // checked: as written.
  run.set_params(rendered.ok() ? *rendered : text);
  if (scheduled_ms > 0) {
    *run.mutable_scheduled_time() =
        google::protobuf::util::TimeUtil::MillisecondsToTimestamp(scheduled_ms);
  }
  *run.mutable_workflow() = std::move(w);
  ASSIGN_OR_RETURN(std::shared_ptr<const workflow::Dag> dag, GraphOf(run));
  workflow::SaveTo(WorkflowRun(dag), &run);  // Every node pending.
  ASSIGN_OR_RETURN(v1::WorkflowRun created,
                   workflows_->CreateWorkflowRun(run, clock_->NowMillis()));
  // Starting is idempotent: a run created and never started (this replica
  // died in between) is started by whoever applies it next.
  return Apply(created.id(),
               [](WorkflowRun& e) -> absl::StatusOr<std::vector<NodeFire>> { return e.Start(); });
}

absl::StatusOr<v1::WorkflowRun> WorkflowDriver::NodeEnded(int64_t run_id, const std::string& node,
                                                          int attempt, int shard, int shard_total,
                                                          const workflow::NodeResult& result) {
  return Apply(run_id, [&](WorkflowRun& e) -> absl::StatusOr<std::vector<NodeFire>> {
    return e.ShardEnded(node, attempt, shard, shard_total, result);
  });
}

absl::StatusOr<v1::WorkflowRun> WorkflowDriver::Cancel(int64_t run_id,
                                                       std::vector<std::string>* running) {
  return Apply(run_id, [&](WorkflowRun& e) -> absl::StatusOr<std::vector<NodeFire>> {
    ASSIGN_OR_RETURN(*running, e.Cancel());
    return std::vector<NodeFire>{};
  });
}

absl::StatusOr<v1::WorkflowRun> WorkflowDriver::RerunFrom(int64_t run_id, const std::string& node) {
  return Apply(run_id, [&](WorkflowRun& e) { return e.RerunFrom(node); });
}

absl::StatusOr<v1::WorkflowRun> WorkflowDriver::Skip(int64_t run_id, const std::string& node) {
  return Apply(run_id, [&](WorkflowRun& e) { return e.Skip(node); });
}

absl::StatusOr<v1::WorkflowRun> WorkflowDriver::MarkSucceeded(int64_t run_id,
                                                              const std::string& node,
                                                              const std::string& output) {
  return Apply(run_id, [&](WorkflowRun& e) { return e.MarkSucceeded(node, output); });
}

absl::StatusOr<bool> WorkflowDriver::AnyRunning() {
  ASSIGN_OR_RETURN(std::vector<v1::WorkflowRun> running,
                   workflows_->ListRunningWorkflowRuns(1, {}));
  return !running.empty();
}

absl::StatusOr<std::vector<std::string>> WorkflowDriver::Resume(int64_t run_id) {
  if (runs_ == nullptr) return absl::FailedPreconditionError("no run store to resume from");
  // Starting is idempotent: only pending first nodes start.
  ASSIGN_OR_RETURN(v1::WorkflowRun run, Apply(run_id, [](WorkflowRun& e) {
                     return absl::StatusOr<std::vector<NodeFire>>(e.Start());
                   }));
  if (run.status() != v1::WORKFLOW_RUN_STATUS_RUNNING) return std::vector<std::string>{};
  ASSIGN_OR_RETURN(std::shared_ptr<const workflow::Dag> dag, GraphOf(run));
  WorkflowRun engine(dag, workflow::RecordsOf(run, *dag), run.cancelled());
  std::vector<NodeFire> running;
  for (size_t i = 0; i < dag->nodes.size(); ++i) {
    const workflow::NodeRecord& r = engine.records()[i];
    if (r.state == workflow::NodeState::kRunning && dag->nodes[i].job_id > 0) {
      running.push_back({dag->nodes[i].name, dag->nodes[i].job_id, r.attempt});
    }
  }
  if (running.empty()) return std::vector<std::string>{};
  store::RunFilter filter;
  filter.workflow_run_id = run_id;
  filter.limit = 10000;
  ASSIGN_OR_RETURN(std::vector<v1::Run> recorded, runs_->ListRuns(filter));
  absl::flat_hash_set<std::pair<std::string, int>> fired;
  for (const v1::Run& r : recorded) fired.insert({r.workflow_node(), r.workflow_attempt()});
  std::vector<NodeFire> missing;
  std::vector<std::string> names;
  for (NodeFire& f : running) {
    if (fired.contains(std::pair(f.node, f.attempt))) continue;
    names.push_back(f.node);
    missing.push_back(std::move(f));
  }
  if (!missing.empty()) {
    GNOMON_LOG(INFO) << "scheduler: workflow run " << run_id << ": firing " << missing.size()
                     << " running node(s) left unfired by a replica that stopped";
    RETURN_IF_ERROR(FireNodes(run, engine, missing));
  }
  return names;
}

absl::StatusOr<v1::WorkflowRun> WorkflowDriver::Apply(int64_t run_id, const Change& change) {
  for (int race = 0; race < kMaxRaces; ++race) {
    ASSIGN_OR_RETURN(v1::WorkflowRun run, workflows_->GetWorkflowRun(run_id));
    ASSIGN_OR_RETURN(std::shared_ptr<const workflow::Dag> dag, GraphOf(run));
    WorkflowRun engine(dag, workflow::RecordsOf(run, *dag), run.cancelled());
    ASSIGN_OR_RETURN(std::vector<NodeFire> fires, change(engine));
    v1::WorkflowRun changed = run;
    workflow::SaveTo(engine, &changed);
    if (changed.SerializeAsString() == run.SerializeAsString()) return run;  // Nothing to write.
    absl::StatusOr<v1::WorkflowRun> written =
        workflows_->UpdateWorkflowRun(changed, clock_->NowMillis());
    if (absl::IsAborted(written.status())) continue;  // Another replica wrote first: again.
    RETURN_IF_ERROR(written.status());
    if (metrics_ != nullptr && run.status() == v1::WORKFLOW_RUN_STATUS_RUNNING &&
        written->status() != v1::WORKFLOW_RUN_STATUS_RUNNING) {  // Ended by this write, once.
      using google::protobuf::util::TimeUtil;
      metrics_->WorkflowRunEnded(
          written->status(),
          absl::Milliseconds(TimeUtil::TimestampToMilliseconds(written->end_time()) -
                             TimeUtil::TimestampToMilliseconds(written->create_time())));
    }
    // Stored: these nodes are this replica's to fire, and nobody else's.
    RETURN_IF_ERROR(FireNodes(*written, engine, fires));
    return written;
  }
  return absl::AbortedError(
      absl::StrCat("workflow run ", run_id, " changed under this replica ", kMaxRaces, " times"));
}

absl::Status WorkflowDriver::FireNodes(const v1::WorkflowRun& run, const WorkflowRun& engine,
                                       const std::vector<NodeFire>& fires) {
  if (fires.empty()) return absl::OkStatus();
  std::vector<int64_t> ids;
  for (const NodeFire& f : fires) ids.push_back(f.job_id);
  ASSIGN_OR_RETURN(std::vector<v1::Job> read, jobs_->GetJobs(ids));
  absl::flat_hash_map<int64_t, std::shared_ptr<const v1::Job>> jobs;
  for (v1::Job& j : read) {
    const int64_t id = j.id();
    jobs[id] = std::make_shared<const v1::Job>(std::move(j));
  }
  std::vector<FireSpec> specs;
  std::vector<const NodeFire*> gone;
  for (const NodeFire& f : fires) {
    auto job = jobs.find(f.job_id);
    if (job == jobs.end()) {
      gone.push_back(&f);
      continue;
    }
    FireSpec spec;
    spec.job = job->second;
    // A first node runs as the workflow run was started; the others as
    // their parents' children.
    const std::vector<std::pair<std::string, std::string>> inputs = engine.Inputs(f.node);
    spec.type = inputs.empty() ? run.trigger_type() : v1::TRIGGER_TYPE_PARENT;
    if (!run.params().empty()) spec.params = run.params();
    // Else the job's own params: a template renders at the run's slot or start.
    spec.params_at_ms = google::protobuf::util::TimeUtil::TimestampToMilliseconds(
        run.has_scheduled_time() ? run.scheduled_time() : run.create_time());
    for (const auto& [parent, output] : inputs) {
      v1::WorkflowInput& in = spec.inputs.emplace_back();
      in.set_node(parent);
      in.set_output(output);
    }
    spec.workflow_run_id = run.id();
    spec.workflow_node = f.node;
    spec.workflow_attempt = f.attempt;
    specs.push_back(std::move(spec));
  }
  if (!specs.empty()) RETURN_IF_ERROR(sink_->Fire(std::move(specs)).status());
  for (const NodeFire* f : gone) {
    // Its job was deleted since the workflow was saved: the node fails.
    GNOMON_LOG(WARNING) << "scheduler: workflow run " << run.id() << " node " << f->node << ": job "
                        << f->job_id << " no longer exists";
    RETURN_IF_ERROR(NodeEnded(run.id(), f->node, f->attempt, 0, 1,
                              {.handle_code = v1::HANDLE_CODE_FAILURE,
                               .output = absl::StrCat("job ", f->job_id, " no longer exists")})
                        .status());
  }
  return absl::OkStatus();
}

}  // namespace gnomon::scheduler
