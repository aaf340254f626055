#include "services/scheduler/admin_service.h"

#include "absl/strings/str_cat.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/run_queries.h"

namespace gnomon::scheduler {
namespace {

// Adapts an absl::Status-returning call to the StatusOr shape Answer expects.
template <typename T>
absl::StatusOr<T> Empty(absl::Status s) {
  if (!s.ok()) return s;
  return T();
}

}  // namespace

template <typename T, typename Fn>
grpc::Status AdminService::Answer(const char* method, Ctx* ctx, T* out, Fn&& fn) {
  absl::StatusOr<Caller> caller = auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), method);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (limiter_ != nullptr && !limiter_->Allow(caller->credential)) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        absl::StrCat("rate limit: this credential may make ", limiter_->limit().per_second,
                                     " calls per second (bursts of ", limiter_->limit().burst,
                                     "); retry later"));
  }
  absl::StatusOr<T> r = fn();
  if (!r.ok()) return ToGrpcStatus(r.status());
  *out = *std::move(r);
  return grpc::Status::OK;
}

grpc::Status AdminService::CreateGroup(Ctx* c, const v1::CreateGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->CreateGroup(*r); });
}
grpc::Status AdminService::GetGroup(Ctx* c, const v1::GetGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->GetGroup(r->group_id()); });
}
grpc::Status AdminService::ListGroups(Ctx* c, const v1::ListGroupsRequest*, v1::ListGroupsResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->ListGroups(); });
}
grpc::Status AdminService::UpdateGroup(Ctx* c, const v1::UpdateGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->UpdateGroup(*r); });
}
grpc::Status AdminService::DeleteGroup(Ctx* c, const v1::DeleteGroupRequest* r, v1::DeleteGroupResponse* o) {
  return Answer(__func__, c, o, [&] { return Empty<v1::DeleteGroupResponse>(core_->DeleteGroup(r->group_id())); });
}
grpc::Status AdminService::RotateGroupToken(Ctx* c, const v1::RotateGroupTokenRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->RotateGroupToken(*r); });
}
grpc::Status AdminService::CreateJob(Ctx* c, const v1::CreateJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->CreateJob(*r); });
}
grpc::Status AdminService::BatchCreateJobs(Ctx* c, const v1::BatchCreateJobsRequest* r,
                                           v1::BatchCreateJobsResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->BatchCreateJobs(*r); });
}
grpc::Status AdminService::GetJob(Ctx* c, const v1::GetJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->GetJob(r->job_id()); });
}
grpc::Status AdminService::ListJobs(Ctx* c, const v1::ListJobsRequest* r, v1::ListJobsResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->ListJobs(*r); });
}
grpc::Status AdminService::UpdateJob(Ctx* c, const v1::UpdateJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->UpdateJob(*r); });
}
grpc::Status AdminService::DeleteJob(Ctx* c, const v1::DeleteJobRequest* r, v1::DeleteJobResponse* o) {
  return Answer(__func__, c, o, [&] { return Empty<v1::DeleteJobResponse>(core_->DeleteJob(r->job_id())); });
}
grpc::Status AdminService::StartJob(Ctx* c, const v1::StartJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->StartJob(r->job_id()); });
}
grpc::Status AdminService::StopJob(Ctx* c, const v1::StopJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->StopJob(r->job_id()); });
}
grpc::Status AdminService::TriggerJob(Ctx* c, const v1::TriggerJobRequest* r, v1::TriggerJobResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->TriggerJob(*r); });
}
grpc::Status AdminService::PreviewSchedule(Ctx* c, const v1::PreviewScheduleRequest* r,
                                           v1::PreviewScheduleResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->PreviewSchedule(*r); });
}
grpc::Status AdminService::Backfill(Ctx* c, const v1::BackfillRequest* r, v1::BackfillResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->Backfill(*r); });
}
grpc::Status AdminService::ListRuns(Ctx* c, const v1::ListRunsRequest* r, v1::ListRunsResponse* o) {
  return Answer(__func__, c, o, [&] { return gnomon::ListRuns(store_, *r); });
}
grpc::Status AdminService::GetRun(Ctx* c, const v1::GetRunRequest* r, v1::GetRunResponse* o) {
  return Answer(__func__, c, o, [&] { return GetRunWithLog(store_, *r); });
}
grpc::Status AdminService::KillRun(Ctx* c, const v1::KillRunRequest* r, v1::KillRunResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->KillRun(r->run_id()); });
}

}  // namespace gnomon::scheduler
