// docs/architecture.md is the newcomer's map of the code; this keeps it true
// mechanically. Every path it writes (a word starting services/, cli/,
// tests/, ...) must exist in the tree, and every directory under services/
// must be mentioned (by its own path or a path inside it), so a file renamed
// or a directory added without updating the map fails here, naming it.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"

#ifndef GNOMON_SOURCE_DIR
#error "GNOMON_SOURCE_DIR must name the source tree"
#endif

namespace gnomon {
namespace {

namespace fs = std::filesystem;

constexpr char kDoc[] = "docs/architecture.md";

struct PathMention {
  std::string path;
  int line = 0;
};

// Every word of the doc that is a path in the tree's top-level directories,
// with the line it is on; a sentence's full stop is not part of it.
std::vector<PathMention> PathsInDoc() {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/" + kDoc);
  EXPECT_TRUE(in.good()) << "cannot open " << kDoc;
  static const std::regex kPath(
      "(^|[^A-Za-z0-9_./-])((services|cli|tests|console|proto|docs|examples|scripts|deploy|bench|"
      "cmake)/[A-Za-z0-9_./-]*)");
  std::vector<PathMention> found;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    for (std::sregex_iterator it(line.begin(), line.end(), kPath), end; it != end; ++it) {
      std::string path = (*it)[2].str();
      while (absl::EndsWith(path, ".")) path.pop_back();
      found.push_back({path, n});
    }
  }
  return found;
}

TEST(ArchitectureDocTest, EveryPathItNamesExists) {
  const std::vector<PathMention> paths = PathsInDoc();
  // A map that names almost nothing has lost its point (or its file).
  EXPECT_GE(paths.size(), 40u) << kDoc << " names too few files to be the map of the code";
  for (const PathMention& m : paths) {
    EXPECT_TRUE(fs::exists(fs::path(GNOMON_SOURCE_DIR) / m.path))
        << kDoc << ":" << m.line << ": " << m.path
        << " does not exist (renamed or removed? update the doc)";
  }
}

TEST(ArchitectureDocTest, EveryServicesDirectoryIsMentioned) {
  std::set<std::string> named;
  for (const PathMention& m : PathsInDoc()) {
    named.insert(std::string(absl::StripSuffix(m.path, "/")));
  }
  const fs::path root(GNOMON_SOURCE_DIR);
  int directories = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / "services")) {
    if (!e.is_directory()) continue;
    ++directories;
    const std::string dir = fs::relative(e.path(), root).generic_string();
    bool mentioned = false;
    for (const std::string& p : named) {
      if (p == dir || absl::StartsWith(p, dir + "/")) mentioned = true;
    }
    EXPECT_TRUE(mentioned) << dir << " is not mentioned in " << kDoc
                           << " (say what it holds, or name a file in it)";
  }
  EXPECT_GT(directories, 0) << "no directories under services/";
}

}  // namespace
}  // namespace gnomon
