#include "tests/support/cluster_load.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::testing {
namespace {

using google::protobuf::util::TimeUtil;

bool Active(const v1::Run& r) {
  return r.status() == v1::RUN_STATUS_PENDING || r.status() == v1::RUN_STATUS_RUNNING;
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const SlotAudit& a) {
  out << a.slots << " slots: " << a.missing << " missing, " << a.repeated << " recorded twice, "
      << a.misfired << " misfired, " << a.not_succeeded << " not succeeded, " << a.retried
      << " retried, " << a.never_executed << " never executed; " << a.executed_twice
      << " runs executed twice";
  for (const auto& [why, n] : a.failures) out << "\n  " << n << " x " << why;
  return out;
}

ClusterLoad::ClusterLoad(GnomonCluster* cluster, std::string app)
    : cluster_(cluster), app_(std::move(app)) {}

bool ClusterLoad::Start(int executors) {
  if (!cluster_->CtlJson({"group", "create", app_}, &group_)) return false;
  for (int i = 0; i < executors; ++i) {
    const std::string dir = cluster_->dir();
    executors_.push_back({nullptr,
                          "",
                          {absl::StrCat("--invocations-file=", dir, "/invocations-", i),
                           absl::StrCat("--spool-dir=", dir, "/spool-", i),
                           absl::StrCat("--log-dir=", dir, "/logs-", i)}});
    if (!StartExecutor(i)) return false;
  }
  return AwaitExecutorsOnEveryReplica(executors);
}

bool ClusterLoad::StartExecutor(int i) {
  Executor& e = executors_[i];
  std::vector<std::string> flags = e.flags;
  if (!e.address.empty()) flags.push_back("--name=" + e.address);  // A restart keeps its name.
  e.process = cluster_->StartExecutor(app_, group_.access_token(), flags);
  std::optional<std::string> line = e.process->WaitForLine("started as", absl::Seconds(30));
  if (!line) {
    ADD_FAILURE() << "executor " << i << " did not start:\n" << e.process->Output();
    return false;
  }
  e.address = line->substr(line->rfind(' ') + 1);
  return true;
}

void ClusterLoad::StopExecutor(int i, int sig) {
  executors_[i].process->Kill(sig);
  executors_[i].process->Wait();
}

bool ClusterLoad::AwaitExecutorsOnEveryReplica(size_t n) {
  for (int i = 0; i < cluster_->replicas(); ++i) {
    if (!cluster_->running(i)) continue;
    auto registry = v1::Registry::NewStub(
        grpc::CreateChannel(cluster_->address(i), grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_->admin_token()));
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::WatchExecutorsRequest req;
    req.add_app_names(app_);
    auto watch = registry->WatchExecutors(&ctx, req);
    std::set<std::string> live;
    v1::WatchExecutorsResponse msg;
    while (live.size() < n && watch->Read(&msg)) {
      if (msg.has_snapshot()) {
        for (const v1::ExecutorInfo& e : msg.snapshot().executors()) live.insert(e.address());
      } else if (msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_LEFT) {
        live.erase(msg.change().executor().address());
      } else {
        live.insert(msg.change().executor().address());
      }
    }
    ctx.TryCancel();
    if (live.size() != n) {
      ADD_FAILURE() << "replica " << i << " sees " << live.size() << " executors, not " << n;
      return false;
    }
  }
  return true;
}

int64_t ClusterLoad::CreateJob(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {"job", "create", "--group", absl::StrCat(group_.id())};
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back("--start");
  v1::Job job;
  if (!cluster_->CtlJson(args, &job)) return 0;
  jobs_.push_back(job.id());
  return job.id();
}

void ClusterLoad::StopJobs() {
  for (int64_t id : jobs_) {
    CommandResult r = cluster_->Ctl({"job", "stop", absl::StrCat(id)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  stopped_ = absl::Now();
}

std::vector<v1::Run> ClusterLoad::Runs(int64_t job_id) const {
  v1::ListRunsResponse runs;
  EXPECT_TRUE(cluster_->CtlJson({"run", "list", "--job", absl::StrCat(job_id), "--limit", "100000"},
                                &runs));
  return {runs.runs().begin(), runs.runs().end()};
}

bool ClusterLoad::AwaitSettled(absl::Duration limit) const {
  const absl::Time deadline = absl::Now() + limit;
  // The pre-read interval (1 s) with a second's margin: by then no replica
  // fires a stopped job, so a run counted settled stays the last one.
  const absl::Time stop_reached = stopped_ + absl::Seconds(2);
  while (true) {
    bool active = absl::Now() < stop_reached;
    for (size_t j = 0; j < jobs_.size() && !active; ++j) {
      for (const v1::Run& r : Runs(jobs_[j])) active |= Active(r);
    }
    if (!active) return true;
    if (absl::Now() >= deadline) return false;
    cluster_->PollInterval(absl::Milliseconds(500));
  }
}

std::map<int64_t, int> ClusterLoad::Invocations() const {
  std::map<int64_t, int> count;
  for (const Executor& e : executors_) {
    std::ifstream in(e.flags[0].substr(e.flags[0].find('=') + 1));
    for (std::string line; std::getline(in, line);) {
      int64_t run_id = 0;
      if (absl::SimpleAtoi(line.substr(0, line.find(' ')), &run_id)) ++count[run_id];
    }
  }
  return count;
}

std::vector<Execution> ClusterLoad::Executions() const {
  std::vector<Execution> out;
  for (size_t i = 0; i < executors_.size(); ++i) {
    const std::string& flag = executors_[i].flags[0];
    std::ifstream in(flag.substr(flag.find('=') + 1));
    std::map<int64_t, size_t> open;  // Run id -> its invocation not ended yet.
    for (std::string line; std::getline(in, line);) {
      const std::vector<absl::string_view> f = absl::StrSplit(line, ' ');
      Execution e;
      if (f.size() == 3 && f[0] == "end") {  // "end run_id end_us"
        int64_t end_us = 0;
        auto it = absl::SimpleAtoi(f[1], &e.run_id) ? open.find(e.run_id) : open.end();
        if (it != open.end() && absl::SimpleAtoi(f[2], &end_us)) {
          out[it->second].end_us = end_us;
          open.erase(it);
        }
      } else if (f.size() >= 4 && absl::SimpleAtoi(f[0], &e.run_id) &&
                 absl::SimpleAtoi(f[3], &e.start_us)) {  // "run_id job_id attempt start_us"
        e.executor = static_cast<int>(i);
        open[e.run_id] = out.size();
        out.push_back(e);
      }
    }
  }
  return out;
}

SlotAudit ClusterLoad::Audit(int64_t period_ms) const {
  const std::map<int64_t, int> invoked = Invocations();
  auto calls = [&](int64_t run_id) {
    auto it = invoked.find(run_id);
    return it == invoked.end() ? 0 : it->second;
  };
  SlotAudit a;
  a.fewest_slots = std::numeric_limits<int>::max();
  a.earliest_last_slot_ms = std::numeric_limits<int64_t>::max();
  for (int64_t job : jobs_) {
    std::map<std::pair<int64_t, uint32_t>, std::vector<v1::Run>>
        firsts;                                        // (slot, shard) -> first attempts
    std::map<int64_t, std::vector<v1::Run>> attempts;  // first attempt's id -> all attempts
    uint32_t shards = 1;
    for (v1::Run& r : Runs(job)) {
      if (!r.has_scheduled_time()) continue;
      if (calls(r.id()) > 1) ++a.executed_twice;
      attempts[r.attempt() == 0 ? r.id() : r.first_run_id()].push_back(r);
      if (r.attempt() == 0) {
        shards = std::max(shards, r.shard_total());
        firsts[{TimeUtil::TimestampToMilliseconds(r.scheduled_time()), r.shard_index()}].push_back(
            std::move(r));
      }
    }
    if (firsts.empty()) {
      a.fewest_slots = 0;
      continue;
    }
    const int64_t first_slot = firsts.begin()->first.first,
                  last_slot = firsts.rbegin()->first.first;
    a.fewest_slots = std::min<int>(a.fewest_slots, (last_slot - first_slot) / period_ms + 1);
    a.earliest_last_slot_ms = std::min(a.earliest_last_slot_ms, last_slot);
    for (int64_t slot = first_slot; slot <= last_slot; slot += period_ms) {
      for (uint32_t shard = 0; shard < shards; ++shard) {
        ++a.slots;
        auto it = firsts.find({slot, shard});
        if (it == firsts.end()) {
          ++a.missing;
          continue;
        }
        if (it->second.size() > 1) ++a.repeated;
        const v1::Run& first = it->second.front();
        if (first.trigger_type() == v1::TRIGGER_TYPE_MISFIRE) ++a.misfired;
        const std::vector<v1::Run>& tries = attempts[first.id()];
        if (tries.size() > 1) ++a.retried;
        const v1::Run* last = &first;
        int executions = 0;
        for (const v1::Run& r : tries) {
          executions += calls(r.id());
          if (r.attempt() > last->attempt()) last = &r;
        }
        if (executions == 0) {
          ++a.never_executed;
          for (const v1::Run& r : tries) {
            ++a.failures[absl::StrCat(
                "never executed: run ", r.id(), " attempt ", r.attempt(), " ",
                v1::RunStatus_Name(r.status()), " type ", v1::TriggerType_Name(r.trigger_type()),
                " on ", r.executor_address(), " '", r.trigger_message(), "' ", r.handle_code(),
                " '", r.handle_message().substr(0, 80), "' start ", r.start_time().seconds(), ".",
                r.start_time().nanos() / 1000000, " end ", r.end_time().seconds(), ".",
                r.end_time().nanos() / 1000000)];
          }
        }
        if (last->status() != v1::RUN_STATUS_SUCCEEDED) {
          ++a.not_succeeded;
          ++a.failures[absl::StrCat(v1::RunStatus_Name(last->status()), " ", last->handle_code(),
                                    " ", last->handle_message().substr(0, 120))];
        }
      }
    }
  }
  return a;
}

std::vector<std::string> ClusterStoreFlags() {
  if (auto url = FreshMysqlUrl()) return {"--store=" + *url};
  return {};
}

}  // namespace gnomon::testing
