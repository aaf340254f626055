#include "tests/support/throwaway_mariadb.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace gnomon::testing {
namespace {

constexpr char kMariadbd[] = "/usr/sbin/mariadbd";
constexpr char kInstallDb[] = "/usr/bin/mariadb-install-db";
constexpr char kAdmin[] = "/usr/bin/mariadb-admin";

// A port free on loopback now (the server binds it a moment later).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> ThrowawayMariadb::Start(
    std::vector<std::string> server_args) {
  for (const char* tool : {kMariadbd, kInstallDb, kAdmin, "/usr/bin/mariadb", "/usr/bin/timeout"}) {
    if (access(tool, X_OK) != 0)
      return absl::UnavailableError(absl::StrCat(tool, " is not installed"));
  }
  std::unique_ptr<ThrowawayMariadb> db(new ThrowawayMariadb());
  db->server_args_ = std::move(server_args);
  const std::string dir = db->dir_.path();
  CommandResult installed =
      RunCommand({"/usr/bin/timeout", "120", kInstallDb, "--no-defaults",
                  absl::StrCat("--datadir=", dir, "/data"), "--user=root",
                  "--auth-root-authentication-method=normal", "--skip-test-db"});
  if (installed.exit_code != 0) {
    return absl::InternalError(
        absl::StrCat("mariadb-install-db exited ", installed.exit_code, ": ", installed.err));
  }
  db->port_ = FreePort();
  if (db->port_ == 0) return absl::InternalError("no free loopback port");
  if (absl::Status s = db->Launch(); !s.ok()) return s;
  return db;
}

absl::Status ThrowawayMariadb::Launch() {
  const std::string& dir = dir_.path();
  std::vector<std::string> argv = {kMariadbd,
                                   "--no-defaults",
                                   absl::StrCat("--datadir=", dir, "/data"),
                                   absl::StrCat("--socket=", socket()),
                                   absl::StrCat("--pid-file=", dir, "/mysqld.pid"),
                                   absl::StrCat("--port=", port_),
                                   "--bind-address=127.0.0.1",
                                   "--user=root",
                                   absl::StrCat("--log-error=", dir, "/error.log"),
                                   "--skip-name-resolve",
                                   "--innodb-buffer-pool-size=128M"};
  argv.insert(argv.end(), server_args_.begin(), server_args_.end());
  server_ = std::make_unique<Subprocess>(std::move(argv));
  // Ready in well under a second; 30 s is the failure guard.
  for (int i = 0; i < 300; ++i) {
    if (RunCommand({"/usr/bin/timeout", "10", kAdmin, "--no-defaults",
                    absl::StrCat("--socket=", socket()), "-uroot", "ping"})
            .exit_code == 0) {
      return absl::OkStatus();
    }
    if (server_->WaitFor(absl::Milliseconds(100)).has_value()) break;  // It exited.
  }
  return absl::InternalError(absl::StrCat("mariadbd did not come up; see ", dir, "/error.log"));
}

absl::Status ThrowawayMariadb::Stop() {
  RunCommand({"/usr/bin/timeout", "30", kAdmin, "--no-defaults",
              absl::StrCat("--socket=", socket()), "-uroot", "shutdown"});
  if (!server_->WaitFor(absl::Seconds(30)).has_value()) {
    server_->Kill(SIGKILL);
    server_->Wait();
    server_.reset();
    return absl::DeadlineExceededError("mariadbd did not shut down in 30 s; killed it");
  }
  server_.reset();
  return absl::OkStatus();
}

absl::Status ThrowawayMariadb::Resume() {
  if (server_) return absl::FailedPreconditionError("mariadbd is running");
  return Launch();
}

ThrowawayMariadb::~ThrowawayMariadb() {
  if (!server_) return;
  if (std::optional<int> code = server_->WaitFor(absl::ZeroDuration())) {
    // It died on its own (a crash prints its stack and query there): keep
    // the evidence before the directory goes.
    std::ifstream in(dir_.path() + "/error.log");
    std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (log.size() > 6000) log = "..." + log.substr(log.size() - 6000);
    std::printf("NOTE: mariadbd exited on its own (exit %d); the end of its error log:\n%s\n",
                *code, log.c_str());
    return;
  }
  if (!Stop().ok()) std::printf("NOTE: mariadbd did not shut down in 30 s; killed it\n");
}

std::string ThrowawayMariadb::Url(const std::string& database) const {
  return absl::StrCat("mysql://root@127.0.0.1:", port_, "/", database);
}

PrivateMariadb StartPrivateMariadb() {
  PrivateMariadb m;
  const char* mysql = std::getenv("GNOMON_TEST_MYSQL_URL");
  if (mysql == nullptr || *mysql == '\0') {
    m.skip = "runs in the MariaDB mode only (GNOMON_TEST_MYSQL_URL unset; scripts/test sets it)";
    return m;
  }
  absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> db = ThrowawayMariadb::Start();
  if (absl::IsUnavailable(db.status())) {
    m.skip = std::string(db.status().message());
  } else if (!db.ok()) {
    m.status = db.status();
  } else {
    m.db = *std::move(db);
  }
  return m;
}

}  // namespace gnomon::testing
