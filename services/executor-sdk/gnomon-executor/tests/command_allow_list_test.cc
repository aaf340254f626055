// The command allow-list read as its specification: which programs the
// command handler may run.
#include "services/executor-sdk/gnomon-executor/command_allow_list.h"

#include <string>

#include "gtest/gtest.h"

namespace gnomon::generic_executor {
namespace {

TEST(CommandAllowListTest, EmptyListRefusesEveryProgram) {
  absl::StatusOr<CommandAllowList> allow = CommandAllowList::Parse("");
  ASSERT_TRUE(allow.ok());
  absl::Status s = allow->Check("/bin/echo");
  EXPECT_TRUE(absl::IsPermissionDenied(s));
  EXPECT_NE(s.message().find("--command-allow"), std::string::npos) << s;
}

TEST(CommandAllowListTest, ProgramsAndDirectoryPrefixes) {
  absl::StatusOr<CommandAllowList> allow = CommandAllowList::Parse("/usr/bin/, /opt/tools/report");
  ASSERT_TRUE(allow.ok()) << allow.status();
  EXPECT_TRUE(allow->Check("/usr/bin/echo").ok());
  EXPECT_TRUE(allow->Check("/usr/bin/sub/dir/tool").ok());
  EXPECT_TRUE(allow->Check("/opt/tools/report").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(allow->Check("/opt/tools/report2")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow->Check("/opt/tools/other")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow->Check("/usr/binx/echo")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow->Check("/bin/echo")));
}

TEST(CommandAllowListTest, PathsThatCouldEscapeAreRefused) {
  absl::StatusOr<CommandAllowList> allow = CommandAllowList::Parse("/usr/bin/");
  ASSERT_TRUE(allow.ok());
  for (const char* program : {"/usr/bin/../../tmp/evil", "/usr/bin/./echo", "/usr/bin//echo",
                              "echo", "usr/bin/echo", "/usr/bin/", ""}) {
    EXPECT_TRUE(absl::IsInvalidArgument(allow->Check(program))) << program;
  }
}

TEST(CommandAllowListTest, MalformedEntriesAreRefused) {
  for (const char* bad : {"/", "bin/", "relative", "/usr/../bin/", "/usr//bin/", "/opt/./x"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(CommandAllowList::Parse(bad).status())) << bad;
  }
}

}  // namespace
}  // namespace gnomon::generic_executor
