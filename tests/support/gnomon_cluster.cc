#include "tests/support/gnomon_cluster.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace gnomon::testing {

GnomonCluster::GnomonCluster(std::vector<std::string> extra_flags)
    : extra_flags_(std::move(extra_flags)) {}

bool GnomonCluster::Start() {
  std::vector<std::string> argv = {GNOMOND_PATH,
                                   "--listen=" + listen_,
                                   absl::StrCat("--store=sqlite:", dir(), "/gnomon.db"),
                                   absl::StrCat("--admin-token-file=", dir(), "/admin.token"),
                                   "--beat-interval=500ms"};
  argv.insert(argv.end(), extra_flags_.begin(), extra_flags_.end());
  gnomond_ = std::make_unique<Subprocess>(argv);
  std::optional<std::string> line = gnomond_->WaitForLine("gnomond listening on", absl::Seconds(30));
  if (!line) return false;
  // "gnomond listening on 127.0.0.1:PORT (roles ...)"
  std::string rest = line->substr(line->find(" on ") + 4);
  address_ = rest.substr(0, rest.find(' '));
  if (admin_token_.empty()) {
    std::ifstream f(dir() + "/admin.token");
    std::getline(f, admin_token_);
  }
  listen_ = address_;  // A restart reuses the port executors know.
  return !address_.empty() && !admin_token_.empty();
}

bool GnomonCluster::Restart(int sig) {
  gnomond_->Kill(sig);
  gnomond_->Wait();
  return Start();
}

CommandResult GnomonCluster::Ctl(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {GNOMONCTL_PATH, "--server", address_, "--token", admin_token_};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

bool GnomonCluster::CtlJson(const std::vector<std::string>& args,
                            google::protobuf::Message* out) const {
  std::vector<std::string> with_json = args;
  with_json.push_back("-o");
  with_json.push_back("json");
  CommandResult r = Ctl(with_json);
  if (r.exit_code != 0) {
    ADD_FAILURE() << "gnomonctl " << args[0] << " " << args[1] << " exited " << r.exit_code
                  << ": " << r.err;
    return false;
  }
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(r.out, out, opts);
  if (!status.ok()) {
    ADD_FAILURE() << "gnomonctl output is not a " << out->GetTypeName() << ": " << status
                  << "\n" << r.out;
    return false;
  }
  return true;
}

std::unique_ptr<Subprocess> GnomonCluster::StartExecutor(const std::string& app,
                                                         const std::string& token,
                                                         std::vector<std::string> extra) const {
  std::vector<std::string> argv = {SAMPLE_EXECUTOR_PATH,
                                   absl::StrCat("--app=", app),
                                   absl::StrCat("--registry=", address_),
                                   "--listen=127.0.0.1:0",
                                   absl::StrCat("--spool-dir=", dir(), "/spool-", app),
                                   absl::StrCat("--log-dir=", dir(), "/logs-", app)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  // The token goes through the environment, as an operator would pass a secret.
  return std::make_unique<Subprocess>(argv, std::map<std::string, std::string>{
                                                {"GNOMON_ACCESS_TOKEN", token}});
}

void GnomonCluster::PollInterval(absl::Duration d) const {
  absl::Notification never;
  never.WaitForNotificationWithTimeout(d);
}

std::string GnomonCluster::Output() const {
  return gnomond_ ? "--- gnomond output ---\n" + gnomond_->Output() : "";
}

std::optional<std::string> FreshMysqlUrl() {
  const char* base = std::getenv("GNOMON_TEST_MYSQL_URL");
  if (base == nullptr || *base == '\0') return std::nullopt;
  static int counter = 0;
  std::string url = base;
  return absl::StrCat(url.substr(0, url.rfind('/') + 1), "gnomon_e2e_", getpid(), "_", ++counter);
}

}  // namespace gnomon::testing
