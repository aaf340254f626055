// OpenAPI: the OpenAPI 3.0.3 document of gnomon's HTTP/JSON transport, read
// from the gRPC service descriptors, so a new RPC or field is documented with
// no change here.
//
// The transport (the contract this document describes):
//   - each unary or server-streaming method is POST /v1/<Service>/<Method>
//     (client-streaming and bidi methods are gRPC only);
//   - the body is the request message in protobuf's JSON mapping (lowerCamel
//     json names; an empty body is the empty message);
//   - a unary reply is the response message as JSON; a server-streaming one is
//     Server-Sent Events: a `data:` event per message, then `event: end`, or
//     `event: error` with {"code", "message"};
//   - errors are {"code": "<gRPC code name>", "message"} with the usual
//     gRPC-to-HTTP status (NOT_FOUND 404, ...);
//   - bearer tokens everywhere but JobAdmin.Login (HTTP basic).
//
//   std::string doc = gnomon::http::OpenApiJson(
//       {"gnomon.v1.JobAdmin", "gnomon.v1.LogService", "gnomon.v1.Registry"}, GNOMON_VERSION);
//   // serve doc at GET /openapi.json
//   for (int i = 0; i < service->method_count(); ++i)
//     if (ServedOverHttp(*service->method(i))) Route(HttpPath(*service->method(i)), ...);
//
// Thread safety: the functions are thread-safe (they only read the generated
// descriptor pool).
#ifndef GNOMON_SERVICES_COMMON_HTTP_OPENAPI_H_
#define GNOMON_SERVICES_COMMON_HTTP_OPENAPI_H_

#include <string>
#include <string_view>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace gnomon::http {

// The OpenAPI 3.0.3 document (JSON) of the HTTP/JSON transport of `services`
// (full service names, e.g. "gnomon.v1.JobAdmin"), titled "gnomon", at `version`.
// Methods that stream from the client are left out (gRPC only). Names not in
// the generated descriptor pool are left out too.
std::string OpenApiJson(const std::vector<std::string>& services, std::string_view version);

// The path of a method in that transport: "/v1/JobAdmin/CreateJob".
std::string HttpPath(const google::protobuf::MethodDescriptor& method);

// Whether the transport serves it (unary or server-streaming).
bool ServedOverHttp(const google::protobuf::MethodDescriptor& method);

}  // namespace gnomon::http

#endif  // GNOMON_SERVICES_COMMON_HTTP_OPENAPI_H_
