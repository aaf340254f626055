// Jobs by name and declared in files (docs/concepts.md "Job names",
// docs/operations.md "Declarative jobs"), through gnomonctl against a real
// gnomond on SQLite: apply creates a group and its jobs, applying again
// changes nothing, `get job -o yaml` applies back unchanged, an edit is
// applied (and only previewed with --dry-run), --prune deletes what the files
// no longer declare; names are unique per group, accepted wherever an id is,
// and "job-<id>" is reserved; a deleted job's runs stay until retention.
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/log.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kBilling[] = R"(kind: Group
group:
  appName: billing
  title: Billing
---
kind: Job
app: billing
job:
  name: nightly-invoice
  description: Nightly invoices
  author: ada
  bean: {handler: invoice}
  schedule:
    cron: {expression: "0 0 2 * * ?", timeZone: Europe/Berlin}
  state: JOB_STATE_RUNNING
children: [send-mail]
---
kind: Job
app: billing
job:
  name: send-mail
  bean: {handler: mail}
)";

class ApplyE2E : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster_.Start()) << cluster_.Output(); }

  testing::CommandResult Apply(std::vector<std::string> args) {
    args.insert(args.begin(), "apply");
    testing::CommandResult r = cluster_.Ctl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  }
  v1::Job Job(const std::string& ref) {
    v1::Job j;
    EXPECT_TRUE(cluster_.CtlJson({"job", "get", ref}, &j));
    return j;
  }

  testing::GnomonCluster cluster_;
};

TEST_F(ApplyE2E, ApplyIsIdempotentAndGetRoundTrips) {
  const std::string file = cluster_.WriteFile("billing.yaml", kBilling);
  testing::CommandResult first = Apply({"-f", file});
  EXPECT_THAT(first.out, HasSubstr("group/billing created\n"));
  EXPECT_THAT(first.out, HasSubstr("job/billing/nightly-invoice created, started\n"));
  EXPECT_THAT(first.out, HasSubstr("job/billing/send-mail created\n"));
  EXPECT_THAT(first.err, HasSubstr("group/billing access token (shown once): "));

  const v1::Job nightly = Job("billing/nightly-invoice");
  const v1::Job mail = Job("send-mail");  // Unique among the groups: no app needed.
  EXPECT_EQ(nightly.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(nightly.schedule().cron().time_zone(), "Europe/Berlin");
  ASSERT_EQ(nightly.child_job_ids_size(), 1);
  EXPECT_EQ(nightly.child_job_ids(0), mail.id());
  EXPECT_EQ(mail.state(), v1::JOB_STATE_STOPPED);

  testing::CommandResult again = Apply({"-f", file});
  EXPECT_EQ(again.out,
            "group/billing unchanged\njob/billing/nightly-invoice unchanged\njob/billing/send-mail "
            "unchanged\n");

  // What `get` prints applies back without a change.
  testing::CommandResult got = cluster_.Ctl({"get", "job", "billing/nightly-invoice"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_THAT(got.out, HasSubstr("kind: Job"));
  EXPECT_THAT(got.out, HasSubstr("send-mail"));
  const std::string exported = cluster_.WriteFile("exported.yaml", got.out);
  EXPECT_EQ(Apply({"-f", exported}).out, "job/billing/nightly-invoice unchanged\n");
  testing::CommandResult all =
      cluster_.Ctl({"get", "jobs", "--group", absl::StrCat(nightly.group_id())});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const std::string group_yaml = cluster_.Ctl({"get", "group", "billing"}).out;
  EXPECT_EQ(Apply({"-f", cluster_.WriteFile("all.yaml", group_yaml + "---\n" + all.out)}).out,
            "group/billing unchanged\njob/billing/nightly-invoice unchanged\njob/billing/send-mail "
            "unchanged\n");

  // An edit: previewed by --dry-run, then applied, in place (same id).
  const std::string edited = cluster_.WriteFile(
      "edited.yaml", absl::StrReplaceAll(got.out, {{"Nightly invoices", "Nightly invoices (EU)"}}));
  EXPECT_EQ(Apply({"-f", edited, "--dry-run"}).out,
            "job/billing/nightly-invoice configured (dry run)\n");
  EXPECT_EQ(Job("billing/nightly-invoice").description(), "Nightly invoices");
  EXPECT_EQ(Apply({"-f", edited}).out, "job/billing/nightly-invoice configured\n");
  const v1::Job after = Job("billing/nightly-invoice");
  EXPECT_EQ(after.id(), nightly.id());
  EXPECT_EQ(after.description(), "Nightly invoices (EU)");
  EXPECT_EQ(after.state(), v1::JOB_STATE_RUNNING);
}

TEST_F(ApplyE2E, PruneDeletesWhatTheFilesNoLongerDeclare) {
  Apply({"-f", cluster_.WriteFile("billing.yaml", kBilling)});
  const std::string only_group = cluster_.WriteFile(
      "group.yaml", std::string(kBilling).substr(0, std::string(kBilling).find("---")));
  testing::CommandResult dry = Apply({"-f", only_group, "--prune", "--dry-run"});
  EXPECT_THAT(dry.out, HasSubstr("job/billing/send-mail pruned (dry run)\n"));
  EXPECT_EQ(Job("send-mail").name(), "send-mail");
  testing::CommandResult pruned = Apply({"-f", only_group, "--prune"});
  EXPECT_THAT(pruned.out, HasSubstr("job/billing/nightly-invoice pruned\n"));
  EXPECT_THAT(pruned.out, HasSubstr("job/billing/send-mail pruned\n"));
  testing::CommandResult gone = cluster_.Ctl({"job", "get", "billing/send-mail"});
  EXPECT_EQ(gone.exit_code, 3) << gone.err;  // NOT_FOUND
  EXPECT_THAT(gone.err, HasSubstr("no job named"));
}

TEST_F(ApplyE2E, BadDocumentsAreRefusedBeforeAnythingChanges) {
  const std::string twice = cluster_.WriteFile(
      "twice.yaml",
      std::string(kBilling) + "---\nkind: Job\napp: billing\njob: {name: send-mail}\n");
  testing::CommandResult r = cluster_.Ctl({"apply", "-f", twice});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("document 4"));
  EXPECT_THAT(r.err, HasSubstr("job billing/send-mail is declared twice"));
  const std::string unknown =
      cluster_.WriteFile("unknown.yaml", "kind: Job\napp: billing\njob: {name: x, colour: red}\n");
  r = cluster_.Ctl({"apply", "-f", unknown});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("colour"));
  EXPECT_EQ(cluster_.Ctl({"group", "list"}).out.find("billing"), std::string::npos);
}

TEST_F(ApplyE2E, NamesAreUniquePerGroupAndWorkWhereIdsDo) {
  v1::Group a, b;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "app-a"}, &a));
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "app-b"}, &b));
  v1::Job ja, unnamed;
  ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(a.id()), "--handler",
                                "demo", "--manual", "--name", "report"},
                               &ja));
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "create", "--group", absl::StrCat(a.id()), "--handler", "demo", "--manual"},
      &unnamed));
  EXPECT_EQ(unnamed.name(), absl::StrCat("job-", unnamed.id()));

  testing::CommandResult dup = cluster_.Ctl({"job", "create", "--group", absl::StrCat(a.id()),
                                             "--handler", "demo", "--manual", "--name", "report"});
  EXPECT_NE(dup.exit_code, 0);
  EXPECT_THAT(dup.err, HasSubstr("ALREADY_EXISTS"));
  EXPECT_THAT(dup.err, HasSubstr("job.name: group " + absl::StrCat(a.id()) +
                                 " already has a job named 'report'"));
  testing::CommandResult reserved =
      cluster_.Ctl({"job", "create", "--group", absl::StrCat(a.id()), "--handler", "demo",
                    "--manual", "--name", "job-999"});
  EXPECT_THAT(reserved.err, HasSubstr("job.name: names of the form job-<number> are reserved"));

  // The same name in another group is fine; then the bare name is ambiguous.
  v1::Job jb;
  ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(b.id()), "--handler",
                                "demo", "--manual", "--name", "report"},
                               &jb));
  testing::CommandResult ambiguous = cluster_.Ctl({"job", "get", "report"});
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_THAT(ambiguous.err,
              HasSubstr("jobs named \"report\" are in groups app-a, app-b; set job_name.group"));
  EXPECT_EQ(Job("app-b/report").id(), jb.id());

  // Trigger, update (rename), start and stop by name.
  v1::TriggerJobResponse fired;
  ASSERT_TRUE(cluster_.CtlJson({"job", "trigger", "app-a/report"}, &fired));
  ASSERT_EQ(fired.run_ids_size(), 1);
  v1::Job renamed;
  ASSERT_TRUE(
      cluster_.CtlJson({"job", "update", "app-a/report", "--name", "daily-report"}, &renamed));
  EXPECT_EQ(renamed.id(), ja.id());
  EXPECT_EQ(Job("app-a/daily-report").id(), ja.id());
  EXPECT_EQ(Job("app-a/daily-report").last_run().run_id(), fired.run_ids(0));

  // Filters.
  testing::CommandResult listed = cluster_.Ctl({"job", "list", "--name", "REPORT"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("daily-report"));
  EXPECT_THAT(listed.out, Not(HasSubstr(unnamed.name())));

  // Runs and daily statistics of a job by name.
  v1::ListRunsResponse runs;
  ASSERT_TRUE(cluster_.CtlJson({"run", "list", "--job", "app-a/daily-report"}, &runs));
  ASSERT_EQ(runs.runs_size(), 1);
  EXPECT_EQ(runs.runs(0).id(), fired.run_ids(0));
  testing::CommandResult stats = cluster_.Ctl({"stats", "show", "--job", "app-a/daily-report"});
  EXPECT_EQ(stats.exit_code, 0) << stats.err;
  testing::CommandResult missing = cluster_.Ctl({"run", "list", "--job", "app-a/nope"});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;

  // A copy is a new stopped job; deleting keeps the runs until retention.
  v1::Job copy;
  ASSERT_TRUE(
      cluster_.CtlJson({"job", "copy", "app-a/daily-report", "--name", "daily-report-2"}, &copy));
  EXPECT_NE(copy.id(), ja.id());
  EXPECT_EQ(copy.bean().handler(), "demo");
  testing::CommandResult deleted = cluster_.Ctl({"job", "delete", "app-a/daily-report"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_THAT(deleted.out, HasSubstr("its runs and logs stay until retention"));
  v1::GetRunResponse run;
  ASSERT_TRUE(cluster_.CtlJson({"run", "get", absl::StrCat(fired.run_ids(0))}, &run));
  EXPECT_EQ(run.run().job_id(), ja.id());
}

}  // namespace
}  // namespace gnomon
