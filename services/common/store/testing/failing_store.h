// FailingStore: the scheduler's store interfaces (JobStore, RunStore,
// FollowupStore) over a real store — a TempStore's — where a test chooses
// what happens before each call. A hook that returns an error fails the call
// with it, without reaching the store (a store down at that instant); a hook
// that does something and returns OK stages a race at that exact point on
// the calling thread (another replica's pass, a result arriving between a
// read and a write), so the race is the same on every run.
//
//   store::testing::TempStore temp;
//   store::testing::FailingStore store(temp.get());
//   store.FailNext(StoreCall::kInsertRuns, absl::UnavailableError("store down"));
//   store.Before(StoreCall::kFailRuns, [&] { ApplyTheResult(); return absl::OkStatus(); });
//   RunReaper reaper(&store, &membership, &clock, {});
//   store.AwaitReturned(StoreCall::kFailRuns, 1);  // from the test thread
//
// Thread safety: thread-safe; hooks run on the calling thread, with no lock held.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_STORE_H_

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/store/observed_store.h"
#include "services/common/store/store.h"

namespace gnomon::store::testing {

class FailingStore final : public JobStore, public RunStore, public FollowupStore {
 public:
  using Hook = std::function<absl::Status()>;

  explicit FailingStore(Store* inner) : inner_(inner) {}

  // Runs `hook` before every `call` from now on (replacing an earlier one;
  // null: none).
  void Before(StoreCall call, Hook hook) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    state(call).hook = std::move(hook);
  }
  // The next `times` calls of `call` fail with `status` (before any hook).
  void FailNext(StoreCall call, absl::Status status, int times = 1) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    for (int i = 0; i < times; ++i) state(call).failures.push_back(status);
  }
  // Calls of `call` begun so far.
  int calls(StoreCall call) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    return state(call).begun;
  }
  // Blocks until `n` calls of `call` have returned (for a part running on
  // its own thread).
  void AwaitReturned(StoreCall call, int n) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    auto done = [this, call, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return state(call).returned >= n; };
    mu_.Await(absl::Condition(&done));
  }

  // JobStore.
  absl::StatusOr<v1::Group> CreateGroup(const v1::Group& group, int64_t now_ms) override {
    return Call(StoreCall::kCreateGroup, [&] { return inner_->CreateGroup(group, now_ms); });
  }
  absl::StatusOr<v1::Group> GetGroup(int64_t group_id) override {
    return Call(StoreCall::kGetGroup, [&] { return inner_->GetGroup(group_id); });
  }
  absl::StatusOr<v1::Group> GetGroupByApp(std::string_view app_name) override {
    return Call(StoreCall::kGetGroupByApp, [&] { return inner_->GetGroupByApp(app_name); });
  }
  absl::StatusOr<std::vector<v1::Group>> ListGroups() override {
    return Call(StoreCall::kListGroups, [&] { return inner_->ListGroups(); });
  }
  absl::StatusOr<v1::Group> UpdateGroup(const v1::Group& group, int64_t now_ms) override {
    return Call(StoreCall::kUpdateGroup, [&] { return inner_->UpdateGroup(group, now_ms); });
  }
  absl::Status DeleteGroup(int64_t group_id) override {
    return Call(StoreCall::kDeleteGroup, [&] { return inner_->DeleteGroup(group_id); });
  }
  absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state, int64_t next_fire_ms, int64_t now_ms,
                                    std::string_view author) override {
    return Call(StoreCall::kCreateJob, [&] { return inner_->CreateJob(job, state, next_fire_ms, now_ms, author); });
  }
  absl::StatusOr<std::vector<v1::Job>> CreateJobs(const std::vector<NewJob>& jobs, int64_t now_ms,
                                                  std::string_view author) override {
    return Call(StoreCall::kCreateJobs, [&] { return inner_->CreateJobs(jobs, now_ms, author); });
  }
  absl::StatusOr<v1::Job> GetJob(int64_t job_id) override {
    return Call(StoreCall::kGetJob, [&] { return inner_->GetJob(job_id); });
  }
  absl::StatusOr<std::vector<v1::Job>> GetJobsNamed(std::string_view name,
                                                   const std::vector<int64_t>& group_ids) override {
    return Call(StoreCall::kGetJobsNamed, [&] { return inner_->GetJobsNamed(name, group_ids); });
  }
  absl::StatusOr<std::vector<v1::Job>> GetJobs(const std::vector<int64_t>& job_ids) override {
    return Call(StoreCall::kGetJobs, [&] { return inner_->GetJobs(job_ids); });
  }
  absl::StatusOr<std::vector<v1::Job>> ListJobs(const std::vector<int64_t>& group_ids, int64_t after_id,
                                                int limit) override {
    return Call(StoreCall::kListJobs, [&] { return inner_->ListJobs(group_ids, after_id, limit); });
  }
  absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms, int64_t now_ms,
                                    std::string_view author) override {
    return Call(StoreCall::kUpdateJob, [&] { return inner_->UpdateJob(job, next_fire_ms, now_ms, author); });
  }
  absl::Status DeleteJob(int64_t job_id, bool purge_runs) override {
    return Call(StoreCall::kDeleteJob, [&] { return inner_->DeleteJob(job_id, purge_runs); });
  }
  absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state, int64_t next_fire_ms,
                                      int64_t now_ms) override {
    return Call(StoreCall::kSetJobState, [&] { return inner_->SetJobState(job_id, state, next_fire_ms, now_ms); });
  }
  absl::StatusOr<std::vector<DueJob>> ListDueJobs(int64_t until_ms, int limit,
                                                  const std::vector<int>& partitions) override {
    return Call(StoreCall::kListDueJobs, [&] { return inner_->ListDueJobs(until_ms, limit, partitions); });
  }
  absl::StatusOr<std::vector<bool>> AdvanceJobs(const std::vector<JobAdvance>& advances) override {
    return Call(StoreCall::kAdvanceJobs, [&] { return inner_->AdvanceJobs(advances); });
  }
  absl::StatusOr<std::vector<JobCount>> CountJobs() override {
    return Call(StoreCall::kCountJobs, [&] { return inner_->CountJobs(); });
  }
  absl::StatusOr<std::vector<v1::ScriptVersion>> ListScriptVersions(int64_t job_id, int64_t before_version,
                                                                    int limit) override {
    return Call(StoreCall::kListScriptVersions,
                [&] { return inner_->ListScriptVersions(job_id, before_version, limit); });
  }
  absl::StatusOr<v1::ScriptVersion> GetScriptVersion(int64_t job_id, int64_t version) override {
    return Call(StoreCall::kGetScriptVersion, [&] { return inner_->GetScriptVersion(job_id, version); });
  }

  // RunStore.
  absl::StatusOr<std::vector<v1::Run>> LastRuns(const std::vector<int64_t>& job_ids) override {
    return Call(StoreCall::kLastRuns, [&] { return inner_->LastRuns(job_ids); });
  }
  absl::StatusOr<std::vector<RunInsertOutcome>> InsertRuns(std::vector<v1::Run>& runs) override {
    return Call(StoreCall::kInsertRuns, [&] { return inner_->InsertRuns(runs); });
  }
  absl::Status RecordDispatches(const std::vector<DispatchUpdate>& updates) override {
    return Call(StoreCall::kRecordDispatches, [&] { return inner_->RecordDispatches(updates); });
  }
  absl::StatusOr<std::vector<v1::ReportAck>> ApplyReports(const std::vector<v1::ReportItem>& items,
                                                          int64_t group_id) override {
    return Call(StoreCall::kApplyReports, [&] { return inner_->ApplyReports(items, group_id); });
  }
  absl::StatusOr<v1::Run> GetRun(int64_t run_id) override {
    return Call(StoreCall::kGetRun, [&] { return inner_->GetRun(run_id); });
  }
  absl::StatusOr<std::vector<v1::Run>> ListRuns(const RunFilter& filter) override {
    return Call(StoreCall::kListRuns, [&] { return inner_->ListRuns(filter); });
  }
  absl::StatusOr<std::vector<v1::LogLine>> ReadRunLog(int64_t run_id, int64_t from_line, int limit) override {
    return Call(StoreCall::kReadRunLog, [&] { return inner_->ReadRunLog(run_id, from_line, limit); });
  }
  absl::StatusOr<int64_t> FailRuns(const std::vector<int64_t>& run_ids, int32_t handle_code,
                                   std::string_view handle_message, int64_t now_ms) override {
    return Call(StoreCall::kFailRuns, [&] { return inner_->FailRuns(run_ids, handle_code, handle_message, now_ms); });
  }
  absl::Status RecordAlarmStatus(int64_t run_id, std::string_view status) override {
    return Call(StoreCall::kRecordAlarmStatus, [&] { return inner_->RecordAlarmStatus(run_id, status); });
  }
  absl::StatusOr<std::vector<v1::Run>> ListActiveRunsOn(std::string_view address) override {
    return Call(StoreCall::kListActiveRunsOn, [&] { return inner_->ListActiveRunsOn(address); });
  }
  absl::StatusOr<int64_t> DeleteRunsEndedBefore(int64_t before_ms, int limit) override {
    return Call(StoreCall::kDeleteRunsEndedBefore, [&] { return inner_->DeleteRunsEndedBefore(before_ms, limit); });
  }
  absl::StatusOr<int64_t> TrimRunsPerJob(int64_t keep, int limit) override {
    return Call(StoreCall::kTrimRunsPerJob, [&] { return inner_->TrimRunsPerJob(keep, limit); });
  }

  // FollowupStore.
  absl::StatusOr<std::vector<v1::Run>> ListPendingFollowups(int limit, int64_t now_ms,
                                                            const std::vector<int>& partitions) override {
    return Call(StoreCall::kListPendingFollowups,
                [&] { return inner_->ListPendingFollowups(limit, now_ms, partitions); });
  }
  absl::Status CompleteFollowups(const std::vector<int64_t>& run_ids) override {
    return Call(StoreCall::kCompleteFollowups, [&] { return inner_->CompleteFollowups(run_ids); });
  }
  absl::Status DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) override {
    return Call(StoreCall::kDeferFollowups, [&] { return inner_->DeferFollowups(due); });
  }

 private:
  struct CallState {
    int begun = 0;
    int returned = 0;
    std::deque<absl::Status> failures;
    Hook hook;
  };

  CallState& state(StoreCall call) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return calls_[static_cast<size_t>(call)];
  }
  const CallState& state(StoreCall call) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return calls_[static_cast<size_t>(call)];
  }

  // What happens before the call: a planned failure, else the hook's answer.
  absl::Status Enter(StoreCall call) ABSL_LOCKS_EXCLUDED(mu_) {
    Hook hook;
    {
      absl::MutexLock l(&mu_);
      CallState& c = state(call);
      ++c.begun;
      if (!c.failures.empty()) {
        absl::Status s = std::move(c.failures.front());
        c.failures.pop_front();
        return s;
      }
      hook = c.hook;
    }
    return hook ? hook() : absl::OkStatus();
  }
  void Leave(StoreCall call) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    ++state(call).returned;
  }
  template <typename Fn>
  auto Call(StoreCall call, Fn&& fn) -> decltype(fn()) {
    absl::Status before = Enter(call);
    if (!before.ok()) {
      Leave(call);
      return before;
    }
    auto result = fn();
    Leave(call);
    return result;
  }

  Store* const inner_;
  mutable absl::Mutex mu_;
  std::array<CallState, static_cast<size_t>(StoreCall::kCount)> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_STORE_H_
