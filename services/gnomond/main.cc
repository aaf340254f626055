// gnomond: the gnomon server. One binary, any combination of the roles
// scheduler, registry and log (default all three, sharing one store).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "services/common/client/log.h"
#include "services/common/client/mutex_mode.h"
#include "services/common/client/version.h"
#include "services/common/http/http_server.h"
#include "services/common/http/json_gateway.h"
#include "services/common/http/openapi.h"
#include "services/common/metrics/build_info.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/env_flags.h"
#include "services/common/server/grpc_server.h"
#include "services/common/server/health_monitor.h"
#include "services/common/server/overload_monitor.h"
#include "services/common/server/server_metrics.h"
#include "services/common/server/store_metrics.h"
#include "services/common/server/tokens.h"
#include "services/common/store/observed_store.h"
#include "services/common/store/store.h"
#include "services/gnomond/bootstrap_token.h"
#include "services/gnomond/tls_flags.h"
#include "services/log/log_role.h"
#include "services/registry/registry_role.h"
#include "services/scheduler/alarm/webhook_channel.h"
#include "services/scheduler/scheduler_role.h"

ABSL_FLAG(std::string, log_format, "text",
          "Log lines on stderr as text or json (one object per line: time, level, program, "
          "message).");
ABSL_FLAG(bool, metrics_legacy_names, false,
          "Also export the gRPC server metrics under their names before 0.2 "
          "(gnomon_rpc_requests_total, gnomon_rpc_request_duration_seconds), for one release "
          "while dashboards move to grpc_server_handled_total and grpc_server_handling_seconds.");
ABSL_FLAG(std::string, roles, "scheduler,registry,log",
          "Comma-separated roles this process serves: scheduler, registry, log.");
ABSL_FLAG(std::string, listen, "127.0.0.1:7070",
          "host:port to serve gRPC on (port 0 picks a free port).");
ABSL_FLAG(std::string, store, "sqlite:var/gnomon.db",
          "Store URL: sqlite:PATH or mysql://user:password@host:port/database.");
ABSL_FLAG(bool, migrate_only, false,
          "Open the store, apply its pending migrations and exit 0 (serves nothing): the chart's "
          "pre-install/pre-upgrade Job, so the schema is migrated before any new pod starts.");
ABSL_FLAG(std::string, registry_endpoint, "",
          "host:port of the registry the scheduler watches; default: this process "
          "when it runs the registry role.");
ABSL_FLAG(std::string, cluster_token, "",
          "Secret the roles present to each other (required when roles run in separate "
          "processes; generated when all roles share this process).");
ABSL_FLAG(std::string, admin_token_file, "",
          "The first admin token of an empty store: the token this file holds (a Secret), or, "
          "if there is no such file, a new one written to it (mode 0600). Never printed; "
          "without this flag a new token is printed once.");
ABSL_FLAG(int64_t, max_params_bytes, 64 * 1024,
          "Largest job or trigger params accepted, in bytes.");
ABSL_FLAG(int64_t, max_jobs_per_group, 1'000'000,
          "Jobs one group may hold; a create past it is refused RESOURCE_EXHAUSTED (0: no limit).");
ABSL_FLAG(absl::Duration, token_grace, absl::Hours(1),
          "After a group's token is rotated, the replaced one is still accepted this long (unless "
          "the rotation says otherwise), so running executors keep working until restarted.");
ABSL_FLAG(int, max_executors_per_app, 1000,
          "Live executors one app may have across the replicas; a registration past it is "
          "refused (RESOURCE_EXHAUSTED). 0: no cap.");
ABSL_FLAG(absl::Duration, executor_return_grace, absl::Seconds(10),
          "After a start, how long the executors connected before it get to reconnect before "
          "this replica takes partitions (slots due meanwhile follow their misfire policies) "
          "and before their runs count as lost; 0: do not wait.");
ABSL_FLAG(double, admin_rate_limit, 50,
          "Sustained JobAdmin calls, and LogService queries, per second per credential (0: no "
          "limit); beyond it RESOURCE_EXHAUSTED.");
ABSL_FLAG(int, admin_rate_burst, 100,
          "Calls a credential may make at once before --admin-rate-limit applies.");
ABSL_FLAG(int, log_follows_per_credential, 8,
          "Run logs one credential may follow at once (StreamRunLog, the console's live log); "
          "beyond it RESOURCE_EXHAUSTED (0: no limit).");
ABSL_FLAG(int, log_follows, 256,
          "Run logs followed at once by everyone, on this replica (0: no limit).");
ABSL_FLAG(absl::Duration, beat_interval, absl::Seconds(2), "How often executors beat.");
ABSL_FLAG(int, missed_beats, 3, "Beats an executor may miss before it is removed.");
ABSL_FLAG(int64_t, max_log_lines_per_run, 10000, "Run-log lines kept per run; more are dropped.");
// A run's stored log: at most 1 TiB however the flag is set (MiB << 20 stays
// well inside int64).
constexpr int64_t kMaxLogMibPerRun = int64_t{1} << 20;
ABSL_FLAG(int64_t, max_log_mib_per_run, 32,
          "MiB of run-log text kept per run, from any executor; later lines are dropped.");
ABSL_FLAG(int64_t, script_versions, 30,
          "Versions kept per script job (the newest; at least 1); older ones are deleted as edits "
          "add new ones.");
ABSL_FLAG(int, retention_days, 30,
          "Runs and their logs older than this many days are deleted (0: never).");
ABSL_FLAG(int64_t, max_runs_per_job, 0, "Keep at most this many runs per job (0: no limit).");
ABSL_FLAG(std::string, alarm_webhook_allow, gnomon::scheduler::alarm::kDefaultWebhookAllow,
          "Where alarm webhooks may be posted: host names (api.example.com, *.corp.example, *) "
          "and addresses or ranges (10.0.0.0/8); loopback, private and link-local addresses "
          "only when listed by an address entry inside their range. Default: any public host.");
ABSL_FLAG(std::string, smtp_url, "",
          "SMTP server for alarm mails: smtp://host:port or smtps://host:port (empty: no mail).");
ABSL_FLAG(std::string, smtp_from, "gnomon@localhost", "Sender address of alarm mails.");
ABSL_FLAG(std::string, smtp_user, "", "SMTP AUTH user name (empty: no AUTH).");
ABSL_FLAG(std::string, smtp_password_file, "", "File holding the SMTP AUTH password.");
ABSL_FLAG(bool, alarm_every_attempt, false,
          "Alarm on every failed attempt, not only when a run's retries are exhausted.");
ABSL_FLAG(absl::Duration, lost_retry_wait, absl::Seconds(30),
          "A run failed 504 \"executor lost\" is retried only after this long: its executor may "
          "still hold it and report it (its result replaces the verdict), and a retry before "
          "then could run it twice.");
ABSL_FLAG(absl::Duration, lease_ttl, absl::Milliseconds(1500),
          "Scheduler partition lease time-to-live: a replica that dies is replaced within about "
          "this long plus --lease-renew.");
ABSL_FLAG(absl::Duration, lease_renew, absl::ZeroDuration(),
          "How often partition leases are renewed and live replicas re-read (0: a fifth of "
          "--lease-ttl).");
ABSL_FLAG(int, partitions, gnomon::store::kDefaultPartitions,
          "Scheduler partitions the jobs are hashed into (1..4096), chosen once per "
          "installation: recorded in the store when it is first initialised, and every gnomond "
          "of the installation must then be given the same value (one that differs refuses to "
          "start). More partitions balance jobs more finely across scheduler replicas, at the "
          "cost of more lease rows to renew.");
ABSL_FLAG(std::string, replica_id, "",
          "This replica's identity in the partition leases; must be unique and stable across "
          "restarts (a restarted replica takes its predecessor's partitions over at once). "
          "Default: hostname:port of --listen.");
ABSL_FLAG(absl::Duration, preread_window, absl::Seconds(5),
          "How far ahead the scheduler reads due jobs into its timer.");
ABSL_FLAG(absl::Duration, store_stats_interval, absl::ZeroDuration(),
          "Log the store's committed write transactions this often (0: never).");
ABSL_FLAG(std::string, metrics_listen, "",
          "host:port to serve Prometheus metrics on, at /metrics, for every role in this process "
          "(port 0 picks a free port; empty: no metrics).");
ABSL_FLAG(
    std::string, http_listen, "",
    "host:port to serve the HTTP/JSON API (POST /v1/<Service>/<Method>, GET /openapi.json) on; "
    "HTTPS with --tls-cert (port 0 picks a free port; empty: no HTTP API).");
ABSL_FLAG(std::string, console_dir, "",
          "Directory of the built web console (console/dist), served by --http-listen at / (empty: "
          "none).");
ABSL_FLAG(int, http_max_connections_per_client, 32,
          "HTTP connections served at once from one client address (of 256 in all); beyond, "
          "503. Behind a proxy every client has its address: raise this.");
ABSL_FLAG(absl::Duration, http_head_timeout, absl::Seconds(10),
          "Time an HTTP request's head may take to arrive, from its first byte (then 408).");
ABSL_FLAG(absl::Duration, http_body_timeout, absl::Seconds(30),
          "Time an HTTP request's body may take to arrive, after its head (then 408).");
ABSL_FLAG(std::string, metrics_jobs, "",
          "Comma-separated job ids whose trigger lateness also gets a series of its own (job_id "
          "label); other jobs are only counted in aggregate.");
ABSL_FLAG(absl::Duration, record_ahead, absl::Milliseconds(50),
          "Record runs this long before their slots, many per store transaction, and send each "
          "at its instant (0: record each at its instant).");

namespace gnomon {
namespace {

// hostname:port of --listen (hostname:pid when the port is chosen at start):
// the same for a replica restarted in place (a pod's container restart), so
// it takes its predecessor's partitions over at once.
std::string DefaultReplicaId(const std::string& listen) {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  const std::string port = listen.substr(listen.rfind(':') + 1);
  return absl::StrCat(host, ":", port == "0" ? absl::StrCat("pid", ::getpid()) : port);
}

http::HttpLimits HttpLimitsFromFlags() {
  http::HttpLimits limits;
  limits.max_connections_per_client =
      std::max(1, absl::GetFlag(FLAGS_http_max_connections_per_client));
  limits.head_timeout = absl::GetFlag(FLAGS_http_head_timeout);
  limits.body_timeout = absl::GetFlag(FLAGS_http_body_timeout);
  return limits;
}

// --metrics-jobs as ids; nullopt (with a message) if one is not a positive number.
std::optional<std::vector<int64_t>> MetricsJobs() {
  std::vector<int64_t> ids;
  for (absl::string_view item :
       absl::StrSplit(absl::GetFlag(FLAGS_metrics_jobs), ',', absl::SkipEmpty())) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(item, &id) || id <= 0) {
      std::cerr << "gnomond: --metrics-jobs: \"" << item << "\" is not a job id\n";
      return std::nullopt;
    }
    ids.push_back(id);
  }
  return ids;
}

// The store of --store, migrated (OpenStore applies pending migrations),
// with the partition count of --partitions (recorded if the store is new).
absl::StatusOr<std::unique_ptr<store::Store>> OpenStoreFromFlags() {
  store::StoreOptions store_options;
  store_options.max_log_lines_per_run = absl::GetFlag(FLAGS_max_log_lines_per_run);
  const int64_t log_mib = absl::GetFlag(FLAGS_max_log_mib_per_run);
  if (log_mib < 1 || log_mib > kMaxLogMibPerRun) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max-log-mib-per-run: ", log_mib, " is not in 1..", kMaxLogMibPerRun));
  }
  store_options.max_log_bytes_per_run = log_mib << 20;
  store_options.script_versions_kept = absl::GetFlag(FLAGS_script_versions);
  if (store_options.script_versions_kept < 1) {
    return absl::InvalidArgumentError("--script-versions: must be at least 1");
  }
  const int partitions = absl::GetFlag(FLAGS_partitions);
  if (partitions < 1 || partitions > store::kMaxPartitions) {
    return absl::InvalidArgumentError(
        absl::StrCat("--partitions: ", partitions, " is not in 1..", store::kMaxPartitions));
  }
  store_options.initial_partitions = partitions;
  const std::string url = absl::GetFlag(FLAGS_store);
  if (absl::StartsWith(url, "sqlite:")) {
    // Create the parent directory of a relative or absolute SQLite path.
    std::string path = url.substr(7);
    if (size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0) {
      ::mkdir(path.substr(0, slash).c_str(), 0755);
    }
  }
  absl::StatusOr<std::unique_ptr<store::Store>> opened = store::OpenStore(url, store_options);
  if (!opened.ok()) {
    return absl::Status(opened.status().code(),
                        absl::StrCat("--store: ", opened.status().ToString()));
  }
  std::unique_ptr<store::Store> store = *std::move(opened);
  // Never re-hash: jobs would change partitions (and fencing epochs) under
  // replicas that still use the recorded count, and fire twice or not at all.
  if (store->partition_count() != partitions) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--partitions=", partitions, ", but the store was initialised with ",
        store->partition_count(),
        " partitions; the partition count cannot change after install: give every gnomond of "
        "this installation --partitions=",
        store->partition_count()));
  }
  return store;
}

// --migrate-only: migrates the store and exits, before any role exists.
int MigrateOnly() {
  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenStoreFromFlags();
  if (!store.ok()) {
    std::cerr << "gnomond: " << store.status().message() << "\n";
    return 1;
  }
  logging::Announce(
      absl::StrCat("gnomond: store migrated (", (*store)->partition_count(), " partitions)"));
  return 0;
}

int Serve() {
  if (absl::GetFlag(FLAGS_migrate_only)) return MigrateOnly();
  std::set<std::string> roles;
  for (absl::string_view r : absl::StrSplit(absl::GetFlag(FLAGS_roles), ',', absl::SkipEmpty())) {
    if (r != "scheduler" && r != "registry" && r != "log") {
      std::cerr << "gnomond: --roles: unknown role \"" << r
                << "\"; want scheduler, registry, log\n";
      return 2;
    }
    roles.emplace(r);
  }
  if (roles.empty()) {
    std::cerr << "gnomond: --roles: empty\n";
    return 2;
  }
  std::string cluster_token = absl::GetFlag(FLAGS_cluster_token);
  if (cluster_token.empty()) {
    if (roles.size() < 3 && roles.count("scheduler") && !roles.count("registry")) {
      std::cerr << "gnomond: --cluster-token is required when the scheduler and registry "
                   "run in separate processes\n";
      return 2;
    }
    cluster_token = NewToken();  // Only this process needs to know it.
  }

  absl::StatusOr<GnomondTls> tls = TlsFromFlags();
  if (!tls.ok()) {
    std::cerr << "gnomond: " << tls.status().message() << "\n";
    return 2;
  }
  const std::string metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  std::optional<std::vector<int64_t>> metrics_jobs = MetricsJobs();
  if (!metrics_jobs) return 2;
  // Off unless asked for: then nothing is measured at all, not even counted.
  std::shared_ptr<metrics::MetricsRegistry> metrics_registry;
  if (!metrics_listen.empty()) {
    metrics_registry = std::make_shared<metrics::MetricsRegistry>();
    metrics::AddBuildInfo(*metrics_registry, "gnomond");
  }

  absl::StatusOr<std::unique_ptr<store::Store>> store = OpenStoreFromFlags();
  if (!store.ok()) {
    std::cerr << "gnomond: " << store.status().message() << "\n";
    return 1;
  }
  // With metrics, every role's store calls go through an ObservedStore.
  std::unique_ptr<StoreMetrics> store_metrics;
  std::unique_ptr<store::ObservedStore> observed;
  store::Store* const roles_store = [&]() -> store::Store* {
    if (!metrics_registry) return store->get();
    store_metrics = std::make_unique<StoreMetrics>(*metrics_registry, store->get());
    observed = std::make_unique<store::ObservedStore>(store->get(), store_metrics.get());
    return observed.get();
  }();
  std::unique_ptr<ServerMetrics> server_metrics =
      metrics_registry ? std::make_unique<ServerMetrics>(*metrics_registry,
                                                         absl::GetFlag(FLAGS_metrics_legacy_names))
                       : nullptr;
  Authenticator auth(roles_store, roles_store, cluster_token, server_metrics.get());
  std::ostringstream token_notice;
  if (absl::Status s =
          BootstrapAdminToken(auth, absl::GetFlag(FLAGS_admin_token_file), token_notice);
      !s.ok()) {
    std::cerr << "gnomond: creating the first admin token: " << s << "\n";
    return 1;
  }
  if (!token_notice.str().empty()) {
    logging::Announce(absl::StripTrailingAsciiWhitespace(token_notice.str()));
  }

  GrpcServer server(server_metrics.get());
  std::unique_ptr<registry::RegistryRole> registry_role;
  std::unique_ptr<logsvc::LogRole> log_role;
  std::unique_ptr<scheduler::SchedulerRole> scheduler_role;
  if (roles.count("registry")) {
    registry::RegistryOptions o;
    o.beat_interval = absl::GetFlag(FLAGS_beat_interval);
    o.missed_beats = absl::GetFlag(FLAGS_missed_beats);
    o.max_executors_per_app = absl::GetFlag(FLAGS_max_executors_per_app);
    o.replica_id = absl::GetFlag(FLAGS_replica_id);
    if (o.replica_id.empty()) o.replica_id = DefaultReplicaId(absl::GetFlag(FLAGS_listen));
    registry_role =
        std::make_unique<registry::RegistryRole>(roles_store, &auth, o, metrics_registry.get());
    server.AddService(registry_role->service(), v1::Registry::service_full_name());
  }
  if (roles.count("log")) {
    logsvc::RetentionOptions retention;
    retention.days = absl::GetFlag(FLAGS_retention_days);
    retention.max_runs_per_job = absl::GetFlag(FLAGS_max_runs_per_job);
    logsvc::QueryLimits queries;
    queries.rate = {absl::GetFlag(FLAGS_admin_rate_limit), absl::GetFlag(FLAGS_admin_rate_burst)};
    queries.follows_per_credential = absl::GetFlag(FLAGS_log_follows_per_credential);
    queries.follows = absl::GetFlag(FLAGS_log_follows);
    log_role = std::make_unique<logsvc::LogRole>(roles_store, &auth, logsvc::ReportWriterOptions{},
                                                 retention, queries, metrics_registry.get());
    server.AddService(log_role->service(), v1::LogService::service_full_name());
  }
  if (roles.count("scheduler")) {
    scheduler::SchedulerOptions o;
    o.registry_dial = tls->registry_dial;
    o.limits.max_params_bytes = absl::GetFlag(FLAGS_max_params_bytes);
    o.limits.max_jobs_per_group = absl::GetFlag(FLAGS_max_jobs_per_group);
    o.token_grace = absl::GetFlag(FLAGS_token_grace);
    o.executor_return_grace = absl::GetFlag(FLAGS_executor_return_grace);
    o.admin_rate.per_second = absl::GetFlag(FLAGS_admin_rate_limit);
    o.admin_rate.burst = absl::GetFlag(FLAGS_admin_rate_burst);
    o.loop.preread_window = absl::GetFlag(FLAGS_preread_window);
    o.loop.record_ahead = absl::GetFlag(FLAGS_record_ahead);
    o.lease.ttl = absl::GetFlag(FLAGS_lease_ttl);
    o.lease.renew_interval = absl::GetFlag(FLAGS_lease_renew);
    o.replica_id = absl::GetFlag(FLAGS_replica_id);
    if (o.replica_id.empty()) o.replica_id = DefaultReplicaId(absl::GetFlag(FLAGS_listen));
    o.followups.alarm_every_attempt = absl::GetFlag(FLAGS_alarm_every_attempt);
    o.followups.lost_retry_wait = absl::GetFlag(FLAGS_lost_retry_wait);
    absl::StatusOr<curl::DestinationAllowList> webhook_allow =
        scheduler::alarm::WebhookAllowList(absl::GetFlag(FLAGS_alarm_webhook_allow));
    if (!webhook_allow.ok()) {
      std::cerr << "gnomond: " << webhook_allow.status().message() << "\n";
      return 2;
    }
    o.webhook.allow = *std::move(webhook_allow);
    o.email.smtp_url = absl::GetFlag(FLAGS_smtp_url);
    o.email.from = absl::GetFlag(FLAGS_smtp_from);
    o.email.username = absl::GetFlag(FLAGS_smtp_user);
    if (std::string file = absl::GetFlag(FLAGS_smtp_password_file); !file.empty()) {
      std::ifstream in(file);
      if (!in) {
        std::cerr << "gnomond: --smtp-password-file: cannot read " << file << "\n";
        return 2;
      }
      std::getline(in, o.email.password);
    }
    o.metrics_jobs = *metrics_jobs;
    scheduler_role =
        std::make_unique<scheduler::SchedulerRole>(roles_store, &auth, o, metrics_registry.get());
    server.AddService(scheduler_role->service(), v1::JobAdmin::service_full_name());
    server.AddService(scheduler_role->executors_service(), v1::Dispatch::service_full_name());
  }
  std::unique_ptr<metrics::MetricsServer> metrics_server;
  if (metrics_registry) {
    absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> started =
        metrics::MetricsServer::Start(metrics_listen, metrics_registry, tls->metrics);
    if (!started.ok()) {
      std::cerr << "gnomond: --metrics-listen: " << started.status() << "\n";
      return 1;
    }
    metrics_server = *std::move(started);
    logging::Announce(absl::StrCat("gnomond metrics on ",
                                   tls->metrics.enabled ? "https://" : "http://",
                                   metrics_server->address(), "/metrics"));
  }
  absl::StatusOr<int> port = server.Start(absl::GetFlag(FLAGS_listen), tls->server);
  if (!port.ok()) {
    std::cerr << "gnomond: --listen: " << port.status() << "\n";
    return 1;
  }
  std::unique_ptr<http::HttpServer> http_server;
  if (const std::string http_listen = absl::GetFlag(FLAGS_http_listen); !http_listen.empty()) {
    http::GatewayOptions gateway;
    gateway.channel = server.server()->InProcessChannel(grpc::ChannelArguments());
    gateway.auth = &auth;
    gateway.console_dir = absl::GetFlag(FLAGS_console_dir);
    gateway.openapi_json =
        http::OpenApiJson({v1::JobAdmin::service_full_name(), v1::LogService::service_full_name(),
                           v1::Registry::service_full_name()},
                          Version());
    absl::StatusOr<std::unique_ptr<http::HttpServer>> started =
        http::HttpServer::Start(http_listen, http::JsonGateway(std::move(gateway)), tls->http,
                                "http", HttpLimitsFromFlags(), http::GatewayHeadCheck(&auth));
    if (!started.ok()) {
      std::cerr << "gnomond: --http-listen: " << started.status() << "\n";
      return 1;
    }
    http_server = *std::move(started);
    const std::string http_host = http_listen.substr(0, http_listen.rfind(':'));
    logging::Announce(absl::StrCat(
        "gnomond HTTP API on ", tls->http.enabled ? "https://" : "http://",
        http_host.empty() || http_host == "0.0.0.0" || http_host == "[::]" ? "127.0.0.1"
                                                                           : http_host,
        ":", http_server->port()));
  }
  const std::string listen = absl::GetFlag(FLAGS_listen);
  const std::string host = listen.substr(0, listen.rfind(':'));
  const std::string self =
      absl::StrCat(host == "0.0.0.0" || host == "[::]" ? "127.0.0.1" : host, ":", *port);
  std::string endpoint = absl::GetFlag(FLAGS_registry_endpoint);
  if (scheduler_role && endpoint.empty()) {
    if (!registry_role) {
      std::cerr << "gnomond: --registry-endpoint is required without the registry role\n";
      return 2;
    }
    endpoint = self;
  }
  // Readiness tells the truth: each role is NOT_SERVING while its store is
  // unreachable, a scheduler also while it cannot hold its partitions.
  HealthMonitor health(server.server()->GetHealthCheckService(), &RealClock());
  store::Store* db = store->get();
  auto store_check = [db] {
    absl::Status s = db->Ping();
    return s.ok() ? s : absl::UnavailableError(absl::StrCat("store unreachable: ", s.message()));
  };
  if (registry_role) health.Add(v1::Registry::service_full_name(), store_check);
  if (log_role) health.Add(v1::LogService::service_full_name(), store_check);
  if (scheduler_role) {
    health.Add(v1::JobAdmin::service_full_name(), [store_check, s = scheduler_role.get()] {
      absl::Status db_ok = store_check();
      return db_ok.ok() ? s->Health() : db_ok;
    });
  }
  // Overload is a state, not a failure: the process stays ready; it says it
  // is behind (log lines at the edges, metrics, and the health service
  // "gnomon.overload", a detail that readiness does not depend on).
  OverloadMonitor overload(&RealClock(), metrics_registry.get(), {});
  if (scheduler_role) {
    overload.AddStage("schedule_loop_seconds", [s = scheduler_role.get()] {
      const double behind = absl::ToDoubleSeconds(s->loop_behind());
      return OverloadMonitor::Sample{behind, behind >= 2};
    });
    overload.AddStage("dispatch_outcomes_queued", [s = scheduler_role.get()] {
      const double n = static_cast<double>(s->dispatch_outcomes_queued());
      return OverloadMonitor::Sample{n, n >= 8192};
    });
    overload.AddCounter("slots_misfired_skipped",
                        [s = scheduler_role.get()] { return s->misfires_skipped(); });
    overload.AddCounter("slots_misfired_fired_late",
                        [s = scheduler_role.get()] { return s->misfires_fired(); });
  }
  if (log_role) {
    overload.AddStage("results_queued", [l = log_role.get()] {
      const double n = static_cast<double>(l->queued_items());
      return OverloadMonitor::Sample{n, n >= 8192};
    });
  }
  health.AddDetail(kOverloadHealthService, [&overload] { return overload.Status(); });
  // Until the first check the health service answers its default, SERVING:
  // check once now, so nothing reports ready before the checks say so.
  health.CheckNow();
  health.Start();
  overload.Start();
  if (log_role && scheduler_role) {
    // Both ends of the follow-up outbox in one process: no polling delay.
    log_role->OnResultsStored([s = scheduler_role.get()] { s->ResultsStored(); });
  }
  if (registry_role) registry_role->Start();
  if (log_role) log_role->Start();
  if (scheduler_role) scheduler_role->Start(endpoint);
  logging::Announce(absl::StrCat("gnomond listening on ", self,
                                 tls->server.enabled ? " with TLS" : "", " (roles ",
                                 absl::GetFlag(FLAGS_roles), ")"));

  // Signals were blocked in main(), so every thread inherits the mask and
  // only this wait sees them. With store stats on, the wait times out to log.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  const absl::Duration stats_every = absl::GetFlag(FLAGS_store_stats_interval);
  const timespec stats_timeout = absl::ToTimespec(stats_every);
  int sig = -1;
  while (sig < 0) {
    if (stats_every <= absl::ZeroDuration()) {
      sigwait(&set, &sig);
      break;
    }
    sig = sigtimedwait(&set, nullptr, &stats_timeout);
    if (sig < 0) {
      // Cumulative, with its instant, so a reader can difference two lines.
      logging::Announce(absl::StrCat("gnomond: store stats: ", (*store)->committed_transactions(),
                                     " write transactions committed, ",
                                     (*store)->executed_statements(), " statements executed by ",
                                     absl::ToUnixMillis(absl::Now()), " (unix ms)"));
    }
  }
  GNOMON_LOG(INFO) << "gnomond: signal " << sig << ", shutting down";
  health.Stop();
  overload.Stop();
  if (scheduler_role) scheduler_role->Stop();
  if (registry_role) registry_role->Stop();
  http_server.reset();  // Ends its event streams before the gRPC server goes.
  server.Shutdown(absl::Seconds(5));
  if (log_role) log_role->Stop();
  return 0;
}

}  // namespace
}  // namespace gnomon

int main(int argc, char** argv) {
  gnomon::UseReleaseMutexMode();
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  gnomon::ParseFlagsWithEnv(argc, argv,
                            "gnomond: the gnomon job scheduler server.\n"
                            "Usage: gnomond [--roles=scheduler,registry,log] [--listen=HOST:PORT] "
                            "[--store=URL] ...");
  gnomon::logging::Format log_format;
  if (!gnomon::logging::ParseFormat(absl::GetFlag(FLAGS_log_format), &log_format)) {
    std::fprintf(stderr, "gnomond: --log-format must be text or json\n");
    return 2;
  }
  gnomon::logging::SetFormat(log_format);
  return gnomon::Serve();
}
