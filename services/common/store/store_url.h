// StoreUrl: the parsed form of a store URL given to OpenStore.
//
//   sqlite:PATH                                  e.g. sqlite:/var/lib/gnomon/gnomon.db
//   mysql://user[:password]@host[:port]/database e.g. mysql://root@127.0.0.1:3306/gnomon
//
// User and password are percent-decoded ("p%40ss" is "p@ss"); the port
// defaults to 3306; the database name is letters, digits, '_' and '$'.
//
// Example:
//   absl::StatusOr<StoreUrl> url = ParseStoreUrl("mysql://root@db:3306/gnomon");
//   if (url.ok() && url->kind == StoreUrl::Kind::kMysql) Connect(url->mysql);
//
// Thread safety: pure function.
#ifndef GNOMON_SERVICES_COMMON_STORE_STORE_URL_H_
#define GNOMON_SERVICES_COMMON_STORE_STORE_URL_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace gnomon::store {

struct MysqlAddress {
  std::string user;
  std::string password;
  std::string host;
  int port = 3306;
  std::string database;
};

struct StoreUrl {
  enum class Kind { kSqlite, kMysql };
  Kind kind = Kind::kSqlite;
  std::string sqlite_path;  // For kSqlite.
  MysqlAddress mysql;       // For kMysql.
};

// InvalidArgument, naming the problem, for a URL that is not one of the forms above.
absl::StatusOr<StoreUrl> ParseStoreUrl(std::string_view url);

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_STORE_URL_H_
