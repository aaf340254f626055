// Whole-system figures with real processes on loopback (gnomond with all
// roles and SQLite, sample executors), printed, never asserted:
//   1. kill -9 of an executor -> its removal from routing (WatchExecutors LEFT)
//   2. an executor's start -> its first routed run
//   3. registry CPU with N executors connected and beating
//   4. sustained end-to-end rate: fire -> noop handler ran -> result stored
//
//   cluster_bench [--quick]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon::bench {
namespace {

using google::protobuf::util::TimeUtil;
using testing::GnomonCluster;

std::string Percentiles(std::vector<double> v) {
  if (v.empty()) return "no samples";
  std::sort(v.begin(), v.end());
  auto at = [&](double p) { return v[std::min(v.size() - 1, size_t(p * v.size()))]; };
  return absl::StrCat("p50 ", at(0.5), " ms, p99 ", at(0.99), " ms, max ", v.back(), " ms (n=", v.size(), ")");
}

std::string AddressOf(testing::Subprocess* p) {
  auto line = p->WaitForLine("gnomon-sample-executor listening on", absl::Seconds(30));
  if (!line) return "";
  return std::string(absl::StripAsciiWhitespace(line->substr(line->rfind(' ') + 1)));
}

double CpuSeconds(pid_t pid) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/stat"));
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::istringstream in(s.substr(s.rfind(')') + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return double(utime + stime) / sysconf(_SC_CLK_TCK);
}

void RemovalAndFirstRun(GnomonCluster& c, const v1::Group& g, int rounds) {
  auto registry = v1::Registry::NewStub(grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(c.admin_token()));
  v1::WatchExecutorsRequest req;
  req.add_app_names(g.app_name());
  auto watch = registry->WatchExecutors(&ctx, req);
  v1::WatchExecutorsResponse msg;
  watch->Read(&msg);  // Snapshot.
  // A job firing every 100 ms, so a new executor's first run comes promptly.
  v1::Job job;
  c.CtlJson({"job", "create", "--group", absl::StrCat(g.id()), "--handler", "noop", "--every", "100ms",
             "--start"},
            &job);
  auto admin = v1::JobAdmin::NewStub(grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials()));
  std::vector<double> removal_ms, first_run_ms;
  for (int i = 0; i < rounds; ++i) {
    const absl::Time started = absl::Now();
    auto executor = c.StartExecutor(g.app_name(), g.access_token());
    const std::string address = AddressOf(executor.get());
    while (watch->Read(&msg) && !(msg.has_change() && msg.change().executor().address() == address &&
                                  msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_JOINED)) {
    }
    // First run dispatched to this executor (from the run records).
    for (int tries = 0; tries < 100; ++tries) {
      grpc::ClientContext lc;
      lc.AddMetadata(std::string(kAuthorizationKey), BearerValue(c.admin_token()));
      v1::ListRunsRequest lr;
      lr.set_job_id(job.id());
      lr.set_page_size(50);
      v1::ListRunsResponse runs;
      admin->ListRuns(&lc, lr, &runs);
      int64_t first = 0;
      for (const auto& r : runs.runs()) {
        if (r.executor_address() == address && r.has_dispatch_time()) {
          int64_t t = TimeUtil::TimestampToMilliseconds(r.dispatch_time());
          if (first == 0 || t < first) first = t;
        }
      }
      if (first != 0) {
        first_run_ms.push_back(double(first - absl::ToUnixMillis(started)));
        break;
      }
      absl::SleepFor(absl::Milliseconds(50));  // Polling the run records.
    }
    const absl::Time killed = absl::Now();
    executor->Kill(SIGKILL);
    while (watch->Read(&msg)) {
      if (msg.has_change() && msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_LEFT &&
          msg.change().executor().address() == address) {
        removal_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - killed));
        break;
      }
    }
    executor->Wait();
  }
  c.Ctl({"job", "stop", absl::StrCat(job.id())});
  ctx.TryCancel();
  std::printf("kill -9 -> removed from routing: %s\n", Percentiles(removal_ms).c_str());
  std::printf("executor start (process spawn) -> first routed run: %s\n", Percentiles(first_run_ms).c_str());
}

// N executor sessions, each a Session stream beating every 2 s, from this process.
void RegistryCpu(GnomonCluster& c, const v1::Group& g, int n, int seconds) {
  auto channel = grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials());
  auto registry = v1::Registry::NewStub(channel);
  struct Session {
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionRequest, v1::SessionResponse>> stream;
  };
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < n; ++i) {
    auto s = std::make_unique<Session>();
    s->ctx.AddMetadata(std::string(kAccessTokenKey), g.access_token());
    s->stream = registry->Session(&s->ctx);
    v1::SessionRequest reg;
    reg.mutable_register_()->set_app_name(g.app_name());
    reg.mutable_register_()->set_address(absl::StrCat("10.9.", i / 250, ".", i % 250, ":9999"));
    reg.mutable_register_()->add_handlers("noop");
    s->stream->Write(reg);
    v1::SessionResponse ack;
    s->stream->Read(&ack);
    sessions.push_back(std::move(s));
  }
  const double cpu0 = CpuSeconds(c.gnomond()->pid());
  const absl::Time t0 = absl::Now();
  for (int beat = 0; beat < seconds / 2; ++beat) {
    const absl::Time next = absl::Now() + absl::Seconds(2);
    for (auto& s : sessions) {
      v1::SessionRequest b;
      b.mutable_beat()->set_running_runs(0);
      s->stream->Write(b);
      v1::SessionResponse ack;
      s->stream->Read(&ack);
    }
    absl::SleepFor(next - absl::Now());  // The beat period itself.
  }
  const double cpu = CpuSeconds(c.gnomond()->pid()) - cpu0;
  const double wall = absl::ToDoubleSeconds(absl::Now() - t0);
  std::printf("registry with %d executors beating every 2 s: %.1f%% of one core (gnomond, all roles)\n", n,
              100 * cpu / wall);
  for (auto& s : sessions) s->ctx.TryCancel();
}

void EndToEndRate(GnomonCluster& c, const v1::Group& g, int fires_per_second, int seconds) {
  auto executor = c.StartExecutor(g.app_name(), g.access_token());
  AddressOf(executor.get());
  constexpr int kPeriodMs = 100;
  const int jobs = fires_per_second * kPeriodMs / 1000;
  std::vector<int64_t> ids;
  for (int i = 0; i < jobs; ++i) {
    v1::Job job;
    c.CtlJson({"job", "create", "--group", absl::StrCat(g.id()), "--handler", "noop", "--every",
               absl::StrCat(kPeriodMs, "ms")},
              &job);
    ids.push_back(job.id());
  }
  auto logsvc = v1::LogService::NewStub(grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials()));
  auto succeeded = [&] {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(c.admin_token()));
    v1::GetReportRequest req;
    *req.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(absl::ToUnixMillis(absl::Now()) - 86'400'000);
    *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(absl::ToUnixMillis(absl::Now()) + 86'400'000);
    v1::GetReportResponse resp;
    logsvc->GetReport(&ctx, req, &resp);
    int64_t n = 0;
    for (const auto& r : resp.rows()) n += r.succeeded();
    return n;
  };
  for (int64_t id : ids) c.Ctl({"job", "start", absl::StrCat(id)});
  absl::SleepFor(absl::Seconds(3));  // Warm-up.
  const int64_t n0 = succeeded();
  const double cpu0 = CpuSeconds(c.gnomond()->pid());
  const absl::Time t0 = absl::Now();
  absl::SleepFor(absl::Seconds(seconds));  // Measurement window.
  const int64_t n1 = succeeded();
  const double wall = absl::ToDoubleSeconds(absl::Now() - t0);
  const double cpu = CpuSeconds(c.gnomond()->pid()) - cpu0;
  for (int64_t id : ids) c.Ctl({"job", "stop", absl::StrCat(id)});
  std::printf("end to end at %d fires/s offered: %.0f runs/s stored as succeeded (gnomond %.0f%% CPU)\n",
              fires_per_second, (n1 - n0) / wall, 100 * cpu / wall);
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  using gnomon::bench::GnomonCluster;
  {
    GnomonCluster c;
    if (!c.Start()) return 1;
    gnomon::v1::Group g;
    c.CtlJson({"group", "create", "bench-registry"}, &g);
    gnomon::bench::RemovalAndFirstRun(c, g, quick ? 3 : 20);
    gnomon::bench::RegistryCpu(c, g, quick ? 100 : 1000, quick ? 4 : 20);
  }
  for (int rate : quick ? std::vector<int>{500} : std::vector<int>{1000, 3000, 10000}) {
    GnomonCluster c;
    if (!c.Start()) return 1;
    gnomon::v1::Group g;
    c.CtlJson({"group", "create", "bench-e2e"}, &g);
    gnomon::bench::EndToEndRate(c, g, rate, quick ? 5 : 15);
  }
}
