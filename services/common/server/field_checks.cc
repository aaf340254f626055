#include "services/common/server/field_checks.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/common/status/status_macros.h"

namespace gnomon::checks {
namespace {

// 0001-01-01 is not wanted; 1970-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
constexpr int64_t kMinTimestampSeconds = 0;
constexpr int64_t kMaxTimestampSeconds = 253'402'300'799;

absl::string_view Abs(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool InCharset(unsigned char c, Charset charset) {
  switch (charset) {
    case Charset::kBytes:
      return true;
    case Charset::kText:
      return c >= 0x20 ? c != 0x7f : (c == '\t' || c == '\n');
    case Charset::kToken:
      return absl::ascii_isgraph(c);
    case Charset::kName:
      return absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '-';
  }
  return false;
}

const char* Describe(Charset charset) {
  switch (charset) {
    case Charset::kBytes:
      return "";
    case Charset::kText:
      return "control characters other than tab and newline are not allowed";
    case Charset::kToken:
      return "only printable ASCII without spaces is allowed";
    case Charset::kName:
      return "only letters, digits, '.', '_' and '-' are allowed";
  }
  return "";
}

bool AllDigits(absl::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return absl::ascii_isdigit(c); });
}

}  // namespace

absl::Status Invalid(std::string_view field, std::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(Abs(field), ": ", Abs(problem)));
}

std::string Indexed(std::string_view field, int index) {
  return absl::StrCat(Abs(field), "[", index, "]");
}

absl::Status FirstError(std::initializer_list<absl::Status> statuses) {
  for (const absl::Status& s : statuses) {
    RETURN_IF_ERROR(s);
  }
  return absl::OkStatus();
}

absl::Status CheckString(std::string_view field, std::string_view value, size_t max,
                         Charset charset, size_t min) {
  if (value.size() > max) return Invalid(field, absl::StrCat("at most ", max, " bytes"));
  if (value.size() < min) {
    return Invalid(field,
                   min == 1 ? std::string("empty") : absl::StrCat("at least ", min, " bytes"));
  }
  for (char c : value) {
    if (!InCharset(static_cast<unsigned char>(c), charset)) {
      return Invalid(field, absl::StrCat(Prefix(value), ": ", Describe(charset)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckText(std::string_view field, std::string_view value, size_t max) {
  return CheckString(field, value, max, Charset::kText);
}

absl::Status CheckCount(std::string_view field, int count, int max, int min) {
  if (count > max) return Invalid(field, absl::StrCat("at most ", max, " items"));
  if (count < min)
    return Invalid(field,
                   min == 1 ? std::string("empty") : absl::StrCat("at least ", min, " items"));
  return absl::OkStatus();
}

absl::Status CheckRange(std::string_view field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi)
    return Invalid(field, absl::StrCat(value, " is outside ", lo, "..", hi));
  return absl::OkStatus();
}

absl::Status CheckFinite(std::string_view field, double value, double lo, double hi) {
  if (!std::isfinite(value)) return Invalid(field, "must be a finite number");
  if (value < lo || value > hi)
    return Invalid(field, absl::StrCat(value, " is outside ", lo, "..", hi));
  return absl::OkStatus();
}

absl::Status CheckExecutorName(std::string_view field, std::string_view value) {
  return CheckString(field, value, kMaxExecutorNameBytes, Charset::kToken, 1);
}

absl::Status CheckOutputTimestamp(std::string_view field, bool has,
                                  const google::protobuf::Timestamp& t) {
  return has ? CheckTimestamp(field, t) : absl::OkStatus();
}

absl::Status CheckTimestamp(std::string_view field, const google::protobuf::Timestamp& t) {
  if (t.nanos() < 0 || t.nanos() > 999'999'999) return Invalid(field, "nanos outside 0..999999999");
  if (t.seconds() < kMinTimestampSeconds || t.seconds() > kMaxTimestampSeconds) {
    return Invalid(field, "outside years 1970..9999");
  }
  return absl::OkStatus();
}

absl::Status CheckDuration(std::string_view field, const google::protobuf::Duration& d,
                           absl::Duration min, absl::Duration max) {
  if (d.nanos() < 0 || d.nanos() > 999'999'999) return Invalid(field, "nanos outside 0..999999999");
  if (d.seconds() < 0) return Invalid(field, "negative");
  const absl::Duration v = absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
  if (v < min || v > max) {
    return Invalid(field, absl::StrCat("outside ", absl::FormatDuration(min), "..",
                                       absl::FormatDuration(max)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParsePageToken(std::string_view field, std::string_view token) {
  if (token.empty()) return 0;
  int64_t id = 0;
  constexpr size_t kMaxPageToken = 20;
  if (token.size() > kMaxPageToken)
    return Invalid(field, absl::StrCat("at most ", kMaxPageToken, " bytes"));
  if (!AllDigits(Abs(token)) || !absl::SimpleAtoi(Abs(token), &id) || id <= 0) {
    return Invalid(field, "not a token from a previous response");
  }
  return id;
}

absl::Time ToTime(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

}  // namespace gnomon::checks
