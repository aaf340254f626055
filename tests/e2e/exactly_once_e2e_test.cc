// Exactly once per slot, through crashes: gnomond is kill -9'ed at random
// moments while fixed-rate jobs fire on a real executor, and restarted on the
// same store. Afterwards every slot of every job, from its first to its last,
// must have been fired exactly once: none twice (the slot key), none lost
// (slots missed while the scheduler was down fire late under CATCH_UP).
#include <signal.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int kJobs = 12;
constexpr int64_t kPeriodMs = 100;
constexpr int kCrashes = 5;

TEST(ExactlyOnceE2E, KillNineAtRandomMomentsNeitherRepeatsNorLosesASlot) {
  std::vector<std::string> flags = {"--lease-ttl=1s"};
  if (auto url = testing::FreshMysqlUrl()) flags.push_back("--store=" + *url);
  testing::GnomonCluster cluster(flags);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "once-app"}, &group));
  auto executor = cluster.StartExecutor("once-app", group.access_token());
  ASSERT_TRUE(executor->WaitForLine("started as", absl::Seconds(30))) << executor->Output();

  std::vector<int64_t> jobs;
  for (int i = 0; i < kJobs; ++i) {
    v1::Job job;
    ASSERT_TRUE(cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler",
                                 "demo", "--every", absl::StrCat(kPeriodMs, "ms"), "--misfire",
                                 "catch-up", "--max-catch-up", "100000", "--start"},
                                &job));
    jobs.push_back(job.id());
  }

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pause_ms(200, 1500);
  for (int crash = 0; crash < kCrashes; ++crash) {
    cluster.PollInterval(absl::Milliseconds(pause_ms(rng)));
    ASSERT_TRUE(cluster.Restart(SIGKILL)) << cluster.Output();
  }
  cluster.PollInterval(absl::Seconds(2));
  for (int64_t id : jobs) {
    testing::CommandResult r = cluster.Ctl({"job", "stop", absl::StrCat(id)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  for (int64_t id : jobs) {
    v1::ListRunsResponse runs;
    ASSERT_TRUE(
        cluster.CtlJson({"run", "list", "--job", absl::StrCat(id), "--limit", "100000"}, &runs));
    std::map<int64_t, int> fired;  // slot -> first attempts recorded for it
    for (const v1::Run& r : runs.runs()) {
      if (r.attempt() != 0 || !r.has_scheduled_time()) continue;
      ++fired[TimeUtil::TimestampToMilliseconds(r.scheduled_time())];
    }
    ASSERT_GE(fired.size(), 10u) << "job " << id << " barely ran";
    const int64_t first = fired.begin()->first;
    const int64_t last = fired.rbegin()->first;
    int missing = 0, repeated = 0;
    for (int64_t slot = first; slot <= last; slot += kPeriodMs) {
      auto it = fired.find(slot);
      if (it == fired.end()) {
        ++missing;
      } else if (it->second > 1) {
        ++repeated;
      }
    }
    EXPECT_EQ(missing, 0) << "job " << id << ": slots lost between " << first << " and " << last;
    EXPECT_EQ(repeated, 0) << "job " << id << ": slots fired twice";
    EXPECT_EQ(static_cast<int64_t>(fired.size()), (last - first) / kPeriodMs + 1)
        << "job " << id << ": a slot off the period grid";
  }
}

}  // namespace
}  // namespace gnomon
