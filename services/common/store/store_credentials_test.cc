// StoreTest cases for credentials: API tokens keep their role, grants and
// user; users are created, read with their password hash, updated, listed and
// deleted, and deleting one revokes its session tokens in the same step.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;

v1::User MakeUser(const std::string& name, v1::Role role, std::vector<int64_t> groups) {
  v1::User u;
  u.set_name(name);
  u.set_role(role);
  for (int64_t g : groups) u.mutable_grants()->add_group_ids(g);
  return u;
}

TEST_P(StoreTest, TokensKeepTheirRoleGrantsAndUser) {
  TokenScope viewer{v1::ROLE_VIEWER, {}, ""};
  viewer.grants.add_group_ids(3);
  viewer.grants.add_group_ids(7);
  ASSERT_OK(store().CreateAdminToken("dash", std::string(64, 'a'), 1000, 0, viewer));
  TokenScope everywhere{v1::ROLE_OPERATOR, {}, ""};
  everywhere.grants.set_all_groups(true);
  ASSERT_OK(store().CreateAdminToken("ops", std::string(64, 'b'), 1000, 0, everywhere));
  ASSERT_OK(store().CreateAdminToken("root", std::string(64, 'c'), 1000));  // Default scope: ADMIN.

  ASSERT_OK_AND_ASSIGN(dash, store().FindAdminToken(std::string(64, 'a')));
  EXPECT_EQ(dash.role(), v1::ROLE_VIEWER);
  EXPECT_THAT(dash.grants().group_ids(), ElementsAre(3, 7));
  EXPECT_FALSE(dash.grants().all_groups());
  EXPECT_EQ(dash.user(), "");
  ASSERT_OK_AND_ASSIGN(ops, store().FindAdminToken(std::string(64, 'b')));
  EXPECT_EQ(ops.role(), v1::ROLE_OPERATOR);
  EXPECT_TRUE(ops.grants().all_groups());
  EXPECT_TRUE(ops.grants().group_ids().empty());
  ASSERT_OK_AND_ASSIGN(root, store().FindAdminToken(std::string(64, 'c')));
  EXPECT_EQ(root.role(), v1::ROLE_ADMIN);
}

TEST_P(StoreTest, UsersAreCreatedReadUpdatedAndListed) {
  ASSERT_OK_AND_ASSIGN(
      alice, store().CreateUser(MakeUser("alice", v1::ROLE_OPERATOR, {2}), "hash-1", 1000));
  EXPECT_EQ(alice.name(), "alice");
  EXPECT_EQ(alice.create_time().seconds(), 1);
  EXPECT_THAT(store().CreateUser(MakeUser("alice", v1::ROLE_VIEWER, {1}), "hash-x", 1000),
              StatusIs(absl::StatusCode::kAlreadyExists));
  ASSERT_OK(store().CreateUser(MakeUser("bob", v1::ROLE_ADMIN, {}), "hash-2", 1000).status());

  ASSERT_OK_AND_ASSIGN(got, store().GetUser("alice"));
  EXPECT_EQ(got.password_hash, "hash-1");
  EXPECT_EQ(got.user.role(), v1::ROLE_OPERATOR);
  EXPECT_THAT(got.user.grants().group_ids(), ElementsAre(2));
  EXPECT_THAT(store().GetUser("carol"), StatusIs(absl::StatusCode::kNotFound));

  // Role and grants replaced; the password only when a hash is given.
  ASSERT_OK_AND_ASSIGN(
      demoted, store().UpdateUser(MakeUser("alice", v1::ROLE_VIEWER, {2, 5}), std::nullopt, 4000));
  EXPECT_EQ(demoted.role(), v1::ROLE_VIEWER);
  EXPECT_EQ(demoted.update_time().seconds(), 4);
  ASSERT_OK_AND_ASSIGN(kept, store().GetUser("alice"));
  EXPECT_EQ(kept.password_hash, "hash-1");
  EXPECT_THAT(kept.user.grants().group_ids(), ElementsAre(2, 5));
  ASSERT_OK(store().UpdateUser(MakeUser("alice", v1::ROLE_VIEWER, {2}), "hash-3", 5000).status());
  ASSERT_OK_AND_ASSIGN(changed, store().GetUser("alice"));
  EXPECT_EQ(changed.password_hash, "hash-3");
  EXPECT_THAT(store().UpdateUser(MakeUser("carol", v1::ROLE_VIEWER, {1}), std::nullopt, 5000),
              StatusIs(absl::StatusCode::kNotFound));

  ASSERT_OK_AND_ASSIGN(all, store().ListUsers());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name(), "alice");
  EXPECT_EQ(all[1].name(), "bob");
}

TEST_P(StoreTest, DeletingAUserRevokesItsSessionsOnly) {
  ASSERT_OK(store().CreateUser(MakeUser("alice", v1::ROLE_OPERATOR, {2}), "hash", 1000).status());
  ASSERT_OK(store().CreateAdminToken("login.alice.1", std::string(64, 'a'), 1000, 0,
                                     TokenScope{v1::ROLE_OPERATOR, {}, "alice"}));
  ASSERT_OK(store().CreateAdminToken("login.alice.2", std::string(64, 'b'), 1000, 0,
                                     TokenScope{v1::ROLE_OPERATOR, {}, "alice"}));
  ASSERT_OK(store().CreateAdminToken("ci", std::string(64, 'c'), 1000));
  ASSERT_OK_AND_ASSIGN(session, store().FindAdminToken(std::string(64, 'a')));
  EXPECT_EQ(session.user(), "alice");

  ASSERT_OK(store().DeleteUser("alice", 9000));
  EXPECT_THAT(store().GetUser("alice"), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(tokens, store().ListAdminTokens());
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].name(), "ci");
  EXPECT_FALSE(tokens[0].has_revoke_time());
  EXPECT_EQ(tokens[1].revoke_time().seconds(), 9);
  EXPECT_EQ(tokens[2].revoke_time().seconds(), 9);
  EXPECT_THAT(store().DeleteUser("alice", 9500), StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(StoreTest, ANewPasswordEndsTheUsersSessionsAndARoleChangeDoesNot) {
  ASSERT_OK(store().CreateUser(MakeUser("alice", v1::ROLE_OPERATOR, {2}), "hash", 1000).status());
  ASSERT_OK(store().CreateAdminToken("login.alice.1", std::string(64, 'a'), 1000, 0,
                                     TokenScope{v1::ROLE_OPERATOR, {}, "alice"}));
  ASSERT_OK(store().CreateAdminToken("ci", std::string(64, 'c'), 1000));
  ASSERT_OK(
      store().UpdateUser(MakeUser("alice", v1::ROLE_VIEWER, {2}), std::nullopt, 2000).status());
  ASSERT_OK_AND_ASSIGN(still, store().FindAdminToken(std::string(64, 'a')));
  EXPECT_FALSE(still.has_revoke_time()) << "a role change applies to sessions as they are used";
  ASSERT_OK(store().UpdateUser(MakeUser("alice", v1::ROLE_VIEWER, {2}), "hash-2", 3000).status());
  ASSERT_OK_AND_ASSIGN(ended, store().FindAdminToken(std::string(64, 'a')));
  EXPECT_EQ(ended.revoke_time().seconds(), 3);
  ASSERT_OK_AND_ASSIGN(ci, store().FindAdminToken(std::string(64, 'c')));
  EXPECT_FALSE(ci.has_revoke_time());
}

TEST_P(StoreTest, EndedSessionsAreDeletedInBatchesAndApiTokensKept) {
  const TokenScope alice{v1::ROLE_VIEWER, {}, "alice"};
  ASSERT_OK(store().CreateAdminToken("login.alice.1", std::string(64, 'a'), 1000, 0, alice));
  ASSERT_OK(store().RevokeAdminToken("login.alice.1", 2000).status());
  ASSERT_OK(store().CreateAdminToken("login.alice.2", std::string(64, 'b'), 1000, 3000, alice));
  ASSERT_OK(store().CreateAdminToken("login.alice.3", std::string(64, 'c'), 1000, 9000, alice));
  ASSERT_OK(store().CreateAdminToken("ci", std::string(64, 'd'), 1000));
  ASSERT_OK(store().RevokeAdminToken("ci", 2000).status());
  ASSERT_OK_AND_ASSIGN(first, store().DeleteEndedSessions(5000, 1));
  EXPECT_EQ(first, 1);
  ASSERT_OK_AND_ASSIGN(second, store().DeleteEndedSessions(5000, 10));
  EXPECT_EQ(second, 1);
  ASSERT_OK_AND_ASSIGN(tokens, store().ListAdminTokens());
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].name(), "ci");
  EXPECT_EQ(tokens[1].name(), "login.alice.3");
}

}  // namespace
}  // namespace gnomon::store::testing
