#include "bench/bench_args.h"

#include <cstdio>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace gnomon::bench {

bool ParseBenchArgs(int argc, char** argv, const char* usage,
                    absl::FunctionRef<bool(absl::string_view)> parse) {
  for (int i = 1; i < argc; ++i) {
    if (!parse(argv[i])) {
      std::fprintf(stderr, "bad argument %s\nusage: %s\n", argv[i], usage);
      return false;
    }
  }
  return true;
}

bool PositiveInt(absl::string_view v, int& out) { return absl::SimpleAtoi(v, &out) && out > 0; }

bool PositiveInts(absl::string_view list, std::vector<int>& out) {
  out.clear();
  for (absl::string_view v : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    int n = 0;
    if (!PositiveInt(v, n)) return false;
    out.push_back(n);
  }
  return !out.empty();
}

}  // namespace gnomon::bench
