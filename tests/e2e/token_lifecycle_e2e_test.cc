// API tokens (docs/operations.md, "Credentials"): created with a secret
// shown once, listed without it, refused once revoked or expired; the
// cluster token the roles share opens no admin call.
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

constexpr char kClusterToken[] = "lifecycle-test-cluster-token-0123456789abc";

class TokenLifecycleE2E : public ::testing::Test {
 protected:
  // gnomonctl group list with `token`: its exit code.
  int ListWith(const std::string& token) {
    return cluster_.Ctl({"group", "list", "--token", token}).exit_code;
  }
  // Polls until a call with `token` is refused; false if it is not within `limit`.
  bool RefusedWithin(const std::string& token, absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    while (absl::Now() < deadline) {
      if (ListWith(token) != 0) return true;
      cluster_.PollInterval(absl::Milliseconds(200));
    }
    return ListWith(token) != 0;
  }

  testing::GnomonCluster cluster_{{absl::StrCat("--cluster-token=", kClusterToken)}};
};

TEST_F(TokenLifecycleE2E, ATokenWorksUntilRevokedOrExpiredAndItsSecretIsShownOnce) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  v1::CreateTokenResponse ci;
  ASSERT_TRUE(cluster_.CtlJson({"token", "create", "ci"}, &ci));
  ASSERT_FALSE(ci.secret().empty());
  EXPECT_EQ(ci.token().name(), "ci");
  EXPECT_EQ(ListWith(ci.secret()), 0);
  v1::CreateTokenResponse brief;
  ASSERT_TRUE(cluster_.CtlJson({"token", "create", "brief", "--ttl", "3s"}, &brief));
  EXPECT_TRUE(brief.token().has_expire_time());
  EXPECT_EQ(ListWith(brief.secret()), 0);

  // Listed, audited, never with a secret.
  testing::CommandResult list = cluster_.Ctl({"token", "list"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("ci"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(ci.token().fingerprint()), std::string::npos) << list.out;
  testing::CommandResult audit = cluster_.Ctl({"audit", "list", "-o", "json"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_NE(audit.out.find("CreateToken"), std::string::npos);
  for (const std::string& secret : {ci.secret(), brief.secret()}) {
    EXPECT_EQ(list.out.find(secret), std::string::npos);
    EXPECT_EQ(audit.out.find(secret), std::string::npos);
    EXPECT_EQ(cluster_.Output().find(secret), std::string::npos)
        << "a secret reached gnomond's log";
  }

  // Revoked: refused by gnomond within its 5 s memory of valid tokens.
  ASSERT_EQ(cluster_.Ctl({"token", "revoke", "ci"}).exit_code, 0);
  EXPECT_TRUE(RefusedWithin(ci.secret(), absl::Seconds(15)));
  testing::CommandResult refused = cluster_.Ctl({"group", "list", "--token", ci.secret()});
  EXPECT_NE(refused.err.find("UNAUTHENTICATED"), std::string::npos) << refused.err;
  // Expired: refused once its 3 s are over.
  EXPECT_TRUE(RefusedWithin(brief.secret(), absl::Seconds(20)));
  // The bootstrap token was never touched.
  EXPECT_EQ(ListWith(cluster_.admin_token()), 0);
  // A name is unique; an unknown one cannot be revoked.
  EXPECT_EQ(cluster_.Ctl({"token", "create", "ci"}).exit_code, 1);      // ALREADY_EXISTS
  EXPECT_EQ(cluster_.Ctl({"token", "revoke", "nobody"}).exit_code, 3);  // NOT_FOUND
}

// The first admin token from a file the operator provides (a Secret): used
// as it is, and never printed; without one, a new token goes to the file.
TEST_F(TokenLifecycleE2E, TheFirstAdminTokenComesFromTheOperatorsFileAndNeverReachesTheLog) {
  const std::string chosen = "operator-chosen-admin-token-0123456789abcdef";
  std::ofstream(cluster_.dir() + "/admin.token")
      << chosen << "\n";  // As a Secret file: with a newline.
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  EXPECT_EQ(cluster_.admin_token(), chosen);
  EXPECT_EQ(ListWith(chosen), 0);
  EXPECT_EQ(cluster_.Output().find(chosen), std::string::npos) << "the token reached gnomond's log";
  EXPECT_NE(cluster_.Output().find("read from"), std::string::npos) << cluster_.Output();
}

TEST_F(TokenLifecycleE2E, AGeneratedFirstTokenIsWrittenToItsFileOnly) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  ASSERT_FALSE(cluster_.admin_token().empty());
  EXPECT_EQ(cluster_.Output().find(cluster_.admin_token()), std::string::npos)
      << "the token reached gnomond's log";
  struct stat st {};
  ASSERT_EQ(::stat((cluster_.dir() + "/admin.token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(TokenLifecycleE2E, TheClusterTokenOpensNoAdminCall) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  testing::CommandResult r = cluster_.Ctl({"group", "list", "--token", kClusterToken});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("UNAUTHENTICATED"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gnomon
