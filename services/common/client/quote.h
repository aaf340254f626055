// QuotedPrefix: how a message quotes a value it was given — at most a short
// prefix, C-escaped, so a 1 MB or binary value never comes back whole.
//
//   QuotedPrefix("Mars/Base")              // "\"Mars/Base\""
//   QuotedPrefix(std::string(1 << 20, 'x')) // "\"xxxx…(32 x)…\"" cut, with "…"
//
// Header-only (Abseil strings only), so the cron parser, the schedule
// library and the server's field checks all quote the same way.
//
// Thread safety: pure function.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_QUOTE_H_
#define GNOMON_SERVICES_COMMON_CLIENT_QUOTE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace gnomon {

// Bytes of a value a message may quote.
inline constexpr size_t kQuotedPrefixBytes = 32;

// The first kQuotedPrefixBytes bytes of `value`, C-escaped and in double
// quotes, with "…" before the closing quote when cut.
inline std::string QuotedPrefix(std::string_view value) {
  const bool cut = value.size() > kQuotedPrefixBytes;
  const std::string_view head = value.substr(0, kQuotedPrefixBytes);
  return absl::StrCat("\"", absl::CHexEscape(absl::string_view(head.data(), head.size())),
                      cut ? "…\"" : "\"");
}

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_QUOTE_H_
