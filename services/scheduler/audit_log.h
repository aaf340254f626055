// AuditLog: writes an entry for every change made through the admin API —
// who (the credential, never the token), when, which call, the object, and
// the request, the object before and the answer as JSON with every token
// removed. Entries are written after the change is stored; a failure to
// write one is logged (the change stands) and counted nowhere else.
//
//   AuditLog audit(store, &RealClock());
//   audit.Record("admin:1f2e...", "UpdateJob", "job/12", before_json, request, job);
//
// Thread safety: thread-safe (the store is).
#ifndef GNOMON_SERVICES_SCHEDULER_AUDIT_LOG_H_
#define GNOMON_SERVICES_SCHEDULER_AUDIT_LOG_H_

#include <string>
#include <string_view>

#include "google/protobuf/message.h"
#include "services/common/client/clock.h"
#include "services/common/store/audit_store.h"

namespace gnomon::scheduler {

class AuditLog {
 public:
  AuditLog(store::AuditStore* store, Clock* clock) : store_(store), clock_(clock) {}

  // `credential` as Caller.credential ("admin:<digest>" is shortened).
  void Record(std::string_view credential, std::string_view method, std::string object,
              std::string before_json, const google::protobuf::Message& request,
              const google::protobuf::Message& after);

  // How an entry names the caller whose credential is `credential`
  // (Caller.credential, or "user:<name>"): "admin:<digest>" is shortened
  // to its first 16 digits, which name the token well enough.
  static std::string Actor(std::string_view credential);

  // `message` as JSON (protobuf's mapping) without its tokens.
  static std::string Json(const google::protobuf::Message& message);

 private:
  store::AuditStore* const store_;
  Clock* const clock_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_AUDIT_LOG_H_
