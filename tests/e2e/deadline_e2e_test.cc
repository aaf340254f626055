// Deadline alerts through real processes: a run still working when its job's
// deadline passes raises one webhook alarm saying so, is not killed (it ends
// SUCCEEDED after the alarm), carries its deadline; a run done in time
// raises nothing.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/testing/test_servers.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;
using scheduler::alarm::loopback::HttpServer;

// Triggers `job` with `params` until a run is recorded; its id.
int64_t Trigger(testing::GnomonCluster& cluster, const v1::Job& job, const std::string& params) {
  v1::TriggerJobResponse t;
  EXPECT_TRUE(cluster.CtlJson({"job", "trigger", absl::StrCat(job.id()), "--params", params}, &t));
  return t.run_ids_size() > 0 ? t.run_ids(0) : 0;
}

v1::Run GetRun(testing::GnomonCluster& cluster, int64_t id) {
  v1::GetRunResponse r;
  EXPECT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(id)}, &r));
  return r.run();
}

TEST(DeadlineE2E, ARunPastItsDeadlineAlarmsOnceAndRunsOnWhileOneInTimeIsQuiet) {
  HttpServer hook;
  testing::GnomonCluster cluster({"--alarm-webhook-allow=127.0.0.1"});
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "deadline-app"}, &group));
  auto executor = cluster.StartExecutor("deadline-app", group.access_token());
  ASSERT_TRUE(cluster.AwaitOnline(group.id(), 1)) << executor->Output();

  // "slow" sleeps its params in milliseconds; the deadline is 2 s after the trigger.
  v1::Job job;
  ASSERT_TRUE(
      cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler", "slow",
                       "--manual", "--deadline", "2s", "--alarm-webhook", hook.Url("/deadline")},
                      &job));
  ASSERT_EQ(TimeUtil::DurationToSeconds(job.deadline()), 2);

  // In time first (it ends before the slow one passes its deadline).
  const int64_t quick = Trigger(cluster, job, "10");
  ASSERT_NE(quick, 0);
  const int64_t slow = Trigger(cluster, job, "6000");
  ASSERT_NE(slow, 0);
  v1::Run run = GetRun(cluster, slow);
  ASSERT_TRUE(run.has_deadline_time());
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(run.deadline_time()) -
                TimeUtil::TimestampToMilliseconds(run.trigger_time()),
            2000);

  // The alarm comes while the run is still running.
  const absl::Time until = absl::Now() + absl::Seconds(30);
  while (hook.requests().empty() && absl::Now() < until) {
    cluster.PollInterval(absl::Milliseconds(100));
  }
  ASSERT_EQ(hook.requests().size(), 1u) << cluster.Output();
  const std::string body = hook.requests()[0].body;
  EXPECT_NE(body.find(absl::StrCat("\"run_id\":", slow)), std::string::npos) << body;
  EXPECT_NE(body.find("not done by its deadline"), std::string::npos) << body;
  EXPECT_NE(body.find("after its trigger): attempt 1 still running"), std::string::npos) << body;

  // Not killed: it ends SUCCEEDED, and nothing more is sent (the quick one
  // was in time; the slow one was judged once).
  while (run.status() != v1::RUN_STATUS_SUCCEEDED && absl::Now() < until) {
    cluster.PollInterval(absl::Milliseconds(200));
    run = GetRun(cluster, slow);
  }
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED) << run.ShortDebugString();
  EXPECT_EQ(GetRun(cluster, quick).status(), v1::RUN_STATUS_SUCCEEDED);
  cluster.PollInterval(absl::Seconds(2));
  EXPECT_EQ(hook.requests().size(), 1u);
}

}  // namespace
}  // namespace gnomon
