// UnifiedDiff: a line diff of two texts in the unified format of `diff -u`
// (three lines of context), for `gnomonctl job script diff`. The edit script
// is Myers' shortest one (O((N+M)·D) time, O(D²) memory for D changed lines).
//
//   std::string d = UnifiedDiff("echo a\n", "echo b\n", "job 7 v1", "job 7 v2");
//   // "--- job 7 v1\n+++ job 7 v2\n@@ -1 +1 @@\n-echo a\n+echo b\n"
//
// Equal texts give "". A text whose last line lacks a newline is marked as
// diff does ("\ No newline at end of file").
//
// Thread safety: a pure function.
#ifndef GNOMON_CLI_UNIFIED_DIFF_H_
#define GNOMON_CLI_UNIFIED_DIFF_H_

#include <string>
#include <string_view>

namespace gnomon::cli {

std::string UnifiedDiff(std::string_view before, std::string_view after,
                        std::string_view before_name, std::string_view after_name);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_UNIFIED_DIFF_H_
