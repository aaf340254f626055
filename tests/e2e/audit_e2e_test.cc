// The audit log (docs/operations.md, "Audit log"): every change made through
// the admin API is listed by gnomonctl with who made it, the call, the
// object, and the object before and after — and never a token.
#include <string>

#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

TEST(AuditE2E, EveryChangeIsListedWithItsActorAndObjectBeforeAndAfterWithoutTokens) {
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "audited"}, &group));
  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler",
                               "demo", "--every", "1h", "--desc", "first"},
                              &job));
  ASSERT_TRUE(cluster.CtlJson({"job", "update", absl::StrCat(job.id()), "--desc", "second"}, &job));
  v1::Group rotated;
  ASSERT_TRUE(cluster.CtlJson({"group", "rotate-token", absl::StrCat(group.id())}, &rotated));
  ASSERT_EQ(cluster.Ctl({"job", "delete", absl::StrCat(job.id())}).exit_code, 0);
  // Reads are not changes.
  ASSERT_EQ(cluster.Ctl({"job", "list"}).exit_code, 0);

  v1::ListAuditResponse audit;
  ASSERT_TRUE(cluster.CtlJson({"audit", "list"}, &audit));
  ASSERT_EQ(audit.entries_size(), 5) << audit.DebugString();
  const std::string object = absl::StrCat("job/", job.id());
  EXPECT_EQ(audit.entries(0).method(), "DeleteJob");
  EXPECT_EQ(audit.entries(0).object(), object);
  EXPECT_EQ(audit.entries(1).method(), "RotateGroupToken");
  EXPECT_EQ(audit.entries(1).object(), absl::StrCat("group/", group.id()));
  EXPECT_EQ(audit.entries(2).method(), "UpdateJob");
  EXPECT_NE(audit.entries(2).before_json().find("first"), std::string::npos)
      << audit.entries(2).DebugString();
  EXPECT_NE(audit.entries(2).after_json().find("second"), std::string::npos)
      << audit.entries(2).DebugString();
  EXPECT_EQ(audit.entries(3).method(), "CreateJob");
  EXPECT_TRUE(audit.entries(3).before_json().empty());
  EXPECT_EQ(audit.entries(4).method(), "CreateGroup");
  for (const v1::AuditEntry& e : audit.entries()) {
    // The bootstrap admin token, named by a digest prefix; never a token itself.
    EXPECT_EQ(e.actor().rfind("admin:", 0), 0u) << e.actor();
    EXPECT_EQ(e.actor().size(), 6u + 16u) << e.actor();
    EXPECT_TRUE(e.has_time());
    for (const std::string& secret :
         {group.access_token(), rotated.access_token(), cluster.admin_token()}) {
      EXPECT_EQ(absl::StrCat(e.request_json(), e.before_json(), e.after_json()).find(secret),
                std::string::npos)
          << e.method() << " leaks a token";
    }
  }
  // By object, and as a table.
  ASSERT_TRUE(cluster.CtlJson({"audit", "list", "--object", object}, &audit));
  EXPECT_EQ(audit.entries_size(), 3);
  testing::CommandResult table = cluster.Ctl({"audit", "list", "-n", "2"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("DeleteJob"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("UpdateJob"), std::string::npos) << table.out;  // Only the newest two.
}

}  // namespace
}  // namespace gnomon
