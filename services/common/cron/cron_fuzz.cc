// libFuzzer target for the cron parser and next-fire search. Any input must
// parse or fail cleanly; a parsed expression must answer NextAfter without
// crashing or looping, and successive fires must move strictly forward.
//
//   cmake -DGNOMON_BUILD_FUZZ=ON ... && make cron_fuzz
//   ./cron_fuzz -max_total_time=30 -max_len=128
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "services/common/cron/cron.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gnomon::cron::CronExpression;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<CronExpression> e = CronExpression::Parse(text);
  if (!e.ok()) {
    if (e.status().code() != absl::StatusCode::kInvalidArgument) std::abort();
    return 0;
  }
  static const absl::TimeZone zones[] = {
      absl::UTCTimeZone(),
      [] {
        absl::TimeZone z;
        absl::LoadTimeZone("America/New_York", &z);
        return z;
      }(),
      [] {
        absl::TimeZone z;
        absl::LoadTimeZone("Australia/Lord_Howe", &z);
        return z;
      }(),
  };
  static const absl::Time froms[] = {
      absl::FromUnixSeconds(1710050000),  // near New York's 2024 spring gap
      absl::FromUnixSeconds(1730611000),  // near its 2024 fall-back overlap
      absl::FromCivil(absl::CivilSecond(gnomon::cron::kMaxYear, 12, 31, 0, 0, 0),
                      absl::UTCTimeZone()),
      absl::InfinitePast(),
  };
  for (const absl::TimeZone& zone : zones) {
    for (absl::Time t : froms) {
      for (int i = 0; i < 3; ++i) {
        std::optional<absl::Time> next = e->NextAfter(t, zone);
        if (!next) break;
        if (*next <= t) std::abort();
        t = *next;
      }
    }
  }
  return 0;
}
