#include "bench/burst_deployment.h"

#include <signal.h>

#include <fstream>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "services/common/status/status_macros.h"

namespace gnomon::bench {
namespace {

// The last lines of a process's output, for a failure message.
std::string Tail(const testing::Subprocess& p) {
  std::string out = p.Output();
  if (out.size() > 2000) out = "..." + out.substr(out.size() - 2000);
  return out;
}

void StopOne(testing::Subprocess& p, absl::Duration grace) {
  p.Kill(SIGTERM);
  if (!p.WaitFor(grace).has_value()) {
    p.Kill(SIGKILL);
    p.Wait();
  }
}

}  // namespace

absl::StatusOr<std::string> BurstDeployment::SpawnReplica(int i, const std::string& listen) {
  const std::string store =
      options_.store_url.empty() ? absl::StrCat("sqlite:", sqlite_path()) : options_.store_url;
  // The bench drives JobAdmin as fast as it answers: no admin rate limit.
  std::vector<std::string> argv = {GNOMOND_PATH, "--listen=" + listen, "--store=" + store,
                                   "--replica-id=" + ReplicaId(i), "--admin-rate-limit=0"};
  // Only the first replica creates the admin token (the store has one after).
  if (i == 0) argv.push_back(absl::StrCat("--admin-token-file=", dir(), "/admin.token"));
  argv.insert(argv.end(), options_.gnomond_flags.begin(), options_.gnomond_flags.end());
  if (options_.metrics) argv.push_back("--metrics-listen=127.0.0.1:0");
  replicas_[i] = std::make_unique<testing::Subprocess>(argv);
  // Migrations on a fresh MySQL database take a few seconds; 60 s is the guard.
  std::optional<std::string> line =
      replicas_[i]->WaitForLine("gnomond listening on", absl::Seconds(60));
  if (!line) {
    return absl::UnavailableError(
        absl::StrCat("gnomond ", i + 1, " did not start:\n", Tail(*replicas_[i])));
  }
  // "gnomond listening on 127.0.0.1:PORT (roles ...)"
  std::string rest = line->substr(line->find(" on ") + 4);
  return rest.substr(0, rest.find(' '));
}

absl::StatusOr<std::unique_ptr<BurstDeployment>> BurstDeployment::Start(
    BurstDeploymentOptions options) {
  std::unique_ptr<BurstDeployment> d(new BurstDeployment(std::move(options)));
  d->replicas_.resize(d->options_.replicas);
  for (int i = 0; i < d->options_.replicas; ++i) {
    ASSIGN_OR_RETURN(std::string address, d->SpawnReplica(i, "127.0.0.1:0"));
    d->addresses_.push_back(std::move(address));
  }
  std::ifstream token(d->dir() + "/admin.token");
  std::getline(token, d->admin_token_);
  if (d->admin_token_.empty()) return absl::InternalError("gnomond wrote no admin token");
  return d;
}

int BurstDeployment::StopReplica(int i, absl::Duration grace) {
  StopOne(*replicas_[i], grace);
  return replicas_[i]->Wait();
}

absl::Status BurstDeployment::StartReplica(int i) {
  return SpawnReplica(i, addresses_[i]).status();
}

void BurstDeployment::KillReplica(int i, int sig) {
  replicas_[i]->Kill(sig);
  replicas_[i]->Wait();
}

std::string BurstDeployment::ReplicaId(int i) { return absl::StrCat("gnomond-", i + 1); }

std::string BurstDeployment::invocations_file(int executor) const {
  return absl::StrCat(dir(), "/invocations-", executor);
}

BurstDeployment::~BurstDeployment() { Stop(absl::Seconds(5)); }

absl::Status BurstDeployment::StartExecutors(const std::string& app,
                                             const std::string& access_token) {
  for (int i = 0; i < options_.executors; ++i) {
    std::vector<std::string> registries;
    for (size_t k = 0; k < addresses_.size(); ++k)
      registries.push_back(addresses_[(i + k) % addresses_.size()]);
    std::vector<std::string> argv = {SAMPLE_EXECUTOR_PATH, absl::StrCat("--app=", app),
                                     absl::StrCat("--registry=", absl::StrJoin(registries, ",")),
                                     absl::StrCat("--spool-dir=", dir(), "/spool-", i),
                                     absl::StrCat("--log-dir=", dir(), "/logs-", i)};
    if (options_.executor_capacity > 0) {
      argv.push_back(absl::StrCat("--max-concurrent-runs=", options_.executor_capacity));
    }
    if (options_.count_invocations) argv.push_back("--invocations-file=" + invocations_file(i));
    if (options_.metrics) argv.push_back("--metrics-listen=127.0.0.1:0");
    // The token goes through the environment, as an operator would pass a secret.
    executors_.push_back(std::make_unique<testing::Subprocess>(
        argv, std::map<std::string, std::string>{{"GNOMON_ACCESS_TOKEN", access_token}}));
    if (!executors_.back()->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30))) {
      return absl::UnavailableError(
          absl::StrCat("executor ", i + 1, " did not start:\n", Tail(*executors_.back())));
    }
  }
  return absl::OkStatus();
}

void BurstDeployment::Stop(absl::Duration grace) {
  for (auto& e : executors_) StopOne(*e, grace);
  for (auto& r : replicas_) StopOne(*r, grace);
}

std::vector<std::string> BurstDeployment::metrics_urls() const {
  std::vector<std::string> urls;
  for (const Process& p : processes()) {
    // Printed before "listening on", which Start waited for.
    if (std::optional<std::string> line =
            p.process->WaitForLine("metrics on http://", absl::ZeroDuration())) {
      urls.emplace_back(absl::StripAsciiWhitespace(line->substr(line->find("http://"))));
    }
  }
  return urls;
}

std::vector<BurstDeployment::Process> BurstDeployment::processes() const {
  std::vector<Process> out;
  for (size_t i = 0; i < replicas_.size(); ++i) out.push_back({ReplicaId(i), replicas_[i].get()});
  for (size_t i = 0; i < executors_.size(); ++i)
    out.push_back({absl::StrCat("executor-", i + 1), executors_[i].get()});
  return out;
}

}  // namespace gnomon::bench
