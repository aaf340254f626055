// Runs for the scheduler's unit tests, put in a real store the way the
// scheduler and the log service leave them: recorded (PENDING), accepted by
// an executor (RUNNING), and the executor's result.
//
//   int64_t id = testing::RunningRun(store.get(), job, "10.0.0.1:1", now_ms);
//   std::vector<v1::Run> runs = testing::RunsOf(store.get(), job.id());
//   store->ApplyReports({testing::Result(id, v1::HANDLE_CODE_SUCCESS, now_ms)}, job.group_id());
//
// Thread safety: as the store.
#ifndef GNOMON_SERVICES_SCHEDULER_TESTING_RUNS_H_
#define GNOMON_SERVICES_SCHEDULER_TESTING_RUNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/followups.h"

namespace gnomon::scheduler::testing {

// A PENDING run of `job` (an unslotted API fire) recorded at trigger_ms
// under fencing epoch `epoch`; its id.
inline int64_t PendingRun(store::RunStore* store, const v1::Job& job, int64_t trigger_ms,
                          int64_t epoch = 0) {
  v1::Run r;
  r.set_job_id(job.id());
  r.set_group_id(job.group_id());
  r.set_trigger_type(v1::TRIGGER_TYPE_API);
  *r.mutable_trigger_time() = google::protobuf::util::TimeUtil::MillisecondsToTimestamp(trigger_ms);
  r.set_handler("h");
  r.set_shard_total(1);
  r.set_status(v1::RUN_STATUS_PENDING);
  r.set_fence_epoch(epoch);
  r.set_success_has_followups(SuccessHasFollowups(job));  // As the run recorder decides.
  std::vector<v1::Run> runs = {r};
  absl::StatusOr<std::vector<store::RunInsertOutcome>> in = store->InsertRuns(runs);
  EXPECT_TRUE(in.ok()) << in.status();
  return in.ok() ? (*in)[0].run_id : 0;
}

// A run of `job` that the executor at `address` accepted at dispatch_ms
// (recorded then too); its id.
inline int64_t RunningRun(store::RunStore* store, const v1::Job& job, const std::string& address,
                          int64_t dispatch_ms) {
  const int64_t id = PendingRun(store, job, dispatch_ms);
  store::DispatchUpdate u;
  u.run_id = id;
  u.executor_address = address;
  u.dispatch_ms = dispatch_ms;
  EXPECT_TRUE(store->RecordDispatches({u}).ok());
  return id;
}

// The runs of `job_id`, newest first.
inline std::vector<v1::Run> RunsOf(store::RunStore* store, int64_t job_id) {
  store::RunFilter filter;
  filter.job_id = job_id;
  absl::StatusOr<std::vector<v1::Run>> runs = store->ListRuns(filter);
  EXPECT_TRUE(runs.ok()) << runs.status();
  return runs.ok() ? *runs : std::vector<v1::Run>{};
}

// The executor's result for a run, as its SDK reports it.
inline v1::ReportItem Result(int64_t run_id, v1::HandleCode code, int64_t end_ms) {
  v1::ReportItem item;
  item.set_sequence(1);
  v1::RunResult& r = *item.mutable_result();
  r.set_run_id(run_id);
  r.set_handle_code(code);
  r.set_handle_message(code == v1::HANDLE_CODE_SUCCESS ? "done" : "failed");
  *r.mutable_start_time() = google::protobuf::util::TimeUtil::MillisecondsToTimestamp(end_ms - 10);
  *r.mutable_end_time() = google::protobuf::util::TimeUtil::MillisecondsToTimestamp(end_ms);
  return item;
}

}  // namespace gnomon::scheduler::testing

#endif  // GNOMON_SERVICES_SCHEDULER_TESTING_RUNS_H_
