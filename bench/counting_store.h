// CountingStore: a Store that forwards to another and counts calls, so
// benchmarks can report store transactions per run. Every write method of
// the Store interface is one transaction in both backends.
//
//   CountingStore counting(real.get());
//   ... run the scheduler against &counting ...
//   counting.writes();
//
// Thread safety: as thread-safe as the wrapped store.
#ifndef GNOMON_BENCH_COUNTING_STORE_H_
#define GNOMON_BENCH_COUNTING_STORE_H_

#include <atomic>
#include <cstdint>

#include "services/common/store/store.h"

namespace gnomon::bench {

class CountingStore final : public store::Store {
 public:
  explicit CountingStore(store::Store* inner) : inner_(inner) {}
  uint64_t reads() const { return reads_.load(); }
  uint64_t writes() const { return writes_.load(); }

  absl::StatusOr<v1::Group> CreateGroup(const v1::Group& group, int64_t now_ms) override {
    ++writes_;
    return inner_->CreateGroup(group, now_ms);
  }
  absl::StatusOr<v1::Group> GetGroup(int64_t group_id) override {
    ++reads_;
    return inner_->GetGroup(group_id);
  }
  absl::StatusOr<v1::Group> GetGroupByApp(std::string_view app_name) override {
    ++reads_;
    return inner_->GetGroupByApp(app_name);
  }
  absl::StatusOr<std::vector<v1::Group>> ListGroups() override {
    ++reads_;
    return inner_->ListGroups();
  }
  absl::StatusOr<v1::Group> UpdateGroup(const v1::Group& group, int64_t now_ms) override {
    ++writes_;
    return inner_->UpdateGroup(group, now_ms);
  }
  absl::Status DeleteGroup(int64_t group_id) override {
    ++writes_;
    return inner_->DeleteGroup(group_id);
  }
  absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state, int64_t next_fire_ms, int64_t now_ms) override {
    ++writes_;
    return inner_->CreateJob(job, state, next_fire_ms, now_ms);
  }
  absl::StatusOr<std::vector<v1::Job>> CreateJobs(const std::vector<store::NewJob>& jobs,
                                                  int64_t now_ms) override {
    ++writes_;
    return inner_->CreateJobs(jobs, now_ms);
  }
  absl::StatusOr<v1::Job> GetJob(int64_t job_id) override {
    ++reads_;
    return inner_->GetJob(job_id);
  }
  absl::StatusOr<std::vector<v1::Job>> GetJobs(const std::vector<int64_t>& job_ids) override {
    ++reads_;
    return inner_->GetJobs(job_ids);
  }
  absl::StatusOr<std::vector<v1::Job>> ListJobs(int64_t group_id, int64_t after_id, int limit) override {
    ++reads_;
    return inner_->ListJobs(group_id, after_id, limit);
  }
  absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms, int64_t now_ms) override {
    ++writes_;
    return inner_->UpdateJob(job, next_fire_ms, now_ms);
  }
  absl::Status DeleteJob(int64_t job_id) override {
    ++writes_;
    return inner_->DeleteJob(job_id);
  }
  absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state, int64_t next_fire_ms, int64_t now_ms) override {
    ++writes_;
    return inner_->SetJobState(job_id, state, next_fire_ms, now_ms);
  }
  absl::StatusOr<std::vector<store::DueJob>> ListDueJobs(int64_t until_ms, int limit, const std::vector<int>& partitions) override {
    ++reads_;
    return inner_->ListDueJobs(until_ms, limit, partitions);
  }
  absl::StatusOr<std::vector<bool>> AdvanceJobs(const std::vector<store::JobAdvance>& advances) override {
    ++writes_;
    return inner_->AdvanceJobs(advances);
  }
  absl::StatusOr<std::vector<store::RunInsertOutcome>> InsertRuns(std::vector<v1::Run>& runs) override {
    ++writes_;
    return inner_->InsertRuns(runs);
  }
  absl::Status RecordDispatches(const std::vector<store::DispatchUpdate>& updates) override {
    ++writes_;
    return inner_->RecordDispatches(updates);
  }
  absl::StatusOr<std::vector<v1::ReportAck>> ApplyReports( const std::vector<v1::ReportItem>& items, int64_t group_id) override {
    ++writes_;
    return inner_->ApplyReports(items, group_id);
  }
  absl::StatusOr<v1::Run> GetRun(int64_t run_id) override {
    ++reads_;
    return inner_->GetRun(run_id);
  }
  absl::StatusOr<std::vector<v1::Run>> ListRuns(const store::RunFilter& filter) override {
    ++reads_;
    return inner_->ListRuns(filter);
  }
  absl::StatusOr<std::vector<v1::LogLine>> ReadRunLog(int64_t run_id, int64_t from_line, int limit) override {
    ++reads_;
    return inner_->ReadRunLog(run_id, from_line, limit);
  }
  absl::StatusOr<std::vector<v1::Run>> ListPendingFollowups(int limit, int64_t now_ms, const std::vector<int>& partitions) override {
    ++reads_;
    return inner_->ListPendingFollowups(limit, now_ms, partitions);
  }
  absl::Status CompleteFollowups(const std::vector<int64_t>& run_ids) override {
    ++writes_;
    return inner_->CompleteFollowups(run_ids);
  }
  absl::Status DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) override {
    ++writes_;
    return inner_->DeferFollowups(due);
  }
  absl::StatusOr<int64_t> FailRuns(const std::vector<int64_t>& run_ids, int32_t handle_code, std::string_view handle_message, int64_t now_ms) override {
    ++writes_;
    return inner_->FailRuns(run_ids, handle_code, handle_message, now_ms);
  }
  absl::StatusOr<std::vector<v1::Run>> ListActiveRunsOn(std::string_view address) override {
    ++reads_;
    return inner_->ListActiveRunsOn(address);
  }
  absl::StatusOr<std::vector<v1::ReportRow>> GetReport(int64_t from_day_ms, int64_t to_day_ms, int64_t job_id) override {
    ++reads_;
    return inner_->GetReport(from_day_ms, to_day_ms, job_id);
  }
  absl::StatusOr<int64_t> DeleteRunsEndedBefore(int64_t before_ms, int limit) override {
    ++writes_;
    return inner_->DeleteRunsEndedBefore(before_ms, limit);
  }
  absl::StatusOr<int64_t> TrimRunsPerJob(int64_t keep, int limit) override {
    ++writes_;
    return inner_->TrimRunsPerJob(keep, limit);
  }
  absl::Status UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms) override {
    ++writes_;
    return inner_->UpsertExecutor(info, now_ms);
  }
  absl::Status RemoveExecutor(std::string_view app_name, std::string_view address, int64_t register_ms) override {
    ++writes_;
    return inner_->RemoveExecutor(app_name, address, register_ms);
  }
  absl::StatusOr<std::vector<v1::ExecutorInfo>> ListExecutors() override {
    ++reads_;
    return inner_->ListExecutors();
  }
  absl::StatusOr<int64_t> PruneExecutors(int64_t before_ms) override {
    ++writes_;
    return inner_->PruneExecutors(before_ms);
  }
  absl::StatusOr<bool> HasAdminTokens() override {
    ++reads_;
    return inner_->HasAdminTokens();
  }
  absl::Status CreateAdminToken(std::string_view name, std::string_view sha256_hex, int64_t now_ms) override {
    ++writes_;
    return inner_->CreateAdminToken(name, sha256_hex, now_ms);
  }
  absl::StatusOr<std::string> FindAdminToken(std::string_view sha256_hex) override {
    ++reads_;
    return inner_->FindAdminToken(sha256_hex);
  }
  absl::StatusOr<store::Leases> AcquireLeases(const std::vector<std::string>& names, std::string_view holder, int64_t ttl_ms) override {
    ++writes_;
    return inner_->AcquireLeases(names, holder, ttl_ms);
  }
  absl::Status ReleaseLeases(const std::vector<std::string>& names, std::string_view holder) override {
    ++writes_;
    return inner_->ReleaseLeases(names, holder);
  }
  absl::Status DeleteExpiredLeases(const std::vector<std::string>& names, int64_t expired_before_ms) override {
    ++writes_;
    return inner_->DeleteExpiredLeases(names, expired_before_ms);
  }
  absl::Status Ping() override { return inner_->Ping(); }
  absl::StatusOr<store::Leases> ListLeases(std::string_view prefix) override {
    ++reads_;
    return inner_->ListLeases(prefix);
  }
  absl::Status RecordAlarmStatus(int64_t run_id, std::string_view status) override {
    ++writes_;
    return inner_->RecordAlarmStatus(run_id, status);
  }

 private:
  store::Store* const inner_;
  std::atomic<uint64_t> reads_{0};
  std::atomic<uint64_t> writes_{0};
};

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_COUNTING_STORE_H_
