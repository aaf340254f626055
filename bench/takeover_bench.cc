// takeover_bench: how long a crashed replica's jobs wait for another one.
// Three gnomond replicas (all roles each) on a throwaway MariaDB, two sample
// executors, J FIX_RATE jobs every 100 ms (misfire CATCH_UP, so late slots
// are fired, not skipped) spread over all the partitions. K times: the replica
// holding the most partitions (lease table) is kill -9'ed, stays down, is
// restarted with the same --replica-id, and the partitions settle. Then the
// run table is read:
//
//   gap of a job      the time from the kill until the job's first run
//                     recorded after it (a slot recorded ahead by the dead
//                     replica does not count: the next one shows when a
//                     live replica took the job over); a kill's gap is the
//                     max (and p50) over the jobs of the partitions it held
//   first execution   the same, until the handler of such a run started
//   handback          after the restart, the latest a slot of the restarted
//                     replica's jobs was recorded after its instant
//   lost slots        slots (job, instant) of the window with no run
//   duplicates        slots with more than one run; runs executed twice
//                     (each executor appends every invocation to a file)
//
// Figures are printed, never asserted.
//
//   takeover_bench [--quick] [--jobs=256] [--period-ms=100] [--kills=20] [--down=5]
//                  [--settle=5] [--warmup=10] [--lease-ttl=DURATION] [--log-dir=DIR]
//
// --log-dir keeps every gnomond incarnation's output (DIR/gnomond-N.log),
// to see from the replicas' own lines what a figure came from.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "bench/admin_pass.h"
#include "bench/bench_args.h"
#include "bench/burst_deployment.h"
#include "bench/burst_figures.h"
#include "bench/partition_shares.h"
#include "bench/store_reader.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon::bench {
namespace {

using google::protobuf::util::TimeUtil;
using testing::ThrowawayMariadb;

struct Options {
  int jobs = 256;  // Job ids are consecutive: 4 per partition.
  int64_t period_ms = 100;
  int kills = 20;
  int down_seconds = 5;    // The killed replica stays down this long (past the lease TTL).
  int settle_seconds = 5;  // After its share is back, before the next kill.
  int warmup_seconds = 10;
  std::string lease_ttl;  // gnomond --lease-ttl; empty: its default.
  std::string log_dir;    // Empty: the replicas' output is not kept.
};

constexpr int kReplicas = 3;

int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

// One kill -9 and what followed it.
struct Kill {
  int replica = 0;
  std::vector<int> partitions;  // What it held when it was killed...
  int partition_count = 0;      // ...of how many.
  int64_t kill_ms = 0;
  int64_t restart_ms = 0;
  int64_t back_ms = -1;  // Its share held again (lease table), or -1.
};

// A schedule run (FIX_RATE or MISFIRE, first attempt).
struct RunRow {
  int64_t scheduled_ms, trigger_ms, start_ms, id, status;
};
constexpr int64_t kSucceeded = 3;  // RUN_STATUS_SUCCEEDED; PENDING 1 and RUNNING 2 before it

// Appends replica `i`'s output so far to DIR/gnomond-<i+1>.log.
void KeepLog(const BurstDeployment& d, int i, const Options& o) {
  if (o.log_dir.empty()) return;
  std::ofstream(absl::StrCat(o.log_dir, "/", BurstDeployment::ReplicaId(i), ".log"), std::ios::app)
      << d.replicas()[i]->Output();
}

// The lease table, polled until `done` holds for it or `limit` passes.
template <typename Done>
std::optional<PartitionHolders> AwaitHolders(StoreReader& reader, absl::Duration limit, Done done) {
  const absl::Time deadline = absl::Now() + limit;
  while (true) {
    absl::StatusOr<PartitionHolders> h = ReadPartitionHolders(reader, NowMs());
    if (h.ok() && done(*h)) return *std::move(h);
    if (absl::Now() > deadline) return std::nullopt;
    absl::SleepFor(absl::Milliseconds(100));  // Polling the lease table.
  }
}

// Every partition held, by all `replicas`.
bool Settled(const PartitionHolders& h, int replicas) {
  std::map<std::string, int> counts = h.Counts();
  return counts.count("") == 0 && static_cast<int>(counts.size()) == replicas;
}

// run id -> handler invocations on each executor, over the executors'
// invocation files ("run_id job_id attempt" per line).
std::map<int64_t, std::vector<int>> Invocations(const BurstDeployment& d, int executors) {
  std::map<int64_t, std::vector<int>> count;
  for (int i = 0; i < executors; ++i) {
    std::ifstream in(d.invocations_file(i));
    for (std::string line; std::getline(in, line);) {
      int64_t run_id = 0;
      if (!absl::SimpleAtoi(line.substr(0, line.find(' ')), &run_id)) continue;
      std::vector<int>& n = count[run_id];
      n.resize(executors);
      ++n[i];
    }
  }
  return count;
}

// The jobs, FIX_RATE every period_ms, late slots caught up rather than
// skipped; false (with a line saying why) when they could not be created.
bool CreateJobs(v1::JobAdmin::Stub& admin, const std::string& token, int64_t group_id,
                const Options& o) {
  CreatedJobs c = CreateJobsInBatches(
      admin, token, o.jobs, /*threads=*/1, absl::Seconds(120), [&](int i, v1::CreateJobRequest& r) {
        v1::Job* job = r.mutable_job();
        job->set_group_id(group_id);
        job->set_description(absl::StrCat("takeover ", i));
        *job->mutable_schedule()->mutable_fix_rate() =
            TimeUtil::MillisecondsToDuration(o.period_ms);
        job->mutable_misfire()->set_policy(v1::MISFIRE_POLICY_CATCH_UP);
        job->mutable_misfire()->set_max_catch_up(100000);
        job->mutable_bean()->set_handler("noop");
        job->set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
        r.set_start(true);
      });
  if (c.pass.error.ok() && c.created == o.jobs) return true;
  std::printf("FAILED: created %d of %d jobs: %s\n", c.created, o.jobs,
              c.pass.error.ToString().c_str());
  return false;
}

// Runs the kill loop; the kills it made (fewer after a failed restart).
std::vector<Kill> KillLoop(BurstDeployment& d, StoreReader& reader, const Options& o) {
  std::vector<Kill> kills;
  for (int k = 0; k < o.kills; ++k) {
    std::optional<PartitionHolders> h = AwaitHolders(
        reader, absl::Seconds(10), [](const PartitionHolders& h) { return Settled(h, kReplicas); });
    if (!h) {
      std::printf(
          "NOTE: kill %d: partitions not settled over %d replicas after 10 s; killing anyway\n",
          k + 1, kReplicas);
      h = ReadPartitionHolders(reader, NowMs()).value_or(PartitionHolders{});
    }
    Kill kill;
    for (int i = 1; i < kReplicas; ++i) {
      if (h->Held(BurstDeployment::ReplicaId(i)).size() >
          h->Held(BurstDeployment::ReplicaId(kill.replica)).size()) {
        kill.replica = i;
      }
    }
    const std::string id = BurstDeployment::ReplicaId(kill.replica);
    kill.partitions = h->Held(id);
    kill.partition_count = h->count();
    kill.kill_ms = NowMs();
    d.KillReplica(kill.replica, SIGKILL);
    KeepLog(d, kill.replica, o);
    absl::SleepFor(absl::Seconds(o.down_seconds));  // Down: the others take over.
    kill.restart_ms = NowMs();
    if (absl::Status s = d.StartReplica(kill.replica); !s.ok()) {
      std::printf("FAILED: restarting %s: %s\n", id.c_str(), s.ToString().c_str());
      kills.push_back(kill);
      break;
    }
    const size_t share = kill.partitions.size();
    if (AwaitHolders(reader, absl::Seconds(10),
                     [&](const PartitionHolders& h) { return h.Held(id).size() >= share; })) {
      kill.back_ms = NowMs();
    }
    std::printf(
        "kill %d: %s held %zu partitions; restarted after %.1f s; share back %s\n", k + 1,
        id.c_str(), share, (kill.restart_ms - kill.kill_ms) / 1000.0,
        kill.back_ms < 0
            ? "NOT within 10 s"
            : absl::StrCat((kill.back_ms - kill.restart_ms), " ms after the restart").c_str());
    kills.push_back(kill);
    absl::SleepFor(absl::Seconds(o.settle_seconds));  // Settle before the next kill.
  }
  return kills;
}

// What one kill cost the jobs of the partitions it took down.
struct KillFigures {
  std::vector<int64_t> record_gaps, start_gaps;  // Per job, ms.
  int jobs_without_run = 0;
  int64_t handback_ms = 0;  // Max lateness of the restarted replica's slots.
  int rescued = 0;          // Recorded before the kill, started > 0.5 s after it.
  int stranded = 0;         // Recorded before the kill, never started.
  // Runs of any job recorded while the replica was down / after its restart
  // (until the next kill) that ended unsuccessfully.
  int failed_while_down = 0, failed_after_restart = 0;
};

KillFigures Measure(const Kill& kill, const std::map<int64_t, std::vector<RunRow>>& runs,
                    int64_t handback_to_ms) {
  KillFigures f;
  const std::set<int> held(kill.partitions.begin(), kill.partitions.end());
  for (const auto& [job, rows] : runs) {
    for (const RunRow& r : rows) {
      if (r.status <= kSucceeded || r.trigger_ms < kill.kill_ms || r.trigger_ms >= handback_to_ms)
        continue;
      ++(r.trigger_ms < kill.restart_ms ? f.failed_while_down : f.failed_after_restart);
    }
    if (kill.partition_count == 0 || !held.count(store::PartitionOf(job, kill.partition_count)))
      continue;
    int64_t recorded = -1, started = -1;
    for (const RunRow& r : rows) {
      if (r.trigger_ms >= kill.kill_ms) {
        if (recorded < 0 || r.trigger_ms < recorded) recorded = r.trigger_ms;
        if (r.start_ms > 0 && (started < 0 || r.start_ms < started)) started = r.start_ms;
      } else if (r.scheduled_ms >= kill.kill_ms - 1000) {
        if (r.start_ms == 0) ++f.stranded;
        if (r.start_ms > kill.kill_ms + 500) ++f.rescued;
      }
      if (r.scheduled_ms >= kill.restart_ms && r.scheduled_ms < handback_to_ms) {
        f.handback_ms = std::max(f.handback_ms, r.trigger_ms - r.scheduled_ms);
      }
    }
    if (recorded < 0) {
      ++f.jobs_without_run;
      continue;
    }
    f.record_gaps.push_back(recorded - kill.kill_ms);
    if (started >= 0) f.start_gaps.push_back(started - kill.kill_ms);
  }
  std::sort(f.record_gaps.begin(), f.record_gaps.end());
  std::sort(f.start_gaps.begin(), f.start_gaps.end());
  return f;
}

std::string P50Max(const std::vector<int64_t>& sorted) {
  return sorted.empty() ? "-" : absl::StrCat(Quantile(sorted, 0.5), " / ", sorted.back());
}

int Run(const Options& o) {
  std::printf(
      "=== takeover_bench: %d replicas on MariaDB, 2 executors, %d FIX_RATE jobs every %lld ms "
      "(misfire CATCH_UP), %d kills, down %d s, settle %d s, lease TTL %s\n",
      kReplicas, o.jobs, static_cast<long long>(o.period_ms), o.kills, o.down_seconds,
      o.settle_seconds, o.lease_ttl.empty() ? "(gnomond's default)" : o.lease_ttl.c_str());
  absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> db = ThrowawayMariadb::Start();
  if (!db.ok()) {
    std::printf("%s: %s\n", absl::IsUnavailable(db.status()) ? "SKIPPED" : "FAILED",
                db.status().ToString().c_str());
    return 0;
  }
  const std::string database = "gnomon_takeover";
  BurstDeploymentOptions d_options;
  d_options.replicas = kReplicas;
  d_options.store_url = (*db)->Url(database);
  d_options.count_invocations = true;
  if (!o.lease_ttl.empty()) d_options.gnomond_flags.push_back("--lease-ttl=" + o.lease_ttl);
  absl::StatusOr<std::unique_ptr<BurstDeployment>> started = BurstDeployment::Start(d_options);
  if (!started.ok()) {
    std::printf("FAILED: %s\n", started.status().ToString().c_str());
    return 1;
  }
  BurstDeployment& d = **started;
  auto admin = v1::JobAdmin::NewStub(
      grpc::CreateChannel(d.addresses()[0], grpc::InsecureChannelCredentials()));
  absl::StatusOr<v1::Group> group =
      CreateGroup(*admin, d.admin_token(), "takeover", "takeover_bench");
  absl::Status executors =
      group.ok() ? d.StartExecutors(group->app_name(), group->access_token()) : group.status();
  if (!executors.ok()) {
    std::printf("FAILED: %s\n", executors.ToString().c_str());
    return 1;
  }
  if (!CreateJobs(*admin, d.admin_token(), group->id(), o)) return 1;
  std::unique_ptr<StoreReader> reader = MariadbStoreReader((*db)->socket(), database);
  absl::SleepFor(absl::Seconds(o.warmup_seconds));
  const int64_t window_from_ms = NowMs();
  const absl::StatusOr<PartitionHolders> before = ReadPartitionHolders(*reader, window_from_ms);

  const std::vector<Kill> kills = KillLoop(d, *reader, o);

  const int64_t window_to_ms = NowMs() - 2000;  // Every slot before it is recorded by now.
  absl::SleepFor(absl::Seconds(3));             // The last runs end and report.
  const absl::StatusOr<PartitionHolders> after = ReadPartitionHolders(*reader, NowMs());
  d.Stop();
  for (int i = 0; i < kReplicas; ++i) KeepLog(d, i, o);

  // Every schedule run of the window and of its last minute before.
  std::map<int64_t, std::vector<RunRow>> runs;  // job -> runs by scheduled instant
  absl::Status s = reader->ForEachRow(
      absl::StrCat("SELECT job_id, scheduled_ms, trigger_ms, start_ms, id, status FROM run WHERE "
                   "attempt = 0 AND "
                   "trigger_type IN (2, 8) AND trigger_ms >= ",
                   window_from_ms - 60000, " ORDER BY job_id, scheduled_ms"),
      [&](absl::Span<const absl::string_view> row) {
        if (row.size() < 6) return;
        runs[AsInt(row[0])].push_back(
            {AsInt(row[1]), AsInt(row[2]), AsInt(row[3]), AsInt(row[4]), AsInt(row[5])});
      });
  if (!s.ok()) {
    std::printf("FAILED: reading the run table: %s\n", s.ToString().c_str());
    return 1;
  }

  std::printf(
      "\n| kill | replica | partitions held | gap until recorded ms p50 / max | until a handler "
      "started ms "
      "p50 / max | jobs with no run after it | recorded before, started > 0.5 s after / never | "
      "handback: latest slot ms | failed, recorded while down / after the restart |\n"
      "|---|---|---|---|---|---|---|---|---|\n");
  std::vector<int64_t> kill_gaps, kill_start_gaps, job_gaps, handbacks;
  for (size_t k = 0; k < kills.size(); ++k) {
    const int64_t handback_to = k + 1 < kills.size() ? kills[k + 1].kill_ms : window_to_ms;
    const KillFigures f = Measure(kills[k], runs, handback_to);
    std::printf("| %zu | %s | %zu | %s | %s | %d | %d / %d | %lld | %d / %d |\n", k + 1,
                BurstDeployment::ReplicaId(kills[k].replica).c_str(), kills[k].partitions.size(),
                P50Max(f.record_gaps).c_str(), P50Max(f.start_gaps).c_str(), f.jobs_without_run,
                f.rescued, f.stranded, static_cast<long long>(f.handback_ms), f.failed_while_down,
                f.failed_after_restart);
    if (!f.record_gaps.empty()) kill_gaps.push_back(f.record_gaps.back());
    if (!f.start_gaps.empty()) kill_start_gaps.push_back(f.start_gaps.back());
    job_gaps.insert(job_gaps.end(), f.record_gaps.begin(), f.record_gaps.end());
    handbacks.push_back(f.handback_ms);
  }
  std::sort(kill_gaps.begin(), kill_gaps.end());
  std::sort(kill_start_gaps.begin(), kill_start_gaps.end());
  std::sort(job_gaps.begin(), job_gaps.end());
  std::sort(handbacks.begin(), handbacks.end());

  // Slots of the window: every instant on each job's grid from its first
  // slot in the window to its last.
  const std::map<int64_t, std::vector<int>> invoked = Invocations(d, 2);
  int64_t slots = 0, lost = 0, duplicate_slots = 0, off_grid = 0, executed_twice = 0,
          never_executed = 0;
  int64_t twice_on_two = 0;                  // Of executed_twice: on both executors.
  std::vector<int64_t> twice_ids, twice_at;  // The first few, and their slots' offsets from a kill.
  for (const auto& [job, rows] : runs) {
    std::map<int64_t, std::vector<int64_t>> by_slot;  // instant -> run ids
    for (const RunRow& r : rows) {
      if (r.scheduled_ms >= window_from_ms && r.scheduled_ms < window_to_ms)
        by_slot[r.scheduled_ms].push_back(r.id);
    }
    if (by_slot.empty()) continue;
    const int64_t first = by_slot.begin()->first, last = by_slot.rbegin()->first;
    const int64_t grid = (last - first) / o.period_ms + 1;
    int64_t on_grid = 0;
    slots += grid;
    for (const auto& [at, ids] : by_slot) {
      if ((at - first) % o.period_ms != 0) {
        ++off_grid;
      } else {
        ++on_grid;
      }
      if (ids.size() > 1) ++duplicate_slots;
      for (int64_t id : ids) {
        auto it = invoked.find(id);
        if (it == invoked.end()) {
          ++never_executed;
          continue;
        }
        const std::vector<int>& n = it->second;
        if (n[0] + n[1] < 2) continue;
        ++executed_twice;
        if (n[0] > 0 && n[1] > 0) ++twice_on_two;
        if (twice_ids.size() < 5) {
          twice_ids.push_back(id);
          int64_t since_kill = at - window_from_ms;
          for (const Kill& k : kills) {
            if (k.kill_ms <= at + 1000) since_kill = at - k.kill_ms;
          }
          twice_at.push_back(since_kill);
        }
      }
    }
    lost += grid - on_grid;
  }
  int moves = 0;
  if (before.ok() && after.ok()) {
    for (int p = 0; p < std::min(before->count(), after->count()); ++p)
      moves += static_cast<int>(after->epoch[p] - before->epoch[p]);
  }
  int partitions_killed = 0;
  for (const Kill& k : kills) partitions_killed += static_cast<int>(k.partitions.size());

  std::printf(
      "\nRESULT takeover: %zu kills, %d jobs x %lld ms, window %.0f s | gap until recorded, per "
      "kill (max "
      "over its jobs) p50 / max: %s ms | per job p50 / max: %s ms | until a handler started, per "
      "kill "
      "p50 / max: %s ms | handback after restart, latest slot p50 / max: %s ms | slots %lld: lost "
      "%lld, "
      "duplicate %lld (off-grid %lld), runs executed twice %lld, runs never executed %lld | "
      "partition "
      "holder changes %d (2 per partition killed when it stays down past the lease TTL: %d)\n",
      kills.size(), o.jobs, static_cast<long long>(o.period_ms),
      (window_to_ms - window_from_ms) / 1000.0, P50Max(kill_gaps).c_str(), P50Max(job_gaps).c_str(),
      P50Max(kill_start_gaps).c_str(), P50Max(handbacks).c_str(), static_cast<long long>(slots),
      static_cast<long long>(lost), static_cast<long long>(duplicate_slots),
      static_cast<long long>(off_grid), static_cast<long long>(executed_twice),
      static_cast<long long>(never_executed), moves, 2 * partitions_killed);
  if (executed_twice > 0) {
    std::printf("runs executed twice: %lld, of which on both executors %lld; e.g.:\n",
                static_cast<long long>(executed_twice), static_cast<long long>(twice_on_two));
    for (size_t i = 0; i < twice_ids.size(); ++i) {
      (void)reader->ForEachRow(
          absl::StrCat("SELECT id, job_id, trigger_ms - scheduled_ms, dispatch_ms - scheduled_ms, "
                       "executor_address, "
                       "fence_epoch, status, substr(trigger_message, 1, 300) FROM run WHERE id = ",
                       twice_ids[i]),
          [&](absl::Span<const absl::string_view> row) {
            std::printf("    slot %+lld ms from the kill before it: %s\n",
                        static_cast<long long>(twice_at[i]), absl::StrJoin(row, " | ").c_str());
          });
    }
  }
  absl::StatusOr<SlotOutcomes> out = ReadSlotOutcomes(*reader, window_from_ms, window_to_ms, 5000);
  if (out.ok()) {
    std::printf(
        "slot lateness ms p50/p99/max: recorded %s, handler started %s; misfire-policy runs %lld\n",
        Percentiles(out->record_lateness_ms).c_str(), Percentiles(out->start_lateness_ms).c_str(),
        static_cast<long long>(out->misfire_runs));
    for (const auto& [why, n] : out->unsuccessful) {
      std::printf("    not succeeded: %lld x %s\n", static_cast<long long>(n), why.c_str());
    }
  }
  return 0;
}

bool ParseArgs(int argc, char** argv, Options& o) {
  auto parse = [&](absl::string_view a) {
    if (a == "--quick") {
      o.jobs = 64;
      o.kills = 3;
      o.down_seconds = 3;
      o.settle_seconds = 3;
      o.warmup_seconds = 5;
      return true;
    }
    if (absl::ConsumePrefix(&a, "--jobs=")) return PositiveInt(a, o.jobs);
    if (absl::ConsumePrefix(&a, "--period-ms=")) {
      return absl::SimpleAtoi(a, &o.period_ms) && o.period_ms >= 100;
    }
    if (absl::ConsumePrefix(&a, "--kills=")) return PositiveInt(a, o.kills);
    if (absl::ConsumePrefix(&a, "--down=")) return PositiveInt(a, o.down_seconds);
    if (absl::ConsumePrefix(&a, "--settle=")) return PositiveInt(a, o.settle_seconds);
    if (absl::ConsumePrefix(&a, "--warmup=")) return PositiveInt(a, o.warmup_seconds);
    if (absl::ConsumePrefix(&a, "--lease-ttl=")) {
      o.lease_ttl = std::string(a);
      return !o.lease_ttl.empty();
    }
    if (absl::ConsumePrefix(&a, "--log-dir=")) {
      o.log_dir = std::string(a);
      return !o.log_dir.empty();
    }
    return false;
  };
  return ParseBenchArgs(
      argc, argv,
      "takeover_bench [--quick] [--jobs=256] [--period-ms=100] [--kills=20] [--down=5] "
      "[--settle=5] [--warmup=10] [--lease-ttl=DURATION] [--log-dir=DIR]",
      parse);
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Figures appear as they are measured.
  gnomon::bench::Options o;
  if (!gnomon::bench::ParseArgs(argc, argv, o)) return 2;
  return gnomon::bench::Run(o);
}
