#include "services/common/cron/cron_parse.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/client/quote.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cron {
namespace {

enum FieldIndex { kSec, kMin, kHour, kDom, kMonth, kDow, kYear };

struct FieldSpec {
  const char* name;
  int min;
  int max;
  int max_step;              // Quartz's bound on n in a/n
  const char* const* names;  // 3-letter names for min, min+1, ... or null
};

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kDayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

constexpr FieldSpec kSpecs[] = {
    {"seconds", 0, 59, 59, nullptr},
    {"minutes", 0, 59, 59, nullptr},
    {"hours", 0, 23, 23, nullptr},
    {"day-of-month", 1, 31, 31, nullptr},
    {"month", 1, 12, 12, kMonthNames},
    {"day-of-week", 1, 7, 7, kDayNames},
    {"year", kMinYear, kMaxYearValue, kMaxYearValue, nullptr},
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }

bool EqualsUpper(std::string_view s, std::string_view upper) {
  if (s.size() != upper.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (Upper(s[i]) != upper[i]) return false;
  }
  return true;
}

absl::string_view Abs(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Parses one field's text; `field` is the whole field (for messages).
class FieldParser {
 public:
  FieldParser(const FieldSpec& spec, std::string_view field) : spec_(spec), field_(field) {}

  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(spec_.name, ": ", Abs(what), " in ", QuotedPrefix(field_)));
  }
  absl::Status Unexpected(size_t pos) const {
    return Error(absl::StrCat("unexpected text ", QuotedPrefix(field_.substr(pos))));
  }

  // A number or (if the field has names) a 3-letter name at pos_.
  absl::Status Value(int* out, bool* is_name) {
    size_t start = pos_;
    if (pos_ < field_.size() && IsDigit(field_[pos_])) {
      int64_t v = 0;
      while (pos_ < field_.size() && IsDigit(field_[pos_])) {
        v = v * 10 + (field_[pos_] - '0');
        if (v > 1000000)
          return Error(absl::StrCat("number too large ", QuotedPrefix(field_.substr(start))));
        ++pos_;
      }
      *out = static_cast<int>(v);
      *is_name = false;
      return absl::OkStatus();
    }
    while (pos_ < field_.size() && IsAlpha(field_[pos_])) ++pos_;
    std::string_view word = field_.substr(start, pos_ - start);
    if (word.empty()) {
      if (start >= field_.size()) return Error("missing value at end");
      return Unexpected(start);
    }
    if (spec_.names != nullptr) {
      for (int i = 0; i <= spec_.max - spec_.min; ++i) {
        if (EqualsUpper(word, spec_.names[i])) {
          *out = spec_.min + i;
          *is_name = true;
          return absl::OkStatus();
        }
      }
    }
    return Error(absl::StrCat("unknown name ", QuotedPrefix(word)));
  }

  absl::Status InRange(int v) const {
    if (v < spec_.min || v > spec_.max) {
      return Error(absl::StrCat("value ", v, " is out of range ", spec_.min, "-", spec_.max));
    }
    return absl::OkStatus();
  }

  absl::Status Step(int* step) {
    ++pos_;  // '/'
    if (pos_ >= field_.size() || !IsDigit(field_[pos_])) {
      if (pos_ >= field_.size()) return Error("missing step after '/'");
      return Unexpected(pos_);
    }
    int v = 0;
    bool is_name = false;
    RETURN_IF_ERROR(Value(&v, &is_name));
    if (v < 1 || v > spec_.max_step) {
      return Error(absl::StrCat("step ", v, " is out of range 1-", spec_.max_step));
    }
    *step = v;
    return absl::OkStatus();
  }

  // One list item: *, */n, a, a-b, a/n, a-b/n. Calls add(v) for each value.
  template <typename Add>
  absl::Status Item(Add add) {
    int lo = spec_.min, hi = spec_.max, step = 1;
    bool wrap = false;
    if (pos_ < field_.size() && field_[pos_] == '*') {
      ++pos_;
      if (pos_ < field_.size() && field_[pos_] == '/') {
        RETURN_IF_ERROR(Step(&step));
      } else if (field_.size() != 1) {
        return Error("'*' must stand alone or take a step (*/n)");
      }
    } else {
      size_t item_start = pos_;
      bool lo_name = false;
      RETURN_IF_ERROR(Value(&lo, &lo_name));
      RETURN_IF_ERROR(InRange(lo));
      hi = lo;
      bool ranged = false;
      if (pos_ < field_.size() && field_[pos_] == '-') {
        ++pos_;
        bool hi_name = false;
        if (pos_ >= field_.size()) return Error("missing range end after '-'");
        RETURN_IF_ERROR(Value(&hi, &hi_name));
        if (hi_name != lo_name) {
          return Error(absl::StrCat("range ",
                                    QuotedPrefix(field_.substr(item_start, pos_ - item_start)),
                                    " mixes a name and a number"));
        }
        RETURN_IF_ERROR(InRange(hi));
        ranged = true;
      }
      if (pos_ < field_.size() && field_[pos_] == '/') {
        if (lo_name) {
          // Quartz silently ignores a step after a name.
          return Error(absl::StrCat("a step is not supported after a name (",
                                    QuotedPrefix(field_.substr(item_start)), ")"));
        }
        RETURN_IF_ERROR(Step(&step));
        if (!ranged) hi = spec_.max;
      }
      if (lo > hi) {
        if (spec_.min == kMinYear) {
          return Error(absl::StrCat("range ", lo, "-", hi, " is reversed"));
        }
        wrap = true;
      }
    }
    int period = spec_.max - spec_.min + 1;
    int end = wrap ? hi + period : hi;
    for (int v = lo; v <= end; v += step) add(v > spec_.max ? v - period : v);
    if (pos_ < field_.size() && field_[pos_] != ',') return Unexpected(pos_);
    return absl::OkStatus();
  }

  template <typename Add>
  absl::Status List(Add add) {
    pos_ = 0;
    while (true) {
      if (pos_ >= field_.size() || field_[pos_] == ',') return Error("empty list item");
      RETURN_IF_ERROR(Item(add));
      if (pos_ >= field_.size()) return absl::OkStatus();
      ++pos_;  // ','
      if (pos_ >= field_.size()) return Error("empty list item");
    }
  }

  // Parses a whole field of digits (no sign) into *out.
  absl::Status Number(std::string_view digits, int* out) {
    if (digits.empty()) return Error("missing number");
    int64_t v = 0;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (!IsDigit(digits[i])) {
        return Error(absl::StrCat("unexpected text ", QuotedPrefix(digits.substr(i))));
      }
      v = v * 10 + (digits[i] - '0');
      if (v > 1000000) return Error("number too large");
    }
    *out = static_cast<int>(v);
    return absl::OkStatus();
  }

  // A weekday given as 1-7 or SUN-SAT (day-of-week specials nL and n#k).
  absl::Status Weekday(std::string_view text, int* out) {
    if (!text.empty() && IsAlpha(text[0])) {
      for (int i = 0; i < 7; ++i) {
        if (EqualsUpper(text, kDayNames[i])) {
          *out = i + 1;
          return absl::OkStatus();
        }
      }
      return Error(absl::StrCat("unknown name ", QuotedPrefix(text)));
    }
    RETURN_IF_ERROR(Number(text, out));
    return InRange(*out);
  }

 private:
  const FieldSpec& spec_;
  std::string_view field_;
  size_t pos_ = 0;
};

void SetBit64(uint64_t* bits, int v) { *bits |= uint64_t{1} << v; }

absl::Status ParseDom(std::string_view f, CronFields* out) {
  FieldParser p(kSpecs[kDom], f);
  if (!f.empty() && Upper(f[0]) == 'L') {
    if (f.size() == 1) {
      out->dom_mode = CronFields::DomMode::kLast;
      return absl::OkStatus();
    }
    if (f.size() == 2 && Upper(f[1]) == 'W') {
      out->dom_mode = CronFields::DomMode::kLastWeekday;
      return absl::OkStatus();
    }
    if (f[1] != '-')
      return p.Error(absl::StrCat("unexpected text ", QuotedPrefix(f.substr(1)), " after 'L'"));
    // L-n, or L-nW: the weekday nearest to that day.
    const bool weekday = f.size() > 2 && Upper(f.back()) == 'W';
    int n = 0;
    RETURN_IF_ERROR(p.Number(f.substr(2, f.size() - 2 - (weekday ? 1 : 0)), &n));
    if (n > 30) return p.Error(absl::StrCat("offset ", n, " from the last day is above 30"));
    out->dom_mode = weekday ? CronFields::DomMode::kLastWeekday : CronFields::DomMode::kLast;
    out->dom_offset = static_cast<uint8_t>(n);
    return absl::OkStatus();
  }
  if (!f.empty() && Upper(f.back()) == 'W') {
    int n = 0;
    if (f.size() == 1) return p.Error("missing day before 'W'");
    RETURN_IF_ERROR(p.Number(f.substr(0, f.size() - 1), &n));
    RETURN_IF_ERROR(p.InRange(n));
    out->dom_mode = CronFields::DomMode::kNearestWeekday;
    out->dom_offset = static_cast<uint8_t>(n);
    return absl::OkStatus();
  }
  return p.List([out](int v) { out->dom |= uint32_t{1} << v; });
}

absl::Status ParseDow(std::string_view f, CronFields* out) {
  FieldParser p(kSpecs[kDow], f);
  if (f.size() == 1 && Upper(f[0]) == 'L') {  // L alone: Saturday (7)
    out->dow = 1 << 7;
    return absl::OkStatus();
  }
  if (size_t hash = f.find('#'); hash != std::string_view::npos) {
    int day = 0, nth = 0;
    RETURN_IF_ERROR(p.Weekday(f.substr(0, hash), &day));
    RETURN_IF_ERROR(p.Number(f.substr(hash + 1), &nth));
    if (nth < 1 || nth > 5)
      return p.Error(absl::StrCat("occurrence ", nth, " after '#' is out of range 1-5"));
    out->dow_mode = CronFields::DowMode::kNth;
    out->dow_value = static_cast<uint8_t>(day);
    out->dow_nth = static_cast<uint8_t>(nth);
    return absl::OkStatus();
  }
  if (f.size() > 1 && Upper(f.back()) == 'L') {
    int day = 0;
    RETURN_IF_ERROR(p.Weekday(f.substr(0, f.size() - 1), &day));
    out->dow_mode = CronFields::DowMode::kLast;
    out->dow_value = static_cast<uint8_t>(day);
    return absl::OkStatus();
  }
  return p.List([out](int v) { out->dow |= static_cast<uint8_t>(1 << v); });
}

}  // namespace

absl::StatusOr<CronFields> ParseCronFields(std::string_view text) {
  std::array<std::string_view, 8> fields;
  int n = 0;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size()) break;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (n == 7) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected 6 or 7 fields (seconds minutes hours day-of-month month "
                       "day-of-week [year]); unexpected text ",
                       QuotedPrefix(text.substr(start)), " after the year"));
    }
    fields[n++] = text.substr(start, i - start);
  }
  if (n < 6) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected 6 or 7 fields (seconds minutes hours day-of-month month "
                     "day-of-week [year]), got ",
                     n));
  }
  CronFields out;
  const bool dom_q = fields[kDom] == "?";
  const bool dow_q = fields[kDow] == "?";
  for (int f = 0; f < n; ++f) {
    std::string_view t = fields[f];
    FieldParser p(kSpecs[f], t);
    if (f != kDom && f != kDow && t.find('?') != std::string_view::npos) {
      return p.Error("'?' is allowed only in day-of-month or day-of-week");
    }
    if ((f == kDom && dom_q) || (f == kDow && dow_q)) continue;
    if ((f == kDom || f == kDow) && t.find('?') != std::string_view::npos) {
      return p.Error("'?' must stand alone");
    }
    absl::Status s;
    switch (f) {
      case kSec:
        s = p.List([&out](int v) { SetBit64(&out.seconds, v); });
        break;
      case kMin:
        s = p.List([&out](int v) { SetBit64(&out.minutes, v); });
        break;
      case kHour:
        s = p.List([&out](int v) { out.hours |= uint32_t{1} << v; });
        break;
      case kDom:
        s = ParseDom(t, &out);
        break;
      case kMonth:
        s = p.List([&out](int v) { out.months |= static_cast<uint16_t>(1 << v); });
        break;
      case kDow:
        s = ParseDow(t, &out);
        break;
      case kYear:
        s = p.List([&out](int v) {
          if (v <= kMaxYear) out.years[(v - kMinYear) / 64] |= uint64_t{1} << ((v - kMinYear) % 64);
        });
        break;
    }
    RETURN_IF_ERROR(s);
  }
  if (n == 6) {
    for (int y = kMinYear; y <= kMaxYear; ++y) {
      out.years[(y - kMinYear) / 64] |= uint64_t{1} << ((y - kMinYear) % 64);
    }
  }
  if (dom_q == dow_q) {
    return absl::InvalidArgumentError(
        dom_q ? "day-of-month and day-of-week: only one of them may be '?'"
              : "day-of-month and day-of-week: exactly one of them must be '?' "
                "(Quartz does not support both)");
  }
  out.dom_is_spec = !dom_q;
  return out;
}

}  // namespace gnomon::cron
