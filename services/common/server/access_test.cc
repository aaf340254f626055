#include "services/common/server/access.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Access Scoped(v1::Role role, std::vector<int64_t> groups, bool all = false) {
  Access a;
  a.role = role;
  a.grants.set_all_groups(all);
  for (int64_t g : groups) a.grants.add_group_ids(g);
  return a;
}

TEST(Access, AnAdminReachesEveryGroupWhateverItsGrants) {
  Access a = Access::Admin();
  EXPECT_TRUE(a.AllGroups());
  EXPECT_TRUE(a.Reaches(12345));
  EXPECT_THAT(*a.ListScope(0), IsEmpty());  // No limit.
  EXPECT_THAT(*a.ListScope(7), ElementsAre(7));
}

TEST(Access, AScopedCallerReachesOnlyItsGroups) {
  Access a = Scoped(v1::ROLE_OPERATOR, {3, 5});
  EXPECT_FALSE(a.AllGroups());
  EXPECT_TRUE(a.Reaches(3));
  EXPECT_FALSE(a.Reaches(4));
  absl::Status denied = a.CheckGroup(4);
  EXPECT_THAT(denied, StatusIs(absl::StatusCode::kPermissionDenied,
                               "group 4: not in a group this credential is granted"));
  EXPECT_THAT(*a.ListScope(0), ElementsAre(3, 5));  // An unfiltered list: its groups.
  EXPECT_THAT(*a.ListScope(5), ElementsAre(5));
  EXPECT_THAT(a.ListScope(4), StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(Access, AllGroupsGrantsReachFutureGroups) {
  Access a = Scoped(v1::ROLE_VIEWER, {}, /*all=*/true);
  EXPECT_TRUE(a.AllGroups());
  EXPECT_TRUE(a.Reaches(99));
  EXPECT_THAT(*a.ListScope(0), IsEmpty());
}

TEST(Access, NoRoleOrNoGrantsReachNothing) {
  Access none;  // An executor's caller: no role.
  EXPECT_FALSE(none.Reaches(1));
  none.grants.set_all_groups(true);  // Grants without a role give nothing.
  EXPECT_FALSE(none.AllGroups());
  EXPECT_THAT(Scoped(v1::ROLE_VIEWER, {}).ListScope(0),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(Access, RolesAreRankedAdminOperatorViewer) {
  struct Case {
    v1::Role role;
    Permission permission;
    bool allowed;
  };
  for (const Case& c : std::vector<Case>{
           {v1::ROLE_VIEWER, Permission::kRead, true},
           {v1::ROLE_VIEWER, Permission::kOperate, false},
           {v1::ROLE_VIEWER, Permission::kAdminister, false},
           {v1::ROLE_OPERATOR, Permission::kOperate, true},
           {v1::ROLE_OPERATOR, Permission::kAdminister, false},
           {v1::ROLE_ADMIN, Permission::kAdminister, true},
           {v1::ROLE_UNSPECIFIED, Permission::kRead, false},
       }) {
    Access a = Scoped(c.role, {1});
    EXPECT_EQ(CheckPermission(a, c.permission, "M").ok(), c.allowed) << RoleName(c.role);
  }
  EXPECT_EQ(
      CheckPermission(Scoped(v1::ROLE_VIEWER, {1}), Permission::kOperate, "StartJob").message(),
      "role viewer may not call StartJob");
}

}  // namespace
}  // namespace gnomon
