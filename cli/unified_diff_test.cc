#include "cli/unified_diff.h"

#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

TEST(UnifiedDiffTest, EqualTextsGiveNothing) { EXPECT_EQ(UnifiedDiff("a\n", "a\n", "x", "y"), ""); }

TEST(UnifiedDiffTest, OneChangedLine) {
  EXPECT_EQ(UnifiedDiff("echo a\n", "echo b\n", "job 7 v1", "job 7 v2"),
            "--- job 7 v1\n+++ job 7 v2\n@@ -1 +1 @@\n-echo a\n+echo b\n");
}

TEST(UnifiedDiffTest, ContextOfThreeLinesAndSeparateHunks) {
  const std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n";
  const std::string after =
      "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\nseventeen\n";
  EXPECT_EQ(UnifiedDiff(before, after, "a", "b"),
            "--- a\n+++ b\n"
            "@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n"
            "@@ -14,3 +14,4 @@\n 14\n 15\n 16\n+seventeen\n");
}

TEST(UnifiedDiffTest, NearbyChangesShareAHunk) {
  EXPECT_EQ(UnifiedDiff("a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n", "x", "y"),
            "--- x\n+++ y\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n-e\n+E\n");
}

TEST(UnifiedDiffTest, FromAndToEmptyAndAMissingFinalNewline) {
  EXPECT_EQ(UnifiedDiff("", "a\nb\n", "x", "y"), "--- x\n+++ y\n@@ -0,0 +1,2 @@\n+a\n+b\n");
  EXPECT_EQ(UnifiedDiff("a\n", "", "x", "y"), "--- x\n+++ y\n@@ -1 +0,0 @@\n-a\n");
  EXPECT_EQ(UnifiedDiff("a\n", "a", "x", "y"),
            "--- x\n+++ y\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n");
}

}  // namespace
}  // namespace gnomon::cli
