// gnomonctl health check: asks a gnomon server's grpc.health.v1 service —
// over TLS when configured — so that it can serve as a Kubernetes exec
// probe where kubelet's own gRPC probe cannot (it speaks plaintext only).
// gnomonctl version: its own version and the server's, as kubectl version.
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/struct.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "services/common/client/version.h"

namespace gnomon::cli {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

int Check(CommandContext& c) {
  HealthCheckRequest req;
  req.set_service(c.args().Get("service").value_or(""));
  HealthCheckResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = grpc::health::v1::Health::NewStub(c.channel())->Check(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) {
    const int code = c.PrintMessage(resp);
    return resp.status() == HealthCheckResponse::SERVING ? code : kExitError;
  }
  const std::string what =
      req.service().empty() ? "server" : absl::StrCat("service ", req.service());
  c.out() << what << ": " << HealthCheckResponse::ServingStatus_Name(resp.status()) << "\n";
  return resp.status() == HealthCheckResponse::SERVING ? kExitOk : kExitError;
}

int Version(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::WhoAmIResponse me;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().WhoAmI(rpc.get(), v1::WhoAmIRequest(), &me);
  if (c.structured()) {
    google::protobuf::Struct versions;
    auto& f = *versions.mutable_fields();
    f["clientVersion"].set_string_value(gnomon::Version());
    f["clientRevision"].set_string_value(gnomon::Revision());
    if (s.ok()) {
      f["serverVersion"].set_string_value(me.server_version());
      f["serverRevision"].set_string_value(me.server_revision());
    }
    const int code = c.PrintMessage(versions);
    return s.ok() ? code : c.RpcError(s);
  }
  c.out() << "Client Version: " << gnomon::Version() << " (revision " << gnomon::Revision()
          << ")\n";
  if (!s.ok()) return c.RpcError(s);
  c.out() << "Server Version: " << me.server_version() << " (revision " << me.server_revision()
          << ")\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> HealthCommands() {
  return {
      {"health",
       "check",
       "[--service NAME]",
       "Ask the server's grpc.health.v1 status; exit 0 only if SERVING. "
       "NAME: \"liveness\" (up, whatever the store), a service such as "
       "gnomon.v1.JobAdmin, or empty for the whole server. No token needed.",
       {{"service", "", true, "NAME", "Service to ask about (default: the whole server)."}},
       "gnomonctl health check\n"
       "gnomonctl health check --service liveness --tls --ca ca.crt --tls-server-name '*'",
       Check},
      {"version",
       "",
       "",
       "Print gnomonctl's version and the server's (each with its git revision); the "
       "server's needs a token, as any call.",
       {},
       "gnomonctl version\ngnomonctl version -o json",
       Version},
  };
}

}  // namespace gnomon::cli
