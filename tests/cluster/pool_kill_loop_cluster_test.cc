// A pool of 10 concurrency slots shared by 1,000 jobs that all fire on the
// same cron instants, on 3 gnomond replicas, while the busiest replica is
// kill -9'ed in a loop and restarted: never more than 10 handlers execute at
// once, across both executors; no run executes twice, none is lost or left
// queued; and once drained the pool holds no slot (a killed replica leaks
// none). Executions are measured on the executors' side: each handler
// invocation appends its run id and start instant to a file, and its end
// instant when it returns (one clock: same machine); a sweep over those
// instants gives how many overlapped. Runs on the throwaway MariaDB when
// GNOMON_TEST_MYSQL_URL is set (scripts/test sets it), else on a shared
// SQLite file.
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int kReplicas = 3;
constexpr int kJobs = 1000;
constexpr uint32_t kSlots = 10;
constexpr char kPool[] = "db";
constexpr int kHandlerMs = 120;  // The slow handler's sleep: the pool is the bottleneck.
constexpr int kPeriodS = 10;     // Every job fires on the same instants, this far apart
constexpr int kFires = 2;        // this many times (Job.start_time and end_time bound them).
constexpr int kLeadS = 5;        // From creating the jobs to their first instant.
constexpr int kKills = 4;

bool Active(v1::RunStatus s) {
  return s == v1::RUN_STATUS_QUEUED || s == v1::RUN_STATUS_PENDING || s == v1::RUN_STATUS_RUNNING;
}

// JobAdmin calls through the first running replica (the test thread kills
// and restarts replicas, so the one picked is up when called).
class Admin {
 public:
  explicit Admin(const testing::GnomonCluster* cluster) : cluster_(cluster) {}

  std::unique_ptr<v1::JobAdmin::Stub> Stub() const {
    int i = 0;
    while (i + 1 < cluster_->replicas() && !cluster_->running(i)) ++i;
    return v1::JobAdmin::NewStub(
        grpc::CreateChannel(cluster_->address(i), grpc::InsecureChannelCredentials()));
  }

  grpc::Status GetPool(v1::Pool* pool) const {
    v1::GetPoolRequest req;
    req.set_name(kPool);
    return Stub()->GetPool(cluster_->AdminContext().get(), req, pool);
  }

  // Every run of the group, by id; false (with a test failure) if a page
  // could not be read.
  bool Runs(int64_t group_id, std::map<int64_t, v1::Run>* out) const {
    out->clear();
    v1::ListRunsRequest req;
    req.set_group_id(group_id);
    req.set_page_size(1000);
    auto stub = Stub();
    do {
      v1::ListRunsResponse page;
      grpc::Status s = stub->ListRuns(cluster_->AdminContext(absl::Seconds(60)).get(), req, &page);
      if (!s.ok()) {
        ADD_FAILURE() << "ListRuns: " << s.error_message();
        return false;
      }
      for (const v1::Run& r : page.runs()) (*out)[r.id()] = r;
      req.set_page_token(page.next_page_token());
    } while (!req.page_token().empty());
    return true;
  }

 private:
  const testing::GnomonCluster* const cluster_;
};

// How many handler executions overlapped over time: the instants at which
// the count changed, each with the count from then on.
struct Concurrency {
  std::vector<std::pair<int64_t, int>> steps;  // (unix us, executing from then on)
  int max = 0;
  int64_t first_max_us = 0;
  int64_t at_max_us = 0;  // Time spent with `max` executing.

  // The count at `t_us`.
  int At(int64_t t_us) const {
    auto it = std::upper_bound(steps.begin(), steps.end(), std::make_pair(t_us, INT32_MAX));
    return it == steps.begin() ? 0 : std::prev(it)->second;
  }
  // The longest stretch of [from_us, to_us) with fewer than `level` executing.
  int64_t LongestBelow(int64_t from_us, int64_t to_us, int level) const {
    int64_t below_since = At(from_us) < level ? from_us : -1, longest = 0;
    for (auto it = std::upper_bound(steps.begin(), steps.end(), std::make_pair(from_us, INT32_MAX));
         it != steps.end() && it->first < to_us; ++it) {
      if (it->second >= level && below_since >= 0) {
        longest = std::max(longest, it->first - below_since);
        below_since = -1;
      } else if (it->second < level && below_since < 0) {
        below_since = it->first;
      }
    }
    if (below_since >= 0) longest = std::max(longest, to_us - below_since);
    return longest;
  }
  // The mean count over [from_us, to_us).
  double Mean(int64_t from_us, int64_t to_us) const {
    if (to_us <= from_us) return 0;
    double sum = 0;
    int64_t t = from_us;
    int n = At(from_us);
    for (auto it = std::upper_bound(steps.begin(), steps.end(), std::make_pair(from_us, INT32_MAX));
         it != steps.end() && it->first < to_us; ++it) {
      sum += static_cast<double>(n) * static_cast<double>(it->first - t);
      t = it->first;
      n = it->second;
    }
    sum += static_cast<double>(n) * static_cast<double>(to_us - t);
    return sum / static_cast<double>(to_us - from_us);
  }
};

Concurrency Sweep(const std::vector<testing::Execution>& executions) {
  std::vector<std::pair<int64_t, int>> events;  // (unix us, -1 end / +1 start)
  for (const testing::Execution& e : executions) {
    events.emplace_back(e.start_us, +1);
    // A handler that never returned counts as executing until the end.
    events.emplace_back(e.end_us != 0 ? e.end_us : std::numeric_limits<int64_t>::max(), -1);
  }
  std::sort(events.begin(), events.end());  // At one instant, ends before starts.
  Concurrency c;
  int n = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    n += events[i].second;
    if (i + 1 < events.size() && events[i + 1].first == events[i].first) continue;
    c.steps.emplace_back(events[i].first, n);
    if (n > c.max) {
      c.max = n;
      c.first_max_us = events[i].first;
    }
  }
  for (size_t i = 0; i + 1 < c.steps.size(); ++i) {
    if (c.steps[i].second == c.max) c.at_max_us += c.steps[i + 1].first - c.steps[i].first;
  }
  return c;
}

int64_t Percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// The end of the cluster's output, where a failure's story usually is.
std::string OutputTail(const testing::GnomonCluster& cluster, size_t chars = 60000) {
  const std::string out = cluster.Output();
  return out.size() <= chars ? out : "...\n" + out.substr(out.size() - chars);
}

TEST(PoolKillLoopClusterTest,
     APoolOf10SlotsNeverRunsMoreThan10AtOnceWhileTheBusiestReplicaIsKilledInALoop) {
  const absl::Time test_start = absl::Now();
  testing::GnomonCluster cluster(testing::ClusterStoreFlags(), kReplicas);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::ClusterLoad load(&cluster, "pool-app");
  ASSERT_TRUE(load.Start(2)) << cluster.Output();
  const Admin admin(&cluster);

  {
    v1::CreatePoolRequest req;
    req.mutable_pool()->set_name(kPool);
    req.mutable_pool()->set_slots(kSlots);
    v1::Pool pool;
    grpc::Status s = admin.Stub()->CreatePool(cluster.AdminContext().get(), req, &pool);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }

  // Every job fires on the same kFires instants: `S/P * * * * ?` from the
  // first one (P divides 60, so they are P apart across minutes too), the
  // job's start and end times keeping exactly those.
  static_assert(60 % kPeriodS == 0);
  const int64_t first_s = absl::ToUnixSeconds(absl::Now()) + kLeadS;
  const int64_t last_s = first_s + (kFires - 1) * kPeriodS;
  const std::string cron = absl::StrCat(first_s % kPeriodS, "/", kPeriodS, " * * * * ?");
  {
    v1::BatchCreateJobsRequest batch;
    for (int i = 0; i < kJobs; ++i) {
      v1::CreateJobRequest* r = batch.add_requests();
      r->set_start(true);
      v1::Job* job = r->mutable_job();
      job->set_group_id(load.group().id());
      job->set_name(absl::StrCat("pooled-", i));
      job->mutable_schedule()->mutable_cron()->set_expression(cron);
      *job->mutable_start_time() = TimeUtil::SecondsToTimestamp(first_s);
      *job->mutable_end_time() = TimeUtil::SecondsToTimestamp(last_s + 1);
      job->mutable_bean()->set_handler("slow");
      job->set_params(absl::StrCat(kHandlerMs));
      job->set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
      job->set_pool(kPool);
      job->set_priority(i % 5 - 2);  // Some priorities above others, as users have.
    }
    const absl::Time t = absl::Now();
    v1::BatchCreateJobsResponse created;
    grpc::Status s = admin.Stub()->BatchCreateJobs(cluster.AdminContext(absl::Seconds(60)).get(),
                                                   batch, &created);
    ASSERT_TRUE(s.ok()) << s.error_message();
    ASSERT_EQ(created.jobs_size(), kJobs);
    std::cout << kJobs << " jobs created in " << absl::Now() - t << ", firing on '" << cron << "' "
              << kFires << " times from " << absl::FromUnixSeconds(first_s) << std::endl;
  }

  // The first burst queues 1,000 runs: load the kill loop onto a saturated pool.
  const absl::Time saturate_by = absl::FromUnixSeconds(first_s) + absl::Seconds(30);
  for (v1::Pool pool;;) {
    grpc::Status s = admin.GetPool(&pool);
    ASSERT_TRUE(s.ok()) << s.error_message();
    if (pool.running() >= kSlots) break;
    ASSERT_LT(absl::Now(), saturate_by)
        << "the pool never got busy: " << pool.DebugString() << OutputTail(cluster);
    cluster.PollInterval(absl::Milliseconds(100));
  }

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> load_ms(1000, 3000);
  std::uniform_int_distribution<int> down_ms(0, 1000);
  std::vector<int64_t> kill_us;
  for (int kill = 0; kill < kKills; ++kill) {
    cluster.PollInterval(absl::Milliseconds(load_ms(rng)));  // Load between kills.
    int busiest = 0;
    for (int i = 1; i < kReplicas; ++i) {
      if (cluster.HeldPartitions(i) > cluster.HeldPartitions(busiest)) busiest = i;
    }
    kill_us.push_back(absl::ToUnixMicros(absl::Now()));
    cluster.Stop(busiest, SIGKILL);
    cluster.PollInterval(absl::Milliseconds(down_ms(rng)));  // Down for a while.
    ASSERT_TRUE(cluster.StartReplica(busiest)) << OutputTail(cluster);
    std::cout << "kill " << kill + 1 << ": replica " << busiest << " at +"
              << absl::FromUnixMicros(kill_us.back()) - absl::FromUnixSeconds(first_s)
              << " after the first instant, back after "
              << absl::Now() - absl::FromUnixMicros(kill_us.back()) << std::endl;
  }
  const absl::Time loop_end = absl::Now();

  // Drain: every run of both bursts recorded and ended. Bounded: 2,000 runs
  // through 10 slots of ~0.2 s each take well under this.
  std::map<int64_t, v1::Run> runs;
  const absl::Time settle_by = absl::Now() + absl::Seconds(120);
  for (int active = -1, fired = -1;;) {
    v1::Pool pool;
    grpc::Status s = admin.GetPool(&pool);
    ASSERT_TRUE(s.ok()) << s.error_message();
    if (pool.queued() == 0 && absl::Now() > absl::FromUnixSeconds(last_s + 2)) {
      ASSERT_TRUE(admin.Runs(load.group().id(), &runs));
      active = fired = 0;
      for (const auto& [id, r] : runs) {
        active += Active(r.status()) ? 1 : 0;
        fired += r.attempt() == 0 && r.has_scheduled_time() ? 1 : 0;
      }
      if (active == 0 && fired >= kJobs * kFires) break;
    }
    if (absl::Now() >= settle_by) {
      ADD_FAILURE() << "not drained after 120 s: " << active << " runs active, " << fired
                    << " fires recorded of " << kJobs * kFires << ", pool "
                    << pool.ShortDebugString();
      break;
    }
    cluster.PollInterval(absl::Milliseconds(500));
  }
  const absl::Time drained = absl::Now();

  // The store's side: every run of the jobs, how it ended.
  ASSERT_TRUE(admin.Runs(load.group().id(), &runs));
  std::map<std::string, int> failures;               // Failed runs by code and message.
  std::map<std::pair<int64_t, int64_t>, int> fires;  // (job, slot ms) -> first attempts
  int failed = 0, lost = 0, misfired = 0, not_pooled = 0;
  int64_t last_lost_end_ms = 0;
  std::vector<int64_t> queue_wait_ms;
  std::vector<std::string> still_active;
  for (const auto& [id, r] : runs) {
    if (Active(r.status())) {
      still_active.push_back(absl::StrCat("run ", id, " ", v1::RunStatus_Name(r.status())));
    }
    if (r.pool() != kPool) ++not_pooled;
    if (r.trigger_type() == v1::TRIGGER_TYPE_MISFIRE) ++misfired;
    if (r.attempt() == 0 && r.has_scheduled_time()) {
      ++fires[{r.job_id(), TimeUtil::TimestampToMilliseconds(r.scheduled_time())}];
    }
    if (r.has_queued_time() && r.has_trigger_time()) {
      queue_wait_ms.push_back(TimeUtil::TimestampToMilliseconds(r.trigger_time()) -
                              TimeUtil::TimestampToMilliseconds(r.queued_time()));
    }
    if (r.status() == v1::RUN_STATUS_FAILED) {
      ++failed;
      ++failures[absl::StrCat(r.handle_code(), " '", r.handle_message().substr(0, 100), "'")];
      if (r.handle_code() == v1::HANDLE_CODE_EXECUTOR_LOST) {
        ++lost;
        last_lost_end_ms =
            std::max(last_lost_end_ms, TimeUtil::TimestampToMilliseconds(r.end_time()));
      }
    }
  }
  // Each job's kFires instants, each recorded once.
  int repeated = 0;
  std::map<int64_t, int> slots_of;  // job -> slots recorded
  for (const auto& [key, n] : fires) {
    ++slots_of[key.first];
    if (n > 1) ++repeated;
  }
  int missing = 0;
  for (const auto& [job, n] : slots_of) {
    EXPECT_LE(n, kFires) << "job " << job << " fired slots beyond its end time";
    missing += std::max(0, kFires - n);
  }
  missing += (kJobs - static_cast<int>(slots_of.size())) * kFires;

  // The executors' side: each invocation's start and end.
  const std::vector<testing::Execution> executions = load.Executions();
  std::map<int64_t, std::vector<const testing::Execution*>> by_run;
  int unended = 0;
  for (const testing::Execution& e : executions) {
    by_run[e.run_id].push_back(&e);
    unended += e.end_us == 0 ? 1 : 0;
  }
  std::vector<std::string> twice, unknown, wrong;
  for (const auto& [id, calls] : by_run) {
    if (calls.size() > 1) {
      std::string line = absl::StrCat("run ", id, ":");
      for (const testing::Execution* e : calls) {
        absl::StrAppend(&line, " [executor ", e->executor, " ", e->start_us, "..", e->end_us, "]");
      }
      twice.push_back(line);
    }
    if (runs.count(id) == 0) unknown.push_back(absl::StrCat(id));
  }
  for (const auto& [id, r] : runs) {
    const auto it = by_run.find(id);
    const size_t calls = it == by_run.end() ? 0 : it->second.size();
    // Succeeded: executed once. Failed: with a reason, executed at most once.
    const bool ok =
        r.status() == v1::RUN_STATUS_SUCCEEDED
            ? calls == 1
            : r.status() == v1::RUN_STATUS_FAILED && calls <= 1 && !r.handle_message().empty();
    if (!ok) {
      wrong.push_back(absl::StrCat("run ", id, " job ", r.job_id(), " ",
                                   v1::RunStatus_Name(r.status()), " ", r.handle_code(), " '",
                                   r.handle_message(), "' executed ", calls, " times"));
    }
  }

  const Concurrency conc = Sweep(executions);
  const int64_t first_start_us = executions.empty() ? 0 : conc.steps.front().first;
  int64_t last_end_us = 0;
  for (const testing::Execution& e : executions) last_end_us = std::max(last_end_us, e.end_us);

  std::cout << "runs recorded " << runs.size() << " (" << misfired << " misfired), executed "
            << by_run.size() << " (" << executions.size() << " handler invocations, " << unended
            << " never returned)\n"
            << "max concurrent " << conc.max << " (first at +"
            << absl::FromUnixMicros(conc.first_max_us) - absl::FromUnixSeconds(first_s)
            << "), at it "
            << (last_end_us > first_start_us ? 100 * conc.at_max_us / (last_end_us - first_start_us)
                                             : 0)
            << "% of the time from the first start to the last end ("
            << absl::Microseconds(last_end_us - first_start_us) << "), "
            << conc.Mean(first_start_us, last_end_us) << " executing on average\n"
            << "kills " << kill_us.size() << "; runs failed " << failed << ", as executor lost "
            << lost << "\n"
            << "queue wait p50 " << Percentile(queue_wait_ms, 0.5) << " ms, p99 "
            << Percentile(queue_wait_ms, 0.99) << " ms, max " << Percentile(queue_wait_ms, 1.0)
            << " ms over " << queue_wait_ms.size() << " runs\n"
            << "kill loop ended +" << loop_end - absl::FromUnixSeconds(first_s)
            << " after the first instant, drained +" << drained - absl::FromUnixSeconds(first_s)
            << "\n";
  {
    // Share of the time from the first start to the last end with n executing.
    std::vector<int64_t> at(conc.max + 1);
    for (size_t i = 0; i + 1 < conc.steps.size(); ++i) {
      at[std::max(0, conc.steps[i].second)] += conc.steps[i + 1].first - conc.steps[i].first;
    }
    std::cout << "time with n executing:";
    for (size_t n = 0; n < at.size(); ++n) {
      std::cout << " " << n << ":"
                << 100 * at[n] / std::max<int64_t>(1, last_end_us - first_start_us) << "%";
    }
    std::cout << "\n";
  }
  for (const auto& [why, n] : failures) std::cout << "  failed " << n << " x " << why << "\n";
  const int full = static_cast<int>(kSlots);
  if (!kill_us.empty()) {
    std::cout << "  before the first kill: below full for "
              << absl::Microseconds(conc.LongestBelow(first_start_us, kill_us[0], full))
              << " at most\n";
  }
  for (size_t k = 0; k < kill_us.size(); ++k) {
    // When the pool was full again after the kill (0: it was then), and the
    // longest it stayed below full within 5 s (the granting cycle alone
    // leaves it below full for a fraction of each handler's length).
    const int64_t t = kill_us[k], window_end = t + 5'000'000;
    int64_t full_us = -1;
    for (auto it = std::lower_bound(conc.steps.begin(), conc.steps.end(), std::make_pair(t, 0));
         it != conc.steps.end() && full_us < 0; ++it) {
      if (it->second >= full) full_us = it->first;
    }
    if (conc.At(t) >= full) full_us = t;
    std::cout << "  kill " << k + 1 << ": " << conc.At(t) << " executing then, full again "
              << (full_us < 0 ? std::string("never")
                              : absl::FormatDuration(absl::Microseconds(full_us - t)))
              << " after it; within 5 s below full for "
              << absl::Microseconds(conc.LongestBelow(t, window_end, full)) << " at most, "
              << conc.Mean(t, window_end) << " executing on average\n";
  }
  std::cout << std::flush;

  // 1. Never more than the pool's slots at once, and the pool was full.
  if (conc.max > static_cast<int>(kSlots)) {
    // The runs executing at the first such instant: the executor's and the store's view.
    std::string overlap;
    for (const testing::Execution& e : executions) {
      if (e.start_us > conc.first_max_us || (e.end_us != 0 && e.end_us <= conc.first_max_us)) {
        continue;
      }
      absl::StrAppend(&overlap, "\n  run ", e.run_id, " on executor ", e.executor, " from ",
                      absl::FormatTime(absl::FromUnixMicros(e.start_us)), " to ",
                      absl::FormatTime(absl::FromUnixMicros(e.end_us)));
      if (auto it = runs.find(e.run_id); it != runs.end()) {
        const v1::Run& r = it->second;
        absl::StrAppend(&overlap, "; stored: job ", r.job_id(), " ", v1::RunStatus_Name(r.status()),
                        " queued ", TimeUtil::ToString(r.queued_time()), " let go ",
                        TimeUtil::ToString(r.trigger_time()), " ended ",
                        TimeUtil::ToString(r.end_time()), " on ", r.executor_address(), " code ",
                        r.handle_code(), " '", r.handle_message(), "'");
      }
    }
    ADD_FAILURE() << conc.max << " handlers at once, more than the pool's " << kSlots
                  << " slots, first at " << absl::FromUnixMicros(conc.first_max_us) << ":"
                  << overlap << "\n"
                  << OutputTail(cluster);
  }
  EXPECT_EQ(conc.max, static_cast<int>(kSlots)) << "the pool was never saturated";
  // 2. Every fire recorded once; every run executed once, or failed with a
  // reason; nothing left queued.
  EXPECT_EQ(missing, 0) << "fires never recorded";
  EXPECT_EQ(repeated, 0) << "fires recorded more than once";
  EXPECT_EQ(not_pooled, 0) << "runs recorded without the job's pool";
  EXPECT_EQ(unended, 0) << "handlers that never returned";
  EXPECT_TRUE(twice.empty()) << twice.size() << " runs executed twice, e.g. " << twice.front();
  EXPECT_TRUE(unknown.empty()) << unknown.size() << " executions of runs the store lacks, e.g. "
                               << unknown.front();
  EXPECT_TRUE(still_active.empty())
      << still_active.size() << " runs still active, e.g. " << still_active.front();
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " runs not executed once nor failed, e.g. "
                             << wrong.front();

  // 3. No slot held once drained: a run failed as executor lost keeps its
  // slot a minute after its end (kLostRunSlotHoldMs), no other holds one.
  const absl::Time hold_ends =
      std::max(absl::Now(), absl::FromUnixMillis(last_lost_end_ms) + absl::Seconds(62));
  v1::Pool pool;
  while (true) {
    grpc::Status s = admin.GetPool(&pool);
    ASSERT_TRUE(s.ok()) << s.error_message();
    if (pool.running() == 0 && pool.queued() == 0) break;
    if (absl::Now() >= hold_ends) break;
    cluster.PollInterval(absl::Milliseconds(500));
  }
  std::cout << "pool after the drain (+" << absl::Now() - drained << "): running " << pool.running()
            << ", queued " << pool.queued() << "; test took " << absl::Now() - test_start
            << std::endl;
  if (pool.running() != 0 || pool.queued() != 0) {
    v1::ListPoolQueueRequest req;
    req.set_name(kPool);
    v1::ListPoolQueueResponse queue;
    grpc::Status s = admin.Stub()->ListPoolQueue(cluster.AdminContext().get(), req, &queue);
    ADD_FAILURE() << "slots leaked: " << pool.DebugString() << "\n"
                  << (s.ok() ? queue.DebugString() : s.error_message()) << "\n"
                  << OutputTail(cluster);
  }
}

}  // namespace
}  // namespace gnomon
