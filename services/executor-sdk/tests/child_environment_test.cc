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

}  // namespace
}  // namespace gnomon::executor::internal
