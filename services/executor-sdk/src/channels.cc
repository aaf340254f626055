#include "services/executor-sdk/src/channels.h"

#include "absl/strings/str_cat.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::executor::internal {

tls::TlsOptions CommonTls(const TlsOptions& tls) {
  tls::TlsOptions o;
  o.enabled = tls.enabled();
  o.ca_file = tls.ca_file;
  o.cert_file = tls.cert_file;
  o.key_file = tls.key_file;
  o.server_name = tls.server_name;
  o.reload_interval = tls.reload_interval;
  return o;
}

namespace {

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN_CODE";
  }
}

}  // namespace

absl::StatusOr<Dialer> ClientDialer(const TlsOptions& tls, const std::string& verify_name) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  tls::TlsOptions common = CommonTls(tls);
  // MakeDialer sets it as grpc's SSL target name override.
  if (common.server_name.empty()) common.server_name = verify_name;
  return tls::MakeDialer(common, std::move(args));
}

void ReadyForAttempt(grpc::Channel* channel, absl::Duration limit) {
  if (channel->GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY) return;
  grpc::experimental::ChannelResetConnectionBackoff(channel);
  channel->WaitForConnected(absl::ToChronoTime(absl::Now() + limit));
}

const std::vector<std::string>& LogEndpoints(const ConnectionOptions& connection) {
  return connection.log_endpoints.empty() ? connection.registry_endpoints
                                          : connection.log_endpoints;
}

const std::vector<std::string>& SchedulerEndpoints(const ConnectionOptions& connection) {
  return connection.scheduler_endpoints.empty() ? connection.registry_endpoints
                                                : connection.scheduler_endpoints;
}

bool IsRefusal(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
         status.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
         status.error_code() == grpc::StatusCode::INVALID_ARGUMENT;
}

bool IsCredentialRefusal(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
         status.error_code() == grpc::StatusCode::PERMISSION_DENIED;
}

std::string StatusText(const grpc::Status& status) {
  return absl::StrCat(CodeName(status.error_code()), ": ", status.error_message());
}

}  // namespace gnomon::executor::internal
