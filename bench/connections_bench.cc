// connections_bench: what connected executors cost one gnomond — its threads,
// resident memory and idle CPU with N executors connected and beating.
//
// One real gnomond (all roles, SQLite in a temp dir) and one group. The bench
// process then plays N executors, each connecting exactly as a real one does
// (docs/executor-protocol.md), with nothing to run:
//   * Registry.Session: Register{app_name, address="bench-exec-<i>",
//     instance_id, capacity, handlers=["noop"], answers_probes=true}, then an
//     idle Beat every Registered.beat_interval from its registration (so the
//     executors are not in step); gnomond runs with --beat-interval=2s, its
//     default;
//   * Dispatch.Connect: reads Welcome, sends Hello{app_name, executor,
//     instance_id}; would refuse runs and answer calls (none come: no jobs);
//   * LogService.ReportResults: opened and kept open, nothing sent (an
//     executor with an empty spool).
// All three carry x-gnomon-app and x-gnomon-access-token. The streams use
// gRPC's callback client API (a handful of gRPC threads in this process,
// however large N is), spread over --channels channels, each its own TCP
// connection (GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL); an executor's three
// streams share its channel. Default: one connection per 32 executors (~96
// streams each), since a real executor has a connection of its own.
//
// Printed: gnomond's threads, VmRSS (total and anon) and CPU over --window
// idle seconds before connecting (baseline) and with all N connected, the
// difference per executor, and per stream kind how many were opened, became
// ready (Registered; Hello written) and ended (with their status: refusals
// such as RESOURCE_EXHAUSTED are counted, not fatal). gnomond runs with
// --max-executors-per-app=N+10 so the registry's limit is not what is
// measured. --no-report leaves ReportResults out (Session + Connect alone).
// Figures are printed, never asserted (RESULT line at the end).
//
//   source scripts/lib.sh &&
//     configure_and_build build/bench RelWithDebInfo -- connections_bench gnomond gnomonctl
//   build/bench/bench/connections_bench [--executors=2000] [--channels=N/32] [--no-report]
//                                       [--settle=5] [--window=10] [--beat-interval=2s]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/bench_args.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/executor.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/proc_stats.h"

namespace gnomon::bench {
namespace {

using google::protobuf::util::TimeUtil;
using testing::GnomonCluster;

struct BenchOptions {
  int executors = 2000;
  int channels = 0;  // 0: one per 32 executors.
  bool report = true;
  int settle_seconds = 5;
  int window_seconds = 10;
  // gnomond's --beat-interval: its default (GnomonCluster's 500ms suits tests).
  std::string beat_interval = "2s";
};

// What happened to the streams of one kind.
class StreamCounts {
 public:
  explicit StreamCounts(std::string name) : name_(std::move(name)) {}
  void Opened() { opened_.fetch_add(1); }
  void Ready() { ready_.fetch_add(1); }
  void Ended(const grpc::Status& s) {
    absl::MutexLock l(&mu_);
    ++ended_;
    std::string why = absl::StatusCodeToString(static_cast<absl::StatusCode>(s.error_code()));
    if (!s.error_message().empty())
      absl::StrAppend(&why, " \"", s.error_message().substr(0, 80), "\"");
    ++ends_[why];
  }
  int opened() const { return opened_.load(); }
  int ready() const { return ready_.load(); }
  int ended() const {
    absl::MutexLock l(&mu_);
    return ended_;
  }
  // "NAME: 2000 opened, 2000 registered, 2000 open, 0 ended" plus each end's
  // status; no ready count when `ready_means` is null (nothing to observe).
  std::string Summary(const char* ready_means) const {
    absl::MutexLock l(&mu_);
    std::string s = absl::StrCat(name_, ": ", opened(), " opened, ");
    if (ready_means != nullptr) absl::StrAppend(&s, ready(), " ", ready_means, ", ");
    absl::StrAppend(&s, opened() - ended_, " open, ", ended_, " ended");
    for (const auto& [why, n] : ends_) absl::StrAppend(&s, " [", n, " x ", why, "]");
    return s;
  }

 private:
  const std::string name_;
  std::atomic<int> opened_{0}, ready_{0};
  mutable absl::Mutex mu_;
  int ended_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, int> ends_ ABSL_GUARDED_BY(mu_);
};

// Streams whose OnDone has run, all kinds together (teardown waits on it).
struct DoneCount {
  absl::Mutex mu;
  int done ABSL_GUARDED_BY(mu) = 0;
};

// One bidirectional stream on the callback API: a read is always pending
// (so the stream's end is always seen), writes are queued one at a time.
// A hold, released once the read failed and no Send is starting a write,
// keeps gRPC's stream object alive, so Send from another thread (the beater)
// never races the stream's end.
template <class Request, class Response>
class Stream : public grpc::ClientBidiReactor<Request, Response> {
 public:
  Stream(StreamCounts* counts, DoneCount* done) : counts_(counts), done_count_(done) {}
  ~Stream() override = default;

  // `start` is the stub's async()->Method(&context, this).
  template <class StartFn>
  void Start(const v1::Group& g, StartFn start) {
    context_.AddMetadata(std::string(kAppNameKey), g.app_name());
    context_.AddMetadata(std::string(kAccessTokenKey), g.access_token());
    start(&context_, this);
    counts_->Opened();
    this->AddHold();
    this->StartRead(&in_);
    this->StartCall();
  }
  // From any thread. gRPC may run OnWriteDone inline in StartWrite (on its
  // own threads), so no lock is held around StartWrite or RemoveHold.
  void Send(Request r) {
    {
      absl::MutexLock l(&mu_);
      if (ended_) return;
      if (writing_now_) {
        queued_.push_back(std::move(r));
        return;
      }
      writing_now_ = true;
      writing_ = std::move(r);
      ++starting_;  // The stream must outlive this StartWrite.
    }
    this->StartWrite(&writing_);
    bool release = false;
    {
      absl::MutexLock l(&mu_);
      release = --starting_ == 0 && release_pending_;
      if (release) release_pending_ = false;
    }
    if (release) this->RemoveHold();
  }
  void Cancel() { context_.TryCancel(); }

 protected:
  virtual void Handle(const Response& r) = 0;
  virtual void Written() {}
  StreamCounts* counts() { return counts_; }

 private:
  void OnWriteDone(bool ok) override {
    if (ok) Written();
    {
      absl::MutexLock l(&mu_);
      if (!ok || ended_ || queued_.empty()) {
        writing_now_ = false;
        queued_.clear();
        return;
      }
      writing_ = std::move(queued_.front());
      queued_.pop_front();
    }
    this->StartWrite(&writing_);  // In a reaction: the stream is alive.
  }
  void OnReadDone(bool ok) override {
    if (!ok) {
      {
        absl::MutexLock l(&mu_);
        ended_ = true;
        if (starting_ > 0) {  // That Send releases the hold once its StartWrite returned.
          release_pending_ = true;
          return;
        }
      }
      this->RemoveHold();  // OnDone comes once the write in flight (if any) is done.
      return;
    }
    Handle(in_);
    this->StartRead(&in_);
  }
  void OnDone(const grpc::Status& s) override {
    counts_->Ended(s);
    absl::MutexLock l(&done_count_->mu);
    ++done_count_->done;
  }

  StreamCounts* const counts_;
  DoneCount* const done_count_;
  grpc::ClientContext context_;
  Response in_;
  absl::Mutex mu_;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_now_ ABSL_GUARDED_BY(mu_) = false;
  int starting_ ABSL_GUARDED_BY(mu_) = 0;  // Sends between their check and StartWrite's return.
  bool release_pending_ ABSL_GUARDED_BY(mu_) = false;
  Request writing_;  // Owned by the write in flight (writing_now_).
  std::deque<Request> queued_ ABSL_GUARDED_BY(mu_);
};

// What the beater reads: the interval the registry asked for.
std::atomic<int64_t> g_beat_interval_ms{2000};
std::atomic<int64_t> g_beat_acks{0};

class SessionStream : public Stream<v1::SessionRequest, v1::SessionResponse> {
 public:
  using Stream::Stream;
  // Beats if a beat interval has passed since its registration or last beat.
  void BeatIfDue(int64_t now_ms) {
    const int64_t due = due_ms_.load();
    if (due == 0 || now_ms < due) return;
    due_ms_.store(std::max(due, now_ms - g_beat_interval_ms.load()) + g_beat_interval_ms.load());
    v1::SessionRequest b;
    b.mutable_beat();  // Idle: nothing running, nothing queued.
    Send(std::move(b));
  }

 private:
  void Handle(const v1::SessionResponse& r) override {
    if (r.has_registered()) {
      const int64_t interval =
          std::max<int64_t>(100, TimeUtil::DurationToMilliseconds(r.registered().beat_interval()));
      g_beat_interval_ms.store(interval);
      due_ms_.store(absl::ToUnixMillis(absl::Now()) + interval);
      counts()->Ready();
    } else if (r.has_beat_ack()) {
      g_beat_acks.fetch_add(1);
    }
  }
  std::atomic<int64_t> due_ms_{0};  // 0: not registered yet.
};

class ConnectStream : public Stream<v1::ConnectRequest, v1::ConnectResponse> {
 public:
  ConnectStream(StreamCounts* counts, DoneCount* done, v1::Hello hello)
      : Stream(counts, done), hello_(std::move(hello)) {}

 private:
  void Handle(const v1::ConnectResponse& r) override {
    v1::ConnectRequest out;
    if (r.has_welcome()) {
      if (welcomed_) return;  // Another Welcome needs no answer.
      welcomed_ = true;
      *out.mutable_hello() = hello_;
    } else if (r.has_runs()) {  // None expected (no jobs); refused as an executor would.
      for (const v1::RunRequest& run : r.runs().runs()) {
        v1::RunAnswer* a = out.mutable_answers()->add_answers();
        a->set_run_id(run.run_id());
        a->mutable_rejected()->set_code(v1::HANDLE_CODE_REJECTED);
        a->mutable_rejected()->set_kind(run.probe() ? v1::REJECT_KIND_NOT_HELD
                                                    : v1::REJECT_KIND_UNSUPPORTED);
      }
    } else if (r.has_call()) {
      out.mutable_reply()->set_id(r.call().id());
      if (r.call().has_beat()) out.mutable_reply()->mutable_beat();
      if (r.call().has_idle_beat()) out.mutable_reply()->mutable_idle_beat()->set_idle(true);
      if (r.call().has_kill()) out.mutable_reply()->mutable_kill();
    } else {
      return;
    }
    Send(std::move(out));
  }
  void Written() override {
    if (!hello_written_.exchange(true)) counts()->Ready();
  }
  const v1::Hello hello_;
  bool welcomed_ = false;  // Touched only by reactions, which do not overlap on one stream.
  std::atomic<bool> hello_written_{false};
};

class ReportStream : public Stream<v1::ReportResultsRequest, v1::ReportResultsResponse> {
 public:
  using Stream::Stream;

 private:
  void Handle(const v1::ReportResultsResponse&) override {}  // No items, no acks.
};

struct FakeExecutor {
  std::unique_ptr<SessionStream> session;
  std::unique_ptr<ConnectStream> connect;
  std::unique_ptr<ReportStream> report;  // Null with --no-report.
};

struct Stubs {
  std::unique_ptr<v1::Registry::Stub> registry;
  std::unique_ptr<v1::Dispatch::Stub> dispatch;
  std::unique_ptr<v1::LogService::Stub> log;
};

// gnomond's state at one moment.
struct Snapshot {
  int64_t threads = -1;
  testing::ResidentKib rss;
  std::string Line() const {
    return absl::StrFormat("%d threads, VmRSS %.1f MiB (anon %.1f MiB, file %.1f MiB)", threads,
                           rss.total / 1024.0, rss.anon / 1024.0, rss.file / 1024.0);
  }
};
Snapshot Take(pid_t pid) { return {testing::ThreadCount(pid), testing::Resident(pid)}; }

// CPU seconds gnomond used over the next `seconds`.
double CpuOver(pid_t pid, int seconds) {
  const double cpu0 = testing::CpuSeconds(pid);
  absl::SleepFor(absl::Seconds(seconds));
  return testing::CpuSeconds(pid) - cpu0;
}

// Beats each registered session every beat interval from its registration
// (so the executors are not in step, as real ones are not), until `stop`.
void BeatLoop(const std::vector<FakeExecutor>& execs, const std::atomic<int>& count,
              const std::atomic<bool>& stop) {
  while (!stop.load()) {
    const int64_t now_ms = absl::ToUnixMillis(absl::Now());
    const int n = count.load();
    for (int i = 0; i < n; ++i) execs[i].session->BeatIfDue(now_ms);
    absl::SleepFor(absl::Milliseconds(5));
  }
}

// Registered executors of group `g` per gnomonctl executor list; -1 on error.
// Not asked while executors join: gnomond 700e0e1 then crashed (SIGSEGV
// copying ExecutorInfo in GroupTargets::Members, which iterates
// `*membership_->Live(app)`: the shared_ptr temporary dies before the loop,
// and a concurrent Membership::Rebuild frees the list under it).
int ListedExecutors(const GnomonCluster& c, const v1::Group& g) {
  v1::ListExecutorsResponse r;
  if (!c.CtlJson({"executor", "list", "--group", absl::StrCat(g.id())}, &r)) return -1;
  int n = 0;
  for (const auto& group : r.groups()) n += group.executors_size();
  return n;
}

bool Run(const BenchOptions& o) {
  const int n = o.executors;
  const int channels = o.channels > 0 ? o.channels : std::max(1, (n + 31) / 32);
  GnomonCluster c({absl::StrCat("--max-executors-per-app=", n + 10),
                   absl::StrCat("--beat-interval=", o.beat_interval)});
  if (!c.Start()) {
    std::fprintf(stderr, "gnomond did not start:\n%s\n", c.Output().c_str());
    return false;
  }
  const pid_t pid = c.gnomond()->pid();
  v1::Group g;
  if (!c.CtlJson({"group", "create", "bench-connections"}, &g)) return false;
  std::printf(
      "gnomond pid %d on %s; group %s (id %lld); %d executors over %d channels "
      "(~%d executors each), streams: Session + Connect%s\n",
      pid, c.address().c_str(), g.app_name().c_str(), static_cast<long long>(g.id()), n, channels,
      (n + channels - 1) / channels, o.report ? " + ReportResults" : "");

  // Baseline: started, group created, nothing connected.
  absl::SleepFor(absl::Seconds(o.settle_seconds));
  const Snapshot before = Take(pid);
  const double cpu_before = CpuOver(pid, o.window_seconds);
  std::printf("baseline: %s; CPU over %d s idle: %.2f s\n", before.Line().c_str(), o.window_seconds,
              cpu_before);

  std::vector<Stubs> stubs;
  for (int k = 0; k < channels; ++k) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // Its own TCP connection.
    auto ch = grpc::CreateCustomChannel(c.address(), grpc::InsecureChannelCredentials(), args);
    stubs.push_back(
        {v1::Registry::NewStub(ch), v1::Dispatch::NewStub(ch), v1::LogService::NewStub(ch)});
  }
  StreamCounts sessions("Registry.Session"), connects("Dispatch.Connect"),
      reports("LogService.ReportResults");
  DoneCount done;
  std::vector<FakeExecutor> execs(n);
  std::atomic<int> started{0};
  std::atomic<bool> stop{false};
  std::thread beater([&] { BeatLoop(execs, started, stop); });

  // Open in batches of 100, each waiting (at most 30 s) for its sessions to
  // register or end, the way executors come up over a rollout.
  const std::string instance_prefix = absl::StrFormat("%08x", static_cast<uint32_t>(getpid()));
  const absl::Time t_open = absl::Now();
  constexpr int kBatch = 100;
  for (int b = 0; b < n; b += kBatch) {
    for (int i = b; i < std::min(n, b + kBatch); ++i) {
      Stubs& s = stubs[i % channels];
      const std::string name = absl::StrCat("bench-exec-", i);
      const std::string instance = absl::StrFormat("%s%024x", instance_prefix, i);
      FakeExecutor& e = execs[i];
      if (o.report) {  // First, as in the protocol's "order of things".
        e.report = std::make_unique<ReportStream>(&reports, &done);
        e.report->Start(
            g, [&](grpc::ClientContext* ctx, auto* r) { s.log->async()->ReportResults(ctx, r); });
      }
      e.session = std::make_unique<SessionStream>(&sessions, &done);
      e.session->Start(
          g, [&](grpc::ClientContext* ctx, auto* r) { s.registry->async()->Session(ctx, r); });
      v1::SessionRequest reg;
      v1::Register* m = reg.mutable_register_();
      m->set_app_name(g.app_name());
      m->set_address(name);
      m->set_instance_id(instance);
      m->set_capacity(16);
      m->add_handlers("noop");
      m->set_version("connections_bench");
      m->set_answers_probes(true);
      e.session->Send(std::move(reg));
      v1::Hello hello;
      hello.set_app_name(g.app_name());
      hello.set_executor(name);
      hello.set_instance_id(instance);
      e.connect = std::make_unique<ConnectStream>(&connects, &done, std::move(hello));
      e.connect->Start(
          g, [&](grpc::ClientContext* ctx, auto* r) { s.dispatch->async()->Connect(ctx, r); });
      started.fetch_add(1);
    }
    const int want = std::min(n, b + kBatch);
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline && sessions.ready() + sessions.ended() < want) {
      absl::SleepFor(absl::Milliseconds(20));
    }
  }
  // Every Connect answered with Hello (or ended) too.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline &&
         (sessions.ready() + sessions.ended() < n || connects.ready() + connects.ended() < n)) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  const double open_seconds = absl::ToDoubleSeconds(absl::Now() - t_open);
  std::printf("opened in %.1f s: %d registered, %d Hello written; beat interval %lld ms\n",
              open_seconds, sessions.ready(), connects.ready(),
              static_cast<long long>(g_beat_interval_ms.load()));

  absl::SleepFor(absl::Seconds(o.settle_seconds));
  const Snapshot settled = Take(pid);
  const int64_t acks0 = g_beat_acks.load();
  const double cpu_connected = CpuOver(pid, o.window_seconds);
  const int64_t acks = g_beat_acks.load() - acks0;
  const Snapshot after = Take(pid);
  std::printf("connected, after %d s settling: %s\n", o.settle_seconds, settled.Line().c_str());
  std::printf(
      "connected, after a further %d s: %s; CPU over those %d s: %.2f s (%.1f%% of a "
      "core); %lld beats acknowledged\n",
      o.window_seconds, after.Line().c_str(), o.window_seconds, cpu_connected,
      100 * cpu_connected / o.window_seconds, static_cast<long long>(acks));
  std::printf("  %s\n", sessions.Summary("registered").c_str());
  std::printf("  %s\n", connects.Summary("Hello written").c_str());
  if (o.report) std::printf("  %s\n", reports.Summary(nullptr).c_str());
  std::printf("this bench process: %lld threads for %d streams\n",
              static_cast<long long>(testing::ThreadCount(getpid())),
              sessions.opened() + connects.opened() + reports.opened());

  const double per_exec_kib = double(after.rss.total - before.rss.total) / n;
  const double per_exec_anon_kib = double(after.rss.anon - before.rss.anon) / n;
  std::printf(
      "RESULT connections: %d executors connected (%s) | gnomond threads: %lld -> %lld "
      "(%+.2f per executor) | RSS: %.1f -> %.1f MiB (%.1f KiB per executor; anon %.1f -> %.1f "
      "MiB, %.1f KiB per executor) | CPU over %d s connected: %.2f s (idle before: %.2f s)\n",
      n,
      o.report ? "Session + Connect + ReportResults each"
               : "Session + Connect each, no ReportResults",
      static_cast<long long>(before.threads), static_cast<long long>(after.threads),
      double(after.threads - before.threads) / n, before.rss.total / 1024.0,
      after.rss.total / 1024.0, per_exec_kib, before.rss.anon / 1024.0, after.rss.anon / 1024.0,
      per_exec_anon_kib, o.window_seconds, cpu_connected, cpu_before);
  if (sessions.ended() + connects.ended() + reports.ended() > 0) {
    std::printf(
        "NOTE: %d streams ended while connected (see their statuses above): the figures "
        "are for fewer than %d executors with all three streams\n",
        sessions.ended() + connects.ended() + reports.ended(), n);
  }
  // The registry's view, asked only now: gnomonctl executor list while
  // executors are joining has crashed gnomond (see ListedExecutors).
  std::printf("gnomonctl executor list: %d executors of the group\n", ListedExecutors(c, g));
  if (testing::ThreadCount(pid) < 0) {
    const std::string out = c.Output();
    std::printf("NOTE: gnomond is gone; the end of its output:\n%s\n",
                out.substr(out.size() - std::min<size_t>(out.size(), 4000)).c_str());
  }

  // Teardown: stop beating, cancel every stream, wait for each to finish.
  stop.store(true);
  beater.join();
  for (FakeExecutor& e : execs) {
    if (e.report) e.report->Cancel();
    e.session->Cancel();
    e.connect->Cancel();
  }
  const int streams = sessions.opened() + connects.opened() + reports.opened();
  absl::MutexLock l(&done.mu);
  auto all_done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(done.mu) { return done.done == streams; };
  if (!done.mu.AwaitWithTimeout(absl::Condition(&all_done), absl::Seconds(60))) {
    std::fprintf(stderr, "%d of %d streams did not finish; leaving them\n", streams - done.done,
                 streams);
    std::_Exit(1);  // Their reactors must outlive them: do not destroy.
  }
  return true;
}

bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  return ParseBenchArgs(argc, argv,
                        "connections_bench [--executors=2000] [--channels=N/32] [--no-report] "
                        "[--settle=5] [--window=10] [--beat-interval=2s]",
                        [&](absl::string_view a) {
                          if (a == "--no-report") {
                            o.report = false;
                            return true;
                          }
                          if (absl::ConsumePrefix(&a, "--executors="))
                            return PositiveInt(a, o.executors);
                          if (absl::ConsumePrefix(&a, "--channels="))
                            return PositiveInt(a, o.channels);
                          if (absl::ConsumePrefix(&a, "--settle="))
                            return PositiveInt(a, o.settle_seconds);
                          if (absl::ConsumePrefix(&a, "--window="))
                            return PositiveInt(a, o.window_seconds);
                          return false;
                        });
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Figures appear as they are measured.
  gnomon::bench::BenchOptions o;
  if (!gnomon::bench::ParseArgs(argc, argv, o)) return 2;
  return gnomon::bench::Run(o) ? 0 : 1;
}
