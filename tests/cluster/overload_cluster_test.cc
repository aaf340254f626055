// More work than the store can take, on purpose, then less again: two
// replicas on a MariaDB server of this test's own, 20,000 distinct jobs due
// on every second of a 20 s window (cron with the window's date and year, so
// the load stops by itself) — far past what two cores write — beside 100 jobs
// due every second throughout. What users rely on must hold all the same:
//   * no live replica loses a partition (fencing epochs unchanged);
//   * no run is failed while its executor is alive and connected (none is);
//   * every run an executor executed is recorded with its true outcome
//     (SUCCEEDED), and none ran twice;
//   * every slot is accounted for: a run, or a slot its job's misfire policy
//     passed over (gnomon_scheduler_slots_skipped_total), none twice;
//   * the backlog drains: every run ends, and each replica says it is on
//     time again (it said it was behind: one log line per edge).
// Figures (runs, skipped slots, how long the backlog took) are printed, not
// asserted. Runs in the MariaDB mode only (ctest label cluster).
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/subprocess.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon {
namespace {

constexpr int kReplicas = 2;
constexpr int kBurstJobs = 20000;
constexpr int kSteadyJobs = 100;
constexpr int kWindowSeconds = 20;
constexpr char kDatabase[] = "gnomon_overload";

// Rows of `sql` on the test's server, tab-separated columns.
std::vector<std::vector<std::string>> Query(testing::ThrowawayMariadb& db, const std::string& sql) {
  testing::CommandResult r =
      testing::RunCommand({"/usr/bin/mariadb", "--no-defaults", "--socket=" + db.socket(), "-uroot",
                           "-N", "-B", "-e", sql, kDatabase});
  EXPECT_EQ(r.exit_code, 0) << sql << ": " << r.err;
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    rows.push_back(absl::StrSplit(line, '\t'));
  }
  return rows;
}

int64_t QueryInt(testing::ThrowawayMariadb& db, const std::string& sql) {
  std::vector<std::vector<std::string>> rows = Query(db, sql);
  int64_t v = 0;
  if (!rows.empty() && !rows[0].empty()) EXPECT_TRUE(absl::SimpleAtoi(rows[0][0], &v)) << sql;
  return v;
}

// A metric's value summed over its series in a /metrics page.
double Sum(const std::string& page, const std::string& name) {
  double sum = 0;
  for (absl::string_view line : absl::StrSplit(page, '\n')) {
    if (!absl::StartsWith(line, name)) continue;
    const absl::string_view rest = line.substr(name.size());
    if (rest.empty() || (rest[0] != ' ' && rest[0] != '{')) continue;
    double v = 0;
    if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &v)) sum += v;
  }
  return sum;
}

// Creates `n` started jobs of `group_id` with `cron`, 1,000 per call. The
// burst's jobs: half skip the slots they miss, half fire the oldest missed
// one once; the steady ones catch every missed slot up (so every slot they
// miss is run, and the skipped slots are all the burst's).
void CreateJobs(const testing::GnomonCluster& cluster, int64_t group_id, int n,
                const std::string& cron, const std::string& prefix, bool steady) {
  auto admin = v1::JobAdmin::NewStub(
      grpc::CreateChannel(cluster.address(0), grpc::InsecureChannelCredentials()));
  for (int begin = 0; begin < n; begin += 1000) {
    v1::BatchCreateJobsRequest req;
    for (int i = begin; i < std::min(n, begin + 1000); ++i) {
      v1::CreateJobRequest* c = req.add_requests();
      v1::Job* job = c->mutable_job();
      job->set_group_id(group_id);
      job->set_name(absl::StrCat(prefix, i));
      job->mutable_schedule()->mutable_cron()->set_expression(cron);
      job->mutable_bean()->set_handler("noop");
      job->set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
      v1::Misfire* misfire = job->mutable_misfire();
      if (steady) {
        misfire->set_policy(v1::MISFIRE_POLICY_CATCH_UP);
        misfire->set_max_catch_up(1'000'000);
      } else {
        misfire->set_policy(i % 2 == 0 ? v1::MISFIRE_POLICY_DO_NOTHING
                                       : v1::MISFIRE_POLICY_FIRE_ONCE_NOW);
      }
      c->set_start(true);
    }
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster.admin_token()));
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(120));
    v1::BatchCreateJobsResponse resp;
    const grpc::Status s = admin->BatchCreateJobs(&ctx, req, &resp);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
}

// The whole seconds [start, start + kWindowSeconds) of one minute, as a
// Quartz cron with its date and year: due then, never again.
std::string WindowCron(absl::Time start) {
  const absl::CivilSecond c = absl::ToCivilSecond(start, absl::UTCTimeZone());
  return absl::StrCat(c.second(), "-", c.second() + kWindowSeconds - 1, " ", c.minute(), " ",
                      c.hour(), " ", c.day(), " ", c.month(), " ? ", c.year());
}

TEST(OverloadClusterTest, PastTheStoresCapacityOnlyLatenessGrowsAndEverySlotIsAccountedFor) {
  testing::PrivateMariadb m = testing::StartPrivateMariadb();
  if (!m.skip.empty()) GTEST_SKIP() << m.skip;
  ASSERT_TRUE(m.status.ok()) << m.status;
  testing::ThrowawayMariadb& db = *m.db;
  testing::GnomonCluster cluster({"--store=" + db.Url(kDatabase), "--metrics-listen=127.0.0.1:0"},
                                 kReplicas);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::ClusterLoad load(&cluster);
  ASSERT_TRUE(load.Start(2)) << cluster.Output();
  const v1::Group& group = load.group();

  // The window starts 25 s from now (after the jobs are created), within one minute.
  absl::Time start = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) + 25);
  const int64_t second = absl::ToCivilSecond(start, absl::UTCTimeZone()).second();
  if (second + kWindowSeconds > 60) start += absl::Seconds(60 - second);
  const int64_t start_ms = absl::ToUnixMillis(start);
  const int64_t end_ms = start_ms + kWindowSeconds * 1000;
  ASSERT_NO_FATAL_FAILURE(
      CreateJobs(cluster, group.id(), kSteadyJobs, "* * * * * ?", "steady-", true));
  ASSERT_NO_FATAL_FAILURE(
      CreateJobs(cluster, group.id(), kBurstJobs, WindowCron(start), "burst-", false));
  ASSERT_LT(absl::Now(), start) << "creating the jobs took past the window's start";
  ASSERT_TRUE(cluster.AwaitPartitionsShared(absl::Seconds(30))) << cluster.Output();
  const std::string epochs_sql =
      "SELECT name, holder, epoch FROM lease WHERE name LIKE 'partition/%' ORDER BY name";
  const std::vector<std::vector<std::string>> epochs_before = Query(db, epochs_sql);

  // The window, then until every slot of it has been dealt with (each burst
  // job's cursor is past its last: -1, never) and every run has ended (bounded).
  const absl::Time settle_by = start + absl::Seconds(kWindowSeconds + 240);
  int64_t unfinished = -1;
  do {
    cluster.PollInterval(absl::Seconds(2));
    if (absl::Now() < start + absl::Seconds(kWindowSeconds)) continue;
    unfinished = QueryInt(db,
                          "SELECT COUNT(*) FROM job WHERE name LIKE 'burst-%' AND next_fire_ms "
                          "<> -1") +
                 QueryInt(db, "SELECT COUNT(*) FROM run WHERE status IN (1, 2)");
  } while (unfinished != 0 && absl::Now() < settle_by);
  const absl::Duration drained = absl::Now() - (start + absl::Seconds(kWindowSeconds));
  ASSERT_EQ(unfinished, 0) << "slots not yet dealt with or runs not ended " << drained
                           << " after the window";
  // The steady jobs stop too, so executions and runs are counted at rest.
  for (const auto& row : Query(db, "SELECT id FROM job WHERE name LIKE 'steady-%'")) {
    const testing::CommandResult stopped = cluster.Ctl({"job", "stop", row[0]});
    ASSERT_EQ(stopped.exit_code, 0) << stopped.err;
  }
  do {
    cluster.PollInterval(absl::Seconds(1));
    unfinished = QueryInt(db, "SELECT COUNT(*) FROM run WHERE status IN (1, 2)");
  } while (unfinished != 0 && absl::Now() < settle_by);
  ASSERT_EQ(unfinished, 0) << "runs of the steady jobs not ended";
  // Each replica says it is on time again (it checks every second, 5 in a row).
  std::vector<std::string> metrics;
  for (int i = 0; i < kReplicas; ++i) {
    std::optional<std::string> url =
        cluster.gnomond(i)->WaitForLine("metrics on http://", absl::ZeroDuration());
    ASSERT_TRUE(url) << cluster.Output();
    const std::string base(absl::StripAsciiWhitespace(url->substr(url->find("http://"))));
    std::optional<std::string> page;
    for (int tries = 0; tries < 30; ++tries) {
      page = testing::HttpGet(base);
      if (page && Sum(*page, "gnomon_overloaded") == 0) break;
      cluster.PollInterval(absl::Seconds(1));
    }
    ASSERT_TRUE(page) << "replica " << i << ": no /metrics";
    metrics.push_back(*page);
  }
  const std::vector<std::vector<std::string>> epochs_after = Query(db, epochs_sql);

  // It was overloaded, and said so once per edge, not per run.
  int behind_lines = 0, on_time_lines = 0, overload_lines = 0;
  for (int i = 0; i < kReplicas; ++i) {
    const std::string out = cluster.gnomond(i)->Output();
    for (absl::string_view line : absl::StrSplit(out, '\n')) {
      if (absl::StrContains(line, "overload: behind")) ++behind_lines;
      if (absl::StrContains(line, "overload: on time again")) ++on_time_lines;
      if (absl::StrContains(line, "overload:")) ++overload_lines;
    }
    EXPECT_EQ(Sum(metrics[i], "gnomon_overloaded"), 0) << "replica " << i << " still behind";
  }
  EXPECT_GT(behind_lines, 0) << "no replica fell behind: the load did not exceed the store";
  EXPECT_EQ(on_time_lines, behind_lines) << cluster.Output();
  EXPECT_LE(overload_lines, 20);

  // No live replica lost a partition: the same holders, the same epochs.
  EXPECT_EQ(epochs_after, epochs_before) << "a partition changed hands under load";

  // No verdict its executor contradicts: nothing failed (the executors never left).
  const std::vector<std::vector<std::string>> outcomes = Query(
      db,
      "SELECT status, handle_code, LEFT(handle_message, 80), COUNT(*) FROM run GROUP BY 1, 2, 3");
  int64_t runs = 0, succeeded = 0;
  for (const auto& row : outcomes) {
    int64_t n = 0;
    ASSERT_TRUE(absl::SimpleAtoi(row.back(), &n));
    runs += n;
    if (row[0] == std::to_string(v1::RUN_STATUS_SUCCEEDED)) {
      succeeded += n;
    } else {
      ADD_FAILURE() << n << " runs ended " << absl::StrJoin(row, " ");
    }
  }
  // Every execution recorded with its outcome, none twice.
  const std::map<int64_t, int> invoked = load.Invocations();
  int64_t twice = 0;
  for (const auto& [run, n] : invoked) twice += n > 1;
  EXPECT_EQ(twice, 0) << "runs executed more than once";
  EXPECT_EQ(static_cast<int64_t>(invoked.size()), succeeded)
      << "executions and successful runs differ";

  // Every slot of the window accounted for: a run, or skipped by its policy.
  const std::string in_window = absl::StrCat(
      " FROM run r JOIN job j ON j.id = r.job_id WHERE j.name LIKE 'burst-%' AND r.scheduled_ms "
      ">= ",
      start_ms, " AND r.scheduled_ms < ", end_ms);
  const int64_t burst_runs = QueryInt(db, "SELECT COUNT(*)" + in_window);
  const int64_t distinct_slots =
      QueryInt(db, "SELECT COUNT(DISTINCT r.job_id, r.scheduled_ms)" + in_window);
  double skipped = 0;
  for (const std::string& page : metrics)
    skipped += Sum(page, "gnomon_scheduler_slots_skipped_total");
  const int64_t slots = int64_t{kBurstJobs} * kWindowSeconds;
  EXPECT_EQ(burst_runs, distinct_slots) << "a slot has two runs";
  EXPECT_EQ(burst_runs + static_cast<int64_t>(skipped), slots)
      << burst_runs << " runs + " << skipped << " skipped slots != " << slots << " slots; "
      << "runs per job by policy (DO_NOTHING 0, FIRE_ONCE_NOW 1): "
      << absl::StrJoin(
             Query(db, absl::StrCat("SELECT CAST(SUBSTRING(j.name, 7) AS SIGNED) % 2 AS p,"
                                    " COUNT(*), COUNT(DISTINCT r.job_id),"
                                    " SUM(r.trigger_type = ",
                                    v1::TRIGGER_TYPE_MISFIRE, ")", in_window, " GROUP BY p")),
             "; ", [](std::string* out, const std::vector<std::string>& row) {
               absl::StrAppend(out, absl::StrJoin(row, " "));
             });

  if (getenv("OVERLOAD_DEBUG")) {
    for (const auto& row :
         Query(db, absl::StrCat("SELECT n, COUNT(*) FROM (SELECT r.job_id, COUNT(*) n", in_window,
                                " GROUP BY r.job_id) x GROUP BY n")))
      std::printf("runs/job %s\n", absl::StrJoin(row, " x ").c_str());
    for (const auto& row : Query(
             db, absl::StrCat("SELECT r.job_id, j.name, GROUP_CONCAT((r.scheduled_ms - ", start_ms,
                              ") DIV 1000, ':', r.trigger_type ORDER BY r.scheduled_ms)", in_window,
                              " GROUP BY r.job_id ORDER BY COUNT(*) LIMIT 5")))
      std::printf("job %s\n", absl::StrJoin(row, " ").c_str());
    for (int i = 0; i < kReplicas; ++i) {
      for (absl::string_view line : absl::StrSplit(cluster.gnomond(i)->Output(), '\n')) {
        if (absl::StrContains(line, "misfire") || absl::StrContains(line, "failed") ||
            absl::StrContains(line, "overload") || absl::StrContains(line, "pre-read"))
          std::printf("r%d %s\n", i, std::string(line).c_str());
      }
    }
  }
  std::printf(
      "overload: %d jobs due every second for %d s beside %d steady ones; %lld runs in all, %lld "
      "of the window's %lld slots run and %.0f skipped by policy; every run ended %.1f s after "
      "the window\n",
      kBurstJobs, kWindowSeconds, kSteadyJobs, static_cast<long long>(runs),
      static_cast<long long>(burst_runs), static_cast<long long>(slots), skipped,
      absl::ToDoubleSeconds(drained));
}

}  // namespace
}  // namespace gnomon
