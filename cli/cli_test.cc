// Whole gnomonctl command lines against in-process fake servers.
#include "cli/cli.h"

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cli/cli_test_fixture.h"
#include "cli/fake_servers.h"
#include "cli/format.h"
#include "cli/yaml_json.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "services/common/client/version.h"

namespace gnomon::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

using Result = testing::CliResult;
using testing::CliTest;

TEST_F(CliTest, SendsBearerTokenFromFlag) {
  Result r = Run({"--token", "s3cret", "group", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto calls = servers_.state.Snapshot().calls;
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].method, "ListGroups");
  EXPECT_EQ(calls[0].authorization, "Bearer s3cret");
}

TEST_F(CliTest, TokenFromEnvironmentAndFlagsAfterNoun) {
  vars_["GNOMON_TOKEN"] = "from-env";
  ASSERT_EQ(Run({"group", "list"}).code, 0);
  EXPECT_EQ(servers_.state.Snapshot().calls.back().authorization, "Bearer from-env");
  // A flag after the verb wins over the environment.
  ASSERT_EQ(Run({"group", "list", "--token=flag"}).code, 0);
  EXPECT_EQ(servers_.state.Snapshot().calls.back().authorization, "Bearer flag");
}

TEST_F(CliTest, NoTokenSendsNoAuthorization) {
  ASSERT_EQ(Run({"group", "list"}).code, 0);
  EXPECT_EQ(servers_.state.Snapshot().calls.back().authorization, "");
}

TEST_F(CliTest, ServerFlagOverridesEnvironment) {
  vars_["GNOMON_SERVER"] = "127.0.0.1:1";
  Result r = Run({"--server", servers_.address(), "group", "list"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Methods(), std::vector<std::string>{"ListGroups"});
}

TEST_F(CliTest, VersionIsPrinted) {
  Result r = Run({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, StartsWith("gnomonctl 0."));
}

TEST_F(CliTest, VersionCommandShowsTheClientsAndTheServers) {
  servers_.state.Set([](testing::AdminState& s) {
    s.whoami.set_server_version("0.9.1");
    s.whoami.set_server_revision("0123456789ab");
  });
  Result r = Run({"version"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            absl::StrCat("Client Version: ", gnomon::Version(), " (revision ", gnomon::Revision(),
                         ")\nServer Version: 0.9.1 (revision ", "0123456789ab)\n"));
  r = Run({"version", "-o", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"serverVersion\": \"0.9.1\""));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("\"clientVersion\": \"", gnomon::Version(), "\"")));
  // A server that cannot answer: the client's version, then the error.
  servers_.state.Set([](testing::AdminState& s) {
    s.fail = grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad token");
  });
  r = Run({"version"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.out, StartsWith("Client Version: "));
  EXPECT_THAT(r.err, HasSubstr("bad token"));
}

TEST_F(CliTest, ServerErrorExitsByItsClassWithCodeAndMessage) {
  servers_.state.Set([](testing::AdminState& s) {
    s.fail = grpc::Status(grpc::StatusCode::NOT_FOUND, "job 99 not found");
  });
  Result r = Run({"job", "get", "99"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: job 99 not found\n");
  EXPECT_THAT(r.out, IsEmpty());
}

TEST_F(CliTest, PermissionErrorIsReportedToo) {
  servers_.state.Set([](testing::AdminState& s) {
    s.fail = grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad token");
  });
  Result r = Run({"group", "list", "-o", "json"});
  EXPECT_EQ(r.code, 4);
  EXPECT_EQ(r.err, "gnomonctl: UNAUTHENTICATED: bad token\n");
  EXPECT_THAT(r.out, IsEmpty());
}

TEST_F(CliTest, UsageErrorsExitTwoWithoutCallingTheServer) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"job", "get"},
           {"job", "get", "app/"},
           {"job", "get", "7", "--bogus"},
           {"job", "create", "--group", "1", "--handler", "h"},
           {"job"},
           {"nope", "list"},
           {"job", "explode"},
           {"group", "list", "-o", "xml"},
           {"--timeout", "soon", "group", "list"},
           {},
       }) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args);
    EXPECT_THAT(r.err, HasSubstr("--help")) << r.err;
    EXPECT_THAT(r.out, IsEmpty());
  }
  EXPECT_THAT(servers_.state.Methods(), IsEmpty());
}

TEST_F(CliTest, HelpAtEveryLevel) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"},
                                                                {"-h"},
                                                                {"job", "-h"},
                                                                {"job", "create", "--help"},
                                                                {"-h", "run", "logs"},
                                                                {"cron", "next", "-h"}}) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 0);
    EXPECT_THAT(r.out, HasSubstr("--server")) << ::testing::PrintToString(args);
    EXPECT_THAT(r.err, IsEmpty());
  }
  Result r = Run({"job", "create", "--help"});
  EXPECT_THAT(r.out, HasSubstr("Examples:"));
  EXPECT_THAT(r.out, HasSubstr("--retry-multiplier X"));
  EXPECT_THAT(servers_.state.Methods(), IsEmpty());
}

TEST_F(CliTest, GroupCreatePrintsTokenOnceWithWarning) {
  servers_.state.Set([](testing::AdminState& s) {
    s.group.set_id(3);
    s.group.set_app_name("billing");
    s.group.set_access_token("tok-123");
    s.group.mutable_manual()->add_addresses("a:1");
  });
  Result r = Run({"group", "create", "billing", "--addresses", "a:1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("access token:  tok-123"));
  EXPECT_THAT(r.out, HasSubstr("Keep this access token now"));
  auto req = servers_.state.Last<v1::CreateGroupRequest>("CreateGroup");
  EXPECT_EQ(req.group().app_name(), "billing");
  EXPECT_THAT(req.group().manual().addresses(), ElementsAre("a:1"));
}

TEST_F(CliTest, GroupCreateJsonIsOneDocumentAndWarnsOnStderr) {
  servers_.state.Set([](testing::AdminState& s) {
    s.group.set_id(3);
    s.group.set_app_name("billing");
    s.group.set_access_token("tok-123");
  });
  Result r = Run({"-o", "json", "group", "create", "billing"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::Group parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &parsed).ok()) << r.out;
  EXPECT_EQ(parsed.access_token(), "tok-123");
  EXPECT_THAT(r.out, HasSubstr("\"access_token\""));
  EXPECT_THAT(r.err, HasSubstr("Keep this access token"));
}

TEST_F(CliTest, GroupUpdateSendsMask) {
  ASSERT_EQ(Run({"group", "update", "3", "--auto"}).code, 0);
  auto req = servers_.state.Last<v1::UpdateGroupRequest>("UpdateGroup");
  EXPECT_EQ(req.group().id(), 3);
  EXPECT_TRUE(req.group().has_auto_registration());
  EXPECT_THAT(req.update_mask().paths(), ElementsAre("membership"));
}

TEST_F(CliTest, GroupDeleteAndRotate) {
  Result r = Run({"group", "delete", "4"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "deleted group 4\n");
  EXPECT_EQ(servers_.state.Last<v1::DeleteGroupRequest>("DeleteGroup").group_id(), 4);
  servers_.state.Set([](testing::AdminState& s) { s.group.set_access_token("new-token"); });
  r = Run({"group", "rotate-token", "4"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("new-token"));
  EXPECT_EQ(servers_.state.Last<v1::RotateGroupTokenRequest>("RotateGroupToken").group_id(), 4);
}

TEST_F(CliTest, JobCreateBuildsRequestWithRunTimeout) {
  Result r = Run({"--timeout", "5s", "job", "create", "--group", "1", "--script-shell", "job.sh",
                  "--every", "500ms", "--run-timeout", "30s", "--start", "--route", "broadcast",
                  "--timeout", "4s"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto req = servers_.state.Last<v1::CreateJobRequest>("CreateJob");
  EXPECT_TRUE(req.start());
  EXPECT_EQ(req.job().group_id(), 1);
  EXPECT_EQ(req.job().script().language(), v1::SCRIPT_LANGUAGE_SHELL);
  EXPECT_EQ(req.job().script().source(), "echo hello\n");
  EXPECT_EQ(req.job().schedule().fix_rate().nanos(), 500000000);
  EXPECT_EQ(req.job().timeout().seconds(), 30);
  EXPECT_EQ(req.job().route_strategy(), v1::ROUTE_STRATEGY_SHARDING_BROADCAST);
  EXPECT_THAT(r.out, HasSubstr("fix_rate 500ms"));
}

TEST_F(CliTest, OutputYamlIsTheJsonMappingAsYaml) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.set_description("nightly");
    s.job.mutable_bean()->set_handler("report");
  });
  Result r = Run({"job", "get", "7", "--output", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("id: \"7\"\ngroup_id: \"0\"\ndescription: nightly\n"));
  absl::StatusOr<std::vector<YamlDocument>> docs = ParseYamlDocuments(r.out);
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 1u);
  v1::Job back;
  ASSERT_TRUE(YamlDocumentToMessage((*docs)[0], &back).ok());
  EXPECT_EQ(back.bean().handler(), "report");

  // Hand-made JSON (cron next) converts too.
  r = Run(
      {"cron", "next", "0 0 * * * ?", "--from", "2024-05-01T00:30:00Z", "-n", "2", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "next_ms:\n  - 1714525200000\n  - 1714528800000\n");
}

TEST_F(CliTest, OutputWideAddsColumnsAndJobTimesAreInTheJobsZone) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job_pages.resize(1);
    v1::Job* job = s.job_pages[0].add_jobs();
    job->set_id(7);
    job->mutable_schedule()->mutable_cron()->set_expression("0 0 18 * * ?");
    job->mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
    job->set_author("ana");
    *job->mutable_next_fire_time() = ToTimestamp(absl::FromUnixSeconds(1795514400));
    s.job = *job;
  });
  Result r = Run({"job", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2026-11-24 18:00:00 +08:00"));
  EXPECT_THAT(r.out, Not(HasSubstr("AUTHOR")));
  r = Run({"job", "list", "-o", "wide"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("AUTHOR"));
  EXPECT_THAT(r.out, HasSubstr("ana"));
  r = Run({"-o", "wide", "job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("next fire:       2026-11-24 18:00:00 +08:00\n"));
}

TEST_F(CliTest, ExecutorListShowsTheBusyTotalsAndTheMostLoadedJobs) {
  servers_.state.Set([](testing::AdminState& s) {
    v1::GroupExecutors* g = s.executors.add_groups();
    g->set_group_id(3);
    g->set_app_name("billing");
    v1::ExecutorInfo* busy = g->add_executors();
    busy->set_address("10.0.0.7:9999");
    for (int64_t job = 1; job <= 1000; ++job) {
      v1::JobBusy* b = busy->add_busy_jobs();
      b->set_job_id(job);
      b->set_running(job <= 8 ? 1 : 0);
      b->set_queued(job <= 8 ? 0 : 1);
    }
    busy->set_busy_job_count(25000);
    busy->set_queued_runs(24992);
    busy->set_busy_jobs_partial(true);
    g->add_executors()->set_address("10.0.0.8:9999");  // Idle.
  });
  Result r = Run({"executor", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("25000 jobs, 24992 runs queued: 1 (1 running, 0 queued), 2 (1 "
                               "running, 0 queued), 3 (1 running, 0 queued), 4 (1 running, 0 "
                               "queued), 5 (1 running, 0 queued) and 24995 more"));
  EXPECT_THAT(r.out, Not(HasSubstr("6 (1 running")));
  r = Run({"executor", "list", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"busy_job_count\": 25000"));
  EXPECT_THAT(r.out, HasSubstr("\"busy_jobs_partial\": true"));
}

TEST_F(CliTest, RunTimesAreInTheirJobsZoneWhenTheJobIsNamed) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
    s.run.mutable_run()->set_id(12);
    s.run.mutable_run()->set_job_id(7);
    *s.run.mutable_run()->mutable_trigger_time() = ToTimestamp(absl::FromUnixSeconds(1714564800));
    s.run_pages.resize(1);
    *s.run_pages[0].add_runs() = s.run.run();
  });
  Result r = Run({"run", "get", "12"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2024-05-01T20:00:00.000+08:00"));
  EXPECT_EQ(servers_.state.Last<v1::GetJobRequest>("GetJob").job_id(), 7);
  r = Run({"run", "list", "--job", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2024-05-01T20:00:00.000+08:00"));
  // Runs of any job: UTC.
  r = Run({"run", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2024-05-01T12:00:00.000+00:00"));
}

TEST_F(CliTest, JobListFollowsPages) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job_pages.resize(2);
    s.job_pages[0].add_jobs()->set_id(1);
    s.job_pages[0].set_next_page_token("1");
    s.job_pages[1].add_jobs()->set_id(2);
  });
  Result r = Run({"job", "list", "--group", "5", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListJobsResponse all;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &all).ok());
  ASSERT_EQ(all.jobs_size(), 2);
  EXPECT_EQ(all.jobs(0).id(), 1);
  EXPECT_EQ(all.jobs(1).id(), 2);
  EXPECT_EQ(all.next_page_token(), "");
  auto calls = servers_.state.Snapshot().calls;
  ASSERT_EQ(calls.size(), 2u);
  v1::ListJobsRequest second;
  second.ParseFromString(calls[1].request_bytes);
  EXPECT_EQ(second.page_token(), "1");
  EXPECT_EQ(second.group_id(), 5);
}

TEST_F(CliTest, JobUpdateChangesOnlyGivenFields) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.set_group_id(2);
    s.job.set_description("nightly");
    s.job.mutable_bean()->set_handler("report");
    s.job.mutable_schedule()->mutable_cron()->set_expression("0 0 1 * * ?");
    s.job.mutable_schedule()->mutable_cron()->set_time_zone("Europe/Berlin");
    s.job.add_child_job_ids(9);
  });
  Result r = Run({"job", "update", "7", "--retries", "3", "--cron", "0 0 2 * * ?"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("GetJob", "UpdateJob"));
  auto req = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob");
  EXPECT_EQ(req.job().id(), 7);
  EXPECT_EQ(req.job().description(), "nightly");
  EXPECT_EQ(req.job().bean().handler(), "report");
  EXPECT_EQ(req.job().schedule().cron().expression(), "0 0 2 * * ?");
  EXPECT_EQ(req.job().schedule().cron().time_zone(), "Europe/Berlin");
  EXPECT_THAT(req.job().child_job_ids(), ElementsAre(9));
  EXPECT_EQ(req.job().retry().max_retries(), 3u);
}

TEST_F(CliTest, JobUpdateWithTzOnNonCronJobIsUsageError) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.mutable_schedule()->mutable_fix_rate()->set_seconds(2);
  });
  Result r = Run({"job", "update", "7", "--tz", "UTC"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--tz applies to cron schedules only"));
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("GetJob"));
}

TEST_F(CliTest, JobStartStopDelete) {
  servers_.state.Set([](testing::AdminState& s) { s.job.set_id(7); });
  Result r = Run({"job", "start", "7"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("running"));
  EXPECT_EQ(servers_.state.Last<v1::StartJobRequest>("StartJob").job_id(), 7);
  r = Run({"job", "stop", "7"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("stopped"));
  EXPECT_EQ(servers_.state.Last<v1::StopJobRequest>("StopJob").job_id(), 7);
  r = Run({"job", "delete", "7"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(
      r.out,
      "deleted job 7; its runs and logs stay until retention (--purge-runs deletes them now)\n");
  EXPECT_FALSE(servers_.state.Last<v1::DeleteJobRequest>("DeleteJob").purge_runs());
  r = Run({"job", "delete", "billing/report", "--purge-runs"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "deleted job billing/report with its runs and their logs\n");
  const v1::DeleteJobRequest purged = servers_.state.Last<v1::DeleteJobRequest>("DeleteJob");
  EXPECT_TRUE(purged.purge_runs());
  EXPECT_EQ(purged.job_name().group(), "billing");
  EXPECT_EQ(purged.job_name().name(), "report");
}

TEST_F(CliTest, PauseAfterFailuresIsSetOnCreateAndChangedByUpdate) {
  Result r = Run({"job", "create", "--group", "1", "--handler", "h", "--every", "1s",
                  "--pause-after-failures", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::CreateJobRequest>("CreateJob").job().pause_after_failures(),
            3u);
  EXPECT_THAT(r.out, HasSubstr("pause after:     3 consecutive failures (0 so far)\n"));

  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.mutable_bean()->set_handler("h");
    s.job.set_pause_after_failures(3);
    s.job.mutable_retry()->set_max_retries(2);
  });
  r = Run({"job", "update", "7", "--pause-after-failures", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto req = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob");
  EXPECT_EQ(req.job().pause_after_failures(), 0u);
  EXPECT_EQ(req.job().retry().max_retries(), 2u);
  EXPECT_THAT(r.out, Not(HasSubstr("pause")));  // 0: never, not shown.
  // Other flags leave it alone.
  r = Run({"job", "update", "7", "--retries", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().pause_after_failures(),
            3u);

  // Not a count, or one the field cannot hold: nothing is sent. The range
  // (0..1000) is the server's to check.
  servers_.state.Set([](testing::AdminState& s) { s.calls.clear(); });
  for (const char* bad : {"-1", "three", "4294967296"}) {
    r = Run({"job", "create", "--group", "1", "--handler", "h", "--manual",
             "--pause-after-failures", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("--pause-after-failures")) << bad;
  }
  EXPECT_THAT(servers_.state.Methods(), IsEmpty());
}

TEST_F(CliTest, APausedJobShowsWhyAndJobStartResumesIt) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.set_state(v1::JOB_STATE_PAUSED);
    s.job.set_pause_after_failures(3);
    s.job.set_consecutive_failures(3);
    s.job.set_pause_reason(
        "paused after 3 consecutive failures; the last, run 81: fail handler: failed on purpose");
    s.job_pages.resize(1);
    *s.job_pages[0].add_jobs() = s.job;
  });
  Result r = Run({"job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("state:           paused (gnomonctl job start resumes it)\n"
                               "pause reason:    paused after 3 consecutive failures; the last, "
                               "run 81: fail handler: failed on purpose\n"));
  EXPECT_THAT(r.out, HasSubstr("pause after:     3 consecutive failures (3 so far)\n"));

  r = Run({"job", "list", "--state", "paused"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::ListJobsRequest>("ListJobs").state(), v1::JOB_STATE_PAUSED);
  EXPECT_THAT(r.out, HasSubstr(" paused "));
  r = Run({"job", "list", "--state", "resting"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("use one of stopped, running, paused"));

  // The fake's StartJob answers the job RUNNING; the server also clears
  // the reason and the count.
  servers_.state.Set([](testing::AdminState& s) {
    s.job.clear_pause_reason();
    s.job.set_consecutive_failures(0);
  });
  r = Run({"job", "start", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("state:           running\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("pause reason")));
  EXPECT_THAT(r.out, HasSubstr("pause after:     3 consecutive failures (0 so far)\n"));
}

// apply neither pauses nor resumes: a paused job's document (as `get`
// prints it) applies back unchanged, and RUNNING declared leaves it paused.
TEST_F(CliTest, ApplyLeavesAPausedJobPausedAndGetPrintsNoCount) {
  servers_.state.Set([](testing::AdminState& s) {
    testing::SeedEtlMerge(s);
    s.job.mutable_schedule()->mutable_fix_rate()->set_seconds(1);
    s.job.set_state(v1::JOB_STATE_PAUSED);
    s.job.set_pause_after_failures(3);
    s.job.set_consecutive_failures(3);
    s.job.set_pause_reason("paused after 3 consecutive failures; the last, run 81: boom");
  });
  Result r = Run({"get", "job", "etl/merge"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  state: JOB_STATE_PAUSED\n"));
  EXPECT_THAT(r.out, HasSubstr("  pause_after_failures: 3\n"));
  EXPECT_THAT(r.out, HasSubstr("  pause_reason: \"\"\n"));  // Output only: cleared.
  EXPECT_THAT(r.out, HasSubstr("  consecutive_failures: 0\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("boom")));
  const std::string got = r.out;

  auto apply = [&](const std::string& text) { return ApplyText(text); };
  r = apply(got);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));

  const std::string running = R"(kind: Job
app: etl
job:
  name: merge
  bean: {handler: merge}
  schedule: {fixRate: 1s}
  pauseAfterFailures: PAUSE
  state: JOB_STATE_RUNNING
)";
  auto with_pause = [&](const std::string& n) {
    std::string text = running;
    return text.replace(text.find("PAUSE"), 5, n);
  };
  r = apply(with_pause("3"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged, left paused\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));

  // A changed setting is updated; the job stays paused all the same.
  r = apply(with_pause("5"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge configured, left paused\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob", "UpdateJob"));
  const v1::Job sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.pause_after_failures(), 5u);
  EXPECT_EQ(sent.pause_reason(), "");
  EXPECT_EQ(sent.consecutive_failures(), 0u);

  // STOPPED declared stops it, as any job.
  std::string stopped = with_pause("3");
  stopped.replace(stopped.find("JOB_STATE_RUNNING"), 17, "JOB_STATE_STOPPED");
  r = apply(stopped);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged, stopped\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob", "StopJob"));

  // PAUSED declared leaves any job's state as it is.
  servers_.state.Set([](testing::AdminState& s) { s.job.set_state(v1::JOB_STATE_RUNNING); });
  std::string paused = with_pause("3");
  paused.replace(paused.find("JOB_STATE_RUNNING"), 17, "JOB_STATE_PAUSED");
  r = apply(paused);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));
}

TEST_F(CliTest, DeadlineIsSetOnCreateAndClearedByUpdate) {
  // --deadline is the job's; the global --timeout stays the call's.
  Result r = Run({"--timeout", "4s", "job", "create", "--group", "1", "--handler", "h", "--every",
                  "1s", "--deadline", "90m"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto created = servers_.state.Last<v1::CreateJobRequest>("CreateJob").job();
  EXPECT_EQ(created.deadline().seconds(), 5400);
  EXPECT_EQ(created.deadline().nanos(), 0);
  EXPECT_FALSE(created.has_timeout());
  EXPECT_THAT(r.out, HasSubstr("run timeout:     -\n"
                               "deadline:        1h30m\n"));

  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.mutable_bean()->set_handler("h");
    s.job.mutable_deadline()->set_seconds(3600);
    s.job.mutable_timeout()->set_seconds(30);
  });
  r = Run({"job", "update", "7", "--deadline", "2h"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().deadline().seconds(),
            7200);
  EXPECT_THAT(r.out, HasSubstr("deadline:        2h\n"));

  // 0 clears it: the whole job is sent without one.
  r = Run({"job", "update", "7", "--deadline", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto req = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob");
  EXPECT_FALSE(req.job().has_deadline());
  EXPECT_EQ(req.job().timeout().seconds(), 30);
  EXPECT_EQ(req.job().bean().handler(), "h");
  EXPECT_THAT(r.out, HasSubstr("deadline:        -\n"));
  // Other flags leave it alone.
  r = Run({"job", "update", "7", "--run-timeout", "1m"});
  ASSERT_EQ(r.code, 0) << r.err;
  req = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob");
  EXPECT_EQ(req.job().deadline().seconds(), 3600);
  EXPECT_EQ(req.job().timeout().seconds(), 60);

  // Not a duration: a usage error naming the flag, nothing sent (not even
  // the update's read). The range (1 s to 7 days) is the server's to check.
  servers_.state.Set([](testing::AdminState& s) { s.calls.clear(); });
  for (const char* bad : {"soon", "-5s", "7d", "inf", ""}) {
    r = Run({"job", "create", "--group", "1", "--handler", "h", "--manual", "--deadline", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("--deadline")) << bad;
    r = Run({"job", "update", "7", "--deadline", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("--deadline")) << bad;
  }
  EXPECT_THAT(servers_.state.Methods(), IsEmpty());
}

TEST_F(CliTest, JobListWideAndRunGetShowTheDeadline) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.mutable_schedule()->mutable_cron()->set_expression("0 0 18 * * ?");
    s.job.mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
    s.job.mutable_deadline()->set_seconds(1800);
    s.job_pages.resize(1);
    *s.job_pages[0].add_jobs() = s.job;
    s.run.mutable_run()->set_id(12);
    s.run.mutable_run()->set_job_id(7);
    *s.run.mutable_run()->mutable_scheduled_time() = ToTimestamp(absl::FromUnixSeconds(1714564800));
    *s.run.mutable_run()->mutable_deadline_time() =
        ToTimestamp(absl::FromUnixSeconds(1714564800 + 1800));
  });
  Result r = Run({"job", "list", "-o", "wide"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("RUN TIMEOUT  DEADLINE  RETRIES"));
  EXPECT_THAT(r.out, HasSubstr("  -            30m       0  "));
  r = Run({"job", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("DEADLINE")));

  // In the job's zone, as the run's other times.
  r = Run({"run", "get", "12"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("scheduled:       2024-05-01T20:00:00.000+08:00\n"));
  EXPECT_THAT(r.out, HasSubstr("deadline:        2024-05-01T20:30:00.000+08:00\n"));
  // A run without one (its job has no deadline) shows no line.
  servers_.state.Set([](testing::AdminState& s) { s.run.mutable_run()->clear_deadline_time(); });
  r = Run({"run", "get", "12"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("deadline")));
}

// The deadline is a job field like any other in apply documents (the JSON
// mapping's "3600s"): `get` prints it, and it applies back unchanged.
TEST_F(CliTest, ApplyRoundTripsTheDeadline) {
  servers_.state.Set([](testing::AdminState& s) {
    testing::SeedEtlMerge(s);
    s.job.mutable_schedule()->mutable_fix_rate()->set_seconds(60);
    s.job.set_state(v1::JOB_STATE_RUNNING);
    s.job.mutable_deadline()->set_seconds(3600);
  });
  Result r = Run({"get", "job", "etl/merge"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  deadline: 3600s\n"));
  const std::string got = r.out;
  r = Run({"job", "get", "7", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\ndeadline: 3600s\n"));

  auto apply = [&](const std::string& text) { return ApplyText(text); };
  r = apply(got);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));

  const std::string doc = R"(kind: Job
app: etl
job:
  name: merge
  bean: {handler: merge}
  schedule: {fixRate: 60s}
DEADLINE)";
  auto with_deadline = [&](const std::string& line) {
    std::string text = doc;
    return text.replace(text.find("DEADLINE"), 8, line);
  };
  r = apply(with_deadline("  deadline: 3600s\n"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");

  r = apply(with_deadline("  deadline: 7200s\n"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge configured\n");
  EXPECT_EQ(servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().deadline().seconds(),
            7200);

  // Left out: the job is updated to have none.
  r = apply(with_deadline(""));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge configured\n");
  EXPECT_FALSE(servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().has_deadline());

  // Zero is no deadline, as unset.
  servers_.state.Set([](testing::AdminState& s) { s.job.clear_deadline(); });
  r = apply(with_deadline("  deadline: 0s\n"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));
}

TEST_F(CliTest, StartEndAndMaxFiresAreSetOnCreateAndClearedByUpdate) {
  // --start-time is the job's window, not --start (start scheduling now).
  Result r = Run({"job", "create", "--group", "1", "--handler", "h", "--cron", "0 0 18 * * ?",
                  "--tz", "Asia/Shanghai", "--start-time", "2024-05-01T00:00:00.250Z", "--end-time",
                  "2024-06-01T08:00:00+08:00", "--max-fires", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto req = servers_.state.Last<v1::CreateJobRequest>("CreateJob");
  EXPECT_FALSE(req.start());
  EXPECT_EQ(req.job().start_time().seconds(), 1714521600);
  EXPECT_EQ(req.job().start_time().nanos(), 250000000);
  EXPECT_EQ(req.job().end_time().seconds(), 1717200000);
  EXPECT_EQ(req.job().end_time().nanos(), 0);
  EXPECT_EQ(req.job().max_fires(), 5u);
  // In the job's zone, as its other times (the fake answers the request:
  // no fires_left).
  EXPECT_THAT(r.out, HasSubstr("schedule:        cron '0 0 18 * * ?' Asia/Shanghai\n"
                               "start time:      2024-05-01 08:00:00.25 +08:00\n"
                               "end time:        2024-06-01 08:00:00 +08:00\n"
                               "max fires:       5 (0 left)\n"
                               "next fire:       -\n"));

  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.mutable_bean()->set_handler("h");
    s.job.mutable_schedule()->mutable_fix_rate()->set_seconds(60);
    *s.job.mutable_start_time() = ToTimestamp(absl::FromUnixSeconds(1714521600));
    *s.job.mutable_end_time() = ToTimestamp(absl::FromUnixSeconds(1717200000));
    s.job.set_max_fires(5);
    s.job.set_fires_left(3);
    s.job.mutable_deadline()->set_seconds(3600);
  });
  r = Run({"job", "update", "7", "--end-time", "2024-07-01T00:00:00Z", "--max-fires", "10"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::Job sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.start_time().seconds(), 1714521600);
  EXPECT_EQ(sent.end_time().seconds(), 1719792000);
  EXPECT_EQ(sent.max_fires(), 10u);
  EXPECT_THAT(r.out, HasSubstr("start time:      2024-05-01 00:00:00 +00:00\n"
                               "end time:        2024-07-01 00:00:00 +00:00\n"
                               "max fires:       10 (3 left)\n"));

  // '' clears a time, 0 the limit: the whole job is sent without them.
  r = Run({"job", "update", "7", "--start-time", "", "--end-time=", "--max-fires", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_FALSE(sent.has_start_time());
  EXPECT_FALSE(sent.has_end_time());
  EXPECT_EQ(sent.max_fires(), 0u);
  EXPECT_EQ(sent.deadline().seconds(), 3600);
  EXPECT_EQ(sent.schedule().fix_rate().seconds(), 60);
  EXPECT_THAT(r.out, HasSubstr("start time:      -\n"
                               "end time:        -\n"
                               "max fires:       -\n"));
  // One alone changes only itself; other flags leave them all alone.
  r = Run({"job", "update", "7", "--start-time", ""});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_FALSE(sent.has_start_time());
  EXPECT_EQ(sent.end_time().seconds(), 1717200000);
  EXPECT_EQ(sent.max_fires(), 5u);
  r = Run({"job", "update", "7", "--deadline", "2h"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.start_time().seconds(), 1714521600);
  EXPECT_EQ(sent.end_time().seconds(), 1717200000);
  EXPECT_EQ(sent.max_fires(), 5u);

  // Not an RFC 3339 time, or not a count the field can hold: a usage error
  // naming the flag, nothing sent (not even the update's read). The rest
  // (years, end after start, max_fires' range and schedule) is the
  // server's to check.
  servers_.state.Set([](testing::AdminState& s) { s.calls.clear(); });
  const std::vector<std::pair<std::string, std::vector<std::string>>> bad_values = {
      {"--start-time",
       {"tomorrow", "2024-05-01", "2024-05-01 12:00:00", "2024-05-01T12:00:00", "1714564800",
        "infinite-past", "infinite-future"}},
      {"--end-time", {"2024-13-01T00:00:00Z", "next week", "infinite-future"}},
      {"--max-fires", {"-1", "five", "1.5", "4294967296", ""}},
  };
  for (const auto& [flag, values] : bad_values) {
    for (const std::string& bad : values) {
      r = Run({"job", "create", "--group", "1", "--handler", "h", "--every", "1s", flag, bad});
      EXPECT_EQ(r.code, 2) << flag << " " << bad;
      EXPECT_THAT(r.err, HasSubstr(flag)) << bad;
      r = Run({"job", "update", "7", flag, bad});
      EXPECT_EQ(r.code, 2) << flag << " " << bad;
      EXPECT_THAT(r.err, HasSubstr(flag)) << bad;
    }
  }
  EXPECT_THAT(servers_.state.Methods(), IsEmpty());
}

TEST_F(CliTest, JobGetAndListWideShowStartEndAndMaxFires) {
  servers_.state.Set([](testing::AdminState& s) {
    s.job.set_id(7);
    s.job.mutable_schedule()->mutable_cron()->set_expression("0 0 18 * * ?");
    s.job.mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
    *s.job.mutable_start_time() = ToTimestamp(absl::FromUnixSeconds(1714608000));
    *s.job.mutable_end_time() = ToTimestamp(absl::FromUnixSeconds(1717200000));
    s.job.set_max_fires(5);
    s.job.set_fires_left(3);
    s.job_pages.resize(1);
    *s.job_pages[0].add_jobs() = s.job;
  });
  Result r = Run({"job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("start time:      2024-05-02 08:00:00 +08:00\n"
                               "end time:        2024-06-01 08:00:00 +08:00\n"
                               "max fires:       5 (3 left)\n"));
  // All spent: the server shows no next fire.
  servers_.state.Set([](testing::AdminState& s) { s.job.set_fires_left(0); });
  r = Run({"job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("max fires:       5 (0 left)\nnext fire:       -\n"));
  r = Run({"job", "get", "7", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nstart_time: 2024-05-02T00:00:00Z\n"));
  EXPECT_THAT(r.out, HasSubstr("\nmax_fires: 5\nfires_left: 0\n"));

  r = Run({"job", "list", "-o", "wide"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("DESCRIPTION  START TIME                  END TIME                    "
                        "MAX FIRES   BLOCK"));
  EXPECT_THAT(r.out, HasSubstr("  2024-05-02 08:00:00 +08:00  2024-06-01 08:00:00 +08:00  "
                               "5 (3 left)  serial"));
  r = Run({"job", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("MAX FIRES")));

  // None of them: '-'.
  servers_.state.Set([](testing::AdminState& s) {
    s.job.clear_start_time();
    s.job.clear_end_time();
    s.job.set_max_fires(0);
    s.job_pages[0].mutable_jobs(0)->clear_start_time();
    s.job_pages[0].mutable_jobs(0)->clear_end_time();
    s.job_pages[0].mutable_jobs(0)->set_max_fires(0);
  });
  r = Run({"job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("start time:      -\n"
                               "end time:        -\n"
                               "max fires:       -\n"));
  r = Run({"job", "list", "-o", "wide"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("START TIME  END TIME  MAX FIRES  BLOCK"));
  EXPECT_THAT(r.out, HasSubstr("  -           -         -          serial"));
}

// start_time, end_time and max_fires are job fields like any other in apply
// documents (the JSON mapping's RFC 3339 times); fires_left is the server's,
// ignored as consecutive_failures is: `get` prints it cleared, and a job
// applies back unchanged whatever its count.
TEST_F(CliTest, ApplyRoundTripsStartEndAndMaxFires) {
  servers_.state.Set([](testing::AdminState& s) {
    testing::SeedEtlMerge(s);
    s.job.mutable_schedule()->mutable_fix_rate()->set_seconds(60);
    s.job.set_state(v1::JOB_STATE_RUNNING);
    *s.job.mutable_start_time() = ToTimestamp(absl::FromUnixSeconds(1714608000));
    *s.job.mutable_end_time() = ToTimestamp(absl::FromUnixSeconds(1717200000));
    s.job.set_max_fires(5);
    s.job.set_fires_left(3);
  });
  Result r = Run({"get", "job", "etl/merge"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  start_time: 2024-05-02T00:00:00Z\n"));
  EXPECT_THAT(r.out, HasSubstr("  end_time: 2024-06-01T00:00:00Z\n"));
  EXPECT_THAT(r.out, HasSubstr("  max_fires: 5\n"));
  EXPECT_THAT(r.out, HasSubstr("  fires_left: 0\n"));  // Output only: cleared.
  const std::string got = r.out;

  r = ApplyText(got);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));

  const std::string doc = R"(kind: Job
app: etl
job:
  name: merge
  bean: {handler: merge}
  schedule: {fixRate: 60s}
LIFETIME)";
  auto with = [&](const std::string& lines) {
    std::string text = doc;
    return text.replace(text.find("LIFETIME"), 8, lines);
  };
  // The same instants in another offset, and any firesLeft: unchanged.
  r =
      ApplyText(with("  startTime: 2024-05-02T08:00:00+08:00\n"
                     "  endTime: '2024-06-01T00:00:00Z'\n"
                     "  maxFires: 5\n"
                     "  firesLeft: 1\n"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));

  r =
      ApplyText(with("  startTime: 2024-05-02T00:00:00Z\n"
                     "  endTime: 2024-07-01T00:00:00Z\n"
                     "  maxFires: 10\n"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge configured\n");
  v1::Job sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.start_time().seconds(), 1714608000);
  EXPECT_EQ(sent.end_time().seconds(), 1719792000);
  EXPECT_EQ(sent.max_fires(), 10u);
  EXPECT_EQ(sent.fires_left(), 0u);

  // Left out: the job is updated to have none.
  r = ApplyText(with(""));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge configured\n");
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_FALSE(sent.has_start_time());
  EXPECT_FALSE(sent.has_end_time());
  EXPECT_EQ(sent.max_fires(), 0u);

  // A job without them, whose server count is left over, applies back
  // unchanged from a document without them.
  servers_.state.Set([](testing::AdminState& s) {
    s.job.clear_start_time();
    s.job.clear_end_time();
    s.job.set_max_fires(0);
  });
  r = ApplyText(with("  maxFires: 0\n"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "job/etl/merge unchanged\n");
  EXPECT_THAT(servers_.state.Methods(), ElementsAre("ListGroups", "GetJob"));
}

TEST_F(CliTest, JobTriggerIsManual) {
  servers_.state.Set([](testing::AdminState& s) {
    s.trigger.add_run_ids(41);
    s.trigger.add_run_ids(42);
  });
  Result r =
      Run({"job", "trigger", "7", "--params", "x=1", "--executors", "a:1,b:2", "--shard", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "triggered job 7: runs 41, 42\n");
  auto req = servers_.state.Last<v1::TriggerJobRequest>("TriggerJob");
  EXPECT_EQ(req.trigger_type(), v1::TRIGGER_TYPE_MANUAL);
  EXPECT_EQ(req.params(), "x=1");
  EXPECT_THAT(req.executor_addresses(), ElementsAre("a:1", "b:2"));
  EXPECT_TRUE(req.has_shard_index());
  EXPECT_EQ(req.shard_index(), 0u);
}

TEST_F(CliTest, JobBackfill) {
  servers_.state.Set([](testing::AdminState& s) { s.backfill.add_run_ids(5); });
  Result r = Run({"job", "backfill", "7", "--from", "2024-05-01T00:00:00Z", "--to",
                  "2024-05-02T00:00:00+02:00"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto req = servers_.state.Last<v1::BackfillRequest>("Backfill");
  EXPECT_EQ(req.start_time().seconds(), 1714521600);
  EXPECT_EQ(req.end_time().seconds(), 1714521600 + 86400 - 7200);
  EXPECT_THAT(r.out, HasSubstr("1 runs (5)"));
}

TEST_F(CliTest, RunListStopsAtLimitAcrossPages) {
  servers_.state.Set([](testing::AdminState& s) {
    s.run_pages.resize(2);
    for (int i = 0; i < 2; ++i) s.run_pages[0].add_runs()->set_id(10 - i);
    s.run_pages[0].set_next_page_token("1");
    for (int i = 2; i < 4; ++i) s.run_pages[1].add_runs()->set_id(10 - i);
    s.run_pages[1].set_next_page_token("2");
  });
  Result r = Run({"run", "list", "--job", "7", "--status", "failed", "--since", "1h", "--limit",
                  "3", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListRunsResponse resp;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &resp).ok());
  ASSERT_EQ(resp.runs_size(), 3);
  EXPECT_EQ(resp.runs(2).id(), 8);
  // The fake ignored page_size and one run was dropped: no resumable token.
  EXPECT_EQ(resp.next_page_token(), "");
  auto calls = servers_.state.Snapshot().calls;
  ASSERT_EQ(calls.size(), 2u);
  v1::ListRunsRequest first, second;
  first.ParseFromString(calls[0].request_bytes);
  second.ParseFromString(calls[1].request_bytes);
  EXPECT_EQ(first.page_size(), 3);
  EXPECT_EQ(first.job_id(), 7);
  EXPECT_THAT(first.statuses(), ElementsAre(v1::RUN_STATUS_FAILED));
  EXPECT_EQ(first.start_time().seconds(), 1714564800 - 3600);
  EXPECT_EQ(second.page_token(), "1");
  EXPECT_EQ(second.page_size(), 1);
}

TEST_F(CliTest, RunGetShowsDetailsAndLog) {
  servers_.state.Set([](testing::AdminState& s) {
    s.run.mutable_run()->set_id(12);
    s.run.mutable_run()->set_status(v1::RUN_STATUS_SUCCEEDED);
    s.run.mutable_run()->set_log_line_count(1);
    v1::LogLine* line = s.run.add_log_lines();
    line->set_line_number(1);
    line->mutable_time()->set_seconds(1714564800);
    line->set_text("hello from the job");
  });
  Result r = Run({"run", "get", "12"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("status:"));
  EXPECT_THAT(r.out, HasSubstr("succeeded"));
  EXPECT_THAT(r.out, HasSubstr("2024-05-01T12:00:00.000+00:00  hello from the job\n"));
  EXPECT_EQ(servers_.state.Last<v1::GetRunRequest>("GetRun").run_id(), 12);
  EXPECT_THAT(r.err, IsEmpty());
}

TEST_F(CliTest, RunLogsWithoutFollowUsesGetRun) {
  servers_.state.Set([](testing::AdminState& s) {
    s.run.mutable_run()->set_id(12);
    s.run.mutable_run()->set_log_line_count(5);
    s.run.add_log_lines()->set_text("one");
  });
  Result r = Run({"run", "logs", "12", "--lines", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "-  one\n");
  EXPECT_EQ(servers_.state.Last<v1::GetRunRequest>("GetRun").log_lines(), 1);
  EXPECT_THAT(r.err, HasSubstr("showing 1 of 5 lines"));
}

TEST_F(CliTest, RunLogsFollowStreamsFromLogService) {
  servers_.state.Set([](testing::AdminState& s) {
    for (const char* text : {"first", "second"}) {
      v1::LogLine line;
      line.set_text(text);
      line.mutable_time()->set_seconds(1714564800);
      s.stream_lines.push_back(line);
    }
  });
  Result r = Run({"--token", "t", "run", "logs", "12", "-f"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "2024-05-01T12:00:00.000+00:00  first\n"
            "2024-05-01T12:00:00.000+00:00  second\n");
  auto calls = servers_.state.Snapshot().calls;
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].method, "StreamRunLog");
  EXPECT_EQ(calls[0].authorization, "Bearer t");
  v1::StreamRunLogRequest req;
  req.ParseFromString(calls[0].request_bytes);
  EXPECT_EQ(req.run_id(), 12);
  EXPECT_TRUE(req.follow());
}

TEST_F(CliTest, RunLogsFollowReportsStreamError) {
  servers_.state.Set([](testing::AdminState& s) {
    s.fail = grpc::Status(grpc::StatusCode::NOT_FOUND, "no run 12");
  });
  Result r = Run({"run", "logs", "12", "-f"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: no run 12\n");
}

TEST_F(CliTest, RunKill) {
  servers_.state.Set([](testing::AdminState& s) { s.kill.set_found(true); });
  Result r = Run({"run", "kill", "12", "-o", "json"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("\"found\": true"));
  EXPECT_EQ(servers_.state.Last<v1::KillRunRequest>("KillRun").run_id(), 12);
}

TEST_F(CliTest, UnreachableServerIsAnErrorNotAUsageError) {
  vars_["GNOMON_SERVER"] = "127.0.0.1:1";
  Result r = Run({"--rpc-timeout", "2s", "group", "list"});
  EXPECT_EQ(r.code, 5);
  EXPECT_THAT(r.err, StartsWith("gnomonctl: UNAVAILABLE: "));
  EXPECT_THAT(r.err, HasSubstr("(server 127.0.0.1:1)"));
  EXPECT_THAT(r.out, Not(HasSubstr("ID")));
}

TEST_F(CliTest, CronNextJsonIsUtcMillisAndNeedsNoServer) {
  vars_["GNOMON_SERVER"] = "127.0.0.1:1";
  Result r = Run(
      {"cron", "next", "0 0 * * * ?", "--from", "2024-05-01T00:30:00Z", "-n", "3", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"next_ms\": [1714525200000, 1714528800000, 1714532400000]}\n");
  EXPECT_THAT(r.err, IsEmpty());
  EXPECT_THAT(servers_.state.Methods(), IsEmpty());
}

TEST_F(CliTest, CronNextFromMillisAndExpressionThatStops) {
  // Fires once, at 2020-01-01T00:00:00Z (year field), then never again.
  Result r = Run(
      {"cron", "next", "0 0 0 1 1 ? 2020", "--from-ms", "1559347200000", "-n", "3", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"next_ms\": [1577836800000]}\n");
}

TEST_F(CliTest, CronNextReadableShowsZoneAndUtc) {
  Result r = Run({"cron", "next", "0 0 * * * ?", "--tz", "Europe/Berlin", "--from",
                  "2024-05-01T00:30:00Z", "-n", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("TIME (Europe/Berlin)"));
  EXPECT_THAT(r.out, HasSubstr("2024-05-01 03:00:00 +02:00  "
                               "2024-05-01T01:00:00.000Z"));
}

TEST_F(CliTest, CronNextInvalidExpressionExitsTwoWithOneLine) {
  Result r = Run({"cron", "next", "not a cron", "-o", "json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.out, IsEmpty());
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, StartsWith("gnomonctl: "));
}

// The text of docs/NAME ("" if it cannot be read).
std::string Doc(const std::string& name) {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/" + name);
  std::stringstream doc;
  doc << in.rdbuf();
  return doc.str();
}

// docs/operations.md, "gnomonctl exit codes": the codes it names for 3, 4 and
// 5 are ExitCodeOf's, and every other gRPC code is 1.
TEST(ExitCodes, AreTheDocumentedOnes) {
  const std::string text = Doc("operations.md");
  ASSERT_FALSE(text.empty());
  std::map<std::string, int> documented;
  const std::regex row(R"(\| ([345]) \| ([^\n]*) \|)");
  for (std::sregex_iterator it(text.begin(), text.end(), row), end; it != end; ++it) {
    const std::string cell = (*it)[2].str();
    const std::regex code("`([A-Z_]+)`");
    for (std::sregex_iterator c(cell.begin(), cell.end(), code); c != end; ++c) {
      documented[(*c)[1].str()] = std::stoi((*it)[1].str());
    }
  }
  EXPECT_EQ(documented.size(), 5u);
  for (int c = 1; c <= 16; ++c) {
    const auto code = static_cast<grpc::StatusCode>(c);
    const std::string name = absl::StatusCodeToString(static_cast<absl::StatusCode>(c));
    const int want = documented.count(name) ? documented[name] : 1;
    EXPECT_EQ(ExitCodeOf(code), want) << name;
  }
}

// docs/cli.md, "Output": the formats its table names are the ones -o takes.
TEST(OutputFormats, AreTheDocumentedOnes) {
  const std::string text = Doc("cli.md");
  ASSERT_FALSE(text.empty());
  std::vector<std::string> documented;
  const std::regex row(R"(\n\| `([a-z]+)` \| )");
  for (std::sregex_iterator it(text.begin(), text.end(), row), end; it != end; ++it) {
    documented.push_back((*it)[1].str());
  }
  EXPECT_THAT(documented, ElementsAre("table", "wide", "json", "yaml"));
  CliEnv env;
  env.now = [] { return absl::FromUnixSeconds(1714564800); };
  for (const std::string& format : documented) {
    std::ostringstream out, err;
    EXPECT_EQ(RunCli({"cron", "next", "0 0 * * * ?", "-n", "1", "-o", format}, env, out, err), 0)
        << format << ": " << err.str();
  }
}

}  // namespace
}  // namespace gnomon::cli
