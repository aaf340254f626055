#include "services/scheduler/admin_service.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/server/field_checks.h"
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

// "job/12": what an audit entry is about.
std::string Object(const char* kind, int64_t id) { return absl::StrCat(kind, "/", id); }

// "job/12,13,14": the jobs a batch created.
std::string Jobs(const v1::BatchCreateJobsResponse& created) {
  std::vector<int64_t> ids;
  for (const v1::Job& j : created.jobs()) ids.push_back(j.id());
  return absl::StrCat("job/", absl::StrJoin(ids, ","));
}

}  // namespace

template <typename T, typename Fn>
grpc::Status AdminService::Answer(const char* method, Ctx* ctx, T* out, Fn&& fn, const AdminChange& change) {
  absl::StatusOr<Caller> caller = auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), method);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (limiter_ != nullptr && !limiter_->Allow(caller->credential)) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        absl::StrCat("rate limit: this credential may make ", limiter_->limit().per_second,
                                     " calls per second (bursts of ", limiter_->limit().burst,
                                     "); retry later"));
  }
  const bool audited = audit_ != nullptr && change.request != nullptr;
  const std::string before = audited && change.before ? change.before() : "";
  absl::StatusOr<T> r = fn();
  if (!r.ok()) return ToGrpcStatus(r.status());
  *out = *std::move(r);
  if (audited) audit_->Record(caller->credential, method, change.object(), before, *change.request, *out);
  return grpc::Status::OK;
}

std::string AdminService::JobJson(int64_t job_id) {
  absl::StatusOr<v1::Job> j = core_->GetJob(job_id);
  return j.ok() ? AuditLog::Json(*j) : "";
}

std::string AdminService::GroupJson(int64_t group_id) {
  absl::StatusOr<v1::Group> g = core_->GetGroup(group_id);
  return g.ok() ? AuditLog::Json(*g) : "";
}

grpc::Status AdminService::CreateGroup(Ctx* c, const v1::CreateGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->CreateGroup(*r); },
                {r, [o] { return Object("group", o->id()); }, {}});
}
grpc::Status AdminService::GetGroup(Ctx* c, const v1::GetGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->GetGroup(r->group_id()); });
}
grpc::Status AdminService::ListGroups(Ctx* c, const v1::ListGroupsRequest*, v1::ListGroupsResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->ListGroups(); });
}
grpc::Status AdminService::UpdateGroup(Ctx* c, const v1::UpdateGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->UpdateGroup(*r); },
                {r, [r] { return Object("group", r->group().id()); },
                [&] { return GroupJson(r->group().id()); }});
}
grpc::Status AdminService::DeleteGroup(Ctx* c, const v1::DeleteGroupRequest* r, v1::DeleteGroupResponse* o) {
  return Answer(__func__, c, o, [&] { return Empty<v1::DeleteGroupResponse>(core_->DeleteGroup(r->group_id())); },
                {r, [r] { return Object("group", r->group_id()); },
                [&] { return GroupJson(r->group_id()); }});
}
grpc::Status AdminService::RotateGroupToken(Ctx* c, const v1::RotateGroupTokenRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&] { return core_->RotateGroupToken(*r); },
                {r, [r] { return Object("group", r->group_id()); },
                [&] { return GroupJson(r->group_id()); }});
}
grpc::Status AdminService::CreateJob(Ctx* c, const v1::CreateJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->CreateJob(*r); },
                {r, [o] { return Object("job", o->id()); }, {}});
}
grpc::Status AdminService::BatchCreateJobs(Ctx* c, const v1::BatchCreateJobsRequest* r,
                                           v1::BatchCreateJobsResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->BatchCreateJobs(*r); },
                {r, [o] { return Jobs(*o); }, {}});
}
grpc::Status AdminService::GetJob(Ctx* c, const v1::GetJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->GetJob(r->job_id()); });
}
grpc::Status AdminService::ListJobs(Ctx* c, const v1::ListJobsRequest* r, v1::ListJobsResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->ListJobs(*r); });
}
grpc::Status AdminService::UpdateJob(Ctx* c, const v1::UpdateJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->UpdateJob(*r); },
                {r, [r] { return Object("job", r->job().id()); }, [&] { return JobJson(r->job().id()); }});
}
grpc::Status AdminService::DeleteJob(Ctx* c, const v1::DeleteJobRequest* r, v1::DeleteJobResponse* o) {
  return Answer(__func__, c, o, [&] { return Empty<v1::DeleteJobResponse>(core_->DeleteJob(r->job_id())); },
                {r, [r] { return Object("job", r->job_id()); }, [&] { return JobJson(r->job_id()); }});
}
grpc::Status AdminService::StartJob(Ctx* c, const v1::StartJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->StartJob(r->job_id()); },
                {r, [r] { return Object("job", r->job_id()); }, [&] { return JobJson(r->job_id()); }});
}
grpc::Status AdminService::StopJob(Ctx* c, const v1::StopJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o, [&] { return core_->StopJob(r->job_id()); },
                {r, [r] { return Object("job", r->job_id()); }, [&] { return JobJson(r->job_id()); }});
}
grpc::Status AdminService::TriggerJob(Ctx* c, const v1::TriggerJobRequest* r, v1::TriggerJobResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->TriggerJob(*r); },
                {r, [r] { return Object("job", r->job_id()); }, {}});
}
grpc::Status AdminService::PreviewSchedule(Ctx* c, const v1::PreviewScheduleRequest* r,
                                           v1::PreviewScheduleResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->PreviewSchedule(*r); });
}
grpc::Status AdminService::Backfill(Ctx* c, const v1::BackfillRequest* r, v1::BackfillResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->Backfill(*r); },
                {r, [r] { return Object("job", r->job_id()); }, {}});
}
grpc::Status AdminService::ListRuns(Ctx* c, const v1::ListRunsRequest* r, v1::ListRunsResponse* o) {
  return Answer(__func__, c, o, [&] { return gnomon::ListRuns(store_, *r); });
}
grpc::Status AdminService::GetRun(Ctx* c, const v1::GetRunRequest* r, v1::GetRunResponse* o) {
  return Answer(__func__, c, o, [&] { return GetRunWithLog(store_, *r); });
}
grpc::Status AdminService::KillRun(Ctx* c, const v1::KillRunRequest* r, v1::KillRunResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->KillRun(r->run_id()); },
                {r, [r] { return Object("run", r->run_id()); }, {}});
}

grpc::Status AdminService::ListAudit(Ctx* c, const v1::ListAuditRequest* r, v1::ListAuditResponse* o) {
  return Answer(__func__, c, o, [&]() -> absl::StatusOr<v1::ListAuditResponse> {
    if (absl::Status s = checks::FirstError({checks::CheckString("object", r->object(), 255, checks::Charset::kToken),
                                             checks::CheckRange("page_size", r->page_size(), 0, 1000)});
        !s.ok()) {
      return s;
    }
    absl::StatusOr<int64_t> before = checks::ParsePageToken("page_token", r->page_token());
    if (!before.ok()) return before.status();
    const int want = r->page_size() == 0 ? 100 : r->page_size();
    // One extra entry tells whether another page exists.
    absl::StatusOr<std::vector<v1::AuditEntry>> entries = store_->ListAudit(r->object(), *before, want + 1);
    if (!entries.ok()) return entries.status();
    v1::ListAuditResponse resp;
    for (int i = 0; i < static_cast<int>(entries->size()) && i < want; ++i) {
      *resp.add_entries() = std::move((*entries)[i]);
    }
    if (static_cast<int>(entries->size()) > want) resp.set_next_page_token(absl::StrCat(resp.entries(want - 1).id()));
    return resp;
  });
}

grpc::Status AdminService::CreateToken(Ctx* c, const v1::CreateTokenRequest* r, v1::CreateTokenResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->CreateToken(*r); },
                {r, [r] { return absl::StrCat("token/", r->name()); }, {}});
}
grpc::Status AdminService::ListTokens(Ctx* c, const v1::ListTokensRequest*, v1::ListTokensResponse* o) {
  return Answer(__func__, c, o, [&] { return core_->ListTokens(); });
}
grpc::Status AdminService::RevokeToken(Ctx* c, const v1::RevokeTokenRequest* r, v1::ApiToken* o) {
  return Answer(__func__, c, o, [&] { return core_->RevokeToken(*r); },
                {r, [r] { return absl::StrCat("token/", r->name()); }, {}});
}

}  // namespace gnomon::scheduler
