// ChildEnvironment: what a script or a handler's command inherits from the
// executor's environment.
#include "services/executor-sdk/src/child_environment.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gnomon::executor::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ChildEnvironmentTest, DropsEveryGnomonVariableAndKeepsTheRestInOrder) {
  const char* env[] = {"PATH=/usr/bin:/bin",
                       "GNOMON_ACCESS_TOKEN=group-secret",
                       "HOME=/home/app",
                       "GNOMON_TLS_KEY=/etc/gnomon/executor.key",
                       "GNOMON_APP=billing",
                       "LANG=C.UTF-8",
                       "GNOMON_=empty name after the prefix",
                       "TMPDIR=/var/tmp",
                       nullptr};
  EXPECT_THAT(ChildEnvironment(env), ElementsAre("PATH=/usr/bin:/bin", "HOME=/home/app",
                                                 "LANG=C.UTF-8", "TMPDIR=/var/tmp"));
}

TEST(ChildEnvironmentTest, MatchesTheNameOnlyAndExactly) {
  const char* env[] = {"NOTE=GNOMON_ACCESS_TOKEN=in a value",  // the name is NOTE: kept
                       "MY_GNOMON_TOKEN=x",                    // not a prefix: kept
                       "gnomon_access_token=x",                // names are case-sensitive
                       "GNOMON=x",                             // no underscore: not the SDK's
                       "GNOMON_ACCESS_TOKEN",                  // malformed, still dropped
                       nullptr};
  EXPECT_THAT(ChildEnvironment(env),
              ElementsAre("NOTE=GNOMON_ACCESS_TOKEN=in a value", "MY_GNOMON_TOKEN=x",
                          "gnomon_access_token=x", "GNOMON=x"));
}

TEST(ChildEnvironmentTest, EmptyAndNullEnvironments) {
  const char* empty[] = {nullptr};
  EXPECT_THAT(ChildEnvironment(empty), IsEmpty());
  EXPECT_THAT(ChildEnvironment(nullptr), IsEmpty());
  const char* only_gnomon[] = {"GNOMON_ACCESS_TOKEN=t", "GNOMON_REGISTRY=r:1", nullptr};
  EXPECT_THAT(ChildEnvironment(only_gnomon), IsEmpty());
}

TEST(ChildEnvironmentTest, ExtraVariablesReplaceInheritedOnesAndComeLast) {
  const char* env[] = {"PATH=/usr/bin", "HOME=/home/app", "GNOMON_APP=billing", nullptr};
  EXPECT_THAT(ChildEnvironment(env, {{"HOME", "/srv"}, {"REPORT_DAY", "today"}}),
              ElementsAre("PATH=/usr/bin", "HOME=/srv", "REPORT_DAY=today"));
}

TEST(ChildEnvironmentTest, ExtraVariablesMayNotBeGnomonOnesOrMalformed) {
  EXPECT_TRUE(ValidateExtraEnvironment({{"REPORT_DAY", "today"}, {"EMPTY", ""}}).ok());
  absl::Status gnomon = ValidateExtraEnvironment({{"GNOMON_ACCESS_TOKEN", "stolen"}});
  EXPECT_TRUE(absl::IsInvalidArgument(gnomon));
  EXPECT_NE(gnomon.message().find("GNOMON_ACCESS_TOKEN"), std::string::npos) << gnomon;
  EXPECT_EQ(gnomon.message().find("stolen"), std::string::npos) << "echoes the value: " << gnomon;
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateExtraEnvironment({{"", "x"}})));
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateExtraEnvironment({{"A=B", "x"}})));
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateExtraEnvironment({{"A", std::string("x\0y", 3)}})));
}

}  // namespace
}  // namespace gnomon::executor::internal
