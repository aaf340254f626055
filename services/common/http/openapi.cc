#include "services/common/http/openapi.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/log.pb.h"
#include "gnomon/v1/registry.pb.h"
#include "google/protobuf/descriptor.pb.h"
#include "proto/docs/commented_descriptors.h"
#include "services/common/http/json_tree.h"

namespace gnomon::http {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::MethodDescriptor;
using google::protobuf::ServiceDescriptor;
using google::protobuf::Value;

using json::Append;
using json::Arr;
using json::Bool;
using json::Num;
using json::Obj;
using json::Set;
using json::Str;

Value Ref(const std::string& schema) {
  return Obj({{"$ref", Str("#/components/schemas/" + schema)}});
}

// The commented descriptors (proto/docs/commented_descriptors.h), as a
// pool; null if they cannot be read (the document then has no comments).
const google::protobuf::DescriptorPool* CommentedPool() {
  static const google::protobuf::DescriptorPool* pool =
      []() -> const google::protobuf::DescriptorPool* {
    google::protobuf::FileDescriptorSet set;
    if (!set.ParseFromString(std::string(proto::CommentedDescriptorSet()))) return nullptr;
    auto* p = new google::protobuf::DescriptorPool();
    for (const google::protobuf::FileDescriptorProto& file : set.file()) {
      if (p->BuildFile(file) == nullptr) return nullptr;  // Leaked once: a static's value.
    }
    return p;
  }();
  return pool;
}

// The same descriptor in the commented pool, found by its full name.
const google::protobuf::Descriptor* Commented(const google::protobuf::DescriptorPool& p,
                                              const Descriptor& d) {
  return p.FindMessageTypeByName(d.full_name());
}
const google::protobuf::FieldDescriptor* Commented(const google::protobuf::DescriptorPool& p,
                                                   const FieldDescriptor& d) {
  return p.FindFieldByName(d.full_name());
}
const google::protobuf::MethodDescriptor* Commented(const google::protobuf::DescriptorPool& p,
                                                    const MethodDescriptor& d) {
  return p.FindMethodByName(d.full_name());
}
const google::protobuf::ServiceDescriptor* Commented(const google::protobuf::DescriptorPool& p,
                                                     const google::protobuf::ServiceDescriptor& d) {
  return p.FindServiceByName(d.full_name());
}

// The proto comment of a descriptor (its leading comment, as written in
// proto/gnomon/v1), from the commented pool; "" if it has none.
template <typename D>
std::string Comment(const D& d) {
  const google::protobuf::DescriptorPool* pool = CommentedPool();
  const auto* commented = pool == nullptr ? nullptr : Commented(*pool, d);
  google::protobuf::SourceLocation loc;
  if (commented == nullptr || !commented->GetSourceLocation(&loc)) return "";
  // Each comment line starts with the space after "//"; the lines are kept
  // (CommonMark reads them as one paragraph, and keeps lists and blank lines).
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(loc.leading_comments, '\n')) {
    absl::ConsumePrefix(&line, " ");
    lines.emplace_back(absl::StripTrailingAsciiWhitespace(line));
  }
  return std::string(absl::StripAsciiWhitespace(absl::StrJoin(lines, "\n")));
}

constexpr char kInt64Note[] =
    "64-bit integer, printed as a decimal string; numbers are accepted on input.";

// The gRPC codes an error body may carry (never OK).
constexpr const char* kErrorCodes[] = {
    "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",   "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
    "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",         "DATA_LOSS",
    "UNAUTHENTICATED"};

constexpr char kErrorDescription[] =
    "An error: the gRPC status code name and message. HTTP status by code: INVALID_ARGUMENT, "
    "FAILED_PRECONDITION, OUT_OF_RANGE 400; UNAUTHENTICATED 401; PERMISSION_DENIED 403; NOT_FOUND "
    "404; "
    "ALREADY_EXISTS, ABORTED 409; RESOURCE_EXHAUSTED 429; CANCELLED 499; UNIMPLEMENTED 501; "
    "UNAVAILABLE 503; DEADLINE_EXCEEDED 504; any other 500.";

// Collects components/schemas: one per message reached from the documented
// methods, keyed by full name. The visited set stops recursive messages.
class SchemaCollector {
 public:
  // The schema of a value of message type `m`: a well-known type inline (as
  // protobuf's JSON mapping prints it), any other a $ref (collecting it).
  Value TypeSchema(const Descriptor& m) {
    if (auto wkt = WellKnown(m)) return *std::move(wkt);
    Collect(m);
    return Ref(m.full_name());
  }

  std::map<std::string, Value>& schemas() { return schemas_; }

 private:
  std::optional<Value> WellKnown(const Descriptor& m) {
    const std::string& n = m.full_name();
    if (n == "google.protobuf.Timestamp") {
      return Obj({{"type", Str("string")},
                  {"format", Str("date-time")},
                  {"description", Str("RFC 3339, e.g. 2024-01-02T03:04:05.5Z.")}});
    }
    if (n == "google.protobuf.Duration") {
      return Obj({{"type", Str("string")},
                  {"pattern", Str("^-?[0-9]+(\\.[0-9]+)?s$")},
                  {"description", Str("Seconds with an s suffix, e.g. 1.5s.")}});
    }
    if (n == "google.protobuf.FieldMask") {
      return Obj({{"type", Str("string")},
                  {"description", Str("Comma-separated lowerCamel field paths.")}});
    }
    if (n == "google.protobuf.Empty" || n == "google.protobuf.Struct" ||
        n == "google.protobuf.Any") {
      return Obj({{"type", Str("object")}});
    }
    if (n == "google.protobuf.Value") return Obj({});  // Any JSON value.
    if (n == "google.protobuf.ListValue") return Obj({{"type", Str("array")}, {"items", Obj({})}});
    // Wrappers (Int64Value, StringValue, ...) print as the value they wrap.
    if (m.file()->name() == "google/protobuf/wrappers.proto" && m.field_count() == 1) {
      return ValueSchema(*m.field(0));
    }
    return std::nullopt;
  }

  void Collect(const Descriptor& m) {
    if (!visited_.insert(m.full_name()).second) return;
    Value schema = Obj({{"type", Str("object")}});
    if (std::string c = Comment(m); !c.empty()) Set(schema, "description", Str(c));
    Value properties = Obj({});
    for (int i = 0; i < m.field_count(); ++i) {
      const FieldDescriptor& f = *m.field(i);
      Set(properties, f.json_name(), FieldSchema(f));
    }
    Set(schema, "properties", std::move(properties));
    schemas_[m.full_name()] = std::move(schema);
  }

  // A field's schema: its value's, in an array if repeated, an object if a map;
  // with the field's comment and its oneof, if any.
  Value FieldSchema(const FieldDescriptor& f) {
    Value schema;
    if (f.is_map()) {
      schema = Obj({{"type", Str("object")},
                    {"additionalProperties", ValueSchema(*f.message_type()->map_value())}});
    } else if (f.is_repeated()) {
      schema = Obj({{"type", Str("array")}, {"items", ValueSchema(f)}});
    } else {
      schema = ValueSchema(f);
    }
    std::string description = Comment(f);
    if (const auto* oneof = f.real_containing_oneof()) {
      std::vector<std::string> names;
      for (int i = 0; i < oneof->field_count(); ++i) names.push_back(oneof->field(i)->json_name());
      absl::StrAppend(&description, description.empty() ? "" : " ", "At most one of oneof ",
                      oneof->name(), ": ", absl::StrJoin(names, ", "), ".");
    }
    if (description.empty()) return schema;
    // A $ref takes no siblings in OpenAPI 3.0: wrap it to add a description.
    if (schema.struct_value().fields().count("$ref") > 0) schema = Obj({{"allOf", Arr({schema})}});
    const auto& fields = schema.struct_value().fields();
    if (auto it = fields.find("description"); it != fields.end()) {
      description = absl::StrCat(description, " ", it->second.string_value());
    }
    Set(schema, "description", Str(description));
    return schema;
  }

  // The schema of one value of a field (an element, if repeated).
  Value ValueSchema(const FieldDescriptor& f) {
    switch (f.type()) {
      case FieldDescriptor::TYPE_INT32:
      case FieldDescriptor::TYPE_SINT32:
      case FieldDescriptor::TYPE_SFIXED32:
        return Obj({{"type", Str("integer")}, {"format", Str("int32")}});
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_FIXED32:
        return Obj({{"type", Str("integer")}, {"format", Str("int32")}, {"minimum", Num(0)}});
      case FieldDescriptor::TYPE_INT64:
      case FieldDescriptor::TYPE_SINT64:
      case FieldDescriptor::TYPE_SFIXED64:
      case FieldDescriptor::TYPE_UINT64:
      case FieldDescriptor::TYPE_FIXED64:
        return Obj(
            {{"type", Str("string")}, {"format", Str("int64")}, {"description", Str(kInt64Note)}});
      case FieldDescriptor::TYPE_FLOAT:
        return Obj({{"type", Str("number")}, {"format", Str("float")}});
      case FieldDescriptor::TYPE_DOUBLE:
        return Obj({{"type", Str("number")}, {"format", Str("double")}});
      case FieldDescriptor::TYPE_BOOL:
        return Obj({{"type", Str("boolean")}});
      case FieldDescriptor::TYPE_STRING:
        return Obj({{"type", Str("string")}});
      case FieldDescriptor::TYPE_BYTES:
        return Obj({{"type", Str("string")}, {"format", Str("byte")}});
      case FieldDescriptor::TYPE_ENUM:
        return EnumSchema(*f.enum_type());
      case FieldDescriptor::TYPE_MESSAGE:
      case FieldDescriptor::TYPE_GROUP:
        return TypeSchema(*f.message_type());
    }
    return Obj({});
  }

  static Value EnumSchema(const EnumDescriptor& e) {
    Value names = Arr({});
    for (int i = 0; i < e.value_count(); ++i) Append(names, Str(e.value(i)->name()));
    return Obj({{"type", Str("string")}, {"enum", std::move(names)}});
  }

  std::set<std::string> visited_;
  std::map<std::string, Value> schemas_;
};

Value JsonContent(Value schema) {
  return Obj({{"application/json", Obj({{"schema", std::move(schema)}})}});
}

Value Operation(const MethodDescriptor& method, SchemaCollector& schemas) {
  const std::string& service = method.service()->name();
  std::string description = Comment(method);
  if (description.empty())
    description = absl::StrCat(service, ".", method.name(), " over HTTP/JSON.");
  Value ok;
  if (method.server_streaming()) {
    const std::string& message = method.output_type()->full_name();
    absl::StrAppend(&description,
                    "\n\nThe reply is a stream of Server-Sent Events: one `data:` event per ",
                    message,
                    " (as JSON), then `event: end` (data `{}`), or `event: error` with data "
                    "`{\"code\": ..., \"message\": ...}` if the call fails once streaming.");
    Value schema = Obj(
        {{"type", Str("string")},
         {"description", Str(absl::StrCat("Server-Sent Events; each data is a ", message, "."))},
         {"x-gnomon-stream-message", schemas.TypeSchema(*method.output_type())}});
    ok = Obj({{"description", Str(absl::StrCat("A stream of ", message, "."))},
              {"content", Obj({{"text/event-stream", Obj({{"schema", std::move(schema)}})}})}});
  } else {
    ok = Obj({{"description", Str(method.output_type()->full_name())},
              {"content", JsonContent(schemas.TypeSchema(*method.output_type()))}});
  }
  // Login trades a user's name and password for a token; every other call takes one.
  const bool login = method.full_name() == "gnomon.v1.JobAdmin.Login";
  return Obj({
      {"operationId", Str(absl::StrCat(service, "_", method.name()))},
      {"tags", Arr({Str(service)})},
      {"summary", Str(absl::StrCat(service, ".", method.name()))},
      {"description", Str(description)},
      {"requestBody",
       Obj({{"description", Str(absl::StrCat(method.input_type()->full_name(),
                                             "; an empty body is the empty message."))},
            {"required", Bool(false)},
            {"content", JsonContent(schemas.TypeSchema(*method.input_type()))}})},
      {"responses", Obj({{"200", ok},
                         {"default", Obj({{"description", Str("An error.")},
                                          {"content", JsonContent(Ref("Error"))}})}})},
      {"security", Arr({Obj({{login ? "basicAuth" : "bearerAuth", Arr({})}})})},
  });
}

// The generated descriptors of a file reach the pool only if its object file
// is linked: name one message of each service's file so that they are.
void LinkGnomonDescriptors() {
  (void)v1::LoginRequest::descriptor();
  (void)v1::StreamRunLogRequest::descriptor();
  (void)v1::WatchExecutorsRequest::descriptor();
}

}  // namespace

std::string HttpPath(const MethodDescriptor& method) {
  return absl::StrCat("/v1/", method.service()->name(), "/", method.name());
}

bool ServedOverHttp(const MethodDescriptor& method) { return !method.client_streaming(); }

std::string OpenApiJson(const std::vector<std::string>& services, std::string_view version) {
  LinkGnomonDescriptors();
  const auto* pool = google::protobuf::DescriptorPool::generated_pool();
  SchemaCollector schemas;
  Value paths = Obj({});
  Value tags = Arr({});
  for (const std::string& name : services) {
    const ServiceDescriptor* service = pool->FindServiceByName(name);
    if (service == nullptr) continue;
    Value tag = Obj({{"name", Str(service->name())}});
    if (std::string c = Comment(*service); !c.empty()) Set(tag, "description", Str(c));
    Append(tags, std::move(tag));
    for (int i = 0; i < service->method_count(); ++i) {
      const MethodDescriptor& method = *service->method(i);
      if (!ServedOverHttp(method)) continue;
      Set(paths, HttpPath(method), Obj({{"post", Operation(method, schemas)}}));
    }
  }

  Value codes = Arr({});
  for (const char* c : kErrorCodes) Append(codes, Str(c));
  Value components_schemas = Obj({});
  for (auto& [name, schema] : schemas.schemas()) Set(components_schemas, name, std::move(schema));
  Set(components_schemas, "Error",
      Obj({{"type", Str("object")},
           {"description", Str(kErrorDescription)},
           {"required", Arr({Str("code"), Str("message")})},
           {"properties", Obj({{"code", Obj({{"type", Str("string")}, {"enum", codes}})},
                               {"message", Obj({{"type", Str("string")}})}})}}));

  Value doc = Obj({
      {"openapi", Str("3.0.3")},
      {"info",
       Obj({{"title", Str("gnomon")},
            {"version", Str(std::string(version))},
            {"description", Str("The HTTP/JSON transport of gnomon's gRPC services: each unary or "
                                "server-streaming method is POST /v1/<Service>/<Method> with the "
                                "request message as JSON (protobuf's JSON mapping).")}})},
      {"tags", tags},
      {"paths", paths},
      {"components",
       Obj({{"schemas", components_schemas},
            {"securitySchemes",
             Obj({{"bearerAuth", Obj({{"type", Str("http")}, {"scheme", Str("bearer")}})},
                  {"basicAuth", Obj({{"type", Str("http")}, {"scheme", Str("basic")}})}})}})},
  });
  return json::PrintSorted(doc);
}

}  // namespace gnomon::http
