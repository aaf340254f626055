// Alarm channels through gnomonctl against a real gnomond on SQLite (docs/cli.md
// "Alarm channels"): `alarm-channel create` of a Slack channel posting to a
// receiver on loopback (gnomond started with --alarm-webhook-allow=127.0.0.1),
// its secret read from an environment variable; `list`, `get`, `-o json` and
// `get alarm-channel` showing the url's origin and never the secret or the
// url's path; `alarm-channel test` delivering a POST with a JSON "text" to the
// receiver, and exiting 1 with the service's answer when it refuses;
// `update` keeping the url and secret it is not given; a job naming the
// channel with --alarm-channel/--alarm-on/--alarm-silence (an unknown name
// is NOT_FOUND naming the entry); an exported channel applying back
// unchanged; a viewer reading but not writing or testing; and `delete`
// refused while the job names the channel.
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/testing/test_servers.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using scheduler::alarm::loopback::HttpServer;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "e2e-signing-secret-7f3a";
constexpr char kSecretVar[] = "GNOMON_E2E_ALARM_CHANNEL_SECRET";

class AlarmChannelCliE2E : public ::testing::Test {
 protected:
  AlarmChannelCliE2E() : cluster_({"--alarm-webhook-allow=127.0.0.1"}) {}

  void SetUp() override {
    // gnomonctl inherits the test's environment: --secret-env reads it there.
    ::setenv(kSecretVar, kSecret, 1);
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  }
  void TearDown() override { ::unsetenv(kSecretVar); }

  // gnomonctl `args`, which must succeed; its output, never the secret.
  std::string Ok(const std::vector<std::string>& args) {
    testing::CommandResult r = cluster_.Ctl(args);
    EXPECT_EQ(r.exit_code, 0) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_THAT(r.out + r.err, Not(HasSubstr(kSecret))) << ::testing::PrintToString(args);
    return r.out;
  }

  HttpServer hook_;
  testing::GnomonCluster cluster_;
};

TEST_F(AlarmChannelCliE2E, ChannelsAreMadeShownWithoutSecretsTestedNamedAndKeptWhileNamed) {
  const std::string url = hook_.Url("/services/T0/B0/hook-token");
  // What the API shows of the url: scheme, host and port, "/..." for the path.
  const std::string origin = absl::StrCat("http://127.0.0.1:", hook_.port(), "/...");

  // A kind that is not one is refused before anything is sent (exit 2); a
  // channel without its url by the server, naming the field (exit 1).
  testing::CommandResult r =
      cluster_.Ctl({"alarm-channel", "create", "ops", "--kind", "teams", "--url", url});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--kind: unknown alarm channel kind 'teams'"));
  r = cluster_.Ctl({"alarm-channel", "create", "ops", "--kind", "slack"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("INVALID_ARGUMENT: channel.url"));

  std::string out = Ok({"alarm-channel", "create", "ops", "--kind", "slack", "--url", url,
                        "--secret-env", kSecretVar, "--template", "{{job_name}} {{reason}}"});
  EXPECT_THAT(out, HasSubstr(absl::StrCat("url:       ", origin, " (its origin only)\n")));
  EXPECT_THAT(out, HasSubstr("secret:    stored (never shown)\n"));
  EXPECT_THAT(out, Not(HasSubstr("hook-token")));

  // Every way of reading it shows the origin only, and no secret.
  EXPECT_EQ(Ok({"alarm-channel", "list"}),
            absl::StrCat("NAME  KIND   URL", std::string(origin.size() - 3, ' '),
                         "  SECRET  CHAT  TEMPLATE\n", "ops   slack  ", origin,
                         "  yes     -     custom\n"));
  v1::AlarmChannel got;
  ASSERT_TRUE(cluster_.CtlJson({"alarm-channel", "get", "ops"}, &got));
  EXPECT_EQ(got.url(), origin);
  EXPECT_EQ(got.secret(), "");
  EXPECT_TRUE(got.has_secret());
  EXPECT_EQ(got.kind(), v1::SLACK);
  EXPECT_GT(got.id(), 0);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"alarm-channel", "get", "ops"},
                                             {"alarm-channel", "list", "-o", "json"},
                                             {"alarm-channel", "get", "ops", "-o", "yaml"},
                                             {"get", "alarm-channels"}}) {
    EXPECT_THAT(Ok(args), Not(HasSubstr("hook-token"))) << ::testing::PrintToString(args);
  }

  // test: the receiver gets one POST whose JSON carries the text.
  EXPECT_EQ(Ok({"alarm-channel", "test", "ops"}), "delivered\n");
  std::vector<HttpServer::Request> posts = hook_.requests();
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(posts[0].method, "POST");
  EXPECT_EQ(posts[0].target, "/services/T0/B0/hook-token");
  EXPECT_THAT(posts[0].body, HasSubstr("\"text\""));
  EXPECT_THAT(posts[0].body, HasSubstr("gnomon-test"));  // {{job_name}} of the test alarm
  EXPECT_THAT(posts[0].body, Not(HasSubstr(kSecret)));

  // A service that refuses: not delivered, its answer shown, exit 1.
  hook_.SetStatuses({}, 404);
  r = cluster_.Ctl({"alarm-channel", "test", "ops"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("not delivered: "));
  EXPECT_THAT(r.err, HasSubstr("404"));
  EXPECT_THAT(r.err, Not(HasSubstr("hook-token")));
  hook_.SetStatuses({}, 200);

  // update changes what it is given and keeps the url and secret: the next
  // test still posts to the whole url.
  const std::string secret_file = cluster_.WriteFile("slack.secret", "rotated-secret\n");
  out = Ok({"alarm-channel", "update", "ops", "--template", "", "--secret-file", secret_file});
  EXPECT_THAT(out, HasSubstr("template:  default\n"));
  EXPECT_THAT(out, Not(HasSubstr("rotated-secret")));
  EXPECT_EQ(Ok({"alarm-channel", "test", "ops"}), "delivered\n");
  posts = hook_.requests();
  ASSERT_GE(posts.size(), 3u);
  EXPECT_EQ(posts.back().target, "/services/T0/B0/hook-token");

  // What `get alarm-channel` prints applies back unchanged, the url kept.
  const std::string exported = Ok({"get", "alarm-channel", "ops"});
  EXPECT_THAT(exported, HasSubstr("kind: AlarmChannel\n"));
  EXPECT_THAT(exported, HasSubstr(absl::StrCat("  url: ", origin, "\n")));
  EXPECT_EQ(Ok({"apply", "-f", cluster_.WriteFile("ops.yaml", exported)}),
            "alarm-channel/ops unchanged\n");
  EXPECT_EQ(Ok({"alarm-channel", "test", "ops"}), "delivered\n");
  EXPECT_EQ(hook_.requests().back().target, "/services/T0/B0/hook-token");

  // A job naming it, when to alarm and a silence; an unknown name is the
  // server's NOT_FOUND naming the entry.
  v1::Group group;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "alarm-cli-e2e"}, &group));
  r = cluster_.Ctl({"job", "create", "--group", absl::StrCat(group.id()), "--handler", "report",
                    "--manual", "--alarm-channel", "ops,pager"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("job.alarm.channels[1]: no alarm channel is named 'pager'"));
  v1::Job job;
  ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--name",
                                "nightly", "--handler", "report", "--manual", "--alarm-channel",
                                "ops", "--alarm-on", "both", "--alarm-silence", "10m"},
                               &job));
  EXPECT_EQ(job.alarm().channels_size(), 1);
  EXPECT_EQ(job.alarm().on(), v1::ALARM_ON_BOTH);
  EXPECT_EQ(job.alarm().silence().seconds(), 600);
  out = Ok({"job", "get", "nightly"});
  EXPECT_THAT(out, HasSubstr("alarm channels:  ops\n"));
  EXPECT_THAT(out, HasSubstr("alarm on:        both\n"));
  EXPECT_THAT(out, HasSubstr("alarm silence:   10m\n"));

  // A viewer reads channels, and neither writes nor tests one.
  v1::CreateTokenResponse viewer;
  ASSERT_TRUE(cluster_.CtlJson(
      {"token", "create", "alarm-viewer", "--role", "viewer", "--all-groups"}, &viewer));
  r = cluster_.Ctl({"--token", viewer.secret(), "alarm-channel", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ops"));
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"alarm-channel", "test", "ops"},
                                             {"alarm-channel", "update", "ops", "--template", "x"},
                                             {"alarm-channel", "delete", "ops"}}) {
    std::vector<std::string> as_viewer = {"--token", viewer.secret()};
    as_viewer.insert(as_viewer.end(), args.begin(), args.end());
    r = cluster_.Ctl(as_viewer);
    EXPECT_EQ(r.exit_code, 4) << ::testing::PrintToString(args) << r.err;  // PERMISSION_DENIED
  }

  // A channel a job names is kept; once nothing names it, it goes.
  r = cluster_.Ctl({"alarm-channel", "delete", "ops"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(r.err, HasSubstr(absl::StrCat("alarm channel 'ops' is named by job ", job.id())));
  Ok({"alarm-channel", "get", "ops"});
  Ok({"job", "delete", "nightly"});
  EXPECT_EQ(Ok({"alarm-channel", "delete", "ops"}), "deleted alarm channel ops\n");
  r = cluster_.Ctl({"alarm-channel", "get", "ops"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

}  // namespace
}  // namespace gnomon
