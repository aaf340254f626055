// gnomonctl completion: the scripts parse in their shells and complete from
// the command table.
#include "cli/completion.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

using ::testing::HasSubstr;

std::string Script(const std::string& shell) {
  std::ostringstream out, err;
  CliEnv env;
  const int code = RunCli({"completion", shell}, env, out, err);
  EXPECT_EQ(code, 0) << err.str();
  return out.str();
}

// Writes `text` to a fresh file under TEST_TMPDIR (or /tmp); returns its path.
std::string WriteTemp(const std::string& name, const std::string& text) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(dir ? dir : "/tmp", "/gnomonctl-", ::getpid(), "-", name);
  std::ofstream(path) << text;
  return path;
}

// Runs `command` in sh; returns its exit status and stdout.
std::pair<int, std::string> Shell(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

bool Installed(const std::string& shell) {
  return Shell(absl::StrCat("command -v ", shell, " >/dev/null 2>&1")).first == 0;
}

// The words bash would offer for `line` (the last word is being completed).
std::string BashCompletes(const std::string& script, const std::string& line) {
  const std::string command = absl::StrCat(
      "bash -c 'source \"$0\"; COMP_WORDS=(", line,
      "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _gnomonctl; echo \"${COMPREPLY[*]}\"' ", script);
  auto [code, out] = Shell(command);
  EXPECT_EQ(code, 0) << command;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(CompletionTest, BashScriptParsesAndCompletesFromTheCommandTable) {
  const std::string path = WriteTemp("completion.bash", Script("bash"));
  EXPECT_EQ(Shell(absl::StrCat("bash -n ", path)).first, 0);
  EXPECT_EQ(BashCompletes(path, "gnomonctl jo"), "job");
  EXPECT_EQ(BashCompletes(path, "gnomonctl job cr"), "create");
  EXPECT_EQ(BashCompletes(path, "gnomonctl --server h:1 job st"), "start stop");
  EXPECT_EQ(BashCompletes(path, "gnomonctl job create --run-t"), "--run-timeout");
  EXPECT_EQ(BashCompletes(path, "gnomonctl run list --tim"), "--timeout");
  EXPECT_EQ(BashCompletes(path, "gnomonctl -o y"), "yaml");
  EXPECT_EQ(BashCompletes(path, "gnomonctl completion f"), "fish");
  // A command without a verb offers its flags right after the noun.
  EXPECT_EQ(BashCompletes(path, "gnomonctl apply --dr"), "--dry-run");
  EXPECT_EQ(BashCompletes(path, "gnomonctl get j"), "job jobs");
  EXPECT_EQ(BashCompletes(path, "gnomonctl get w"), "workflow workflows");
  EXPECT_EQ(BashCompletes(path, "gnomonctl wo"), "workflow");
  EXPECT_EQ(BashCompletes(path, "gnomonctl workflow get"), "get get-run");
  EXPECT_EQ(BashCompletes(path, "gnomonctl workflow ru"), "run runs");
  EXPECT_EQ(BashCompletes(path, "gnomonctl workflow succeed --no"), "--node-output");
  EXPECT_EQ(BashCompletes(path, "gnomonctl cal"), "calendar");
  EXPECT_EQ(BashCompletes(path, "gnomonctl calendar \"\""), "create list get update delete");
  EXPECT_EQ(BashCompletes(path, "gnomonctl calendar update workdays --wi"), "--window");
  EXPECT_EQ(BashCompletes(path, "gnomonctl get c"), "calendar calendars");
  EXPECT_EQ(BashCompletes(path, "gnomonctl job create --cal"), "--calendar");
  EXPECT_EQ(BashCompletes(path, "gnomonctl cron next --cal"), "--calendar");
  EXPECT_EQ(BashCompletes(path, "gnomonctl ala"), "alarm-channel");
  EXPECT_EQ(BashCompletes(path, "gnomonctl alarm-channel \"\""),
            "create list get update delete test");
  EXPECT_EQ(BashCompletes(path, "gnomonctl alarm-channel create ops --secret-"),
            "--secret-env --secret-file");
  EXPECT_EQ(BashCompletes(path, "gnomonctl get a"), "alarm-channel alarm-channels");
  EXPECT_EQ(BashCompletes(path, "gnomonctl job update 7 --alarm-"),
            "--alarm-email --alarm-webhook --alarm-channel --alarm-on --alarm-silence");
  EXPECT_EQ(BashCompletes(path, "gnomonctl poo"), "pool");
  EXPECT_EQ(BashCompletes(path, "gnomonctl pool \"\""), "create list get update delete queue");
  EXPECT_EQ(BashCompletes(path, "gnomonctl pool create etl-db --sl"), "--slots");
  EXPECT_EQ(BashCompletes(path, "gnomonctl pool queue etl-db --li"), "--limit");
  EXPECT_EQ(BashCompletes(path, "gnomonctl get p"), "pool pools");
  EXPECT_EQ(BashCompletes(path, "gnomonctl job update 7 --poo"), "--pool");
  EXPECT_EQ(BashCompletes(path, "gnomonctl job create --pri"), "--priority");
  std::remove(path.c_str());
}

TEST(CompletionTest, ZshAndFishScriptsAreGenerated) {
  const std::string zsh = Script("zsh");
  EXPECT_THAT(zsh, HasSubstr("bashcompinit"));
  EXPECT_THAT(zsh, HasSubstr("complete -F _gnomonctl gnomonctl"));
  const std::string fish = Script("fish");
  EXPECT_THAT(fish, HasSubstr("complete -c gnomonctl -n '__fish_use_subcommand' -a job\n"));
  EXPECT_THAT(fish, HasSubstr("-l run-timeout -r"));
  EXPECT_THAT(fish,
              HasSubstr("complete -c gnomonctl -n '__fish_seen_subcommand_from apply' -l dry-run"));
  EXPECT_THAT(fish, ::testing::Not(HasSubstr(" -a  ")));
  EXPECT_THAT(fish, HasSubstr("-l output -s o -r -f -a 'table wide json yaml'"));
  EXPECT_THAT(fish, HasSubstr("complete -c gnomonctl -n '__fish_use_subcommand' -a calendar\n"));
  EXPECT_THAT(fish, HasSubstr("__fish_seen_subcommand_from calendar; and "
                              "__fish_seen_subcommand_from create' -l weekdays -r"));
  EXPECT_THAT(fish,
              HasSubstr("complete -c gnomonctl -n '__fish_use_subcommand' -a alarm-channel\n"));
  EXPECT_THAT(fish, HasSubstr("__fish_seen_subcommand_from alarm-channel; and "
                              "__fish_seen_subcommand_from update' -l secret-env -r"));
  EXPECT_THAT(fish, HasSubstr("complete -c gnomonctl -n '__fish_use_subcommand' -a pool\n"));
  EXPECT_THAT(fish, HasSubstr("__fish_seen_subcommand_from pool; and "
                              "__fish_seen_subcommand_from create' -l slots -r"));
  EXPECT_THAT(fish, HasSubstr("__fish_seen_subcommand_from pool; and "
                              "__fish_seen_subcommand_from queue' -l limit -r"));
  // Syntax checks where the shells are installed (they are not packaged
  // dependencies of the build).
  for (const auto& [shell, text] :
       {std::pair{std::string("zsh"), zsh}, std::pair{std::string("fish"), fish}}) {
    if (!Installed(shell)) continue;
    const std::string path = WriteTemp("completion." + shell, text);
    EXPECT_EQ(Shell(absl::StrCat(shell, " -n ", path)).first, 0) << shell;
    std::remove(path.c_str());
  }
}

TEST(CompletionTest, UnknownShellIsAUsageError) {
  EXPECT_FALSE(CompletionScript("tcsh", {}, {}).ok());
  std::ostringstream out, err;
  EXPECT_EQ(RunCli({"completion", "tcsh"}, CliEnv(), out, err), 2);
}

}  // namespace
}  // namespace gnomon::cli
