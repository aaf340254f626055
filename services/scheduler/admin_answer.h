// The body of AdminService::Answer and the audit helpers, shared by the
// files that define AdminService's handlers (admin_service.cc,
// admin_workflows.cc). Include only there.
//
// Thread safety: as AdminService.
#ifndef GNOMON_SERVICES_SCHEDULER_ADMIN_ANSWER_H_
#define GNOMON_SERVICES_SCHEDULER_ADMIN_ANSWER_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/server/grpc_status.h"
#include "services/scheduler/admin_service.h"

namespace gnomon::scheduler {
namespace admin_internal {

// "job/12": what an audit entry is about.
inline std::string Object(const char* kind, int64_t id) { return absl::StrCat(kind, "/", id); }

// Who the caller is in the audit log and on script versions.
inline std::string Actor(const Caller& caller) {
  return AuditLog::Actor(caller.user.empty() ? caller.credential : "user:" + caller.user);
}

}  // namespace admin_internal

template <typename T, typename Fn>
grpc::Status AdminService::Answer(const char* method, Ctx* ctx, T* out, Fn&& fn,
                                  const AdminChange& change, JobRef* job) {
  absl::StatusOr<Caller> caller = auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), method);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (limiter_ != nullptr && !limiter_->Allow(caller->credential))
    return ToGrpcStatus(RateLimitedError(limiter_->limit()));
  if (job != nullptr) {
    if (absl::Status s = ResolveJob(stores_.jobs, caller->access, *job); !s.ok())
      return ToGrpcStatus(s);
  }
  const bool audited = audit_ != nullptr && change.request != nullptr;
  const std::string before = audited && change.before ? change.before() : "";
  absl::StatusOr<T> r = fn(static_cast<const Caller&>(*caller));
  if (!r.ok()) return ToGrpcStatus(r.status());
  *out = *std::move(r);
  if (audited) {
    audit_->Record(admin_internal::Actor(*caller), method, change.object(), before, *change.request,
                   *out);
  }
  return grpc::Status::OK;
}

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_ADMIN_ANSWER_H_
