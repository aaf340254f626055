#include "services/common/http/json_gateway.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "proto/decoding/invalid_utf8.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/http/openapi.h"
#include "services/common/http/static_files.h"
#include "services/common/server/method_credentials.h"

namespace gnomon::http {
namespace {

using google::protobuf::Message;
using google::protobuf::MethodDescriptor;

constexpr char kJson[] = "application/json";
// Messages quote at most this much of what the client sent.
constexpr size_t kMaxEcho = 160;
// The body a request may send before a credential vouches for it (Login's
// name and password, a stray body on a GET).
constexpr size_t kMaxUncheckedBody = 64 << 10;
// A comment on a quiet event stream this often keeps proxies from closing it.
constexpr absl::Duration kKeepAlive = absl::Seconds(15);

// The method `path` ("/v1/JobAdmin/GetJob") names, if the transport serves it.
const MethodDescriptor* Find(const std::string& path) {
  std::vector<absl::string_view> parts = absl::StrSplit(absl::string_view(path).substr(1), '/');
  if (parts.size() != 3 || parts[0] != "v1") return nullptr;
  const auto* service = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      absl::StrCat("gnomon.v1.", std::string(parts[1])));
  if (service == nullptr) return nullptr;
  const MethodDescriptor* m = service->FindMethodByName(std::string(parts[2]));
  return m != nullptr && ServedOverHttp(*m) ? m : nullptr;
}

// The string field of `json` (a `prototype` that did not parse) holding
// bytes that are not UTF-8, named as gRPC's decoding names it
// (proto/decoding/invalid_utf8.h). protobuf's JSON parser refuses those
// without naming the field: each bad byte is replaced by a character the body
// lacks, the result parsed, serialized, and the character's bytes (as many)
// made invalid again for FindInvalidUtf8.
std::optional<std::string> InvalidUtf8Field(const std::string& json, const Message& prototype) {
  if (google::protobuf::internal::IsStructurallyValidUTF8(json)) return std::nullopt;
  std::string marker;  // A noncharacter, U+FDD0..U+FDEF: valid UTF-8, not in the body.
  for (unsigned last = 0x90; last <= 0xaf && marker.empty(); ++last) {
    std::string m = std::string("\xef\xb7") + static_cast<char>(last);
    if (!absl::StrContains(json, m)) marker = std::move(m);
  }
  if (marker.empty()) return std::nullopt;
  std::string fixed;
  for (size_t i = 0; i < json.size();) {
    const auto lead = static_cast<unsigned char>(json[i]);
    const size_t n = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
    if (i + n <= json.size() &&
        google::protobuf::internal::IsStructurallyValidUTF8(json.data() + i, static_cast<int>(n))) {
      fixed.append(json, i, n);
      i += n;
    } else {
      fixed += marker;
      ++i;
    }
  }
  std::unique_ptr<Message> parsed(prototype.New());
  if (!google::protobuf::util::JsonStringToMessage(fixed, parsed.get()).ok()) return std::nullopt;
  const std::string wire =
      absl::StrReplaceAll(parsed->SerializeAsString(), {{marker, "\xff\xff\xff"}});
  return proto::FindInvalidUtf8(wire, *prototype.GetDescriptor());
}

void SendError(HttpResponse& resp, grpc::StatusCode code, std::string_view message) {
  resp.Send(HttpStatusOf(code), kJson, ErrorJson(code, message));
}

// Waits for the one operation in flight on `cq`; calls `idle` about once a
// second meanwhile. Its outcome (false: the call ended, or failed).
template <typename Idle>
bool Await(grpc::CompletionQueue& cq, Idle idle) {
  void* tag;
  bool ok = false;
  while (cq.AsyncNext(&tag, &ok, absl::ToChronoTime(absl::Now() + absl::Seconds(1))) ==
         grpc::CompletionQueue::TIMEOUT) {
    idle();
  }
  return ok;
}

class GatewayCall {
 public:
  GatewayCall(const GatewayOptions& opts, const MethodDescriptor& m, const HttpRequest& req,
              HttpResponse& resp)
      : opts_(opts), m_(m), req_(req), resp_(resp) {}

  void Run() {
    const std::string service = m_.service()->full_name();
    const std::string full = FullMethodName(service, m_.name());
    const Credential* credential = RequiredCredential(full);
    if (credential != nullptr && *credential != Credential::kPassword) {
      // Before anything else, as every gRPC call is.
      absl::StatusOr<Caller> caller = opts_.auth->Authorize(
          [this](std::string_view key) {
            return key == kAuthorizationKey ? req_.Header("authorization") : "";
          },
          service, m_.name());
      if (!caller.ok()) {
        return SendError(resp_, static_cast<grpc::StatusCode>(caller.status().code()),
                         std::string(caller.status().message()));
      }
    }
    std::unique_ptr<Message> request(factory_.GetPrototype(m_.input_type())->New());
    if (!absl::StripAsciiWhitespace(req_.body).empty()) {
      google::protobuf::util::JsonParseOptions parse;
      auto parsed = google::protobuf::util::JsonStringToMessage(req_.body, request.get(), parse);
      if (!parsed.ok()) {
        if (std::optional<std::string> field = InvalidUtf8Field(req_.body, *request)) {
          return SendError(resp_, grpc::StatusCode::INVALID_ARGUMENT,
                           absl::StrCat(*field, ": not valid UTF-8"));
        }
        std::string why(parsed.message());
        if (why.size() > kMaxEcho) why = why.substr(0, kMaxEcho) + "…";
        return SendError(resp_, grpc::StatusCode::INVALID_ARGUMENT, absl::StrCat("body: ", why));
      }
    }
    Call(*request);
  }

 private:
  void Call(const Message& request) {
    grpc::GenericStub stub(opts_.channel);
    grpc::ClientContext ctx;
    const std::string authorization = req_.Header("authorization");
    if (!authorization.empty()) ctx.AddMetadata(std::string(kAuthorizationKey), authorization);
    if (!req_.client.empty()) ctx.AddMetadata(std::string(kHttpClientKey), req_.client);
    if (!m_.server_streaming()) ctx.set_deadline(absl::ToChronoTime(absl::Now() + opts_.deadline));
    grpc::CompletionQueue cq;
    auto call =
        stub.PrepareCall(&ctx, absl::StrCat("/", m_.service()->full_name(), "/", m_.name()), &cq);
    bool gone = false;
    absl::Time last_write = absl::Now();
    auto idle = [&] {
      if (!m_.server_streaming() || gone) return;
      if (resp_.ClientGone() || (absl::Now() - last_write > kKeepAlive && !resp_.KeepAlive())) {
        gone = true;
        ctx.TryCancel();
      }
      if (absl::Now() - last_write > kKeepAlive) last_write = absl::Now();
    };
    call->StartCall(nullptr);
    bool ok = Await(cq, idle);
    if (ok) {
      grpc::Slice slice(request.SerializeAsString());
      grpc::ByteBuffer buffer(&slice, 1);
      call->Write(buffer, nullptr);
      ok = Await(cq, idle);
    }
    if (ok) {
      call->WritesDone(nullptr);
      ok = Await(cq, idle);
    }
    std::string json;
    bool answered = false;
    if (m_.server_streaming() && ok) resp_.StartEvents();
    while (ok) {
      grpc::ByteBuffer answer;
      call->Read(&answer, nullptr);
      if (!Await(cq, idle)) break;
      json = ToJson(answer);
      answered = true;
      if (!m_.server_streaming()) break;
      last_write = absl::Now();
      if (!gone && !resp_.Event("", json)) {
        gone = true;
        ctx.TryCancel();
      }
    }
    grpc::Status status;
    call->Finish(&status, nullptr);
    Await(cq, [] {});
    cq.Shutdown();
    void* tag;
    while (cq.Next(&tag, &ok)) {
    }
    if (!m_.server_streaming()) {
      if (!status.ok()) return SendError(resp_, status.error_code(), status.error_message());
      if (!answered) return SendError(resp_, grpc::StatusCode::INTERNAL, "no answer");
      resp_.Send(200, kJson, json);
      return;
    }
    if (!resp_.sent()) return SendError(resp_, status.error_code(), status.error_message());
    if (gone) return;
    if (status.ok()) {
      resp_.Event("end", "{}");
    } else {
      resp_.Event("error", ErrorJson(status.error_code(), status.error_message()));
    }
  }

  // The answer's bytes as JSON of the method's output type.
  std::string ToJson(const grpc::ByteBuffer& answer) {
    std::vector<grpc::Slice> slices;
    std::string bytes;
    if (answer.Dump(&slices).ok()) {
      for (const grpc::Slice& s : slices)
        bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
    std::unique_ptr<Message> out(factory_.GetPrototype(m_.output_type())->New());
    out->ParseFromString(bytes);
    std::string json;
    google::protobuf::util::JsonPrintOptions print;
    (void)google::protobuf::util::MessageToJsonString(*out, &json, print);
    return json;
  }

  const GatewayOptions& opts_;
  const MethodDescriptor& m_;
  const HttpRequest& req_;
  HttpResponse& resp_;
  google::protobuf::DynamicMessageFactory factory_;
};

}  // namespace

int HttpStatusOf(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::CANCELLED:
      return 499;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

std::string ErrorJson(grpc::StatusCode code, std::string_view message) {
  std::string escaped;
  for (unsigned char c : message) {
    switch (c) {
      case '"':
        escaped += "\\\"";
        break;
      case '\\':
        escaped += "\\\\";
        break;
      case '\n':
        escaped += "\\n";
        break;
      case '\r':
        escaped += "\\r";
        break;
      case '\t':
        escaped += "\\t";
        break;
      default:
        if (c < 0x20) {
          absl::StrAppend(&escaped, "\\u00", absl::Hex(c, absl::kZeroPad2));
        } else {
          escaped += static_cast<char>(c);
        }
    }
  }
  return absl::StrCat(R"({"code":")", absl::StatusCodeToString(static_cast<absl::StatusCode>(code)),
                      R"(","message":")", escaped, "\"}");
}

HttpServer::HeadCheck GatewayHeadCheck(Authenticator* auth) {
  return [auth](const HttpRequest& req) {
    HeadVerdict verdict;
    const MethodDescriptor* m = absl::StartsWith(req.path, "/v1/") ? Find(req.path) : nullptr;
    const Credential* credential =
        m == nullptr ? nullptr
                     : RequiredCredential(FullMethodName(m->service()->full_name(), m->name()));
    if (req.method != "POST" || credential == nullptr || *credential == Credential::kPassword) {
      // The console's files, a refusal to come, or Login (whose Basic
      // credentials its call checks): nothing large to read.
      verdict.max_body_bytes = kMaxUncheckedBody;
      return verdict;
    }
    absl::StatusOr<Caller> caller = auth->Authorize(
        [&req](std::string_view key) {
          return key == kAuthorizationKey ? req.Header("authorization") : "";
        },
        m->service()->full_name(), m->name());
    if (caller.ok()) return verdict;
    // A refusal as the call would give it (unauthenticated, or a role
    // without the method); a store error is not shown to a caller whose
    // credential could not be checked.
    const bool refused =
        absl::IsUnauthenticated(caller.status()) || absl::IsPermissionDenied(caller.status());
    const grpc::StatusCode code = refused ? static_cast<grpc::StatusCode>(caller.status().code())
                                          : grpc::StatusCode::UNAVAILABLE;
    verdict.refuse_status = HttpStatusOf(code);
    verdict.refusal =
        ErrorJson(code, refused ? std::string(caller.status().message()) : kUnverifiableMessage);
    return verdict;
  };
}

HttpServer::Handler JsonGateway(GatewayOptions options) {
  auto opts = std::make_shared<const GatewayOptions>(std::move(options));
  return [opts](const HttpRequest& req, HttpResponse& resp) {
    if (req.path == "/openapi.json") {
      if (req.method != "GET")
        return SendError(resp, grpc::StatusCode::INVALID_ARGUMENT, "use GET");
      resp.Send(200, kJson, opts->openapi_json);
      return;
    }
    if (!absl::StartsWith(req.path, "/v1/") && (req.method == "GET" || req.method == "HEAD") &&
        ServeStatic(opts->console_dir, req, resp)) {
      return;
    }
    const MethodDescriptor* m = absl::StartsWith(req.path, "/v1/") ? Find(req.path) : nullptr;
    if (m == nullptr) {
      return SendError(resp, grpc::StatusCode::NOT_FOUND, "no such method; see /openapi.json");
    }
    if (req.method != "POST") {
      resp.Send(405, kJson, ErrorJson(grpc::StatusCode::INVALID_ARGUMENT, "use POST"),
                {{"Allow", "POST"}});
      return;
    }
    GatewayCall(*opts, *m, req, resp).Run();
  };
}

}  // namespace gnomon::http
