// Runs to report on, for the log role's unit tests: a real SQLite store
// (TempStore) holding a group with a job, PENDING runs of that job, and the
// items an executor reports about them.
//
//   RunFixture f;
//   ASSERT_TRUE(f.status().ok()) << f.status();
//   int64_t run = f.AddRun(f.job(), 1000);
//   f.store()->ApplyReports({LogLines(run, 1, 3), Result(run, 200, 5000)}, f.group().id());
//
// Thread safety: as the store; set up on one thread.
#ifndef GNOMON_SERVICES_LOG_TESTING_RUN_FIXTURES_H_
#define GNOMON_SERVICES_LOG_TESTING_RUN_FIXTURES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gnomon/v1/log.pb.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::logsvc::testing {

class RunFixture {
 public:
  RunFixture() {
    status_ = store_.status();
    if (!status_.ok()) return;
    absl::StatusOr<v1::Group> g = store_.AddGroup("billing", "billing-token", 1);
    if (!g.ok()) {
      status_ = g.status();
      return;
    }
    group_ = *std::move(g);
    absl::StatusOr<v1::Job> j = AddJob(group_.id(), "report");
    if (!j.ok()) {
      status_ = j.status();
      return;
    }
    job_ = *std::move(j);
  }

  const absl::Status& status() const { return status_; }
  store::Store* store() const { return store_.get(); }
  const v1::Group& group() const { return group_; }
  const v1::Job& job() const { return job_; }

  // Another running cron job of group `group_id`.
  absl::StatusOr<v1::Job> AddJob(int64_t group_id, const std::string& handler) {
    v1::Job j;
    j.set_group_id(group_id);
    j.set_author("ops");
    j.mutable_schedule()->mutable_cron()->set_expression("0 * * * * ?");
    j.mutable_bean()->set_handler(handler);
    return store_->CreateJob(j, v1::JOB_STATE_RUNNING, 0, 1);
  }
  // A PENDING cron run of `job` for slot `slot_ms`; its id (0 after a test
  // failure).
  int64_t AddRun(const v1::Job& job, int64_t slot_ms) {
    v1::Run r;
    r.set_job_id(job.id());
    r.set_group_id(job.group_id());
    r.set_trigger_type(v1::TRIGGER_TYPE_CRON);
    *r.mutable_scheduled_time() =
        google::protobuf::util::TimeUtil::MillisecondsToTimestamp(slot_ms);
    *r.mutable_trigger_time() = r.scheduled_time();
    r.set_handler(job.bean().handler());
    r.set_shard_total(1);
    r.set_status(v1::RUN_STATUS_PENDING);
    std::vector<v1::Run> runs = {std::move(r)};
    absl::StatusOr<std::vector<store::RunInsertOutcome>> out = store_->InsertRuns(runs);
    if (!out.ok() || out->size() != 1 || !(*out)[0].inserted) {
      ADD_FAILURE() << "run of job " << job.id() << " at " << slot_ms
                    << " not inserted: " << (out.ok() ? absl::OkStatus() : out.status());
      return 0;
    }
    return (*out)[0].run_id;
  }

 private:
  store::testing::TempStore store_;
  absl::Status status_;
  v1::Group group_;
  v1::Job job_;
};

// What an executor reports: its handler started at `ms` ...
inline v1::ReportItem Started(int64_t run_id, int64_t ms) {
  v1::ReportItem r;
  r.mutable_started()->set_run_id(run_id);
  *r.mutable_started()->mutable_start_time() =
      google::protobuf::util::TimeUtil::MillisecondsToTimestamp(ms);
  return r;
}
// ... log lines `from`..`to` ("line N") ...
inline v1::ReportItem LogLines(int64_t run_id, int64_t from, int64_t to) {
  v1::ReportItem r;
  r.mutable_log()->set_run_id(run_id);
  for (int64_t n = from; n <= to; ++n) {
    v1::LogLine* line = r.mutable_log()->add_lines();
    line->set_line_number(n);
    line->mutable_time()->set_seconds(n);
    line->set_text(absl::StrCat("line ", n));
  }
  return r;
}
// ... and its result: handle code `code` (200: success), ended at `end_ms`.
inline v1::ReportItem Result(int64_t run_id, int32_t code, int64_t end_ms) {
  v1::ReportItem r;
  r.mutable_result()->set_run_id(run_id);
  r.mutable_result()->set_handle_code(code);
  *r.mutable_result()->mutable_end_time() =
      google::protobuf::util::TimeUtil::MillisecondsToTimestamp(end_ms);
  return r;
}

}  // namespace gnomon::logsvc::testing

#endif  // GNOMON_SERVICES_LOG_TESTING_RUN_FIXTURES_H_
