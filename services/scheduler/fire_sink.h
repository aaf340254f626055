// FireSink: where fires go to become runs — the schedule loop's slots, admin
// triggers and backfills, retries and child jobs. Trigger is the production
// sink (records the runs, then dispatches them); tests and benchmarks fake it.
//
//   FireSpec f{.job = job_ptr, .type = v1::TRIGGER_TYPE_FIX_RATE, .scheduled_ms = slot};
//   absl::StatusOr<std::vector<FireOutcome>> out = sink->Fire({f});
//
// Thread safety: implementations are thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_FIRE_SINK_H_
#define GNOMON_SERVICES_SCHEDULER_FIRE_SINK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::scheduler {

// One fire of a job: what to record and where it may run (see RoutePlan for
// how `addresses`, `shard` and `shard_total` shape its runs).
struct FireSpec {
  // Shared, not copied: a burst of thousands of fires references the jobs
  // the schedule loop holds.
  std::shared_ptr<const v1::Job> job;
  v1::TriggerType type = v1::TRIGGER_TYPE_API;
  int64_t scheduled_ms = 0;  // The slot; 0 = an unslotted (manual/API/parent) fire.
  // Recorded ahead: dispatch at this instant (0 or past = at once).
  int64_t dispatch_at_ms = 0;
  // The runs' params as they are; unset: the job's, a template rendered at
  // `params_at_ms`, else the slot, else the trigger time (RunRecorder).
  std::optional<std::string> params;
  int64_t params_at_ms = 0;
  // When the fire's work must be done by (Job.deadline): a retry's is its
  // first attempt's; 0 on a first attempt: its slot (else the trigger time)
  // + the job's deadline, if it has one.
  int64_t deadline_ms = 0;
  std::vector<std::string> addresses;  // Explicit executors instead of the group's.
  std::optional<uint32_t> shard;       // Only this shard of the fire's runs.
  int64_t parent_run_id = 0;
  // Retries: the attempt number, the first attempt's id and its shard total
  // (a broadcast retry re-runs only its own shard of the same total).
  uint32_t attempt = 0;
  int64_t first_run_id = 0;
  uint32_t shard_total = 0;  // 0: as many as the route plan makes.
  // A workflow node's fire: its workflow run, node and the node's attempt
  // (WorkflowDriver); recorded with the run, once per shard and attempt.
  int64_t workflow_run_id = 0;
  std::string workflow_node;
  int32_t workflow_attempt = 0;
  // Its parents' outputs (the node's inputs).
  std::vector<v1::WorkflowInput> inputs;
};

struct FireOutcome {
  std::vector<int64_t> run_ids;  // Newly recorded runs.
  bool slot_already_fired = false;
};

class FireSink {
 public:
  virtual ~FireSink() = default;
  // Records every fire's runs (slots taken once) and dispatches them. Fails
  // as a whole (nothing recorded) if the store is unavailable.
  virtual absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) = 0;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_FIRE_SINK_H_
