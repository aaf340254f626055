// AdminService: the pool methods of gnomon.v1.JobAdmin over PoolAdmin.
// Pools belong to no group: any role reads them, and writing one (it
// limits the runs of every job naming it, whatever their group) is an
// administrator's. A pool's queue shows the runs of groups the caller does
// not reach by their place only (id, job, group, status, priority, times).
// Every change is audited as "pool/NAME".
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_answer.h"
#include "services/scheduler/admin_service.h"

namespace gnomon::scheduler {
namespace {

std::function<std::string()> PoolObject(std::string name) {
  return [name = std::move(name)] { return absl::StrCat("pool/", name); };
}

// `run` as a caller that does not reach its group sees it in a queue.
v1::Run PlaceOnly(const v1::Run& run) {
  v1::Run out;
  out.set_id(run.id());
  out.set_job_id(run.job_id());
  out.set_group_id(run.group_id());
  out.set_status(run.status());
  out.set_pool(run.pool());
  out.set_priority(run.priority());
  *out.mutable_queued_time() = run.queued_time();
  *out.mutable_trigger_time() = run.trigger_time();
  return out;
}

void LimitToReach(const Access& access, google::protobuf::RepeatedPtrField<v1::Run>& runs) {
  for (v1::Run& run : runs) {
    if (!access.Reaches(run.group_id())) run = PlaceOnly(run);
  }
}

}  // namespace

absl::Status AdminService::CheckPools() const {
  if (pools_ == nullptr) return absl::UnimplementedError("pools are not served here");
  return absl::OkStatus();
}

std::string AdminService::PoolJson(const std::string& name) {
  if (pools_ == nullptr) return "";
  absl::StatusOr<v1::Pool> p = pools_->Get(name);
  if (!p.ok()) return "";
  // What the audit compares is the pool as configured, not its counts.
  p->clear_running();
  p->clear_queued();
  return AuditLog::Json(*p);
}

grpc::Status AdminService::CreatePool(Ctx* c, const v1::CreatePoolRequest* r, v1::Pool* o) {
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::Pool> {
                  RETURN_IF_ERROR(CheckPools());
                  return pools_->Create(r->pool());
                },
                {r, PoolObject(r->pool().name()), {}});
}

grpc::Status AdminService::GetPool(Ctx* c, const v1::GetPoolRequest* r, v1::Pool* o) {
  return Answer(__func__, c, o, [&](const Caller&) -> absl::StatusOr<v1::Pool> {
    RETURN_IF_ERROR(CheckPools());
    return pools_->Get(r->name());
  });
}

grpc::Status AdminService::ListPools(Ctx* c, const v1::ListPoolsRequest*,
                                     v1::ListPoolsResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) -> absl::StatusOr<v1::ListPoolsResponse> {
    RETURN_IF_ERROR(CheckPools());
    return pools_->List();
  });
}

grpc::Status AdminService::UpdatePool(Ctx* c, const v1::UpdatePoolRequest* r, v1::Pool* o) {
  const std::string name = r->pool().name();
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::Pool> {
                  RETURN_IF_ERROR(CheckPools());
                  return pools_->Update(r->pool());
                },
                {r, PoolObject(name), [this, name] { return PoolJson(name); }});
}

grpc::Status AdminService::DeletePool(Ctx* c, const v1::DeletePoolRequest* r,
                                      v1::DeletePoolResponse* o) {
  const std::string name = r->name();
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::DeletePoolResponse> {
                  RETURN_IF_ERROR(CheckPools());
                  RETURN_IF_ERROR(pools_->Delete(name));
                  return v1::DeletePoolResponse();
                },
                {r, PoolObject(name), [this, name] { return PoolJson(name); }});
}

grpc::Status AdminService::ListPoolQueue(Ctx* c, const v1::ListPoolQueueRequest* r,
                                         v1::ListPoolQueueResponse* o) {
  return Answer(__func__, c, o,
                [&](const Caller& who) -> absl::StatusOr<v1::ListPoolQueueResponse> {
                  RETURN_IF_ERROR(CheckPools());
                  ASSIGN_OR_RETURN(v1::ListPoolQueueResponse out, pools_->Queue(*r));
                  LimitToReach(who.access, *out.mutable_running());
                  LimitToReach(who.access, *out.mutable_queued());
                  return out;
                });
}

}  // namespace gnomon::scheduler
