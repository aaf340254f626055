// Users (docs/security.md): an admin creates a user with a role and a group
// grant; the user logs in with gnomonctl for a session token that works as
// the role allows and is audited under the user's name; changing the user's
// role changes what every session may do within 5 s, and deleting the user
// ends its sessions. Passwords appear nowhere: not in output, the audit log
// or gnomond's log.
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

constexpr char kPassword[] = "alice-password-0123";

class UsersE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    password_file_ = cluster_.dir() + "/alice.pw";
    std::ofstream(password_file_) << kPassword << "\n";
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "users-app"}, &group_));
    ASSERT_TRUE(cluster_.CtlJson(
        {"job", "create", "--group", absl::StrCat(group_.id()), "--handler", "demo", "--manual"},
        &job_));
  }
  testing::CommandResult TriggerAs(const std::string& token) {
    return cluster_.Ctl({"job", "trigger", absl::StrCat(job_.id()), "--token", token});
  }
  // Polls until `probe` holds; false if it does not within `limit`.
  template <typename Probe>
  bool Within(absl::Duration limit, Probe probe) {
    const absl::Time deadline = absl::Now() + limit;
    while (!probe()) {
      if (absl::Now() > deadline) return false;
      cluster_.PollInterval(absl::Milliseconds(200));
    }
    return true;
  }

  testing::GnomonCluster cluster_;
  std::string password_file_;
  v1::Group group_;
  v1::Job job_;
};

TEST_F(UsersE2E, AUsersSessionsFollowItsRoleUntilItIsDeleted) {
  const std::string group = absl::StrCat(group_.id());
  v1::User alice;
  ASSERT_TRUE(cluster_.CtlJson({"user", "create", "alice", "--role", "operator", "--group", group,
                                "--password-file", password_file_},
                               &alice));
  EXPECT_EQ(alice.role(), v1::ROLE_OPERATOR);

  // Logging in prints only the session token on stdout.
  testing::CommandResult login =
      cluster_.Ctl({"user", "login", "alice", "--password-file", password_file_});
  ASSERT_EQ(login.exit_code, 0) << login.err;
  const std::string session = login.out.substr(0, login.out.find('\n'));
  ASSERT_GE(session.size(), 32u);
  EXPECT_NE(login.err.find("operator, group " + group), std::string::npos) << login.err;

  testing::CommandResult fired = TriggerAs(session);
  ASSERT_EQ(fired.exit_code, 0) << fired.err;
  testing::CommandResult audit =
      cluster_.Ctl({"audit", "list", "--object", absl::StrCat("job/", job_.id())});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  EXPECT_NE(audit.out.find("user:alice"), std::string::npos) << audit.out;
  testing::CommandResult tokens = cluster_.Ctl({"token", "list"});
  EXPECT_NE(tokens.out.find("login.alice."), std::string::npos) << tokens.out;

  // A wrong password is refused like any bad credential.
  std::ofstream(cluster_.dir() + "/wrong.pw") << "not-alices-password\n";
  testing::CommandResult wrong =
      cluster_.Ctl({"user", "login", "alice", "--password-file", cluster_.dir() + "/wrong.pw"});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.err.find("UNAUTHENTICATED: missing or invalid credentials"), std::string::npos)
      << wrong.err;

  // Demoted: the same session may read but no longer fire, within 5 s.
  ASSERT_EQ(
      cluster_.Ctl({"user", "update", "alice", "--role", "viewer", "--group", group}).exit_code, 0);
  ASSERT_TRUE(Within(absl::Seconds(10), [&] { return TriggerAs(session).exit_code != 0; }));
  testing::CommandResult refused = TriggerAs(session);
  EXPECT_NE(refused.err.find("PERMISSION_DENIED: role viewer may not call TriggerJob"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(cluster_.Ctl({"job", "get", absl::StrCat(job_.id()), "--token", session}).exit_code, 0);

  // Deleted: its sessions end.
  ASSERT_EQ(cluster_.Ctl({"user", "delete", "alice"}).exit_code, 0);
  ASSERT_TRUE(Within(absl::Seconds(10), [&] {
    return cluster_.Ctl({"job", "get", absl::StrCat(job_.id()), "--token", session}).exit_code != 0;
  }));
  testing::CommandResult gone =
      cluster_.Ctl({"job", "get", absl::StrCat(job_.id()), "--token", session});
  EXPECT_NE(gone.err.find("UNAUTHENTICATED"), std::string::npos) << gone.err;

  testing::CommandResult users = cluster_.Ctl({"user", "list"});
  EXPECT_EQ(users.out.find("alice"), std::string::npos) << users.out;
  testing::CommandResult all_audit = cluster_.Ctl({"audit", "list", "-o", "json"});
  EXPECT_NE(all_audit.out.find("CreateUser"), std::string::npos);
  for (const std::string& text : {all_audit.out, cluster_.Output(), login.err, users.out}) {
    EXPECT_EQ(text.find(kPassword), std::string::npos) << "the password leaked";
    EXPECT_EQ(text.find(session), std::string::npos) << "the session token leaked";
  }
}

}  // namespace
}  // namespace gnomon
