// Script versions (docs/concepts.md, "Script versions") through gnomonctl
// against a real gnomond: every create and script edit of a script job is a
// version with its author (as the audit log names the caller) and remark; an
// edit that leaves the script alone adds none; versions are listed, shown,
// diffed and rolled back; gnomond --script-versions bounds how many stay.
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

constexpr char kPassword[] = "alice-password-0123";

class ScriptVersionsE2E : public ::testing::Test {
 protected:
  explicit ScriptVersionsE2E(std::vector<std::string> flags = {}) : cluster_(std::move(flags)) {}

  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "scripts-app"}, &group_));
  }
  v1::ListScriptVersionsResponse Versions(int64_t job) {
    v1::ListScriptVersionsResponse out;
    EXPECT_TRUE(cluster_.CtlJson({"job", "script", "versions", absl::StrCat(job)}, &out));
    return out;
  }

  testing::GnomonCluster cluster_;
  v1::Group group_;
};

TEST_F(ScriptVersionsE2E, EditsAreVersionedListedShownDiffedAndRolledBack) {
  v1::Job job;
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "create", "--group", absl::StrCat(group_.id()), "--script-shell",
       cluster_.WriteFile("v1.sh", "echo one\necho same\n"), "--manual", "--remark", "first cut"},
      &job));
  EXPECT_EQ(job.script().version(), 1);
  const std::string id = absl::StrCat(job.id());

  // A user's edit: the version names the user, as the audit log does.
  const std::string password_file = cluster_.WriteFile("alice.pw", absl::StrCat(kPassword, "\n"));
  v1::User alice;
  ASSERT_TRUE(cluster_.CtlJson({"user", "create", "alice", "--role", "operator", "--group",
                                absl::StrCat(group_.id()), "--password-file", password_file},
                               &alice));
  testing::CommandResult login =
      cluster_.Ctl({"user", "login", "alice", "--password-file", password_file});
  ASSERT_EQ(login.exit_code, 0) << login.err;
  const std::string alice_token = login.out.substr(0, login.out.find('\n'));
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "update", id, "--script-shell", cluster_.WriteFile("v2.sh", "echo two\necho same\n"),
       "--remark", "say two", "--token", alice_token},
      &job));
  EXPECT_EQ(job.script().version(), 2);
  EXPECT_EQ(job.script().remark(), "");  // Input only.

  // Not a script change: no version.
  ASSERT_TRUE(cluster_.CtlJson({"job", "update", id, "--desc", "described"}, &job));
  EXPECT_EQ(job.script().version(), 2);
  ASSERT_TRUE(cluster_.CtlJson({"job", "update", id, "--script-shell",
                                cluster_.WriteFile("v2-again.sh", "echo two\necho same\n")},
                               &job));
  EXPECT_EQ(job.script().version(), 2);

  v1::ListScriptVersionsResponse versions = Versions(job.id());
  ASSERT_EQ(versions.versions_size(), 2) << versions.DebugString();
  EXPECT_EQ(versions.versions(0).version(), 2);
  EXPECT_EQ(versions.versions(0).author(), "user:alice");
  EXPECT_EQ(versions.versions(0).remark(), "say two");
  EXPECT_EQ(versions.versions(0).source_bytes(), 19);
  EXPECT_EQ(versions.versions(1).version(), 1);
  EXPECT_EQ(versions.versions(1).remark(), "first cut");
  // Authors are the audit log's actors.
  v1::ListAuditResponse audit;
  ASSERT_TRUE(cluster_.CtlJson({"audit", "list", "--object", "job/" + id}, &audit));
  ASSERT_GE(audit.entries_size(), 2);
  const v1::AuditEntry& created = audit.entries(audit.entries_size() - 1);
  EXPECT_EQ(created.method(), "CreateJob");
  EXPECT_EQ(versions.versions(1).author(), created.actor());
  EXPECT_EQ(versions.versions(1).author().rfind("admin:", 0), 0u) << versions.versions(1).author();
  // The table names the columns and each version.
  testing::CommandResult table = cluster_.Ctl({"job", "script", "versions", id, "-o", "table"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("VERSION", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("user:alice"), std::string::npos) << table.out;

  testing::CommandResult show = cluster_.Ctl({"job", "script", "show", id, "1", "-o", "table"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out, "echo one\necho same\n");

  testing::CommandResult diff = cluster_.Ctl({"job", "script", "diff", id, "v1", "-o", "table"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_EQ(diff.out,
            absl::StrCat("--- job ", id, " v1\n+++ job ", id,
                         " v2 (current)\n@@ -1,2 +1,2 @@\n-echo one\n+echo two\n echo same\n"));

  testing::CommandResult rollback =
      cluster_.Ctl({"job", "script", "rollback", id, "1", "-o", "table"});
  ASSERT_EQ(rollback.exit_code, 0) << rollback.err;
  EXPECT_EQ(rollback.out, absl::StrCat("job ", id, "'s script is v1's again, as v3\n"));
  v1::Job now;
  ASSERT_TRUE(cluster_.CtlJson({"job", "get", id}, &now));
  EXPECT_EQ(now.script().version(), 3);
  EXPECT_EQ(now.script().source(), "echo one\necho same\n");
  EXPECT_EQ(now.description(), "described");  // Only the script changed.
  versions = Versions(job.id());
  ASSERT_EQ(versions.versions_size(), 3);
  EXPECT_EQ(versions.versions(0).remark(), "rollback to v1");
  testing::CommandResult same =
      cluster_.Ctl({"job", "script", "diff", id, "1", "3", "-o", "table"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, "");
  ASSERT_TRUE(
      cluster_.CtlJson({"job", "script", "rollback", id, "2", "--remark", "two was right"}, &now));
  EXPECT_EQ(now.script().version(), 4);
  EXPECT_EQ(Versions(job.id()).versions(0).remark(), "two was right");

  // Refusals: a version that is not kept (not found: exit 3), a bean job.
  testing::CommandResult missing = cluster_.Ctl({"job", "script", "show", id, "9"});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_NE(missing.err.find("version 9"), std::string::npos) << missing.err;
  v1::Job bean;
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "create", "--group", absl::StrCat(group_.id()), "--handler", "demo", "--manual"},
      &bean));
  testing::CommandResult not_script =
      cluster_.Ctl({"job", "script", "rollback", absl::StrCat(bean.id()), "1"});
  EXPECT_EQ(not_script.exit_code, 1);
  EXPECT_NE(not_script.err.find("is not a script job"), std::string::npos) << not_script.err;
  EXPECT_EQ(cluster_.Ctl({"job", "script", "frobnicate", id}).exit_code, 2);
}

class FewScriptVersionsE2E : public ScriptVersionsE2E {
 protected:
  FewScriptVersionsE2E() : ScriptVersionsE2E({"--script-versions=2"}) {}
};

TEST_F(FewScriptVersionsE2E, OnlyTheNewestAreKept) {
  v1::Job job;
  ASSERT_TRUE(
      cluster_.CtlJson({"job", "create", "--group", absl::StrCat(group_.id()), "--script-python",
                        cluster_.WriteFile("a.py", "print(1)\n"), "--manual"},
                       &job));
  for (const char* source : {"print(2)\n", "print(3)\n"}) {
    ASSERT_TRUE(cluster_.CtlJson({"job", "update", absl::StrCat(job.id()), "--script-python",
                                  cluster_.WriteFile("b.py", source)},
                                 &job));
  }
  EXPECT_EQ(job.script().version(), 3);
  v1::ListScriptVersionsResponse versions = Versions(job.id());
  ASSERT_EQ(versions.versions_size(), 2) << versions.DebugString();
  EXPECT_EQ(versions.versions(0).version(), 3);
  EXPECT_EQ(versions.versions(1).version(), 2);
}

}  // namespace
}  // namespace gnomon
