#include "cli/cli.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cli/completion.h"
#include "cli/config.h"
#include "services/common/client/version.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

const std::vector<Command>& AllCommands() {
  static const auto* commands = [] {
    auto* all = new std::vector<Command>();
    for (auto part :
         {GroupCommands(), JobCommands(), ScriptCommands(), RunCommands(), WorkflowCommands(),
          CalendarCommands(), AlarmChannelCommands(), PoolCommands(), StatsCommands(),
          CronCommands(), HealthCommands(), AuditCommands(), TokenCommands(), UserCommands(),
          ExecutorCommands(), ApplyCommands(), ConfigCommands(), CompletionCommands(AllCommands)}) {
      for (Command& c : part) all->push_back(std::move(c));
    }
    return all;
  }();
  return *commands;
}

bool IsNoun(std::string_view noun) {
  for (const Command& c : AllCommands()) {
    if (c.noun == noun) return true;
  }
  return false;
}

const Command* FindCommand(std::string_view noun, std::string_view verb) {
  for (const Command& c : AllCommands()) {
    if (c.noun == noun && c.verb == verb) return &c;
  }
  return nullptr;
}

std::string Indent(const std::string& text) {
  return "  " + absl::StrReplaceAll(text, {{"\n", "\n  "}}) + "\n";
}

std::string CommandList(std::string_view only_noun) {
  std::string out;
  size_t width = 0;
  for (const Command& c : AllCommands()) {
    width = std::max(width, c.noun.size() + c.verb.size() + 1);
  }
  for (const Command& c : AllCommands()) {
    if (!only_noun.empty() && c.noun != only_noun) continue;
    std::string name = absl::StrCat(c.noun, " ", c.verb);
    absl::StrAppend(&out, "  ", name, std::string(width - name.size() + 2, ' '), c.summary, "\n");
  }
  return out;
}

std::string TopHelp() {
  return absl::StrCat(
      "gnomonctl: command-line client of the gnomon admin API.\n\n"
      "Usage: gnomonctl [global flags] NOUN VERB [arguments] [flags]\n\n"
      "Commands:\n",
      CommandList(""), "\nGlobal flags (before or after the noun):\n", FlagHelp(GlobalFlagSpecs()),
      "\nExamples:\n"
      "  export GNOMON_SERVER=scheduler.internal:7070 GNOMON_TOKEN=...\n"
      "  gnomonctl group create billing --title 'Billing workers'\n"
      "  gnomonctl job create --group 1 --handler report --cron '0 0 6 * * ?' "
      "--tz Europe/Berlin --start\n"
      "  gnomonctl run list --status failed --since 1h -o json\n\n"
      "Run 'gnomonctl NOUN VERB --help' for a command's flags.\n");
}

std::string NounHelp(const std::string& noun) {
  return absl::StrCat("Usage: gnomonctl ", noun, " VERB [arguments] [flags]\n\nCommands:\n",
                      CommandList(noun), "\nGlobal flags:\n", FlagHelp(GlobalFlagSpecs()),
                      "\nRun 'gnomonctl ", noun, " VERB --help' for a command's flags.\n");
}

std::string CommandHelp(const Command& c) {
  std::string out =
      absl::StrCat("Usage: gnomonctl ", c.noun, " ", c.verb, c.synopsis.empty() ? "" : " ",
                   c.synopsis, "\n\n", c.summary, "\n");
  if (!c.flags.empty()) absl::StrAppend(&out, "\nFlags:\n", FlagHelp(c.flags));
  std::vector<FlagSpec> globals;
  for (const FlagSpec& g : GlobalFlagSpecs()) {
    if (std::none_of(c.flags.begin(), c.flags.end(),
                     [&](const FlagSpec& f) { return f.name == g.name; })) {
      globals.push_back(g);
    }
  }
  absl::StrAppend(&out, "\nGlobal flags:\n", FlagHelp(globals));
  if (!c.examples.empty()) {
    absl::StrAppend(&out, "\nExamples:\n", Indent(c.examples));
  }
  return out;
}

int TopUsageError(std::ostream& err, absl::string_view message, std::string_view noun) {
  err << "gnomonctl: " << message << "\n"
      << "Run 'gnomonctl " << noun << (noun.empty() ? "" : " ") << "--help' for usage.\n";
  return kExitUsage;
}

// Applies global flag values from `args` onto `globals`.
absl::Status ApplyGlobals(const ParsedArgs& args, GlobalOptions* globals) {
  if (auto server = args.Get("server")) globals->server = *server;
  if (auto token = args.Get("token")) globals->token = *token;
  if (args.Has("tls")) globals->tls.enabled = true;
  if (auto ca = args.Get("ca")) globals->tls.ca_file = *ca;
  if (auto cert = args.Get("cert")) globals->tls.cert_file = *cert;
  if (auto key = args.Get("key")) globals->tls.key_file = *key;
  if (auto name = args.Get("tls-server-name")) globals->tls.server_name = *name;
  if (auto output = args.Get("output")) {
    static constexpr std::pair<std::string_view, OutputFormat> kFormats[] = {
        {"table", OutputFormat::kTable},
        {"wide", OutputFormat::kWide},
        {"json", OutputFormat::kJson},
        {"yaml", OutputFormat::kYaml}};
    auto it = std::find_if(std::begin(kFormats), std::end(kFormats),
                           [&](const auto& f) { return f.first == *output; });
    if (it == std::end(kFormats)) {
      return absl::InvalidArgumentError(
          absl::StrCat("-o must be table, wide, json or yaml, not '", *output, "'"));
    }
    globals->output = it->second;
  }
  for (const char* name : {"timeout", "rpc-timeout"}) {
    ASSIGN_OR_RETURN(std::optional<absl::Duration> d, ParsePositiveDurationFlag(args, name));
    if (d) globals->timeout = *d;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<FlagSpec> GlobalFlagSpecs() {
  return {
      {"server", "", true, "HOST:PORT",
       "gnomon server (default $GNOMON_SERVER, else 127.0.0.1:7070)."},
      {"token", "", true, "T",
       "Admin token, sent as 'authorization: Bearer T' (default "
       "$GNOMON_TOKEN)."},
      {"output", "o", true, "FORMAT",
       "table (default), wide (tables with more columns), json (the response in "
       "protobuf's JSON mapping) or yaml (the same as YAML)."},
      {"timeout", "", true, "DUR", "Deadline of each call (default 10s)."},
      {"rpc-timeout", "", true, "DUR", "Same as --timeout (older spelling)."},
      {"tls", "", false, "",
       "Connect with TLS, verifying the server against the system's roots or "
       "--ca (default on if $GNOMON_TLS is 1 or true, or a CA or certificate is "
       "given)."},
      {"ca", "", true, "FILE", "PEM roots that verify the server (default $GNOMON_TLS_CA)."},
      {"cert", "", true, "FILE",
       "PEM client certificate, for servers that require one (default $GNOMON_TLS_CERT)."},
      {"key", "", true, "FILE", "PEM key of --cert (default $GNOMON_TLS_KEY)."},
      {"tls-server-name", "", true, "NAME",
       "Name the server's certificate must carry (default: the host of --server; "
       "$GNOMON_TLS_SERVER_NAME)."},
      {"config", "", true, "FILE",
       "gnomonctl's config file (default $GNOMONCTL_CONFIG, else "
       "$XDG_CONFIG_HOME/gnomon/config.yaml, else ~/.config/gnomon/config.yaml)."},
      {"context", "", true, "NAME", "Use this context of the config file, not the current one."},
      {"help", "h", false, "", "Show help."},
      {"version", "", false, "", "Print gnomonctl's version and exit."},
  };
}

int RunCli(const std::vector<std::string>& args, const CliEnv& env, std::ostream& out,
           std::ostream& err) {
  // Phase 1: global flags up to and including the noun and the verb (a
  // command without a verb, such as apply, has only the noun).
  absl::StatusOr<ParsedArgs> head = ParseFlags(args, GlobalFlagSpecs(), 1);
  if (head.ok() && !head->positionals().empty() &&
      FindCommand(head->positionals()[0], "") == nullptr) {
    head = ParseFlags(args, GlobalFlagSpecs(), 2);
  }
  if (!head.ok()) return TopUsageError(err, head.status().message(), "");
  const auto& words = head->positionals();
  if (words.empty()) {
    if (head->Has("version")) {
      out << "gnomonctl " << Version() << "\n";
      return kExitOk;
    }
    if (head->Has("help")) {
      out << TopHelp();
      return kExitOk;
    }
    return TopUsageError(err, "missing command", "");
  }
  const std::string& noun = words[0];
  if (!IsNoun(noun)) {
    return TopUsageError(err, absl::StrCat("unknown command '", noun, "'"), "");
  }
  const Command* command = FindCommand(noun, words.size() < 2 ? "" : words[1]);
  if (words.size() < 2 && command == nullptr) {
    if (head->Has("help")) {
      out << NounHelp(noun);
      return kExitOk;
    }
    return TopUsageError(err, absl::StrCat("missing verb after '", noun, "'"), noun);
  }
  if (command == nullptr) {
    return TopUsageError(err, absl::StrCat("unknown command '", noun, " ", words[1], "'"), noun);
  }

  // Phase 2: the command's flags plus the global ones it does not shadow.
  std::vector<FlagSpec> specs = command->flags;
  for (const FlagSpec& global : GlobalFlagSpecs()) {
    bool shadowed = std::any_of(specs.begin(), specs.end(),
                                [&](const FlagSpec& s) { return s.name == global.name; });
    if (!shadowed) specs.push_back(global);
  }
  std::vector<std::string> rest(args.begin() + head->consumed(), args.end());
  absl::StatusOr<ParsedArgs> tail = ParseFlags(rest, specs);
  const std::string path = command->verb.empty() ? noun : absl::StrCat(noun, " ", command->verb);
  if (!tail.ok()) return TopUsageError(err, tail.status().message(), path);
  if (head->Has("help") || tail->Has("help")) {
    out << CommandHelp(*command);
    return kExitOk;
  }

  // Settings apply context < environment < flags (docs/cli.md).
  auto flag = [&](std::string_view name) {
    std::optional<std::string> value = tail->Get(name);
    return value ? value : head->Get(name);
  };
  auto getenv = [&](const char* name) -> std::optional<std::string> {
    if (!env.getenv) return std::nullopt;
    std::optional<std::string> value = env.getenv(name);
    if (value && value->empty()) return std::nullopt;  // set but empty: unset
    return value;
  };
  GlobalOptions globals;
  globals.config_path = ConfigPath(flag("config"), env);
  const bool offline = command->offline && !(command->online_when && command->online_when(*tail));
  if (!offline) {
    const bool want_token = !flag("token") && !getenv("GNOMON_TOKEN");
    if (absl::Status s = ApplyConfiguredContext(flag("context"), want_token, &globals); !s.ok()) {
      return TopUsageError(err, s.message(), path);
    }
  }
  if (auto server = getenv("GNOMON_SERVER")) globals.server = *server;
  if (auto token = getenv("GNOMON_TOKEN")) globals.token = *token;
  if (auto on = getenv("GNOMON_TLS")) globals.tls.enabled = *on == "1" || *on == "true";
  for (auto [name, field] : {std::pair{"GNOMON_TLS_CA", &globals.tls.ca_file},
                             std::pair{"GNOMON_TLS_CERT", &globals.tls.cert_file},
                             std::pair{"GNOMON_TLS_KEY", &globals.tls.key_file},
                             std::pair{"GNOMON_TLS_SERVER_NAME", &globals.tls.server_name}}) {
    if (auto v = getenv(name)) *field = *v;
  }
  for (const ParsedArgs* parsed : {&*head, &*tail}) {
    if (absl::Status s = ApplyGlobals(*parsed, &globals); !s.ok()) {
      return TopUsageError(err, s.message(), path);
    }
  }
  if (!globals.tls.ca_file.empty() || !globals.tls.cert_file.empty()) globals.tls.enabled = true;
  // A bad TLS file is the user's to fix before anything is sent.
  if (absl::Status s = offline ? absl::OkStatus()
                               : tls::MakeDialer(globals.tls, grpc::ChannelArguments()).status();
      !s.ok()) {
    return TopUsageError(err, s.message(), path);
  }
  CommandContext context(*command, *std::move(tail), globals, env, out, err);
  return command->run(context);
}

}  // namespace gnomon::cli
