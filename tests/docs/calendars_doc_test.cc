// docs/calendars.md shows a calendar and a job naming it, then a table of
// instants: whether the calendar allows each, and the job's next fire at or
// after it. This reads the page's manifests as `gnomonctl apply` does and
// checks every row against the scheduler's own calendar code.
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "cli/yaml_json.h"
#include "gnomon/v1/manifest.pb.h"
#include "gtest/gtest.h"
#include "services/common/schedule/calendar.h"
#include "services/common/schedule/schedule.h"

#ifndef GNOMON_SOURCE_DIR
#error "GNOMON_SOURCE_DIR must name the source tree"
#endif

namespace gnomon {
namespace {

absl::Time Parse(const std::string& s, absl::TimeZone zone) {
  absl::CivilMinute m;
  EXPECT_TRUE(absl::ParseCivilTime(absl::StrCat(s.substr(0, 10), "T", s.substr(11)), &m)) << s;
  return absl::FromCivil(m, zone);
}

TEST(CalendarsDocTest, TheExampleTableIsWhatTheSchedulerDoes) {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/calendars.md");
  ASSERT_TRUE(in.good()) << "cannot open docs/calendars.md";
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  // The first ```yaml block: the Calendar and the Job.
  const size_t open = text.find("```yaml\n");
  ASSERT_NE(open, std::string::npos);
  const size_t close = text.find("```", open + 8);
  absl::StatusOr<std::vector<cli::YamlDocument>> docs =
      cli::ParseYamlDocuments(text.substr(open + 8, close - open - 8));
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 2u);
  v1::Manifest calendar_doc, job_doc;
  ASSERT_TRUE(cli::YamlDocumentToMessage((*docs)[0], &calendar_doc).ok());
  ASSERT_TRUE(cli::YamlDocumentToMessage((*docs)[1], &job_doc).ok());
  ASSERT_EQ(calendar_doc.kind(), "Calendar");
  absl::StatusOr<schedule::Calendar> cal = schedule::Calendar::Compile(calendar_doc.calendar());
  ASSERT_TRUE(cal.ok()) << cal.status();
  const v1::Schedule& s = job_doc.job().schedule();
  ASSERT_EQ(s.calendar(), calendar_doc.calendar().name());
  absl::StatusOr<schedule::CompiledCron> cron = schedule::CompileCron(s.cron());
  ASSERT_TRUE(cron.ok()) << cron.status();

  static const std::regex kRow(
      R"(^\| (\d{4}-\d\d-\d\d \d\d:\d\d) \| (yes|no) \| (\d{4}-\d\d-\d\d \d\d:\d\d) \|$)");
  std::istringstream lines(text);
  std::string line;
  int rows = 0;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::smatch m;
    if (!std::regex_match(line, m, kRow)) continue;
    ++rows;
    const absl::Time at = Parse(m[1].str(), cron->zone);
    EXPECT_EQ(cal->Allows(at, cron->zone), m[2].str() == "yes") << "docs/calendars.md line " << n;
    auto at_or_after = [&](absl::Time t) { return cron->NextAfter(t - absl::Nanoseconds(1)); };
    std::optional<absl::Time> first = at_or_after(at);
    ASSERT_TRUE(first.has_value());
    std::optional<absl::Time> next =
        schedule::SkipDisallowed(*cal, cron->zone, *first, at_or_after);
    ASSERT_TRUE(next.has_value()) << "line " << n;
    EXPECT_EQ(absl::FormatTime("%Y-%m-%d %H:%M", *next, cron->zone), m[3].str())
        << "docs/calendars.md line " << n;
  }
  EXPECT_GE(rows, 6) << "the example table was not found";
}

}  // namespace
}  // namespace gnomon
