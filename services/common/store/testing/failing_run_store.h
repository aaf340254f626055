// FailingRunStore: a RunStore that forwards every call to a real one (a
// TempStore) through a StoreCallHook, so a test can fail or pause the calls
// it chooses — a store outage, a commit whose reply is lost, a call held
// while something else happens.
//
//   TempStore store;
//   StoreCallHook hook;
//   FailingRunStore runs(store.get(), &hook);
//   hook.Set([](std::string_view call, CallPhase phase) {
//     return call == "ReadRunLog" ? absl::UnavailableError("store down") : absl::OkStatus();
//   });
//
// Thread safety: as the store it wraps.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_RUN_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_RUN_STORE_H_

#include <string>
#include <string_view>
#include <vector>

#include "services/common/store/run_store.h"
#include "services/common/store/testing/store_call_hook.h"

namespace gnomon::store::testing {

class FailingRunStore final : public RunStore {
 public:
  FailingRunStore(RunStore* inner, StoreCallHook* hook) : inner_(inner), hook_(hook) {}

  absl::StatusOr<std::vector<v1::Run>> LastRuns(const std::vector<int64_t>& job_ids) override {
    return hook_->Forward("LastRuns", [&] { return inner_->LastRuns(job_ids); });
  }
  absl::StatusOr<std::vector<RunInsertOutcome>> InsertRuns(std::vector<v1::Run>& runs) override {
    return hook_->Forward("InsertRuns", [&] { return inner_->InsertRuns(runs); });
  }
  absl::Status RecordDispatches(const std::vector<DispatchUpdate>& updates) override {
    return hook_->Forward("RecordDispatches", [&] { return inner_->RecordDispatches(updates); });
  }
  absl::StatusOr<std::vector<v1::ReportAck>> ApplyReports(const std::vector<v1::ReportItem>& items,
                                                          int64_t group_id) override {
    return hook_->Forward("ApplyReports", [&] { return inner_->ApplyReports(items, group_id); });
  }
  absl::StatusOr<v1::Run> GetRun(int64_t run_id) override {
    return hook_->Forward("GetRun", [&] { return inner_->GetRun(run_id); });
  }
  absl::StatusOr<std::vector<v1::Run>> ListRuns(const RunFilter& filter) override {
    return hook_->Forward("ListRuns", [&] { return inner_->ListRuns(filter); });
  }
  absl::StatusOr<std::vector<v1::LogLine>> ReadRunLog(int64_t run_id, int64_t from_line,
                                                      int limit) override {
    return hook_->Forward("ReadRunLog",
                          [&] { return inner_->ReadRunLog(run_id, from_line, limit); });
  }
  absl::StatusOr<int64_t> FailRuns(const std::vector<int64_t>& run_ids, int32_t handle_code,
                                   std::string_view handle_message, int64_t now_ms) override {
    return hook_->Forward(
        "FailRuns", [&] { return inner_->FailRuns(run_ids, handle_code, handle_message, now_ms); });
  }
  absl::Status RecordAlarmStatus(int64_t run_id, std::string_view status) override {
    return hook_->Forward("RecordAlarmStatus",
                          [&] { return inner_->RecordAlarmStatus(run_id, status); });
  }
  absl::StatusOr<std::vector<v1::Run>> ListActiveRunsOn(std::string_view address) override {
    return hook_->Forward("ListActiveRunsOn", [&] { return inner_->ListActiveRunsOn(address); });
  }
  absl::StatusOr<int64_t> DeleteRunsEndedBefore(int64_t before_ms, int limit) override {
    return hook_->Forward("DeleteRunsEndedBefore",
                          [&] { return inner_->DeleteRunsEndedBefore(before_ms, limit); });
  }
  absl::StatusOr<int64_t> TrimRunsPerJob(int64_t keep, int limit) override {
    return hook_->Forward("TrimRunsPerJob", [&] { return inner_->TrimRunsPerJob(keep, limit); });
  }

 private:
  RunStore* const inner_;
  StoreCallHook* const hook_;
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_RUN_STORE_H_
