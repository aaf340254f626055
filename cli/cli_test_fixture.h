// The gnomonctl test fixture (test only): whole command lines run against
// the in-process fakes (fake_servers.h), with GNOMON_SERVER pointing at
// them, times in UTC and "now" 2024-05-01T12:00:00Z.
//
//   TEST_F(CliTest, Something) {
//     files_["etl.yaml"] = "kind: Group\n...";   // what -f FILE reads
//     CliResult r = Run({"apply", "-f", "etl.yaml"});
//     EXPECT_EQ(r.code, 0) << r.err;
//   }
//
// Thread safety: one test's thread.
#ifndef GNOMON_CLI_CLI_TEST_FIXTURE_H_
#define GNOMON_CLI_CLI_TEST_FIXTURE_H_

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/cli.h"
#include "cli/fake_servers.h"
#include "gtest/gtest.h"

namespace gnomon::cli::testing {

// Group "etl" (id 4) and its job 7 "merge" (handler "merge"), as the apply
// tests' documents name them.
inline void SeedEtlMerge(AdminState& s) {
  v1::Group* g = s.groups.add_groups();
  g->set_id(4);
  g->set_app_name("etl");
  g->mutable_auto_registration();
  s.job.set_id(7);
  s.job.set_group_id(4);
  s.job.set_name("merge");
  s.job.mutable_bean()->set_handler("merge");
}

struct CliResult {
  int code;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  CliTest() {
    env_.getenv = [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars_.find(name);
      if (it == vars_.end()) return std::nullopt;
      return it->second;
    };
    env_.zone = absl::UTCTimeZone();
    env_.now = [] { return absl::FromUnixSeconds(1714564800); };  // 2024-05-01T12:00Z
    env_.read_file = [this](const std::string& path) -> absl::StatusOr<std::string> {
      if (path == "job.sh") return std::string("echo hello\n");
      auto it = files_.find(path);
      if (it != files_.end()) return it->second;
      return absl::InvalidArgumentError("cannot read " + path);
    };
    vars_["GNOMON_SERVER"] = servers_.address();
  }

  // Runs gnomonctl with `args` (GNOMON_SERVER points at the fakes).
  CliResult Run(std::vector<std::string> args) {
    std::ostringstream out, err;
    int code = RunCli(args, env_, out, err);
    return {code, out.str(), err.str()};
  }
  // `gnomonctl apply -f etl.yaml` of `text`, the servers' calls cleared first.
  CliResult ApplyText(const std::string& text) {
    files_["etl.yaml"] = text;
    servers_.state.Set([](AdminState& s) { s.calls.clear(); });
    return Run({"apply", "-f", "etl.yaml"});
  }

  FakeServers servers_;
  std::map<std::string, std::string> vars_;
  // Files the command may read, by path (besides job.sh).
  std::map<std::string, std::string> files_;
  CliEnv env_;
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_CLI_TEST_FIXTURE_H_
