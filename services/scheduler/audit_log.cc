#include "services/scheduler/audit_log.h"

#include <memory>

#include "absl/strings/match.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Clears every secret in `m` and the messages it holds, wherever they
// appear: group tokens (access_token, previous_access_token), a new API
// token's secret, a user's password, an alarm channel's secret; an alarm
// channel's url (its path or query is the robot's token) keeps its origin.
void Redact(Message* m) {
  const Reflection* r = m->GetReflection();
  const bool channel = m->GetDescriptor()->full_name() == "gnomon.v1.AlarmChannel";
  for (int i = 0; i < m->GetDescriptor()->field_count(); ++i) {
    const FieldDescriptor* f = m->GetDescriptor()->field(i);
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING &&
        (absl::EndsWith(f->name(), "access_token") || f->name() == "secret" ||
         f->name() == "password")) {
      r->ClearField(m, f);
    } else if (channel && f->name() == "url" && !r->GetString(*m, f).empty()) {
      r->SetString(m, f, curl::UrlOrigin(r->GetString(*m, f)));
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int k = 0; k < r->FieldSize(*m, f); ++k) Redact(r->MutableRepeatedMessage(m, f, k));
      } else if (r->HasField(*m, f)) {
        Redact(r->MutableMessage(m, f));
      }
    }
  }
}

}  // namespace

std::string AuditLog::Json(const Message& message) {
  std::unique_ptr<Message> copy(message.New());
  copy->CopyFrom(message);
  Redact(copy.get());
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(*copy, &out, options).ok()) return "";
  return out;
}

std::string AuditLog::Actor(std::string_view credential) {
  // "admin:" and 64 hex digits.
  return std::string(credential.rfind("admin:", 0) == 0 ? credential.substr(0, 6 + 16)
                                                        : credential);
}

void AuditLog::Record(std::string_view credential, std::string_view method, std::string object,
                      std::string before_json, const Message& request, const Message& after) {
  v1::AuditEntry e;
  *e.mutable_time() =
      google::protobuf::util::TimeUtil::MillisecondsToTimestamp(clock_->NowMillis());
  e.set_actor(Actor(credential));
  e.set_method(std::string(method));
  e.set_object(std::move(object));
  e.set_request_json(Json(request));
  e.set_before_json(std::move(before_json));
  e.set_after_json(Json(after));
  if (absl::Status s = store_->AppendAudit(e); !s.ok()) {
    GNOMON_LOG(WARNING) << "audit: " << method << " of " << e.object() << " by " << e.actor()
                        << " was done but not written to the audit log: " << s;
  }
}

}  // namespace gnomon::scheduler
