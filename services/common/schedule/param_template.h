// Parameter templates: a job's (or workflow's) params with date expressions
// evaluated at the run's scheduled instant in the job's time zone, once per
// slot, so a retry or a rerun sees the same text (docs/parameters.md has
// the grammar; `param_templates_doc_test` renders every example there).
//
//   absl::StatusOr<ParamTemplate> t = ParamTemplate::Parse("day=$[yyyyMMdd-1]");
//   t->Render(slot, zone);   // "day=20261128" for a slot on 2026-11-29
//
// `$[...]` holds an expression: a date format (yyyy yy MM M dd d HH H mm m
// ss s SSS, other characters as they are, letters in '...'), optionally
// followed by an offset in days ("-1", "+7*2", "-1/24" = one hour), or a
// function of a format: add_months(f,N), month_first_day(f,N),
// month_last_day(f,N), week_first_day(f,N), week_last_day(f,N),
// this_day(f), last_day(f). `$$[` is a literal `$[`. A whole number of days
// moves the calendar date in the zone (the wall-clock time stays); a
// fraction of a day moves the instant.
//
// Errors are InvalidArgument "at character N: ..." (1-based, counted in
// bytes of the template), never quoting more than the offending character.
//
// Thread safety: a ParamTemplate is immutable; all functions are thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SCHEDULE_PARAM_TEMPLATE_H_
#define GNOMON_SERVICES_COMMON_SCHEDULE_PARAM_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gnomon::schedule {

class ParamTemplate {
 public:
  // One field of a date format: a run of one pattern letter, or literal text.
  struct Field {
    char letter = 0;  // 0: `text` is literal.
    int width = 0;
    std::string text;
  };
  enum class Function {
    kNone,  // The format, moved by the offset.
    kAddMonths,
    kMonthFirstDay,
    kMonthLastDay,
    kWeekFirstDay,  // Monday.
    kWeekLastDay,   // Sunday.
  };
  // One `$[...]`, or literal text between them.
  struct Piece {
    std::string literal;  // When `format` is empty.
    std::vector<Field> format;
    Function function = Function::kNone;
    int64_t months_or_weeks = 0;   // The function's N.
    int64_t offset_numerator = 0;  // Offset in days: numerator / denominator.
    int64_t offset_denominator = 1;
  };

  // Whether `text` holds anything to render ("$[" anywhere); one without is
  // its own rendering.
  static bool HasExpressions(absl::string_view text);
  static absl::StatusOr<ParamTemplate> Parse(absl::string_view text);

  // The text with each expression evaluated at `at` in `zone`.
  std::string Render(absl::Time at, absl::TimeZone zone) const;

 private:
  std::vector<Piece> pieces_;
};

// Parse and render in one call (`text` without expressions is returned as
// it is, with no parse).
absl::StatusOr<std::string> RenderParams(absl::string_view text, absl::Time at,
                                         absl::TimeZone zone);

// OK if `text` is a valid template; else InvalidArgument "<field>: at
// character N: ...".
absl::Status ValidateParams(absl::string_view field, absl::string_view text);

}  // namespace gnomon::schedule

#endif  // GNOMON_SERVICES_COMMON_SCHEDULE_PARAM_TEMPLATE_H_
