// --log-format=json on gnomond and an executor: every line either writes
// to stderr while a job is created, run and ended is one JSON object with
// time, level, program and message — what Loki or Elasticsearch ingest.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

// The lines of `output` that are not JSON log objects (with the reason).
std::vector<std::string> NotJsonLogLines(const std::string& output, int* lines) {
  std::vector<std::string> bad;
  *lines = 0;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
    ++*lines;
    google::protobuf::Struct s;
    if (!google::protobuf::util::JsonStringToMessage(std::string(line), &s).ok()) {
      bad.push_back(absl::StrCat("not JSON: ", line));
      continue;
    }
    for (const char* field : {"time", "level", "program", "message"}) {
      if (!s.fields().contains(field) || s.fields().at(field).string_value().empty()) {
        bad.push_back(absl::StrCat("no ", field, ": ", line));
      }
    }
  }
  return bad;
}

TEST(JsonLogsE2E, GnomondAndAnExecutorWriteOneJsonObjectPerLine) {
  testing::GnomonCluster cluster({"--log-format=json"});
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "json-logs"}, &group));
  std::unique_ptr<testing::Subprocess> executor =
      cluster.StartExecutor("json-logs", group.access_token(), {"--log-format=json"});
  ASSERT_TRUE(executor->WaitForLine("started as", absl::Seconds(30))) << executor->Output();
  ASSERT_TRUE(cluster.AwaitOnline(group.id(), 1)) << cluster.Output();
  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--handler", "demo", "--manual"},
      &job));
  EXPECT_EQ(cluster.TriggerUntilSucceeded(job.id()).status(), v1::RUN_STATUS_SUCCEEDED);

  int lines = 0;
  std::vector<std::string> bad = NotJsonLogLines(cluster.gnomond()->Output(), &lines);
  EXPECT_GT(lines, 3) << "gnomond logged nothing";
  EXPECT_TRUE(bad.empty()) << bad.front();
  bad = NotJsonLogLines(executor->Output(), &lines);
  EXPECT_GT(lines, 1) << "the executor logged nothing";
  EXPECT_TRUE(bad.empty()) << bad.front();
}

}  // namespace
}  // namespace gnomon
