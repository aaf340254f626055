// gnomonctl's config file and contexts: the config commands, and context <
// environment < flags, against the in-process fakes.
#include "cli/config.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/cli.h"
#include "cli/fake_servers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("gnomonctl-config-", ::getpid(), "-", counter_++);
    std::filesystem::create_directories(dir_);
    env_.getenv = [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars_.find(name);
      if (it == vars_.end()) return std::nullopt;
      return it->second;
    };
    env_.now = [] { return absl::FromUnixSeconds(1714564800); };
    env_.read_file = ReadLocalFile;
    vars_["GNOMONCTL_CONFIG"] = Path("config.yaml");
  }
  ~ConfigTest() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name)) << text;
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(Path(name));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  struct Result {
    int code;
    std::string out;
    std::string err;
  };
  Result Run(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    const int code = RunCli(args, env_, out, err);
    return {code, out.str(), err.str()};
  }
  std::string LastAuthorization() { return servers_.state.Snapshot().calls.back().authorization; }

  static inline int counter_ = 0;
  std::filesystem::path dir_;
  testing::FakeServers servers_;
  std::map<std::string, std::string> vars_;
  CliEnv env_;
};

TEST_F(ConfigTest, SetUseGetAndCurrentContext) {
  Result r = Run({"config", "current-context"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("no current context"));

  Write("prod.token", "p\n");
  r = Run({"config", "set-context", "prod", "--server", "prod:7070", "--token-file",
           Path("prod.token")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(current)"));
  r = Run({"config", "set-context", "dev", "--server", "dev:7070", "--tls"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Read("config.yaml"),
            "current-context: prod\n"
            "contexts:\n"
            "  - name: prod\n"
            "    server: prod:7070\n"
            "    token-file: " +
                Path("prod.token") +
                "\n"
                "  - name: dev\n"
                "    server: dev:7070\n"
                "    tls: true\n");
  EXPECT_EQ(std::filesystem::status(Path("config.yaml")).permissions() &
                std::filesystem::perms::group_read,
            std::filesystem::perms::none);

  r = Run({"config", "use-context", "dev"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Run({"config", "current-context"}).out, "dev\n");
  r = Run({"config", "get-contexts"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("*        dev   dev:7070"));
  r = Run({"config", "get-contexts", "-o", "json"});
  EXPECT_THAT(r.out, StartsWith(R"({"current-context":"dev","contexts":[{"name":"prod")"));

  // Only the given flags change.
  ASSERT_EQ(Run({"config", "set-context", "prod", "--server", "prod2:7070"}).code, 0);
  EXPECT_THAT(Read("config.yaml"), HasSubstr("token-file: " + Path("prod.token")));

  r = Run({"config", "use-context", "nope"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("no context 'nope'"));
}

TEST_F(ConfigTest, XdgConfigHomeIsTheDefaultPlace) {
  vars_.erase("GNOMONCTL_CONFIG");
  vars_["XDG_CONFIG_HOME"] = Path("xdg");
  vars_["HOME"] = Path("home");
  ASSERT_EQ(Run({"config", "set-context", "a", "--server", "a:1"}).code, 0);
  EXPECT_TRUE(std::filesystem::exists(Path("xdg/gnomon/config.yaml")));
  vars_.erase("XDG_CONFIG_HOME");
  ASSERT_EQ(Run({"config", "set-context", "b", "--server", "b:1"}).code, 0);
  EXPECT_TRUE(std::filesystem::exists(Path("home/.config/gnomon/config.yaml")));
  // --config beats all.
  ASSERT_EQ(Run({"--config", Path("other.yaml"), "config", "set-context", "c"}).code, 0);
  EXPECT_TRUE(std::filesystem::exists(Path("other.yaml")));
}

TEST_F(ConfigTest, ContextThenEnvironmentThenFlags) {
  Write("ctx.token", "  ctx-token\n");
  Write("config.yaml",
        "current-context: test\n"
        "contexts:\n"
        "  - name: test\n"
        "    server: " +
            servers_.address() +
            "\n"
            "    token-file: ctx.token\n"  // relative to the config file
            "  - name: dead\n"
            "    server: 127.0.0.1:1\n");
  Result r = Run({"group", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(LastAuthorization(), "Bearer ctx-token");

  vars_["GNOMON_TOKEN"] = "env-token";
  ASSERT_EQ(Run({"group", "list"}).code, 0);
  EXPECT_EQ(LastAuthorization(), "Bearer env-token");
  ASSERT_EQ(Run({"group", "list", "--token", "flag-token"}).code, 0);
  EXPECT_EQ(LastAuthorization(), "Bearer flag-token");

  vars_["GNOMON_SERVER"] = "127.0.0.1:1";
  r = Run({"--timeout", "2s", "group", "list"});
  EXPECT_EQ(r.code, 5);
  EXPECT_THAT(r.err, HasSubstr("(server 127.0.0.1:1)"));
  ASSERT_EQ(Run({"--server", servers_.address(), "group", "list"}).code, 0);
  vars_.erase("GNOMON_SERVER");

  r = Run({"--context", "dead", "--timeout", "2s", "group", "list"});
  EXPECT_EQ(r.code, 5);
  r = Run({"group", "list", "--context", "gone"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("no context 'gone' in config " + Path("config.yaml")));
}

TEST_F(ConfigTest, BrokenConfigStopsServerCommandsOnly) {
  Write("config.yaml", "current-context: a\ncontexts:\n  - name: a\n    sever: x:1\n");
  Result r = Run({"group", "list"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("config " + Path("config.yaml") +
                               ": line 4: unknown key 'sever' (name, server, token-file, tls)"));
  EXPECT_THAT(servers_.state.Methods(), IsEmpty());
  EXPECT_EQ(Run({"cron", "next", "0 0 * * * ?", "-n", "1"}).code, 0);

  Write("config.yaml", "current-context: a\ncontexts:\n  - name: a\n    token-file: missing\n");
  r = Run({"group", "list"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("context 'a': cannot read its token file " + Path("missing")));
  // A token given otherwise means the file is not needed.
  vars_["GNOMON_SERVER"] = servers_.address();
  EXPECT_EQ(Run({"group", "list", "--token", "t"}).code, 0);

  Write("config.yaml", "contexts: [\n");
  r = Run({"config", "get-contexts"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("config " + Path("config.yaml") + ": line "));
}

}  // namespace
}  // namespace gnomon::cli
