// The pieces every gnomonctl command shares: global options, the environment,
// the command table entry and the per-invocation context.
//
// A command is a Command entry whose `run` receives a CommandContext:
//
//   Command{"group", "get", "ID", "Show one group.", {}, "gnomonctl group get 3",
//           [](CommandContext& c) {
//             v1::GetGroupRequest req; ...
//             v1::Group group;
//             auto rpc = c.NewRpcContext();
//             grpc::Status s = c.admin().GetGroup(rpc.get(), req, &group);
//             if (!s.ok()) return c.RpcError(s);
//             if (c.structured()) return c.PrintMessage(group);
//             PrintGroupDetails(group, ..., c.out());
//             return kExitOk;
//           }};
//
// Exit codes: 0 success, 1 server or runtime error, 2 usage error.
// Thread safety: a CommandContext belongs to one invocation on one thread.
#ifndef GNOMON_CLI_COMMAND_H_
#define GNOMON_CLI_COMMAND_H_

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "cli/flags.h"
#include "cli/requests.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "google/protobuf/message.h"
#include "grpcpp/grpcpp.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::cli {

inline constexpr int kExitOk = 0;
// Exit codes by class (docs/operations.md, "gnomonctl exit codes"): scripts
// can tell "not there" from "not allowed" from "not reachable".
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNotFound = 3;
inline constexpr int kExitDenied = 4;
inline constexpr int kExitUnavailable = 5;

// The exit code of a call that failed with `code`.
int ExitCodeOf(grpc::StatusCode code);

inline constexpr char kDefaultServer[] = "127.0.0.1:7070";

// -o: table (readable), wide (tables with more columns), json (protobuf's
// JSON mapping of the response) or yaml (the same data as YAML).
enum class OutputFormat { kTable, kWide, kJson, kYaml };

// Options that apply to every command.
struct GlobalOptions {
  // "host:port" of the gnomon server.
  std::string server = kDefaultServer;
  // Admin token; empty sends no authorization header.
  std::string token;
  OutputFormat output = OutputFormat::kTable;
  // Deadline of each unary call.
  absl::Duration timeout = absl::Seconds(10);
  // TLS to the server (--tls, --ca, --cert, --key, --tls-server-name).
  tls::TlsOptions tls;
  // gnomonctl's config file (cli/config.h); empty when none is known.
  std::string config_path;
};

// What gnomonctl takes from its surroundings; tests substitute each part.
struct CliEnv {
  // Environment variable lookup (GNOMON_SERVER, GNOMON_TOKEN).
  std::function<std::optional<std::string>(const std::string&)> getenv;
  // Zone for readable times.
  absl::TimeZone zone = absl::UTCTimeZone();
  // Current time (for relative --since, cron next's default --from).
  std::function<absl::Time()> now;
  // Reads script files.
  FileReader read_file;
};

// The real process environment, local time zone and file system.
CliEnv SystemEnv();

class CommandContext;

// One "noun verb" command.
struct Command {
  std::string noun;
  std::string verb;
  // Arguments after "noun verb" for the usage line, e.g. "ID [--title T]".
  std::string synopsis;
  // One sentence for help listings.
  std::string summary;
  // The command's own flags (global flags are added by the dispatcher).
  std::vector<FlagSpec> flags;
  // Example invocations, one per line.
  std::string examples;
  // Runs the command; returns the exit code.
  std::function<int(CommandContext&)> run;
  // Needs no server (cron next, completion, config): the config's context
  // and the TLS files are not read, so a broken one cannot stop it.
  bool offline = false;
  // For an offline command: whether these arguments need the server after
  // all (cron next --calendar asks it for the calendar's fire times); unset:
  // never.
  std::function<bool(const ParsedArgs&)> online_when;
};

// Per-invocation state handed to a command.
class CommandContext {
 public:
  CommandContext(const Command& command, ParsedArgs args, GlobalOptions globals, const CliEnv& env,
                 std::ostream& out, std::ostream& err);

  const ParsedArgs& args() const { return args_; }
  const GlobalOptions& globals() const { return globals_; }
  const CliEnv& env() const { return env_; }
  std::ostream& out() { return out_; }
  std::ostream& err() { return err_; }
  // Whether -o asks for a document (json or yaml) rather than text.
  bool structured() const {
    return globals_.output == OutputFormat::kJson || globals_.output == OutputFormat::kYaml;
  }
  // Whether tables should carry their extra columns (-o wide).
  bool wide() const { return globals_.output == OutputFormat::kWide; }

  // Stubs on a channel to globals().server, created on first use.
  v1::JobAdmin::StubInterface& admin();
  v1::LogService::StubInterface& logs();
  // The channel itself (for services without a stub here: health).
  std::shared_ptr<grpc::Channel> channel();
  // A client context carrying the bearer token and, unless `deadline` is
  // false (log follow), the call deadline.
  std::unique_ptr<grpc::ClientContext> NewRpcContext(bool deadline = true);

  // The id of the job given by flag `flag` (an id, APP/NAME or NAME; a name
  // is looked up with GetJob): 0 if the flag is absent; on an error it is
  // printed, *exit_code set and nullopt returned.
  std::optional<int64_t> JobIdFlag(std::string_view flag, int* exit_code);

  // Prints "gnomonctl: <message>" and a hint to --help; returns kExitUsage.
  int UsageError(const absl::Status& status);
  // Prints "gnomonctl: <CODE>: <message>"; returns ExitCodeOf(the code).
  int RpcError(const grpc::Status& status);
  // Prints "gnomonctl: <message>"; returns `code`.
  int Fail(std::string_view message, int code = kExitError);
  // Prints `message` as one JSON or YAML document (per -o); returns kExitOk
  // or kExitError.
  int PrintMessage(const google::protobuf::Message& message);
  // Prints one JSON value given as text, converted to YAML under -o yaml.
  int PrintJsonText(const std::string& json);

 private:
  void Connect();

  const Command& command_;
  ParsedArgs args_;
  GlobalOptions globals_;
  const CliEnv& env_;
  std::ostream& out_;
  std::ostream& err_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::JobAdmin::StubInterface> admin_;
  std::unique_ptr<v1::LogService::StubInterface> logs_;
};

// The command tables, one per noun.
std::vector<Command> GroupCommands();
std::vector<Command> JobCommands();
std::vector<Command> ScriptCommands();
std::vector<Command> RunCommands();
std::vector<Command> WorkflowCommands();
std::vector<Command> CalendarCommands();
std::vector<Command> AlarmChannelCommands();
std::vector<Command> PoolCommands();
std::vector<Command> CronCommands();
std::vector<Command> HealthCommands();
std::vector<Command> AuditCommands();
std::vector<Command> TokenCommands();
std::vector<Command> UserCommands();
std::vector<Command> ExecutorCommands();
std::vector<Command> StatsCommands();
std::vector<Command> ConfigCommands();
// apply (a command without a verb) and get
// group|job|jobs|workflow|workflows|calendar|calendars|alarm-channel|alarm-channels|pool|pools.
std::vector<Command> ApplyCommands();

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_COMMAND_H_
