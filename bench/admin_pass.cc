#include "bench/admin_pass.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::bench {

AdminPass RunAdminPass(const char* what, int n, int threads, absl::Duration budget,
                       const std::vector<char>* only,
                       const std::function<grpc::Status(int)>& call) {
  AdminPass pass;
  pass.done.assign(n, 0);
  absl::Mutex mu;
  std::atomic<bool> stop{false};
  std::atomic<int> finished{0};
  int running = threads;  // Guarded by mu.
  absl::Time last_done;   // Guarded by mu: when the last thread ran out of calls.
  const absl::Time t0 = absl::Now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::vector<int64_t> latency;
      for (int i = t; i < n && !stop.load(); i += threads) {
        if (only != nullptr && !(*only)[i]) continue;
        const absl::Time c0 = absl::Now();
        grpc::Status s = call(i);
        latency.push_back(absl::ToInt64Microseconds(absl::Now() - c0));
        if (s.ok()) {
          pass.done[i] = 1;
          ++finished;
        } else {
          stop = true;
          absl::MutexLock l(&mu);
          if (pass.error.ok())
            pass.error = absl::InternalError(absl::StrCat("call ", i, ": ", s.error_message()));
        }
      }
      absl::MutexLock l(&mu);
      pass.latency_us.insert(pass.latency_us.end(), latency.begin(), latency.end());
      last_done = absl::Now();
      --running;
    });
  }
  {
    absl::MutexLock l(&mu);
    auto all_done = [&running]() { return running == 0; };
    for (int tick = 1; !mu.AwaitWithTimeout(absl::Condition(&all_done), absl::Seconds(1)); ++tick) {
      if (tick % 30 == 0)
        std::printf("    ... %s: %d/%d after %d s\n", what, finished.load(), n, tick);
      if (absl::Now() - t0 > budget && !stop.exchange(true)) pass.over_budget = true;
    }
    pass.seconds = absl::ToDoubleSeconds(last_done - t0);
  }
  for (auto& t : pool) t.join();
  pass.succeeded = finished.load();
  return pass;
}

std::string LatencyMs(std::vector<int64_t> us) {
  if (us.empty()) return "-";
  std::sort(us.begin(), us.end());
  auto at = [&](double p) {
    return us[std::min(us.size() - 1, static_cast<size_t>(p * us.size()))] / 1000.0;
  };
  return absl::StrFormat("%.1f / %.1f / %.1f", at(0.5), at(0.99), us.back() / 1000.0);
}

void PrepareAdminCall(grpc::ClientContext& ctx, const std::string& token, absl::Duration deadline) {
  ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
}

absl::StatusOr<v1::Group> CreateGroup(v1::JobAdmin::Stub& admin, const std::string& token,
                                      const std::string& app, const std::string& title) {
  grpc::ClientContext ctx;
  PrepareAdminCall(ctx, token);
  v1::CreateGroupRequest req;
  req.mutable_group()->set_app_name(app);
  req.mutable_group()->set_title(title);
  v1::Group group;
  if (grpc::Status s = admin.CreateGroup(&ctx, req, &group); !s.ok()) {
    // gRPC's status codes are absl's.
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                        absl::StrCat("create group ", app, ": ", s.error_message()));
  }
  return group;
}

CreatedJobs CreateJobsInBatches(v1::JobAdmin::Stub& admin, const std::string& token, int jobs,
                                int threads, absl::Duration budget,
                                const std::function<void(int, v1::CreateJobRequest&)>& fill) {
  constexpr int kPerCall = 1000;
  CreatedJobs out;
  out.calls = (jobs + kPerCall - 1) / kPerCall;
  // Each call writes only its own entry: the ids it was given.
  std::vector<std::pair<int64_t, int64_t>> ids(out.calls, {0, 0});
  out.pass = RunAdminPass("created", out.calls, threads, budget, nullptr, [&](int call) {
    grpc::ClientContext ctx;
    PrepareAdminCall(ctx, token);
    v1::BatchCreateJobsRequest req;
    for (int i = call * kPerCall; i < std::min(jobs, (call + 1) * kPerCall); ++i)
      fill(i, *req.add_requests());
    v1::BatchCreateJobsResponse resp;
    grpc::Status s = admin.BatchCreateJobs(&ctx, req, &resp);
    for (const v1::Job& job : resp.jobs()) {
      ids[call].first = ids[call].first == 0 ? job.id() : std::min(ids[call].first, job.id());
      ids[call].second = std::max(ids[call].second, job.id());
    }
    return s;
  });
  for (int call = 0; call < out.calls; ++call) {
    if (!out.pass.done[call]) continue;
    out.created += std::min(jobs, (call + 1) * kPerCall) - call * kPerCall;
    out.min_id = out.min_id == 0 ? ids[call].first : std::min(out.min_id, ids[call].first);
    out.max_id = std::max(out.max_id, ids[call].second);
  }
  return out;
}

}  // namespace gnomon::bench
