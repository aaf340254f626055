// YAML <-> protobuf JSON conversion.
#include "cli/yaml_json.h"

#include "cli/format.h"
#include "gmock/gmock.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::cli {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A job with every field set, strings chosen to trip a YAML writer.
v1::Job FullJob() {
  v1::Job job;
  job.set_id(9007199254740993);  // above 2^53: must survive as text
  job.set_group_id(3);
  job.set_description("report: nightly # not a comment");
  job.set_author("123");  // reads as a number unless quoted
  job.mutable_schedule()->mutable_cron()->set_expression("0 0 18 * * ?");
  job.mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
  job.mutable_misfire()->set_policy(v1::MISFIRE_POLICY_FIRE_ONCE_NOW);
  *job.mutable_misfire()->mutable_threshold() = ToDurationProto(absl::Seconds(5));
  job.mutable_misfire()->set_max_catch_up(4);
  job.set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
  job.set_block_strategy(v1::BLOCK_STRATEGY_DISCARD_LATER);
  job.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL);
  job.mutable_script()->set_source("#!/bin/sh\necho \"hi\"\t: done\n");
  job.mutable_script()->set_version(2);
  job.set_params("true");
  *job.mutable_timeout() = ToDurationProto(absl::Milliseconds(1500));
  job.mutable_retry()->set_max_retries(3);
  *job.mutable_retry()->mutable_initial_delay() = ToDurationProto(absl::Seconds(1));
  job.mutable_retry()->set_multiplier(1.5);
  *job.mutable_retry()->mutable_max_delay() = ToDurationProto(absl::Minutes(1));
  job.add_child_job_ids(4);
  job.add_child_job_ids(5);
  job.set_child_trigger_mode(v1::CHILD_TRIGGER_MODE_ALL_SHARDS_SUCCEEDED);
  job.mutable_alarm()->add_emails("ops@example.com");
  job.mutable_alarm()->add_webhook_urls("https://hooks.example.com/a?b=c&d=<e>");
  job.set_state(v1::JOB_STATE_RUNNING);
  *job.mutable_next_fire_time() = ToTimestamp(absl::FromUnixMillis(1795428000250));
  *job.mutable_create_time() = ToTimestamp(absl::FromUnixSeconds(1700000000));
  *job.mutable_update_time() = ToTimestamp(absl::FromUnixSeconds(1700000100));
  return job;
}

v1::Job RoundTrip(const v1::Job& job) {
  absl::StatusOr<std::string> yaml = MessageToYaml(job);
  EXPECT_TRUE(yaml.ok()) << yaml.status();
  absl::StatusOr<std::vector<YamlDocument>> docs = ParseYamlDocuments(yaml.value_or(""));
  EXPECT_TRUE(docs.ok()) << docs.status() << "\n" << *yaml;
  v1::Job back;
  if (!docs.ok() || docs->size() != 1) {
    ADD_FAILURE() << "expected one document in\n" << *yaml;
    return back;
  }
  absl::Status s = YamlDocumentToMessage((*docs)[0], &back);
  EXPECT_TRUE(s.ok()) << s << "\n" << *yaml;
  return back;
}

TEST(YamlJsonTest, JobWithEveryFieldRoundTrips) {
  const v1::Job job = FullJob();
  const v1::Job back = RoundTrip(job);
  EXPECT_TRUE(MessageDifferencer::Equals(job, back)) << job.DebugString() << "\nvs\n"
                                                     << back.DebugString();

  v1::Job bean = job;
  bean.mutable_bean()->set_handler("null");
  bean.set_description("");
  bean.set_params("multi\nline without a final break");
  EXPECT_TRUE(MessageDifferencer::Equals(bean, RoundTrip(bean)));

  v1::Job odd = job;
  odd.set_description(" leading space, unicode é 😀, tab\tand \"quotes\" \\ -1.5e3");
  odd.set_params("two breaks\n\n");
  odd.set_author("0x1f");
  odd.mutable_script()->set_source("  indented first line\nsecond\n");
  EXPECT_TRUE(MessageDifferencer::Equals(odd, RoundTrip(odd)));
}

TEST(YamlJsonTest, YamlKeepsFieldOrderAndQuotesWhatWouldChangeType) {
  absl::StatusOr<std::string> yaml = MessageToYaml(FullJob());
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_THAT(*yaml, StartsWith("id: \"9007199254740993\"\ngroup_id: \"3\"\n"));
  EXPECT_THAT(*yaml, HasSubstr("author: \"123\"\n"));
  EXPECT_THAT(*yaml, HasSubstr("params: \"true\"\n"));
  EXPECT_THAT(*yaml, HasSubstr("    expression: 0 0 18 * * ?\n"));
  EXPECT_THAT(*yaml,
              HasSubstr("  source: |\n    #!/bin/sh\n    echo \"hi\"\t: done\n  version: \"2\"\n"));
  EXPECT_THAT(*yaml, HasSubstr("timeout: 1.500s\n"));
  EXPECT_THAT(*yaml, HasSubstr("  multiplier: 1.5\n"));
  EXPECT_THAT(*yaml, HasSubstr("child_job_ids:\n  - \"4\"\n  - \"5\"\n"));
  EXPECT_THAT(*yaml, HasSubstr("next_fire_time: 2026-11-23T10:00:00.250Z\n"));
  EXPECT_LT(yaml->find("schedule:"), yaml->find("misfire:"));
  EXPECT_LT(yaml->find("state:"), yaml->find("update_time:"));
}

TEST(YamlJsonTest, EmptyCollectionsAndNull) {
  absl::StatusOr<std::string> yaml = JsonToYaml(R"({"a":{},"b":[],"c":null,"d":[{"e":1}]})");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(*yaml, "a: {}\nb: []\nc: null\nd:\n  - e: 1\n");
}

TEST(YamlJsonTest, SeveralDocumentsWithTheirLines) {
  const std::string yaml =
      "# jobs\n"
      "group_id: 1\n"
      "bean: {handler: a}\n"
      "---\n"
      "---\n"
      "group_id: 0x10\n"
      "description: &d shared\n"
      "params: *d\n"
      "child_job_ids: [1, +2, 007]\n"
      "retry:\n"
      "  multiplier: .5e1\n"
      "...\n"
      "--- {group_id: 3, description: 'it''s', timeout: 2s}\n";
  absl::StatusOr<std::vector<YamlDocument>> docs = ParseYamlDocuments(yaml);
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0].index, 1);
  EXPECT_EQ((*docs)[0].line, 2);
  EXPECT_EQ((*docs)[0].json, R"({"group_id":1,"bean":{"handler":"a"}})");
  EXPECT_EQ((*docs)[1].index, 3);  // the empty second document counts
  EXPECT_EQ((*docs)[1].line, 6);
  EXPECT_EQ((*docs)[1].json, R"({"group_id":16,"description":"shared","params":"shared",)"
                             R"("child_job_ids":[1,2,7],"retry":{"multiplier":0.5e1}})");
  EXPECT_EQ((*docs)[2].index, 4);
  EXPECT_EQ((*docs)[2].line, 13);

  v1::Job job;
  ASSERT_TRUE(YamlDocumentToMessage((*docs)[1], &job).ok());
  EXPECT_EQ(job.group_id(), 16);
  EXPECT_EQ(job.params(), "shared");
  EXPECT_THAT(job.child_job_ids(), ::testing::ElementsAre(1, 2, 7));
  EXPECT_EQ(job.retry().multiplier(), 5);
  ASSERT_TRUE(YamlDocumentToMessage((*docs)[2], &job).ok());
  EXPECT_EQ(job.description(), "it's");
  EXPECT_EQ(ToAbslDuration(job.timeout()), absl::Seconds(2));
}

TEST(YamlJsonTest, EmptyInputHasNoDocuments) {
  absl::StatusOr<std::vector<YamlDocument>> docs = ParseYamlDocuments("# nothing\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  EXPECT_TRUE(docs->empty());
}

TEST(YamlJsonTest, SyntaxErrorNamesDocumentAndLine) {
  absl::StatusOr<std::vector<YamlDocument>> docs =
      ParseYamlDocuments("group_id: 1\n---\ngroup_id: 2\nbean: [a\nparams: x\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(docs, StatusIs(absl::StatusCode::kInvalidArgument));
  // The parser notices the unclosed "[" at the next line.
  EXPECT_EQ(docs.status().message(),
            "document 2, line 5, column 7: end of sequence flow not found");

  docs = ParseYamlDocuments("a: 1\nb:\n  c: 2\n   d: 3\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(docs.status().message(), StartsWith("document 1, line 4, column"));
}

TEST(YamlJsonTest, DuplicateAndComplexKeysAreErrors) {
  absl::StatusOr<std::vector<YamlDocument>> docs =
      ParseYamlDocuments("a: 1\n---\nb: 1\nc: 2\nb: 3\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "document 2, line 5, column 1: duplicate key 'b'");

  docs = ParseYamlDocuments("? [a, b]\n: 1\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(docs.status().message(), ::testing::EndsWith("a key must be a scalar"));
}

TEST(YamlJsonTest, DocumentThatIsNotTheMessageNamesItself) {
  absl::StatusOr<std::vector<YamlDocument>> docs =
      ParseYamlDocuments("group_id: 1\n---\n\ngroup_id: 2\nhandler: x\n---\n- 1\n");
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 3u);
  v1::Job job;
  EXPECT_TRUE(YamlDocumentToMessage((*docs)[0], &job).ok());
  absl::Status s = YamlDocumentToMessage((*docs)[1], &job);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(StartsWith("document 2 (line 4): "), HasSubstr("handler"))));
  s = YamlDocumentToMessage((*docs)[2], &job);
  EXPECT_EQ(s.message(), "document 3 (line 7): expected a mapping of Job fields");
}

}  // namespace
}  // namespace gnomon::cli
