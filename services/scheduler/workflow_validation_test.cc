#include "services/scheduler/workflow_validation.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::scheduler {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kNow = 1'800'000'000'000;

class WorkflowValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    for (const char* app : {"flows", "other"}) {
      absl::StatusOr<v1::Group> g = store_.AddGroup(app, "token", kNow);
      ASSERT_TRUE(g.ok()) << g.status();
      groups_.push_back(g->id());
      v1::Job j;
      j.set_group_id(g->id());
      j.mutable_bean()->set_handler("h");
      absl::StatusOr<v1::Job> job =
          store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
      ASSERT_TRUE(job.ok()) << job.status();
      jobs_.push_back(job->id());
    }
  }
  // extract -> load, both the first group's job.
  v1::Workflow Flow() {
    v1::Workflow w;
    w.set_group_id(groups_[0]);
    w.set_name("nightly");
    for (const char* n : {"extract", "load"}) {
      v1::WorkflowNode* node = w.add_nodes();
      node->set_name(n);
      node->set_job_id(jobs_[0]);
    }
    v1::WorkflowEdge* e = w.add_edges();
    e->set_from("extract");
    e->set_to("load");
    return w;
  }
  absl::Status Check(const v1::Workflow& w) { return ValidateWorkflow(w, {}, store_.get()); }

  store::testing::TempStore store_;
  std::vector<int64_t> groups_;
  std::vector<int64_t> jobs_;
};

TEST_F(WorkflowValidationTest, AWorkflowOfItsGroupsJobsIsAccepted) {
  EXPECT_TRUE(Check(Flow()).ok()) << Check(Flow());
}

TEST_F(WorkflowValidationTest, ItsOwnFieldsAreCheckedAndNamed) {
  v1::Workflow w = Flow();
  w.clear_name();
  EXPECT_THAT(Check(w).message(), HasSubstr("workflow.name"));
  w = Flow();
  w.set_params(std::string(64 * 1024 + 1, 'p'));
  EXPECT_THAT(Check(w).message(), HasSubstr("workflow.params"));
  w = Flow();
  w.mutable_schedule()->mutable_cron()->set_expression("not cron");
  EXPECT_THAT(Check(w).message(), HasSubstr("workflow.schedule"));
  w = Flow();
  w.set_state(static_cast<v1::WorkflowState>(7));
  EXPECT_EQ(Check(w).message(), "workflow.state: unknown value");
  w = Flow();
  w.clear_nodes();
  w.clear_edges();
  EXPECT_THAT(Check(w).message(), HasSubstr("workflow.nodes"));
}

TEST_F(WorkflowValidationTest, ItsGraphIsCheckedAgainstTheStoresJobs) {
  v1::Workflow w = Flow();
  w.mutable_nodes(1)->set_job_id(jobs_[1]);
  EXPECT_EQ(Check(w).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Check(w).message(),
            absl::StrCat("workflow.nodes[1].job_id: job ", jobs_[1], " is in group ", groups_[1],
                         ", not the workflow's group ", groups_[0]));
  w = Flow();
  w.mutable_nodes(1)->set_job_id(jobs_[1] + 100);
  EXPECT_EQ(Check(w).message(), absl::StrCat("workflow.nodes[1].job_id: no job ", jobs_[1] + 100));
  w = Flow();
  v1::WorkflowEdge* back = w.add_edges();
  back->set_from("load");
  back->set_to("extract");
  EXPECT_EQ(Check(w).message(), "workflow.edges: cycle extract -> load -> extract");
}

}  // namespace
}  // namespace gnomon::scheduler
