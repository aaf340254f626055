// Exact agreement with Quartz 2.3.2 over the generated ground truth in
// tests/quartz/cases.tsv (see tests/quartz/README.md).
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "services/common/cron/cron.h"
#include "services/common/status/status_matchers.h"

#ifndef GNOMON_QUARTZ_CASES
#error "GNOMON_QUARTZ_CASES must name tests/quartz/cases.tsv"
#endif

namespace gnomon::cron {
namespace {

struct Tally {
  int compared = 0;          // cases whose fire times were compared
  int fires = 0;             // fire instants compared
  int nones = 0;             // "never fires again" results compared
  int rejected_ok = 0;       // Quartz and gnomon both reject
  int lenient_rejected = 0;  // Quartz accepts by accident, gnomon rejects
  int failures = 0;
};

void Fail(Tally* t, const std::string& line, const std::string& why) {
  if (++t->failures <= 40) ADD_FAILURE() << why << "\n  case: " << line;
}

// Compares gnomon's fires with Quartz's for one A or L line.
void Compare(const std::vector<std::string>& cols, const std::string& line, const CronExpression& e,
             Tally* t) {
  absl::TimeZone zone;
  if (!absl::LoadTimeZone(cols[2], &zone)) return Fail(t, line, "zone not found");
  int64_t from_ms = 0;
  if (!absl::SimpleAtoi(cols[3], &from_ms)) return Fail(t, line, "bad from_ms");
  absl::Time after = absl::FromUnixMillis(from_ms);
  ++t->compared;
  std::vector<std::string> wants = absl::StrSplit(cols[4], ',');
  for (const std::string& want : wants) {
    if (want == "cut") return;
    std::optional<absl::Time> got = e.NextAfter(after, zone);
    if (want == "none") {
      ++t->nones;
      if (got) Fail(t, line, "Quartz: none; gnomon: " + absl::FormatTime(*got));
      return;
    }
    int64_t want_ms = 0;
    if (!absl::SimpleAtoi(want, &want_ms)) return Fail(t, line, "bad fire " + want);
    ++t->fires;
    if (!got) return Fail(t, line, "Quartz: " + want + "; gnomon: none");
    if (absl::ToUnixMillis(*got) != want_ms) {
      return Fail(t, line,
                  "Quartz: " + absl::FormatTime(absl::FromUnixMillis(want_ms), zone) +
                      "; gnomon: " + absl::FormatTime(*got, zone) + " after " +
                      absl::FormatTime(after, zone));
    }
    after = *got;
  }
}

TEST(CronQuartzAgreementTest, EveryGeneratedCase) {
  std::ifstream in(GNOMON_QUARTZ_CASES);
  ASSERT_TRUE(in.good()) << "cannot open " << GNOMON_QUARTZ_CASES;
  Tally t;
  bool saw_max_year = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (cols[0] == "# max_year") {
      saw_max_year = true;
      EXPECT_EQ(cols.at(1), std::to_string(kMaxYear))
          << "cases.tsv was generated with a different Quartz year limit";
      continue;
    }
    if (line[0] == '#') continue;
    const std::string& kind = cols[0];
    if (cols.size() < 2) {
      Fail(&t, line, "malformed line");
      continue;
    }
    absl::StatusOr<CronExpression> e = CronExpression::Parse(cols[1]);
    if (kind == "R") {
      if (e.ok()) {
        Fail(&t, line, "Quartz rejects, gnomon accepts");
      } else {
        ++t.rejected_ok;
        EXPECT_THAT(e, StatusIs(absl::StatusCode::kInvalidArgument)) << line;
      }
      continue;
    }
    if (cols.size() != 5 || (kind != "A" && kind != "L")) {
      Fail(&t, line, "malformed line");
      continue;
    }
    if (!e.ok()) {
      if (kind == "A") {
        Fail(&t, line, "well-formed expression rejected: " + std::string(e.status().message()));
      } else {
        ++t.lenient_rejected;
      }
      continue;
    }
    Compare(cols, line, *e, &t);
  }
  EXPECT_TRUE(saw_max_year);
  EXPECT_EQ(t.failures, 0);
  EXPECT_GT(t.compared, 5000);
  std::cout << "compared " << t.compared << " cases (" << t.fires << " fire instants, " << t.nones
            << " never-again results); both reject " << t.rejected_ok
            << "; Quartz-lenient rejected " << t.lenient_rejected << "\n";
}

}  // namespace
}  // namespace gnomon::cron
