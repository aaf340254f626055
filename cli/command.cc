#include "cli/command.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "cli/format.h"
#include "cli/yaml_json.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::cli {

CliEnv SystemEnv() {
  CliEnv env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  env.zone = absl::LocalTimeZone();
  env.now = [] { return absl::Now(); };
  env.read_file = ReadLocalFile;
  return env;
}

CommandContext::CommandContext(const Command& command, ParsedArgs args, GlobalOptions globals,
                               const CliEnv& env, std::ostream& out, std::ostream& err)
    : command_(command),
      args_(std::move(args)),
      globals_(std::move(globals)),
      env_(env),
      out_(out),
      err_(err) {}

void CommandContext::Connect() {
  if (channel_ != nullptr) return;
  // RunCli checked the TLS files, so only a file removed since can fail here;
  // the first call then fails UNAVAILABLE naming the server.
  absl::StatusOr<tls::Dialer> dial = tls::MakeDialer(globals_.tls, grpc::ChannelArguments());
  channel_ = dial.ok() ? (*dial)(globals_.server)
                       : grpc::CreateChannel(globals_.server, grpc::InsecureChannelCredentials());
  admin_ = v1::JobAdmin::NewStub(channel_);
  logs_ = v1::LogService::NewStub(channel_);
}

v1::JobAdmin::StubInterface& CommandContext::admin() {
  Connect();
  return *admin_;
}

std::shared_ptr<grpc::Channel> CommandContext::channel() {
  Connect();
  return channel_;
}

v1::LogService::StubInterface& CommandContext::logs() {
  Connect();
  return *logs_;
}

std::unique_ptr<grpc::ClientContext> CommandContext::NewRpcContext(bool deadline) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (deadline) {
    context->set_deadline(absl::ToChronoTime(absl::Now() + globals_.timeout));
  }
  if (!globals_.token.empty()) {
    context->AddMetadata(std::string(kAuthorizationKey), BearerValue(globals_.token));
  }
  return context;
}

int CommandContext::UsageError(const absl::Status& status) {
  err_ << "gnomonctl: " << status.message() << "\n"
       << "Run 'gnomonctl " << command_.noun << " " << command_.verb << " --help' for usage.\n";
  return kExitUsage;
}

int ExitCodeOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return kExitOk;
    case grpc::StatusCode::NOT_FOUND:
      return kExitNotFound;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      return kExitDenied;
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return kExitUnavailable;
    default:
      return kExitError;
  }
}

std::optional<int64_t> CommandContext::JobIdFlag(std::string_view flag, int* exit_code) {
  std::optional<std::string> text = args_.Get(flag);
  if (!text) return 0;
  absl::StatusOr<JobArg> job = ParseJobArg(*text);
  if (!job.ok()) {
    *exit_code = UsageError(absl::InvalidArgumentError(
        absl::StrCat("--", std::string(flag), ": ", job.status().message())));
    return std::nullopt;
  }
  if (job->id != 0) return job->id;
  v1::GetJobRequest req;
  job->SetOn(&req);
  v1::Job found;
  auto rpc = NewRpcContext();
  if (grpc::Status s = admin().GetJob(rpc.get(), req, &found); !s.ok()) {
    *exit_code = RpcError(s);
    return std::nullopt;
  }
  return found.id();
}

int CommandContext::RpcError(const grpc::Status& status) {
  err_ << "gnomonctl: "
       << absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code())) << ": "
       << status.error_message();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    err_ << " (server " << globals_.server << ")";
  }
  err_ << "\n";
  return ExitCodeOf(status.error_code());
}

int CommandContext::Fail(std::string_view message, int code) {
  err_ << "gnomonctl: " << message << "\n";
  return code;
}

int CommandContext::PrintMessage(const google::protobuf::Message& message) {
  absl::StatusOr<std::string> text =
      globals_.output == OutputFormat::kYaml ? MessageToYaml(message) : ToJson(message);
  if (!text.ok()) return Fail(std::string(text.status().message()));
  out_ << *text;
  return kExitOk;
}

int CommandContext::PrintJsonText(const std::string& json) {
  if (globals_.output != OutputFormat::kYaml) {
    out_ << json;
    return kExitOk;
  }
  absl::StatusOr<std::string> yaml = JsonToYaml(json);
  if (!yaml.ok()) return Fail(std::string(yaml.status().message()));
  out_ << *yaml;
  return kExitOk;
}

}  // namespace gnomon::cli
