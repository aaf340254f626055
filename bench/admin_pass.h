// Admin API calls from benchmarks: many calls over a few client threads, with
// progress and a budget, and jobs created through JobAdmin.BatchCreateJobs,
// 1,000 a call (the way a user provisions thousands of jobs).
//
//   auto admin = v1::JobAdmin::NewStub(channel);
//   CreatedJobs c = CreateJobsInBatches(*admin, token, 100000, /*threads=*/4, absl::Seconds(600),
//                                       [&](int i, v1::CreateJobRequest& r) { ... });
//   std::printf("%d jobs, %.0f jobs/s\n", c.created, c.created / c.pass.seconds);
//
// Thread safety: RunAdminPass calls `call` from its own threads; the rest is
// plain functions.
#ifndef GNOMON_BENCH_ADMIN_PASS_H_
#define GNOMON_BENCH_ADMIN_PASS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::bench {

// One pass of admin calls, on some client threads.
struct AdminPass {
  std::vector<char> done;  // Call i succeeded.
  int succeeded = 0;
  double seconds = 0;
  std::vector<int64_t> latency_us;  // Per call.
  absl::Status error;               // The first failure; the pass stops there.
  bool over_budget = false;         // Stopped after `budget`: the rest never called.
};

// Calls `call(i)` for each i in [0, n) with `only[i]` set (all when `only`
// is null) on `threads` threads. Prints progress every 30 s, so a slow server
// is seen, not mistaken for a hung bench, and stops issuing calls after `budget`.
AdminPass RunAdminPass(const char* what, int n, int threads, absl::Duration budget,
                       const std::vector<char>* only, const std::function<grpc::Status(int)>& call);

// Call latency in ms, "p50 / p99 / max".
std::string LatencyMs(std::vector<int64_t> us);

// Admin calls carry the admin token and a deadline (a stalled server fails
// the bench's step instead of hanging it).
void PrepareAdminCall(grpc::ClientContext& ctx, const std::string& token,
                      absl::Duration deadline = absl::Seconds(60));

// Creates the group of executors `app` (auto-registered), with its access token.
absl::StatusOr<v1::Group> CreateGroup(v1::JobAdmin::Stub& admin, const std::string& token,
                                      const std::string& app, const std::string& title);

// Jobs created by CreateJobsInBatches.
struct CreatedJobs {
  AdminPass pass;  // One call per 1,000 jobs.
  int created = 0;
  int calls = 0;
  int64_t min_id = 0, max_id = 0;  // Of the jobs created (0 when none).
};

// Creates `jobs` jobs with BatchCreateJobs, 1,000 a call, on `threads` client
// threads; `fill(i, request)` fills job i's request (the job and whether it
// starts). Stops at the first failed call or after `budget`.
CreatedJobs CreateJobsInBatches(v1::JobAdmin::Stub& admin, const std::string& token, int jobs,
                                int threads, absl::Duration budget,
                                const std::function<void(int, v1::CreateJobRequest&)>& fill);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_ADMIN_PASS_H_
