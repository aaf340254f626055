#include "tests/support/gnomon_cluster.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::testing {

GnomonCluster::GnomonCluster(std::vector<std::string> extra_flags, int replicas)
    : extra_flags_(std::move(extra_flags)), replicas_(replicas) {}

bool GnomonCluster::Start() {
  for (int i = 0; i < replicas(); ++i) {
    if (!StartReplica(i)) return false;
  }
  return true;
}

bool GnomonCluster::StartReplica(int i) {
  Replica& r = replicas_[i];
  std::vector<std::string> argv = {GNOMOND_PATH,
                                   "--listen=" + r.listen,
                                   absl::StrCat("--store=sqlite:", dir(), "/gnomon.db"),
                                   absl::StrCat("--admin-token-file=", dir(), "/admin.token"),
                                   absl::StrCat("--replica-id=replica-", i),
                                   "--beat-interval=500ms"};
  argv.insert(argv.end(), extra_flags_.begin(), extra_flags_.end());  // A later --store wins.
  r.process = std::make_unique<Subprocess>(argv);
  std::optional<std::string> line =
      r.process->WaitForLine("gnomond listening on", absl::Seconds(30));
  if (!line) return false;
  r.running = true;
  // "gnomond listening on 127.0.0.1:PORT (roles ...)"
  std::string rest = line->substr(line->find(" on ") + 4);
  r.address = rest.substr(0, rest.find(' '));
  if (admin_token_.empty()) {
    std::ifstream f(dir() + "/admin.token");
    std::getline(f, admin_token_);
  }
  r.listen = r.address;  // A restart reuses the port executors know.
  return !r.address.empty() && !admin_token_.empty();
}

void GnomonCluster::Stop(int i, int sig) {
  replicas_[i].process->Kill(sig);
  replicas_[i].process->Wait();
  replicas_[i].running = false;
}

bool GnomonCluster::Restart(int i, int sig) {
  Stop(i, sig);
  return StartReplica(i);
}

namespace {

// N and M of the last "holds N of M partitions" line in `output` (0, 0 if none).
std::pair<int, int> LastHolds(const std::string& output) {
  std::istringstream in(output);
  std::pair<int, int> held = {0, 0};
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(" holds ");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 7));
    std::string of;
    words >> held.first >> of >> held.second;
  }
  return held;
}

}  // namespace

int GnomonCluster::HeldPartitions(int i) const {
  return LastHolds(replicas_[i].process->Output()).first;
}

bool GnomonCluster::AwaitPartitionsShared(absl::Duration limit) const {
  const absl::Time deadline = absl::Now() + limit;
  while (true) {
    int held = 0, total = 0;
    bool each = true;
    for (const Replica& r : replicas_) {
      if (!r.running) continue;
      const auto [n, of] = LastHolds(r.process->Output());
      held += n;
      total = std::max(total, of);
      each &= n > 0;
    }
    if (each && total > 0 && held == total) return true;
    if (absl::Now() >= deadline) return false;
    PollInterval(absl::Milliseconds(100));
  }
}

std::string GnomonCluster::addresses() const {
  std::string out;
  for (const Replica& r : replicas_) absl::StrAppend(&out, out.empty() ? "" : ",", r.address);
  return out;
}

std::optional<std::string> GnomonCluster::HttpUrl(int i) {
  std::optional<std::string> line =
      replicas_[i].process->WaitForLine("gnomond HTTP API on ", absl::Seconds(30));
  if (!line || line->find("http") == std::string::npos) return std::nullopt;
  return std::string(absl::StripAsciiWhitespace(line->substr(line->find("http"))));
}

CommandResult GnomonCluster::Ctl(const std::vector<std::string>& args) const {
  std::string server = replicas_[0].address;
  for (const Replica& r : replicas_) {
    if (r.running) {
      server = r.address;
      break;
    }
  }
  std::vector<std::string> argv = {GNOMONCTL_PATH, "--server", server, "--token", admin_token_};
  argv.insert(argv.end(), ctl_flags_.begin(), ctl_flags_.end());
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

std::unique_ptr<grpc::ClientContext> GnomonCluster::AdminContext(absl::Duration timeout) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(admin_token_));
  return ctx;
}

bool GnomonCluster::CtlJson(const std::vector<std::string>& args,
                            google::protobuf::Message* out) const {
  std::vector<std::string> with_json = args;
  with_json.push_back("-o");
  with_json.push_back("json");
  CommandResult r = Ctl(with_json);
  if (r.exit_code != 0) {
    ADD_FAILURE() << "gnomonctl " << args[0] << " " << args[1] << " exited " << r.exit_code << ": "
                  << r.err;
    return false;
  }
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(r.out, out, opts);
  if (!status.ok()) {
    ADD_FAILURE() << "gnomonctl output is not a " << out->GetTypeName() << ": " << status << "\n"
                  << r.out;
    return false;
  }
  return true;
}

bool GnomonCluster::AwaitOnline(int64_t group_id, int executors, absl::Duration limit,
                                v1::ListExecutorsResponse* last) const {
  const absl::Time deadline = absl::Now() + limit;
  v1::ListExecutorsResponse online;
  while (!(CtlJson({"executor", "list", "--group", absl::StrCat(group_id)}, &online) &&
           online.groups_size() == 1 && online.groups(0).executors_size() == executors)) {
    if (absl::Now() > deadline) {
      if (last != nullptr) *last = online;
      return false;
    }
    PollInterval(absl::Milliseconds(100));
  }
  if (last != nullptr) *last = online;
  return true;
}

v1::Run GnomonCluster::TriggerUntilSucceeded(int64_t job_id,
                                             const std::vector<std::string>& extra_args,
                                             absl::Duration limit) const {
  v1::Run last;
  const absl::Time deadline = absl::Now() + limit;
  while (absl::Now() < deadline) {
    std::vector<std::string> args = {"job", "trigger", absl::StrCat(job_id)};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    v1::TriggerJobResponse fired;
    if (!CtlJson(args, &fired) || fired.run_ids_size() == 0) return last;
    // Until this run ends (or a few seconds pass), then trigger again.
    const absl::Time run_deadline = std::min(deadline, absl::Now() + absl::Seconds(10));
    while (absl::Now() < run_deadline) {
      v1::GetRunResponse run;
      if (!CtlJson({"run", "get", absl::StrCat(fired.run_ids(0))}, &run)) return last;
      last = run.run();
      if (last.status() == v1::RUN_STATUS_SUCCEEDED) return last;
      if (last.status() == v1::RUN_STATUS_FAILED) break;
      PollInterval(absl::Milliseconds(100));
    }
  }
  return last;
}

std::unique_ptr<Subprocess> GnomonCluster::StartExecutor(const std::string& app,
                                                         const std::string& token,
                                                         std::vector<std::string> extra) const {
  std::vector<std::string> argv = {SAMPLE_EXECUTOR_PATH, absl::StrCat("--app=", app),
                                   absl::StrCat("--registry=", addresses()),
                                   absl::StrCat("--spool-dir=", dir(), "/spool-", app),
                                   absl::StrCat("--log-dir=", dir(), "/logs-", app)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  // The token goes through the environment, as an operator would pass a secret.
  return std::make_unique<Subprocess>(
      argv, std::map<std::string, std::string>{{"GNOMON_ACCESS_TOKEN", token}});
}

void GnomonCluster::PollInterval(absl::Duration d) const {
  absl::Notification never;
  never.WaitForNotificationWithTimeout(d);
}

std::string GnomonCluster::Output() const {
  std::string out;
  for (size_t i = 0; i < replicas_.size(); ++i) {
    if (replicas_[i].process) {
      absl::StrAppend(&out, "--- gnomond replica ", i, " output ---\n",
                      replicas_[i].process->Output());
    }
  }
  return out;
}

std::optional<std::string> FreshMysqlUrl() {
  const char* base = std::getenv("GNOMON_TEST_MYSQL_URL");
  if (base == nullptr || *base == '\0') return std::nullopt;
  static int counter = 0;
  std::string url = base;
  return absl::StrCat(url.substr(0, url.rfind('/') + 1), "gnomon_e2e_", getpid(), "_", ++counter);
}

std::string GnomonCluster::WriteFile(const std::string& name, const std::string& text) const {
  const std::string path = dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace gnomon::testing
