#include "services/common/schedule/param_template.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/civil_time.h"

namespace gnomon::schedule {
namespace {

// An offset or a function's N moves at most this many days (or months,
// weeks): far beyond any date a job means, short of overflow.
constexpr int64_t kMaxMagnitude = 100000;

absl::Status ErrorAt(size_t pos, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("at character ", pos + 1, ": ", what));
}

std::string CharName(char c) {
  if (absl::ascii_isprint(static_cast<unsigned char>(c)))
    return absl::StrCat("'", std::string(1, c), "'");
  return absl::StrFormat("byte 0x%02x", static_cast<unsigned char>(c));
}

struct FunctionName {
  absl::string_view name;
  ParamTemplate::Function function;
  bool takes_n;
  int64_t fixed_offset;  // this_day / last_day: the offset in days.
};
constexpr FunctionName kFunctions[] = {
    {"add_months", ParamTemplate::Function::kAddMonths, true, 0},
    {"month_first_day", ParamTemplate::Function::kMonthFirstDay, true, 0},
    {"month_last_day", ParamTemplate::Function::kMonthLastDay, true, 0},
    {"week_first_day", ParamTemplate::Function::kWeekFirstDay, true, 0},
    {"week_last_day", ParamTemplate::Function::kWeekLastDay, true, 0},
    {"this_day", ParamTemplate::Function::kNone, false, 0},
    {"last_day", ParamTemplate::Function::kNone, false, -1},
};

// Parses the expression text[begin, end) (the inside of one `$[...]`).
class ExpressionParser {
 public:
  ExpressionParser(absl::string_view text, size_t begin, size_t end)
      : text_(text), begin_(begin), end_(end) {}

  absl::StatusOr<ParamTemplate::Piece> Parse() {
    ParamTemplate::Piece piece;
    if (begin_ == end_) return ErrorAt(begin_, "empty expression in '$[...]'");
    size_t name_end = begin_;
    while (name_end < end_ && (absl::ascii_islower(text_[name_end]) || text_[name_end] == '_')) {
      ++name_end;
    }
    if (name_end < end_ && text_[name_end] == '(') return ParseFunction(name_end, &piece);
    size_t format_end = OffsetStart();
    if (format_end < end_) {
      if (absl::Status s = ParseOffset(format_end, end_, &piece); !s.ok()) return s;
    }
    if (absl::Status s = ParseFormat(begin_, format_end, &piece.format); !s.ok()) return s;
    return piece;
  }

 private:
  // Where a trailing offset ("-1", "+7*2", "-1/24") starts; end_ if none.
  size_t OffsetStart() const {
    size_t i = end_;
    while (i > begin_ &&
           (absl::ascii_isdigit(text_[i - 1]) || text_[i - 1] == '*' || text_[i - 1] == '/')) {
      --i;
    }
    if (i == end_ || i == begin_ || !absl::ascii_isdigit(text_[i])) return end_;
    if (text_[i - 1] != '+' && text_[i - 1] != '-') return end_;
    return i - 1;
  }

  // A signed product/quotient of whole numbers in [pos, end).
  absl::Status ParseOffset(size_t pos, size_t end, ParamTemplate::Piece* piece) {
    const bool negative = text_[pos] == '-';
    ++pos;
    int64_t num = 0;
    int64_t den = 1;
    char op = '*';
    bool first = true;
    while (pos < end) {
      if (!first) {
        op = text_[pos];
        if (op != '*' && op != '/') return ErrorAt(pos, "expected '*' or '/' in the offset");
        ++pos;
      }
      const size_t start = pos;
      int64_t value = 0;
      while (pos < end && absl::ascii_isdigit(text_[pos])) {
        value = value * 10 + (text_[pos] - '0');
        if (value > kMaxMagnitude * 1000) return ErrorAt(start, "number too large in the offset");
        ++pos;
      }
      if (pos == start) return ErrorAt(pos, "expected a number in the offset");
      if (first) {
        num = value;
      } else if (op == '*') {
        num *= value;
      } else {
        if (value == 0) return ErrorAt(start, "division by zero in the offset");
        den *= value;
      }
      if (num > kMaxMagnitude * den || den > kMaxMagnitude * 1000) {
        return ErrorAt(start, absl::StrCat("the offset is beyond ", kMaxMagnitude, " days"));
      }
      first = false;
    }
    piece->offset_numerator = negative ? -num : num;
    piece->offset_denominator = den;
    return absl::OkStatus();
  }

  absl::StatusOr<ParamTemplate::Piece> ParseFunction(size_t open, ParamTemplate::Piece* piece) {
    const absl::string_view name = text_.substr(begin_, open - begin_);
    const FunctionName* fn = nullptr;
    for (const FunctionName& f : kFunctions) {
      if (f.name == name) fn = &f;
    }
    if (fn == nullptr) {
      return ErrorAt(begin_,
                     "unknown function (add_months, month_first_day, month_last_day, "
                     "week_first_day, week_last_day, this_day, last_day)");
    }
    if (text_[end_ - 1] != ')') return ErrorAt(end_, "expected ')' to close the function");
    const size_t args_end = end_ - 1;
    size_t comma = open + 1;
    while (comma < args_end && text_[comma] != ',') ++comma;
    if (absl::Status s = ParseFormat(open + 1, comma, &piece->format); !s.ok()) return s;
    piece->function = fn->function;
    piece->offset_numerator = fn->fixed_offset;
    if (!fn->takes_n) {
      if (comma < args_end) return ErrorAt(comma, "this function takes only a format");
      return *piece;
    }
    if (comma == args_end) return ErrorAt(args_end, "expected ',' and a number after the format");
    size_t pos = comma + 1;
    while (pos < args_end && text_[pos] == ' ') ++pos;
    bool negative = false;
    if (pos < args_end && (text_[pos] == '-' || text_[pos] == '+')) negative = text_[pos++] == '-';
    int64_t n = 1;
    while (true) {
      const size_t start = pos;
      int64_t value = 0;
      while (pos < args_end && absl::ascii_isdigit(text_[pos])) {
        value = value * 10 + (text_[pos] - '0');
        if (value > kMaxMagnitude) return ErrorAt(start, "number too large");
        ++pos;
      }
      if (pos == start) return ErrorAt(pos, "expected a number");
      n *= value;
      if (n > kMaxMagnitude) return ErrorAt(start, absl::StrCat("N is beyond ", kMaxMagnitude));
      while (pos < args_end && text_[pos] == ' ') ++pos;
      if (pos == args_end) break;
      if (text_[pos] != '*') return ErrorAt(pos, absl::StrCat("unexpected ", CharName(text_[pos])));
      ++pos;
    }
    piece->months_or_weeks = negative ? -n : n;
    return *piece;
  }

  // A date format in [pos, end): pattern letters, literal characters and
  // '...' quoted text.
  absl::Status ParseFormat(size_t pos, size_t end, std::vector<ParamTemplate::Field>* out) {
    bool any_date_field = false;
    auto literal = [&](absl::string_view s) {
      if (out->empty() || out->back().letter != 0) out->push_back({});
      absl::StrAppend(&out->back().text, s);
    };
    while (pos < end) {
      const char c = text_[pos];
      if (c == '\'') {
        const size_t start = pos++;
        std::string quoted;
        while (true) {
          if (pos >= end) return ErrorAt(start, "quote not closed");
          if (text_[pos] == '\'') {
            if (pos + 1 < end && text_[pos + 1] == '\'') {
              quoted.push_back('\'');
              pos += 2;
              continue;
            }
            ++pos;
            break;
          }
          quoted.push_back(text_[pos++]);
        }
        literal(quoted.empty() ? "'" : quoted);
        continue;
      }
      if (!absl::ascii_isalpha(static_cast<unsigned char>(c))) {
        if (c == '[' || c == '$') return ErrorAt(pos, absl::StrCat("unexpected ", CharName(c)));
        literal(absl::string_view(&text_[pos], 1));
        ++pos;
        continue;
      }
      const size_t start = pos;
      while (pos < end && text_[pos] == c) ++pos;
      const int width = static_cast<int>(pos - start);
      bool ok = false;
      switch (c) {
        case 'y':
          ok = width == 4 || width == 2;
          break;
        case 'M':
        case 'd':
        case 'H':
        case 'm':
        case 's':
          ok = width <= 2;
          break;
        case 'S':
          ok = width == 3;
          break;
        default:
          return ErrorAt(start, absl::StrCat("unknown pattern letter ", CharName(c),
                                             " (yyyy yy MM M dd d HH H mm m ss s SSS; quote "
                                             "other letters as '...')"));
      }
      if (!ok) {
        return ErrorAt(start, absl::StrCat(width, " of ", CharName(c),
                                           " in a row: write yyyy or yy, MM or M, dd or d, HH or "
                                           "H, mm or m, ss or s, SSS"));
      }
      out->push_back({c, width, {}});
      any_date_field = true;
    }
    if (!any_date_field) {
      return ErrorAt(pos == begin_ ? pos : pos - 1,
                     "no date field in '$[...]' (write '$$[' for a literal '$[')");
    }
    return absl::OkStatus();
  }

  absl::string_view text_;
  size_t begin_;
  size_t end_;
};

// `value` in decimal, zero-padded to `width` (by hand: StrFormat was half
// of a render's time).
void AppendNumber(std::string* out, int64_t value, int width) {
  if (value < 0) {
    out->push_back('-');
    value = -value;
  }
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 && n < 20);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(digits[--n]);
}

absl::CivilSecond WithTime(absl::CivilDay day, const absl::CivilSecond& time) {
  return absl::CivilSecond(day.year(), day.month(), day.day(), time.hour(), time.minute(),
                           time.second());
}

// `cs` moved to day `day` of its month + `months` (clamped to the month's length).
absl::CivilDay DayOfMonth(const absl::CivilSecond& cs, int64_t months, int day) {
  const absl::CivilMonth month = absl::CivilMonth(cs) + months;
  const int last = static_cast<int>(absl::CivilDay(month + 1) - absl::CivilDay(month));
  return absl::CivilDay(month) + (std::min(day, last) - 1);
}

}  // namespace

bool ParamTemplate::HasExpressions(absl::string_view text) { return absl::StrContains(text, "$["); }

absl::StatusOr<ParamTemplate> ParamTemplate::Parse(absl::string_view text) {
  ParamTemplate t;
  std::string literal;  // Text since the last expression.
  auto flush = [&] {
    if (literal.empty()) return;
    t.pieces_.emplace_back().literal = std::move(literal);
    literal.clear();
  };
  size_t i = 0;
  while (i < text.size()) {
    if (text.substr(i, 3) == "$$[") {
      literal.append("$[");
      i += 3;
      continue;
    }
    if (text.substr(i, 2) != "$[") {
      literal.push_back(text[i++]);
      continue;
    }
    // The matching ']' (outside '...').
    size_t end = i + 2;
    size_t quote = 0;  // Where the open quote is; 0: none.
    while (end < text.size() && (quote != 0 || text[end] != ']')) {
      if (text[end] == '\'') quote = quote != 0 ? 0 : end;
      ++end;
    }
    if (end >= text.size() && quote != 0) return ErrorAt(quote, "quote not closed");
    if (end >= text.size()) return ErrorAt(i, "'$[' is not closed by ']'");
    absl::StatusOr<Piece> piece = ExpressionParser(text, i + 2, end).Parse();
    if (!piece.ok()) return piece.status();
    flush();
    t.pieces_.push_back(*std::move(piece));
    i = end + 1;
  }
  flush();
  return t;
}

std::string ParamTemplate::Render(absl::Time at, absl::TimeZone zone) const {
  std::string out;
  const absl::TimeZone::CivilInfo info = zone.At(at);
  for (const Piece& p : pieces_) {
    if (p.format.empty()) {
      out.append(p.literal);
      continue;
    }
    absl::CivilSecond cs = info.cs;
    int64_t ms = absl::ToInt64Milliseconds(info.subsecond);
    if (p.offset_numerator % p.offset_denominator == 0) {
      // Whole days: the calendar date moves, the wall-clock time stays.
      cs = WithTime(absl::CivilDay(cs) + p.offset_numerator / p.offset_denominator, cs);
    } else {
      // At most 100,000 days: the product fits 128 bits, the result 64.
      const absl::Time moved =
          at + absl::Milliseconds(static_cast<int64_t>(static_cast<__int128>(p.offset_numerator) *
                                                       86400000 / p.offset_denominator));
      const absl::TimeZone::CivilInfo m = zone.At(moved);
      cs = m.cs;
      ms = absl::ToInt64Milliseconds(m.subsecond);
    }
    switch (p.function) {
      case Function::kNone:
        break;
      case Function::kAddMonths:
        cs = WithTime(DayOfMonth(cs, p.months_or_weeks, cs.day()), cs);
        break;
      case Function::kMonthFirstDay:
        cs = WithTime(DayOfMonth(cs, p.months_or_weeks, 1), cs);
        break;
      case Function::kMonthLastDay:
        cs = WithTime(DayOfMonth(cs, p.months_or_weeks, 31), cs);
        break;
      case Function::kWeekFirstDay:
      case Function::kWeekLastDay: {
        const absl::CivilDay day(cs);
        // Days since Monday: absl's Weekday counts from Monday.
        const int since_monday = static_cast<int>(absl::GetWeekday(day));
        absl::CivilDay monday = day - since_monday + 7 * p.months_or_weeks;
        cs = WithTime(p.function == Function::kWeekFirstDay ? monday : monday + 6, cs);
        break;
      }
    }
    for (const Field& f : p.format) {
      switch (f.letter) {
        case 0:
          out.append(f.text);
          break;
        case 'y':
          AppendNumber(&out, f.width == 2 ? ((cs.year() % 100) + 100) % 100 : cs.year(), f.width);
          break;
        case 'M':
          AppendNumber(&out, cs.month(), f.width);
          break;
        case 'd':
          AppendNumber(&out, cs.day(), f.width);
          break;
        case 'H':
          AppendNumber(&out, cs.hour(), f.width);
          break;
        case 'm':
          AppendNumber(&out, cs.minute(), f.width);
          break;
        case 's':
          AppendNumber(&out, cs.second(), f.width);
          break;
        case 'S':
          AppendNumber(&out, ms, 3);
          break;
      }
    }
  }
  return out;
}

absl::StatusOr<std::string> RenderParams(absl::string_view text, absl::Time at,
                                         absl::TimeZone zone) {
  if (!ParamTemplate::HasExpressions(text)) return std::string(text);
  absl::StatusOr<ParamTemplate> t = ParamTemplate::Parse(text);
  if (!t.ok()) return t.status();
  return t->Render(at, zone);
}

absl::Status ValidateParams(absl::string_view field, absl::string_view text) {
  if (!ParamTemplate::HasExpressions(text)) return absl::OkStatus();
  absl::StatusOr<ParamTemplate> t = ParamTemplate::Parse(text);
  if (t.ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", t.status().message()));
}

}  // namespace gnomon::schedule
