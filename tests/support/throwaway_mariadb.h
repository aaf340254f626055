// ThrowawayMariadb: a private MariaDB server for one test or benchmark run,
// started the way scripts/lib.sh start_mariadb does (fresh data directory,
// loopback only, a free port, root without a password) and stopped by the
// destructor. Only this server is ever stopped: by its own socket, then by
// its own pid. A test may stop it and start it again (same port, same data)
// to take the store away from gnomond for a while without disturbing the
// shared server other tests use.
//
//   absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> db = ThrowawayMariadb::Start();
//   if (absl::IsUnavailable(db.status())) { /* mariadbd is not installed */ }
//   std::string url = (*db)->Url("gnomon_bench");  // for gnomond --store
//   (*db)->Stop();  ... (*db)->Resume();          // an outage
//
// Thread safety: use from one thread.
#ifndef GNOMON_TESTS_SUPPORT_THROWAWAY_MARIADB_H_
#define GNOMON_TESTS_SUPPORT_THROWAWAY_MARIADB_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tests/support/subprocess.h"

namespace gnomon::testing {

class ThrowawayMariadb {
 public:
  // Unavailable when mariadbd or mariadb-install-db is not installed.
  // `server_args` are added to mariadbd's command line (a bench comparing
  // settings: "--log-bin", "--performance-schema=ON", ...).
  static absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> Start(
      std::vector<std::string> server_args = {});
  ~ThrowawayMariadb();
  ThrowawayMariadb(const ThrowawayMariadb&) = delete;
  ThrowawayMariadb& operator=(const ThrowawayMariadb&) = delete;

  // A gnomond --store URL for `database` (the store creates it).
  std::string Url(const std::string& database) const;
  // The server's pid (while it runs).
  pid_t pid() const { return server_->pid(); }
  // The server's Unix socket (for the `mariadb` command-line client).
  std::string socket() const { return dir_.path() + "/mysqld.sock"; }

  // Shuts the server down (mariadb-admin shutdown) and waits for it to exit.
  absl::Status Stop();
  // Starts the stopped server again on the same port and data directory and
  // waits until it answers.
  absl::Status Resume();

 private:
  ThrowawayMariadb() = default;
  // Starts mariadbd and waits until it answers a ping.
  absl::Status Launch();

  TempDir dir_;
  std::vector<std::string> server_args_;
  int port_ = 0;
  std::unique_ptr<Subprocess> server_;
};

// For a test that takes the store away: a private server, started only in
// the MariaDB mode (GNOMON_TEST_MYSQL_URL set, as scripts/test does).
//
//   PrivateMariadb m = StartPrivateMariadb();
//   if (!m.skip.empty()) GTEST_SKIP() << m.skip;
//   ASSERT_TRUE(m.status.ok()) << m.status;
struct PrivateMariadb {
  std::unique_ptr<ThrowawayMariadb> db;
  std::string skip;     // Why not: not the MariaDB mode, or mariadbd missing.
  absl::Status status;  // A server that would not start.
};
PrivateMariadb StartPrivateMariadb();

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_THROWAWAY_MARIADB_H_
