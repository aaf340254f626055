// The C++ examples of README.md and services/executor-sdk/README.md are real
// files: every ```cpp block must follow a marker line
//   <!-- example: examples/readme/NAME.cc -->
// and equal that file, which CMake builds (with -Werror) and
// readme_taste_e2e_test runs. A mismatch fails with `diff -u FILE BLOCK`.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "tests/support/subprocess.h"

#ifndef GNOMON_SOURCE_DIR
#error "GNOMON_SOURCE_DIR must name the source tree"
#endif

namespace gnomon {
namespace {

constexpr char kMarker[] = "<!-- example: ";

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Checks every C++ block of one README; returns the number of examples.
int CheckReadme(const std::string& readme) {
  const std::string root = GNOMON_SOURCE_DIR;
  std::istringstream in(Slurp(root + "/" + readme));
  testing::TempDir tmp;
  std::string line, previous, example;
  int examples = 0, line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line == "```cpp") {
      absl::string_view marker = previous;
      const bool marked =
          absl::ConsumePrefix(&marker, kMarker) && absl::ConsumeSuffix(&marker, " -->");
      if (!marked) {
        ADD_FAILURE() << readme << ":" << line_number << ": a ```cpp block without a line \""
                      << kMarker << "examples/readme/NAME.cc -->\" before it";
      }
      std::string block;
      while (std::getline(in, line) && line != "```") {
        ++line_number;
        absl::StrAppend(&block, line, "\n");
      }
      ++line_number;
      if (marked) {
        ++examples;
        const std::string file = root + "/" + std::string(marker);
        if (block != Slurp(file)) {
          const std::string shown = tmp.path() + "/readme-block.cc";
          std::ofstream(shown) << block;
          testing::CommandResult diff = testing::RunCommand({"diff", "-u", file, shown});
          ADD_FAILURE() << readme << ": the block before line " << line_number << " differs from "
                        << marker << " (make them equal):\n"
                        << diff.out << diff.err;
        }
      }
    }
    previous = line;
  }
  return examples;
}

TEST(ReadmeExamplesTest, TopLevelReadmeTasteIsTheBuiltExample) {
  EXPECT_EQ(CheckReadme("README.md"), 1);
}

TEST(ReadmeExamplesTest, SdkReadmeExamplesAreTheBuiltExamples) {
  EXPECT_EQ(CheckReadme("services/executor-sdk/README.md"), 2);
}

}  // namespace
}  // namespace gnomon
