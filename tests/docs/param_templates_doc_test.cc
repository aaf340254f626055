// docs/parameters.md shows what templates render; this renders every row of
// its Examples table at the slot the page names and checks the page says
// what the scheduler does.
#include <fstream>
#include <regex>
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "services/common/schedule/param_template.h"

#ifndef GNOMON_SOURCE_DIR
#error "GNOMON_SOURCE_DIR must name the source tree"
#endif

namespace gnomon {
namespace {

TEST(ParamTemplatesDocTest, EveryExampleRendersAsThePageSays) {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/parameters.md");
  ASSERT_TRUE(in.good()) << "cannot open docs/parameters.md";
  // The slot the page names: 2026-11-29 00:30:15.250 UTC.
  const absl::Time slot =
      absl::FromCivil(absl::CivilSecond(2026, 11, 29, 0, 30, 15), absl::UTCTimeZone()) +
      absl::Milliseconds(250);
  static const std::regex kRow(R"(^\| `(.+)` \| ([A-Za-z_/]+) \| `(.*)` \|$)");
  int rows = 0;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_match(line, m, kRow)) continue;
    ++rows;
    absl::TimeZone zone;
    ASSERT_TRUE(absl::LoadTimeZone(m[2].str(), &zone)) << "line " << n << ": zone " << m[2];
    absl::StatusOr<std::string> got = schedule::RenderParams(m[1].str(), slot, zone);
    ASSERT_TRUE(got.ok()) << "line " << n << ": " << got.status();
    EXPECT_EQ(*got, m[3].str()) << "docs/parameters.md line " << n << ": " << m[1];
  }
  EXPECT_GE(rows, 10) << "the Examples table was not found";
}

}  // namespace
}  // namespace gnomon
