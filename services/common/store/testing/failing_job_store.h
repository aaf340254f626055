// FailingJobStore: a JobStore that forwards every call to a real one (a
// TempStore) through a StoreCallHook, so a test can fail or pause the calls
// it chooses: a group that cannot be read while a fire is planned, a job
// read held while another replica handles the same follow-up.
//
//   StoreCallHook hook;
//   FailingJobStore jobs(store.get(), &hook);
//   hook.Set(FailNext("GetGroup", absl::UnavailableError("store down")));
//
// Thread safety: as the store it wraps.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_JOB_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_JOB_STORE_H_

#include <optional>
#include <string_view>
#include <vector>

#include "services/common/store/job_store.h"
#include "services/common/store/testing/store_call_hook.h"

namespace gnomon::store::testing {

class FailingJobStore final : public JobStore {
 public:
  FailingJobStore(JobStore* inner, StoreCallHook* hook) : inner_(inner), hook_(hook) {}

  int partition_count() const override { return inner_->partition_count(); }

  absl::StatusOr<v1::Group> CreateGroup(const v1::Group& group, int64_t now_ms) override {
    return hook_->Forward("CreateGroup", [&] { return inner_->CreateGroup(group, now_ms); });
  }
  absl::StatusOr<v1::Group> GetGroup(int64_t group_id) override {
    return hook_->Forward("GetGroup", [&] { return inner_->GetGroup(group_id); });
  }
  absl::StatusOr<v1::Group> GetGroupByApp(std::string_view app_name) override {
    return hook_->Forward("GetGroupByApp", [&] { return inner_->GetGroupByApp(app_name); });
  }
  absl::StatusOr<std::vector<v1::Group>> ListGroups() override {
    return hook_->Forward("ListGroups", [&] { return inner_->ListGroups(); });
  }
  absl::StatusOr<v1::Group> UpdateGroup(const v1::Group& group, int64_t now_ms) override {
    return hook_->Forward("UpdateGroup", [&] { return inner_->UpdateGroup(group, now_ms); });
  }
  absl::Status DeleteGroup(int64_t group_id) override {
    return hook_->Forward("DeleteGroup", [&] { return inner_->DeleteGroup(group_id); });
  }
  absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state, int64_t next_fire_ms,
                                    int64_t now_ms, std::string_view author) override {
    return hook_->Forward(
        "CreateJob", [&] { return inner_->CreateJob(job, state, next_fire_ms, now_ms, author); });
  }
  absl::StatusOr<std::vector<v1::Job>> CreateJobs(const std::vector<NewJob>& jobs, int64_t now_ms,
                                                  std::string_view author) override {
    return hook_->Forward("CreateJobs", [&] { return inner_->CreateJobs(jobs, now_ms, author); });
  }
  absl::StatusOr<v1::Job> GetJob(int64_t job_id) override {
    return hook_->Forward("GetJob", [&] { return inner_->GetJob(job_id); });
  }
  absl::StatusOr<std::vector<v1::Job>> GetJobsNamed(
      std::string_view name, const std::vector<int64_t>& group_ids) override {
    return hook_->Forward("GetJobsNamed", [&] { return inner_->GetJobsNamed(name, group_ids); });
  }
  absl::StatusOr<std::vector<v1::Job>> GetJobs(const std::vector<int64_t>& job_ids) override {
    return hook_->Forward("GetJobs", [&] { return inner_->GetJobs(job_ids); });
  }
  absl::StatusOr<std::vector<v1::Job>> ListJobs(const std::vector<int64_t>& group_ids,
                                                int64_t after_id, int limit) override {
    return hook_->Forward("ListJobs", [&] { return inner_->ListJobs(group_ids, after_id, limit); });
  }
  absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms,
                                    int64_t now_ms, std::string_view author) override {
    return hook_->Forward("UpdateJob",
                          [&] { return inner_->UpdateJob(job, next_fire_ms, now_ms, author); });
  }
  absl::Status DeleteJob(int64_t job_id, bool purge_runs) override {
    return hook_->Forward("DeleteJob", [&] { return inner_->DeleteJob(job_id, purge_runs); });
  }
  absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state, int64_t next_fire_ms,
                                      int64_t now_ms) override {
    return hook_->Forward("SetJobState",
                          [&] { return inner_->SetJobState(job_id, state, next_fire_ms, now_ms); });
  }
  absl::StatusOr<uint32_t> RecordJobEnd(int64_t job_id, int64_t run_id, bool failed) override {
    return hook_->Forward("RecordJobEnd",
                          [&] { return inner_->RecordJobEnd(job_id, run_id, failed); });
  }
  absl::StatusOr<bool> PauseJob(int64_t job_id, std::string_view reason, int64_t now_ms) override {
    return hook_->Forward("PauseJob", [&] { return inner_->PauseJob(job_id, reason, now_ms); });
  }
  absl::StatusOr<std::vector<DueJob>> ListDueJobs(int64_t until_ms, int limit,
                                                  const std::vector<int>& partitions) override {
    return hook_->Forward("ListDueJobs",
                          [&] { return inner_->ListDueJobs(until_ms, limit, partitions); });
  }
  absl::StatusOr<std::vector<bool>> AdvanceJobs(const std::vector<JobAdvance>& advances) override {
    return hook_->Forward("AdvanceJobs", [&] { return inner_->AdvanceJobs(advances); });
  }
  absl::StatusOr<std::vector<JobCount>> CountJobs() override {
    return hook_->Forward("CountJobs", [&] { return inner_->CountJobs(); });
  }
  absl::StatusOr<int64_t> CountGroupJobs(int64_t group_id) override {
    return hook_->Forward("CountGroupJobs", [&] { return inner_->CountGroupJobs(group_id); });
  }
  absl::StatusOr<std::vector<v1::ScriptVersion>> ListScriptVersions(int64_t job_id,
                                                                    int64_t before_version,
                                                                    int limit) override {
    return hook_->Forward("ListScriptVersions", [&] {
      return inner_->ListScriptVersions(job_id, before_version, limit);
    });
  }
  absl::StatusOr<v1::ScriptVersion> GetScriptVersion(int64_t job_id, int64_t version) override {
    return hook_->Forward("GetScriptVersion",
                          [&] { return inner_->GetScriptVersion(job_id, version); });
  }

 private:
  JobStore* const inner_;
  StoreCallHook* const hook_;
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_JOB_STORE_H_
