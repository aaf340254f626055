// Field checks: the one place request fields are bounded. Every service's
// request validation is written with these helpers, so every refusal looks
// the same: INVALID_ARGUMENT, "<field>: <problem>", and a value is never
// echoed beyond Prefix() of it (a 1 MB value must not come back whole).
//
//   if (absl::Status s = FirstError({
//           CheckText("job.author", job.author(), 256),
//           CheckExecutorName("register.address", reg.address()),
//           CheckFinite("job.retry.multiplier", m, 0, 100)});
//       !s.ok()) return s;
//
// Field names are the request's field paths ("requests[3].job.author").
// The helpers know field names and values, never a service's types.
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_COMMON_SERVER_FIELD_CHECKS_H_
#define GNOMON_SERVICES_COMMON_SERVER_FIELD_CHECKS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "services/common/client/quote.h"

namespace gnomon::checks {

// Characters of a value a message may quote.
inline constexpr size_t kPrefixChars = kQuotedPrefixBytes;

// The first kPrefixChars bytes of `value`, C-escaped and quoted, with "…"
// before the closing quote when cut: "\"abc\"" or "\"aaaa…\"" (QuotedPrefix).
inline std::string Prefix(std::string_view value) { return QuotedPrefix(value); }
// InvalidArgument("<field>: <problem>").
absl::Status Invalid(std::string_view field, std::string_view problem);
// "<field>[<index>]".
std::string Indexed(std::string_view field, int index);
// The first status that is not OK, or OK.
absl::Status FirstError(std::initializer_list<absl::Status> statuses);

// What a string may contain.
enum class Charset {
  kBytes,  // Any bytes (params, scripts, process output): only the length is checked.
  kText,   // Anything but ASCII control characters other than tab and newline.
  kToken,  // Printable ASCII without spaces (handler names, e-mail addresses, URLs).
  kName,   // Letters, digits, '.', '_' and '-' (app names).
};

// At most `max` bytes (and at least `min`), every byte of `charset`.
absl::Status CheckString(std::string_view field, std::string_view value, size_t max,
                         Charset charset, size_t min = 0);
// CheckString with Charset::kText.
absl::Status CheckText(std::string_view field, std::string_view value, size_t max);
// A repeated field with at most `max` (and at least `min`) elements.
absl::Status CheckCount(std::string_view field, int count, int max, int min = 0);
// lo <= value <= hi.
absl::Status CheckRange(std::string_view field, int64_t value, int64_t lo, int64_t hi);
// A finite number with lo <= value <= hi (NaN and infinities are refused).
absl::Status CheckFinite(std::string_view field, double value, double lo, double hi);
// An executor's name (what it registers as, Register.address): 1 to
// kMaxExecutorNameBytes printable ASCII characters without spaces.
inline constexpr size_t kMaxExecutorNameBytes = 255;
absl::Status CheckExecutorName(std::string_view field, std::string_view value);
// nanos in 0..999999999 and an instant in years 1970..9999 (UTC).
absl::Status CheckTimestamp(std::string_view field, const google::protobuf::Timestamp& t);
// The same for an output-only field a client may echo back (`has`: it is set).
absl::Status CheckOutputTimestamp(std::string_view field, bool has,
                                  const google::protobuf::Timestamp& t);
// nanos in 0..999999999, seconds >= 0 (no negative durations) and a length
// within min..max.
absl::Status CheckDuration(std::string_view field, const google::protobuf::Duration& d,
                           absl::Duration min, absl::Duration max);

// A page token from a previous response (a positive id as text, at most 20
// bytes); empty means the first page (0).
absl::StatusOr<int64_t> ParsePageToken(std::string_view field, std::string_view token);

// A Timestamp already checked, as absl::Time.
absl::Time ToTime(const google::protobuf::Timestamp& t);

}  // namespace gnomon::checks

#endif  // GNOMON_SERVICES_COMMON_SERVER_FIELD_CHECKS_H_
