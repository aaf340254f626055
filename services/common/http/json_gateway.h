// JsonGateway: gnomond's HTTP/JSON transport. Each unary or server-streaming
// method of JobAdmin, LogService and Registry is `POST /v1/<Service>/<Method>`
// with the request in protobuf's JSON mapping; the gateway calls the very same
// gRPC service in process (one implementation, two transports: the same
// validation, authorization, rate limits and audit), and answers its response
// as JSON, or a server stream as Server-Sent Events (`data: <message>` per
// message, then `event: end`, or `event: error` with the error). `GET
// /openapi.json` describes it all (openapi.h); other GET requests are the web
// console's files (static_files.h).
//
//   HttpServer::Handler h = JsonGateway({server->InProcessChannel({}), &auth, openapi});
//
// The `authorization` header is checked first — before the body is parsed —
// with the same Authenticator (Login's Basic credentials are checked by the
// call itself, so a malformed Login body is refused before its password is
// tried). Errors are `{"code": "NOT_FOUND", "message": "..."}` with the HTTP
// status of the gRPC code (HttpStatusOf).
//
// Thread safety: the handler is called from many threads at once.
#ifndef GNOMON_SERVICES_COMMON_HTTP_JSON_GATEWAY_H_
#define GNOMON_SERVICES_COMMON_HTTP_JSON_GATEWAY_H_

#include <memory>
#include <string>

#include "grpcpp/channel.h"
#include "services/common/http/http_server.h"
#include "services/common/server/authenticator.h"

namespace gnomon::http {

struct GatewayOptions {
  // To gnomond's own gRPC server (grpc::Server::InProcessChannel).
  std::shared_ptr<grpc::Channel> channel;
  Authenticator* auth = nullptr;
  // Served at GET /openapi.json.
  std::string openapi_json;
  // How long a unary call may take.
  absl::Duration deadline = absl::Seconds(60);
  // The built web console, served for other GET requests (static_files.h);
  // empty: none.
  std::string console_dir;
};

HttpServer::Handler JsonGateway(GatewayOptions options);
// The gateway's check of a request's head (HttpServer::HeadCheck): a method
// call without a valid credential is refused (401) before its body is read;
// requests that no credential vouches for yet (Login, the console's files)
// may send 64 KiB at most.
HttpServer::HeadCheck GatewayHeadCheck(Authenticator* auth);

// The HTTP status of a gRPC status code (google.rpc's mapping: 400 for
// INVALID_ARGUMENT, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404, 409, 429, ...).
int HttpStatusOf(grpc::StatusCode code);
// {"code": "<CODE>", "message": "<message>"}.
std::string ErrorJson(grpc::StatusCode code, std::string_view message);

}  // namespace gnomon::http

#endif  // GNOMON_SERVICES_COMMON_HTTP_JSON_GATEWAY_H_
