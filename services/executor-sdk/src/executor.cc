#include "gnomon/executor/executor.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "services/common/metrics/build_info.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/status/status_macros.h"
#include "services/executor-sdk/src/channels.h"
#include "services/executor-sdk/src/executor_metrics.h"
#include "services/executor-sdk/src/executor_service.h"
#include "services/executor-sdk/src/logger.h"
#include "services/executor-sdk/src/registry_session.h"
#include "services/executor-sdk/src/result_reporter.h"
#include "services/executor-sdk/src/run_log_files.h"
#include "services/executor-sdk/src/run_manager.h"
#include "services/executor-sdk/src/scheduler_connections.h"
#include "services/executor-sdk/src/termination_signals.h"

namespace gnomon::executor {
namespace {

// Scripts run as the executor's user, and a process of the same user may read
// another's /proc/PID/environ (the environment it was started with:
// GNOMON_ACCESS_TOKEN), its memory through /proc/PID/mem, or ptrace it,
// unless that process is not dumpable. Not dumpable, the executor's /proc
// entries belong to root and only CAP_SYS_PTRACE attaches. The costs: no core
// dumps of the executor, and profiling or debugging it (perf -p, gdb -p)
// needs root. The flag is process-wide and stays set. A child is dumpable
// again after its execve (of a binary it may read, not set-id), so scripts
// themselves run as before.
absl::Status HideFromScripts(const internal::Logger& logger) {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    return absl::InternalError(absl::StrCat("prctl(PR_SET_DUMPABLE, 0): ", std::strerror(errno)));
  }
  logger.Info(
      "scripts are allowed: this process is now not dumpable, so scripts (running as its user) "
      "cannot read its environment or memory or ptrace it; it leaves no core dumps");
  return absl::OkStatus();
}

bool ValidName(const std::string& name, size_t max_len, bool app) {
  if (name.empty() || name.size() > max_len) return false;
  for (unsigned char c : name) {
    if (app ? !(std::isalnum(c) || c == '.' || c == '_' || c == '-') : (c < 0x20 || c == 0x7f)) {
      return false;
    }
  }
  return true;
}

// The default executor name: "<hostname>:<pid>", unique on the host.
std::string DefaultExecutorName() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
    std::strncpy(host, "localhost", sizeof host - 1);
  }
  return absl::StrCat(host, ":", ::getpid());
}

}  // namespace

class ExecutorImpl final : public internal::RunSink {
 public:
  explicit ExecutorImpl(ExecutorOptions options)
      : options_(std::move(options)),
        logger_(options_.logger),
        metrics_registry_(std::make_shared<metrics::MetricsRegistry>()),
        metrics_(*metrics_registry_) {
    metrics::AddBuildInfo(*metrics_registry_, "gnomon-executor");
  }
  ~ExecutorImpl() override {
    Shutdown(absl::Seconds(30));
    std::thread stopper;
    {
      absl::MutexLock lock(&mu_);
      stopper = std::move(stopper_);
    }
    if (stopper.joinable()) stopper.join();
  }

  absl::Status RegisterHandler(const std::string& name, Handler handler, HandlerHooks hooks) {
    if (!ValidName(name, 128, /*app=*/false)) {
      return absl::InvalidArgumentError(
          absl::StrCat("handler name \"", name, "\" must be 1 to 128 printable characters"));
    }
    if (!handler) return absl::InvalidArgumentError("handler for " + name + " is empty");
    absl::MutexLock lock(&mu_);
    if (state_ != State::kCreated) {
      return absl::FailedPreconditionError("register handlers before Start()");
    }
    if (handlers_.contains(name)) {
      return absl::AlreadyExistsError(absl::StrCat("handler \"", name, "\" is already registered"));
    }
    handlers_[name] = std::make_shared<internal::HandlerEntry>(
        internal::HandlerEntry{name, std::move(handler), std::move(hooks)});
    return absl::OkStatus();
  }

  absl::Status Start();
  void Shutdown(absl::Duration grace);
  absl::Status Run(absl::Duration grace);
  void Stop(absl::Duration grace);
  void Wait() const;

  std::string name() const {
    absl::MutexLock lock(&mu_);
    return name_;
  }
  std::shared_ptr<metrics::MetricsRegistry> metrics() const { return metrics_registry_; }
  std::string metrics_address() const {
    absl::MutexLock lock(&mu_);
    return metrics_server_ ? metrics_server_->address() : "";
  }

  // RunSink.
  void Started(const v1::RunRequest& request, absl::Time start) override {
    metrics_.Started(request, start);
    log_files_->Open(request.run_id());
    reporter_->AddStarted(request.run_id(), start, registered_name_, request.receipt());
  }
  void Line(int64_t run_id, const v1::LogLine& line) override {
    log_files_->Append(run_id, line);
    reporter_->AddLine(run_id, line);
  }
  void Finished(const v1::RunResult& result) override {
    metrics_.Finished(result);
    reporter_->AddResult(result);
    log_files_->Close(result.run_id());
  }

 private:
  // kStopping: a Shutdown() is draining; kStopped: it has finished (or the
  // executor was stopped before it started).
  enum class State { kCreated, kStarted, kStopping, kStopped };

  const ExecutorOptions options_;
  const internal::Logger logger_;
  // Always kept (an application may serve them itself); served here only
  // with options_.metrics_listen.
  const std::shared_ptr<metrics::MetricsRegistry> metrics_registry_;
  internal::ExecutorMetrics metrics_;
  mutable absl::Mutex mu_;
  State state_ ABSL_GUARDED_BY(mu_) = State::kCreated;
  internal::HandlerMap handlers_ ABSL_GUARDED_BY(mu_);
  std::string name_ ABSL_GUARDED_BY(mu_);
  // The signals of a Run() waiting for a signal or a stop (woken by Shutdown).
  internal::TerminationSignals* run_signals_ ABSL_GUARDED_BY(mu_) = nullptr;
  // Stop()'s drain; joined by the destructor.
  std::thread stopper_ ABSL_GUARDED_BY(mu_);
  // name_, set once by Start() before any run exists; read-only afterwards
  // (read by workers without mu_).
  std::string registered_name_;
  std::unique_ptr<internal::RunLogFiles> log_files_;
  std::unique_ptr<internal::ResultReporter> reporter_;
  std::unique_ptr<internal::RunManager> manager_;
  std::unique_ptr<internal::ExecutorService> service_;
  std::unique_ptr<internal::RegistrySession> session_;
  std::unique_ptr<internal::SchedulerConnections> connections_;
  // Read by worker threads (busy-state changes) while Start() may still run.
  std::atomic<internal::RegistrySession*> session_ptr_{nullptr};
  // After what they read: gone first.
  metrics::ScrapeHook scrape_hook_;
  std::unique_ptr<metrics::MetricsServer> metrics_server_ ABSL_GUARDED_BY(mu_);
};

absl::Status ExecutorImpl::Start() {
  absl::MutexLock lock(&mu_);
  if (state_ != State::kCreated) return absl::FailedPreconditionError("Start() called twice");
  if (options_.allow_scripts) RETURN_IF_ERROR(HideFromScripts(logger_));
  if (!options_.metrics_listen.empty()) {
    // With a certificate, /metrics is served over HTTPS (no client
    // certificates asked: scrapers rarely have one).
    tls::TlsOptions metrics_tls = internal::CommonTls(options_.tls);
    metrics_tls.enabled = !options_.tls.cert_file.empty();
    metrics_tls.require_client_cert = false;
    ASSIGN_OR_RETURN(auto served, metrics::MetricsServer::Start(options_.metrics_listen,
                                                                metrics_registry_, metrics_tls));
    metrics_server_ = std::move(served);
  }
  // A Start that fails later stops serving metrics too (a retry binds again).
  auto stop_metrics =
      absl::MakeCleanup([this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { metrics_server_.reset(); });

  ASSIGN_OR_RETURN(internal::Dialer dial, internal::ClientDialer(options_.tls));
  // Scheduler endpoints are dialled by resolved address: each verifies
  // gnomond's certificate for its configured host name.
  std::vector<internal::Dialer> scheduler_dial;
  for (const std::string& endpoint : internal::SchedulerEndpoints(options_)) {
    ASSIGN_OR_RETURN(internal::Dialer d,
                     internal::ClientDialer(options_.tls, internal::EndpointHost(endpoint)));
    scheduler_dial.push_back(std::move(d));
  }

  ASSIGN_OR_RETURN(auto spool, internal::RunSpool::Open(options_.spool_dir));
  if (!spool->durable()) {
    logger_.Warning("no spool directory: results are kept in memory and lost if the process dies");
  } else if (spool->recovered() > 0) {
    logger_.Info(absl::StrCat("re-sending ", spool->recovered(),
                              " unacknowledged items from the spool ", options_.spool_dir));
  }
  log_files_ = std::make_unique<internal::RunLogFiles>(
      options_.log_dir, options_.max_log_file_bytes, options_.log_retention_days, &logger_);
  RETURN_IF_ERROR(log_files_->Init());
  // Runs the previous process finished are not run again if resent.
  std::vector<int64_t> spooled_runs = spool->recovered_result_runs();

  // Each part takes its sub-struct of the options whole.
  internal::ReporterOptions reporter_options;
  reporter_options.connection = static_cast<const ConnectionOptions&>(options_);
  reporter_options.reporting = static_cast<const ReportingOptions&>(options_);
  reporter_options.dial = dial;
  reporter_ = std::make_unique<internal::ResultReporter>(std::move(reporter_options),
                                                         std::move(spool), &logger_);

  internal::RunManagerOptions manager_options;
  manager_options.run = static_cast<const RunOptions&>(options_);
  manager_options.remembered_run_ids = std::move(spooled_runs);
  manager_ = std::make_unique<internal::RunManager>(manager_options, handlers_, this, [this] {
    if (internal::RegistrySession* session = session_ptr_.load()) session->NotifyBusyChanged();
  });
  service_ = std::make_unique<internal::ExecutorService>(manager_.get(), &metrics_);
  scrape_hook_ = metrics_registry_->OnScrape([this] {
    metrics_.SetState(manager_->running_runs(), manager_->QueuedByStrategy(), reporter_->pending(),
                      reporter_->oldest_unacked_result_end(), absl::Now());
  });
  name_ = options_.executor_name.empty() ? DefaultExecutorName() : options_.executor_name;
  registered_name_ = name_;

  reporter_->Start();

  internal::RegistrySessionOptions session_options;
  session_options.connection = static_cast<const ConnectionOptions&>(options_);
  session_options.dial = dial;
  v1::Register& reg = session_options.registration;
  reg.set_app_name(options_.app_name);
  reg.set_address(name_);
  for (const auto& [name, entry] : handlers_) reg.add_handlers(name);
  std::sort(reg.mutable_handlers()->begin(), reg.mutable_handlers()->end());
  reg.set_capacity(static_cast<uint32_t>(options_.max_concurrent_runs));
  reg.set_version(options_.version.empty() ? "gnomon-executor/0.1" : options_.version);
  for (const auto& [k, v] : options_.labels) (*reg.mutable_labels())[k] = v;
  // A new instance per Start: runs the scheduler sent an earlier process
  // under this name are not here (it must not ask this one about them).
  absl::BitGen bits;
  reg.set_instance_id(
      absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(bits), absl::Uniform<uint64_t>(bits)));
  reg.set_answers_probes(true);  // ExecutorService::Answer answers RunRequest.probe.

  internal::SchedulerConnectionsOptions connection_options;
  connection_options.connection = static_cast<const ConnectionOptions&>(options_);
  connection_options.dial = std::move(scheduler_dial);
  connection_options.hello.set_app_name(options_.app_name);
  connection_options.hello.set_executor(name_);
  connection_options.hello.set_instance_id(reg.instance_id());
  connections_ = std::make_unique<internal::SchedulerConnections>(
      std::move(connection_options),
      [this](const v1::DispatchRequest& request) { return service_->Answer(request); },
      [this](const v1::Call& call) { return service_->Reply(call); }, &logger_);

  session_ = std::make_unique<internal::RegistrySession>(
      std::move(session_options), [this] { return manager_->BeatState(); }, &logger_);
  session_ptr_.store(session_.get());
  session_->Start();
  connections_->Start();
  state_ = State::kStarted;
  std::move(stop_metrics).Cancel();
  return absl::OkStatus();
}

void ExecutorImpl::Shutdown(absl::Duration grace) {
  {
    absl::MutexLock lock(&mu_);
    if (state_ == State::kStopping || state_ == State::kStopped) {
      // Another thread drains: return when it is done, as documented.
      auto stopped = [this]()
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return state_ == State::kStopped; };
      mu_.Await(absl::Condition(&stopped));
      return;
    }
    if (run_signals_ != nullptr) run_signals_->Wake();
    if (state_ == State::kCreated) {
      state_ = State::kStopped;
      return;
    }
    state_ = State::kStopping;
  }
  absl::Time deadline = absl::Now() + grace;
  // Runs first (new dispatches are rejected meanwhile, still answered on the
  // scheduler streams, as are Beat and Kill), then their results, and only
  // then leave the registry and close the streams: a scheduler must not
  // think the executor is lost while its results are still on the way.
  manager_->Shutdown(deadline);
  if (!reporter_->Drain(absl::Now() + options_.shutdown_flush_timeout)) {
    logger_.Warning(absl::StrCat(reporter_->pending(),
                                 " results/log items not yet acknowledged; they stay in the "
                                 "spool and are re-sent on the next start"));
  }
  session_->Stop("executor shutting down");
  // An answer being written is finished first (for up to a second).
  connections_->Stop();
  reporter_->Stop();
  absl::MutexLock lock(&mu_);
  state_ = State::kStopped;
}

void ExecutorImpl::Stop(absl::Duration grace) {
  absl::MutexLock lock(&mu_);
  if (state_ == State::kCreated) {
    state_ = State::kStopped;
    if (run_signals_ != nullptr) run_signals_->Wake();
    return;
  }
  if (state_ != State::kStarted || stopper_.joinable()) return;
  // On a thread of its own, so that a handler may call Stop(): the drain
  // waits for that handler's run.
  stopper_ = std::thread([this, grace] { Shutdown(grace); });
}

void ExecutorImpl::Wait() const {
  absl::MutexLock lock(&mu_);
  auto stopped = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return state_ == State::kStopped; };
  mu_.Await(absl::Condition(&stopped));
}

absl::Status ExecutorImpl::Run(absl::Duration grace) {
  // Installed before Start(), so no signal is lost between the two.
  ASSIGN_OR_RETURN(std::unique_ptr<internal::TerminationSignals> signals,
                   internal::TerminationSignals::Install(&logger_));
  bool start = false;
  {
    absl::MutexLock lock(&mu_);
    if (state_ == State::kStopped) return absl::FailedPreconditionError("the executor was stopped");
    start = state_ == State::kCreated;
  }
  if (start) {
    RETURN_IF_ERROR(Start());
  }
  bool wait = false;
  {
    absl::MutexLock lock(&mu_);
    wait = state_ == State::kStarted;  // Not already stopping (Stop() meanwhile).
    if (wait) run_signals_ = signals.get();
  }
  int sig = wait ? signals->Wait() : 0;
  {
    absl::MutexLock lock(&mu_);
    run_signals_ = nullptr;
  }
  // The first signal drains; the next one ends the process at once. When
  // the drain began elsewhere (Stop(), Shutdown()), its first signal is taken
  // as the one asking for a drain, and the second ends the process.
  if (sig != 0) {
    logger_.Info(absl::StrCat("signal ", sig, ": draining (another signal exits at once)"));
  }
  signals->ExitOnSignal(/*absorb=*/sig != 0 ? 0 : 1);
  Shutdown(grace);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(ExecutorOptions options) {
  if (!ValidName(options.app_name, 64, /*app=*/true)) {
    return absl::InvalidArgumentError("app name must be 1 to 64 letters, digits, '.', '_' or '-'");
  }
  if (options.access_token.empty()) {
    return absl::InvalidArgumentError("an access token is required (the group's token)");
  }
  // It travels as gRPC metadata, where a newline or other control character
  // aborts the process (a Secret made from a file ending in a newline).
  if (!std::all_of(options.access_token.begin(), options.access_token.end(),
                   [](char c) { return c > ' ' && c < 127; })) {
    return absl::InvalidArgumentError(
        "the access token may hold only printable characters without spaces; a trailing newline "
        "from the file it was read from?");
  }
  if (options.registry_endpoints.empty() && options.log_endpoints.empty()) {
    return absl::InvalidArgumentError("no registry or log service endpoints given");
  }
  if (!options.executor_name.empty() && !ValidName(options.executor_name, 255, /*app=*/false)) {
    return absl::InvalidArgumentError(
        "executor_name (GNOMON_EXECUTOR_NAME) must be 1 to 255 printable characters");
  }
  if (options.max_concurrent_runs < 0) {
    return absl::InvalidArgumentError("max_concurrent_runs must not be negative (0 = default)");
  }
  if (options.max_queued_runs < 0 || options.max_queued_runs_per_job < 0) {
    return absl::InvalidArgumentError(
        "max_queued_runs and max_queued_runs_per_job must not be negative");
  }
  if (options.remembered_runs < 0) {
    return absl::InvalidArgumentError("remembered_runs must not be negative");
  }
  if (options.max_concurrent_runs == 0) {
    const int cpus = static_cast<int>(std::thread::hardware_concurrency());
    options.max_concurrent_runs = std::clamp(8 * cpus, 16, 64);
  }
  if (options.log_flush_lines < 1) options.log_flush_lines = 1;
  return std::unique_ptr<Executor>(
      new Executor(std::make_unique<ExecutorImpl>(std::move(options))));
}

Executor::Executor(std::unique_ptr<ExecutorImpl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() { Shutdown(); }

absl::Status Executor::RegisterHandler(const std::string& name, Handler handler,
                                       HandlerHooks hooks) {
  return impl_->RegisterHandler(name, std::move(handler), std::move(hooks));
}
absl::Status Executor::Start() { return impl_->Start(); }
std::string Executor::name() const { return impl_->name(); }
std::shared_ptr<prometheus::Collectable> Executor::metrics() const { return impl_->metrics(); }
std::string Executor::metrics_address() const { return impl_->metrics_address(); }
void Executor::Shutdown(absl::Duration grace) { impl_->Shutdown(grace); }
absl::Status Executor::Run(absl::Duration grace) { return impl_->Run(grace); }
void Executor::Stop(absl::Duration grace) { impl_->Stop(grace); }
void Executor::Wait() const { impl_->Wait(); }

}  // namespace gnomon::executor
