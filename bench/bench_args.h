// Command lines of the process benches: "--flag" and "--name=value"
// arguments, each handed to one callback that says whether it took it.
//
//   bool ok = ParseBenchArgs(argc, argv, "takeover_bench [--quick] [--kills=20]",
//                            [&](absl::string_view a) {
//                              if (absl::ConsumePrefix(&a, "--kills=")) return PositiveInt(a,
//                              o.kills); return false;
//                            });
//
// Thread safety: no shared state.
#ifndef GNOMON_BENCH_BENCH_ARGS_H_
#define GNOMON_BENCH_BENCH_ARGS_H_

#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace gnomon::bench {

// Calls `parse` with argv[1..]; at the first argument it refuses, prints
// "bad argument" and `usage` (which starts with the bench's name) to stderr
// and returns false.
bool ParseBenchArgs(int argc, char** argv, const char* usage,
                    absl::FunctionRef<bool(absl::string_view)> parse);
// A whole number > 0.
bool PositiveInt(absl::string_view v, int& out);
// A comma-separated list of whole numbers > 0, at least one.
bool PositiveInts(absl::string_view list, std::vector<int>& out);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_BENCH_ARGS_H_
