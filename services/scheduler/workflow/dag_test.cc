#include "services/scheduler/workflow/dag.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/scheduler/workflow/testing/regional.h"

namespace gnomon::scheduler::workflow {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kGroup = 2;

// Jobs 1..99 are in group 2, 100..199 in group 3; there are no others.
std::optional<int64_t> GroupOf(int64_t job) {
  if (job >= 1 && job < 100) return kGroup;
  if (job >= 100 && job < 200) return 3;
  return std::nullopt;
}

using testing::Regional;

absl::Status Check(const Dag& d) { return Validate(d, kGroup, GroupOf); }

TEST(DagTest, AWorkflowOfJobsOfItsGroupWithConditionsIsAccepted) {
  EXPECT_TRUE(Check(Regional()).ok()) << Check(Regional());
}

TEST(DagTest, ACycleIsRefusedAndNamed) {
  Dag d = Regional();
  d.edges.push_back({"publish", "extract_us"});
  const absl::Status s = Check(d);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(s.message()),
            "edges: cycle merge -> has_rows -> publish -> extract_us -> merge");
}

TEST(DagTest, AnUnknownJobOrOneOfAnotherGroupIsRefusedWithTheFieldNamed) {
  Dag d = Regional();
  d.nodes[1].job_id = 500;
  EXPECT_EQ(Check(d).message(), "nodes[1].job_id: no job 500");
  d.nodes[1].job_id = 117;
  EXPECT_EQ(Check(d).message(),
            "nodes[1].job_id: job 117 is in group 3, not the workflow's group 2");
}

TEST(DagTest, EdgesMustNameNodesOnceAndNeverTheSameNodeTwice) {
  Dag d = Regional();
  d.edges[2].to = "mergee";
  EXPECT_EQ(Check(d).message(), "edges[2].to: no node \"mergee\"");
  d = Regional();
  d.edges[0].from = "merge";
  d.edges[0].to = "merge";
  EXPECT_THAT(Check(d).message(), HasSubstr("edges[0]: \"merge\" cannot wait for itself"));
  d = Regional();
  d.edges.push_back({"extract_eu", "merge", When::kCompletion});
  EXPECT_THAT(Check(d).message(), HasSubstr("edges[6]: a second edge from \"extract_eu\""));
}

TEST(DagTest, NodeNamesAreUniqueAndEachNodeIsAJobOrACondition) {
  Dag d = Regional();
  d.nodes[2].name = "extract_eu";
  EXPECT_EQ(Check(d).message(), "nodes[2].name: \"extract_eu\" names two nodes");
  d = Regional();
  d.nodes[0].name = "";
  EXPECT_THAT(Check(d).message(), HasSubstr("nodes[0].name"));
  d = Regional();
  d.nodes[0].name = std::string(65, 'x');
  EXPECT_THAT(Check(d).message(), HasSubstr("nodes[0].name"));
  EXPECT_THAT(Check(d).message(), ::testing::Not(HasSubstr(std::string(65, 'x'))));
  d = Regional();
  d.nodes[4].job_id = 7;  // A condition that is also a job.
  EXPECT_THAT(Check(d).message(), HasSubstr("nodes[4]: a node is either a job"));
}

TEST(DagTest, BranchesLeaveConditionsOnlyAndAConditionTestsExactlyOneParent) {
  Dag d = Regional();
  d.edges[5].when = When::kTrue;  // merge is not a condition.
  EXPECT_THAT(Check(d).message(), HasSubstr("edges[5].when: only an edge from a condition"));
  d = Regional();
  d.edges[4].when = When::kSuccess;
  EXPECT_THAT(Check(d).message(), HasSubstr("edges[4].when: an edge from a condition"));
  d = Regional();
  d.edges.push_back({"extract_eu", "has_rows"});
  EXPECT_THAT(Check(d).message(), HasSubstr("needs exactly one parent"));
}

TEST(DagTest, AnEmptyWorkflowIsRefused) { EXPECT_THAT(Check(Dag{}).message(), HasSubstr("nodes")); }

TEST(DagTest, ConditionsCompareNumbersAsNumbersAndTextAsText) {
  EXPECT_TRUE(Holds({Subject::kOutput, Op::kGt, "0"}, 200, "12"));
  EXPECT_FALSE(Holds({Subject::kOutput, Op::kGt, "0"}, 200, "0"));
  EXPECT_FALSE(Holds({Subject::kOutput, Op::kGt, "0"}, 200, "many"));
  EXPECT_TRUE(Holds({Subject::kOutput, Op::kEq, "1.0"}, 200, "1"));
  EXPECT_TRUE(Holds({Subject::kOutput, Op::kEq, "ok"}, 200, "ok"));
  EXPECT_TRUE(Holds({Subject::kHandleCode, Op::kNe, "200"}, 500, ""));
  EXPECT_TRUE(Holds({Subject::kHandleCode, Op::kLt, "300"}, 200, ""));
  EXPECT_TRUE(Holds({Subject::kOutput, Op::kContains, "rows"}, 200, "42 rows"));
  EXPECT_FALSE(Holds({Subject::kOutput, Op::kNonEmpty, ""}, 200, ""));
}

}  // namespace
}  // namespace gnomon::scheduler::workflow
