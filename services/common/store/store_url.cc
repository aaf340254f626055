#include "services/common/store/store_url.h"

#include <cctype>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gnomon::store {
namespace {

constexpr char kWant[] = "want sqlite:PATH or mysql://user:pass@host:port/db";

// Debian's Abseil has its own string_view type.
absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Status Bad(std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("store url: ", AV(problem), "; ", kWant));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> PercentDecode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return std::nullopt;
    const int hi = HexValue(in[i + 1]);
    const int lo = HexValue(in[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

absl::StatusOr<StoreUrl> ParseMysql(std::string_view rest) {
  StoreUrl url;
  url.kind = StoreUrl::Kind::kMysql;
  MysqlAddress& m = url.mysql;
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return Bad("mysql url has no /database");
  std::string_view authority = rest.substr(0, slash);
  const std::string_view database = rest.substr(slash + 1);
  const size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return Bad("mysql url has no user@");
  const std::string_view userinfo = authority.substr(0, at);
  std::string_view hostport = authority.substr(at + 1);

  const size_t colon = userinfo.find(':');
  std::optional<std::string> user = PercentDecode(userinfo.substr(0, colon));
  std::optional<std::string> password =
      colon == std::string_view::npos ? std::string() : PercentDecode(userinfo.substr(colon + 1));
  if (!user.has_value() || !password.has_value()) return Bad("bad percent escape in user:password");
  if (user->empty()) return Bad("mysql url has an empty user");
  m.user = *std::move(user);
  m.password = *std::move(password);

  const size_t port_colon = hostport.rfind(':');
  if (port_colon != std::string_view::npos) {
    const std::string_view port = hostport.substr(port_colon + 1);
    if (port.empty() || port.size() > 5) return Bad(absl::StrCat("bad port '", AV(port), "'"));
    int value = 0;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        return Bad(absl::StrCat("bad port '", AV(port), "'"));
      }
      value = value * 10 + (c - '0');
    }
    if (value < 1 || value > 65535) return Bad(absl::StrCat("port ", value, " out of range"));
    m.port = value;
    hostport = hostport.substr(0, port_colon);
  }
  if (hostport.empty()) return Bad("mysql url has no host");
  m.host = std::string(hostport);

  if (database.empty()) return Bad("mysql url has no database name");
  if (database.size() > 64) return Bad("database name longer than 64 characters");
  for (char c : database) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '$') {
      return Bad(absl::StrCat("database name '", AV(database),
                              "' may hold only letters, digits, '_' and '$'"));
    }
  }
  m.database = std::string(database);
  return url;
}

}  // namespace

absl::StatusOr<StoreUrl> ParseStoreUrl(std::string_view url) {
  const size_t colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Bad(absl::StrCat("no scheme in '", AV(url), "'"));
  }
  const std::string_view scheme = url.substr(0, colon);
  const std::string_view rest = url.substr(colon + 1);
  if (scheme == "sqlite") {
    if (rest.empty()) return Bad("sqlite url has no path");
    StoreUrl out;
    out.kind = StoreUrl::Kind::kSqlite;
    out.sqlite_path = std::string(rest);
    return out;
  }
  if (scheme == "mysql") {
    if (rest.substr(0, 2) != "//") return Bad("mysql url must start with mysql://");
    return ParseMysql(rest.substr(2));
  }
  return Bad(absl::StrCat("unknown scheme '", AV(scheme), "'"));
}

}  // namespace gnomon::store
