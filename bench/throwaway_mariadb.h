// ThrowawayMariadb: a private MariaDB server for one benchmark run, started
// the way scripts/lib.sh start_mariadb does (fresh data directory, loopback
// only, a free port, root without a password) and stopped by the destructor.
// Only this server is ever stopped: by its own socket, then by its own pid.
//
//   absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> db = ThrowawayMariadb::Start();
//   if (absl::IsUnavailable(db.status())) { /* mariadbd is not installed */ }
//   std::string url = (*db)->Url("gnomon_bench");  // for gnomond --store
//
// Thread safety: use from one thread.
#ifndef GNOMON_BENCH_THROWAWAY_MARIADB_H_
#define GNOMON_BENCH_THROWAWAY_MARIADB_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/store_reader.h"
#include "tests/support/subprocess.h"

namespace gnomon::bench {

class ThrowawayMariadb {
 public:
  // Unavailable when mariadbd or mariadb-install-db is not installed.
  static absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> Start();
  ~ThrowawayMariadb();
  ThrowawayMariadb(const ThrowawayMariadb&) = delete;
  ThrowawayMariadb& operator=(const ThrowawayMariadb&) = delete;

  // A gnomond --store URL for `database` (the store creates it).
  std::string Url(const std::string& database) const;
  pid_t pid() const { return server_->pid(); }
  std::unique_ptr<StoreReader> Reader(const std::string& database) const;
  // SHOW GLOBAL STATUS values of `names`; names the server lacks are absent.
  absl::StatusOr<std::map<std::string, int64_t>> GlobalStatus(const std::vector<std::string>& names) const;

 private:
  ThrowawayMariadb() = default;

  testing::TempDir dir_;
  int port_ = 0;
  std::unique_ptr<testing::Subprocess> server_;
};

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_THROWAWAY_MARIADB_H_
