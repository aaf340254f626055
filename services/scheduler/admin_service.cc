#include "services/scheduler/admin_service.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/client/version.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/run_queries.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_answer.h"

namespace gnomon::scheduler {
namespace {

using admin_internal::Actor;
using admin_internal::Object;

// Adapts an absl::Status-returning call to the StatusOr shape Answer expects.
template <typename T>
absl::StatusOr<T> Empty(absl::Status s) {
  RETURN_IF_ERROR(s);
  return T();
}

// "job/12,13,14": the jobs a batch created.
std::string Jobs(const v1::BatchCreateJobsResponse& created) {
  std::vector<int64_t> ids;
  for (const v1::Job& j : created.jobs()) ids.push_back(j.id());
  return absl::StrCat("job/", absl::StrJoin(ids, ","));
}

}  // namespace

std::string AdminService::JobJson(int64_t job_id) {
  // The stored job as the audit records it: not GetJob's answer, which also
  // reads the job's newest run (output only, and two more reads per change).
  absl::StatusOr<v1::Job> j = stores_.jobs->GetJob(job_id);
  return j.ok() ? AuditLog::Json(*j) : "";
}

std::string AdminService::GroupJson(int64_t group_id) {
  absl::StatusOr<v1::Group> g = core_->GetGroup(group_id);
  return g.ok() ? AuditLog::Json(*g) : "";
}

absl::Status AdminService::CheckJobSpec(const Access& a, const v1::Job& job) {
  if (a.AllGroups()) return absl::OkStatus();
  RETURN_IF_ERROR(a.CheckGroup(job.group_id()));
  if (job.child_job_ids().empty()) return absl::OkStatus();
  // One read for all children; a child that does not exist is left to validation.
  ASSIGN_OR_RETURN(std::vector<v1::Job> children,
                   stores_.jobs->GetJobs({job.child_job_ids().begin(), job.child_job_ids().end()}));
  for (const v1::Job& child : children) {
    if (!a.Reaches(child.group_id())) {
      return absl::PermissionDeniedError(absl::StrCat(
          "child_job_ids: job ", child.id(), " is not in a group this credential is granted"));
    }
  }
  return absl::OkStatus();
}

// Each handler: the caller's reach checked on the objects it names (a job
// through Answer's JobRef), then the core.
grpc::Status AdminService::CreateGroup(Ctx* c, const v1::CreateGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->CreateGroup(*r); },
                {r, [o] { return Object("group", o->id()); }, {}});
}
grpc::Status AdminService::GetGroup(Ctx* c, const v1::GetGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::Group> {
    RETURN_IF_ERROR(who.access.CheckGroup(r->group_id()));
    return core_->GetGroup(r->group_id());
  });
}
grpc::Status AdminService::ListGroups(Ctx* c, const v1::ListGroupsRequest*,
                                      v1::ListGroupsResponse* o) {
  return Answer(__func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::ListGroupsResponse> {
    absl::StatusOr<v1::ListGroupsResponse> all = core_->ListGroups();
    if (!all.ok() || who.access.AllGroups()) return all;
    v1::ListGroupsResponse mine;
    for (v1::Group& g : *all->mutable_groups()) {
      if (who.access.Reaches(g.id())) *mine.add_groups() = std::move(g);
    }
    return mine;
  });
}
grpc::Status AdminService::UpdateGroup(Ctx* c, const v1::UpdateGroupRequest* r, v1::Group* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->UpdateGroup(*r); },
                {r, [r] { return Object("group", r->group().id()); },
                 [&] { return GroupJson(r->group().id()); }});
}
grpc::Status AdminService::DeleteGroup(Ctx* c, const v1::DeleteGroupRequest* r,
                                       v1::DeleteGroupResponse* o) {
  return Answer(__func__, c, o,
                [&](const Caller&) {
                  return Empty<v1::DeleteGroupResponse>(core_->DeleteGroup(r->group_id()));
                },
                {r, [r] { return Object("group", r->group_id()); },
                 [&] { return GroupJson(r->group_id()); }});
}
grpc::Status AdminService::RotateGroupToken(Ctx* c, const v1::RotateGroupTokenRequest* r,
                                            v1::Group* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->RotateGroupToken(*r); },
                {r, [r] { return Object("group", r->group_id()); },
                 [&] { return GroupJson(r->group_id()); }});
}
grpc::Status AdminService::CreateJob(Ctx* c, const v1::CreateJobRequest* r, v1::Job* o) {
  return Answer(__func__, c, o,
                [&](const Caller& who) -> absl::StatusOr<v1::Job> {
                  RETURN_IF_ERROR(CheckJobSpec(who.access, r->job()));
                  return core_->CreateJob(*r, Actor(who));
                },
                {r, [o] { return Object("job", o->id()); }, {}});
}
grpc::Status AdminService::BatchCreateJobs(Ctx* c, const v1::BatchCreateJobsRequest* r,
                                           v1::BatchCreateJobsResponse* o) {
  return Answer(__func__, c, o,
                [&](const Caller& who) -> absl::StatusOr<v1::BatchCreateJobsResponse> {
                  for (const v1::CreateJobRequest& one : r->requests()) {
                    RETURN_IF_ERROR(CheckJobSpec(who.access, one.job()));
                  }
                  return core_->BatchCreateJobs(*r, Actor(who));
                },
                {r, [o] { return Jobs(*o); }, {}});
}
grpc::Status AdminService::GetJob(Ctx* c, const v1::GetJobRequest* r, v1::Job* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o, [&](const Caller&) { return core_->GetJob(job.id); }, {}, &job);
}
grpc::Status AdminService::ListJobs(Ctx* c, const v1::ListJobsRequest* r, v1::ListJobsResponse* o) {
  return Answer(__func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::ListJobsResponse> {
    ASSIGN_OR_RETURN(std::vector<int64_t> groups, who.access.ListScope(r->group_id()));
    return core_->ListJobs(*r, groups);
  });
}
grpc::Status AdminService::UpdateJob(Ctx* c, const v1::UpdateJobRequest* r, v1::Job* o) {
  // With id 0, the job of that name in the job's group.
  v1::JobName name;
  name.set_name(r->job().name());
  JobRef job{r->job().id(), r->job().id() == 0 && !name.name().empty() ? &name : nullptr,
             r->job().group_id()};
  return Answer(
      __func__, c, o,
      [&](const Caller& who) -> absl::StatusOr<v1::Job> {
        v1::UpdateJobRequest req = *r;
        req.mutable_job()->set_id(job.id);
        // Where the update would put it too.
        RETURN_IF_ERROR(CheckJobSpec(who.access, req.job()));
        return core_->UpdateJob(req, Actor(who));
      },
      {r, [&] { return Object("job", job.id); }, [&] { return JobJson(job.id); }}, &job);
}
grpc::Status AdminService::DeleteJob(Ctx* c, const v1::DeleteJobRequest* r,
                                     v1::DeleteJobResponse* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o,
      [&](const Caller&) {
        return Empty<v1::DeleteJobResponse>(core_->DeleteJob(job.id, r->purge_runs()));
      },
      {r, [&] { return Object("job", job.id); }, [&] { return JobJson(job.id); }}, &job);
}
grpc::Status AdminService::StartJob(Ctx* c, const v1::StartJobRequest* r, v1::Job* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o, [&](const Caller&) { return core_->StartJob(job.id); },
      {r, [&] { return Object("job", job.id); }, [&] { return JobJson(job.id); }}, &job);
}
grpc::Status AdminService::StopJob(Ctx* c, const v1::StopJobRequest* r, v1::Job* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o, [&](const Caller&) { return core_->StopJob(job.id); },
      {r, [&] { return Object("job", job.id); }, [&] { return JobJson(job.id); }}, &job);
}
grpc::Status AdminService::TriggerJob(Ctx* c, const v1::TriggerJobRequest* r,
                                      v1::TriggerJobResponse* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o,
      [&](const Caller&) {
        v1::TriggerJobRequest req = *r;
        req.set_job_id(job.id);
        return core_->TriggerJob(req);
      },
      {r, [&] { return Object("job", job.id); }, {}}, &job);
}
grpc::Status AdminService::PreviewSchedule(Ctx* c, const v1::PreviewScheduleRequest* r,
                                           v1::PreviewScheduleResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->PreviewSchedule(*r); });
}
grpc::Status AdminService::Backfill(Ctx* c, const v1::BackfillRequest* r, v1::BackfillResponse* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o,
      [&](const Caller&) {
        v1::BackfillRequest req = *r;
        req.set_job_id(job.id);
        return core_->Backfill(req);
      },
      {r, [&] { return Object("job", job.id); }, {}}, &job);
}
grpc::Status AdminService::ListScriptVersions(Ctx* c, const v1::ListScriptVersionsRequest* r,
                                              v1::ListScriptVersionsResponse* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o,
      [&](const Caller&) {
        v1::ListScriptVersionsRequest req = *r;
        req.set_job_id(job.id);
        return core_->ListScriptVersions(req);
      },
      {}, &job);
}
grpc::Status AdminService::GetScriptVersion(Ctx* c, const v1::GetScriptVersionRequest* r,
                                            v1::ScriptVersion* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o,
      [&](const Caller&) {
        v1::GetScriptVersionRequest req = *r;
        req.set_job_id(job.id);
        return core_->GetScriptVersion(req);
      },
      {}, &job);
}
grpc::Status AdminService::RollbackScript(Ctx* c, const v1::RollbackScriptRequest* r, v1::Job* o) {
  JobRef job{r->job_id(), r->has_job_name() ? &r->job_name() : nullptr};
  return Answer(
      __func__, c, o,
      [&](const Caller& who) {
        v1::RollbackScriptRequest req = *r;
        req.set_job_id(job.id);
        return core_->RollbackScript(req, Actor(who));
      },
      {r, [&] { return Object("job", job.id); }, [&] { return JobJson(job.id); }}, &job);
}
grpc::Status AdminService::ListRuns(Ctx* c, const v1::ListRunsRequest* r, v1::ListRunsResponse* o) {
  return Answer(__func__, c, o, [&](const Caller& who) {
    return gnomon::ListRuns(stores_.jobs, stores_.runs, who.access, *r);
  });
}
grpc::Status AdminService::GetRun(Ctx* c, const v1::GetRunRequest* r, v1::GetRunResponse* o) {
  return Answer(__func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::GetRunResponse> {
    // Bad input is named as such before any run is looked up, whoever asks.
    RETURN_IF_ERROR(ValidateGetRunRequest(*r));
    RETURN_IF_ERROR(CheckRunAccess(stores_.runs, who.access, r->run_id()));
    return GetRunWithLog(stores_.runs, *r);
  });
}
grpc::Status AdminService::KillRun(Ctx* c, const v1::KillRunRequest* r, v1::KillRunResponse* o) {
  return Answer(__func__, c, o,
                [&](const Caller& who) -> absl::StatusOr<v1::KillRunResponse> {
                  RETURN_IF_ERROR(checks::CheckRange("run_id", r->run_id(), 1, INT64_MAX));
                  RETURN_IF_ERROR(CheckRunAccess(stores_.runs, who.access, r->run_id()));
                  return core_->KillRun(r->run_id());
                },
                {r, [r] { return Object("run", r->run_id()); }, {}});
}

grpc::Status AdminService::ListAudit(Ctx* c, const v1::ListAuditRequest* r,
                                     v1::ListAuditResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) -> absl::StatusOr<v1::ListAuditResponse> {
    RETURN_IF_ERROR(checks::FirstError(
        {checks::CheckString("object", r->object(), 255, checks::Charset::kToken),
         checks::CheckRange("page_size", r->page_size(), 0, 1000)}));
    ASSIGN_OR_RETURN(int64_t before, checks::ParsePageToken("page_token", r->page_token()));
    const int want = r->page_size() == 0 ? 100 : r->page_size();
    // One extra entry tells whether another page exists.
    ASSIGN_OR_RETURN(std::vector<v1::AuditEntry> entries,
                     stores_.audit->ListAudit(r->object(), before, want + 1));
    v1::ListAuditResponse resp;
    for (int i = 0; i < static_cast<int>(entries.size()) && i < want; ++i) {
      *resp.add_entries() = std::move(entries[i]);
    }
    if (static_cast<int>(entries.size()) > want)
      resp.set_next_page_token(absl::StrCat(resp.entries(want - 1).id()));
    return resp;
  });
}

grpc::Status AdminService::CreateToken(Ctx* c, const v1::CreateTokenRequest* r,
                                       v1::CreateTokenResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->CreateToken(*r); },
                {r, [r] { return absl::StrCat("token/", r->name()); }, {}});
}
grpc::Status AdminService::ListTokens(Ctx* c, const v1::ListTokensRequest*,
                                      v1::ListTokensResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->ListTokens(); });
}
grpc::Status AdminService::RevokeToken(Ctx* c, const v1::RevokeTokenRequest* r, v1::ApiToken* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->RevokeToken(*r); },
                {r, [r] { return absl::StrCat("token/", r->name()); }, {}});
}

grpc::Status AdminService::CreateUser(Ctx* c, const v1::CreateUserRequest* r, v1::User* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->CreateUser(*r); },
                {r, [r] { return absl::StrCat("user/", r->user().name()); }, {}});
}
grpc::Status AdminService::ListUsers(Ctx* c, const v1::ListUsersRequest*,
                                     v1::ListUsersResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) { return core_->ListUsers(); });
}
grpc::Status AdminService::UpdateUser(Ctx* c, const v1::UpdateUserRequest* r, v1::User* o) {
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::User> {
                  absl::StatusOr<v1::User> u = core_->UpdateUser(*r);
                  // A new password ended the user's sessions (the store revoked them).
                  if (u.ok() && !r->password().empty()) auth_->ForgetUser(r->user().name());
                  return u;
                },
                {r, [r] { return absl::StrCat("user/", r->user().name()); },
                 [&] { return UserJson(r->user().name()); }});
}
grpc::Status AdminService::DeleteUser(Ctx* c, const v1::DeleteUserRequest* r,
                                      v1::DeleteUserResponse* o) {
  return Answer(
      __func__, c, o,
      [&](const Caller&) {
        absl::Status deleted = core_->DeleteUser(r->name());
        if (deleted.ok()) auth_->ForgetUser(r->name());  // Its sessions were revoked.
        return Empty<v1::DeleteUserResponse>(deleted);
      },
      {r, [r] { return absl::StrCat("user/", r->name()); }, [&] { return UserJson(r->name()); }});
}
grpc::Status AdminService::Login(Ctx* c, const v1::LoginRequest* r, v1::CreateTokenResponse* o) {
  return Answer(__func__, c, o, [&](const Caller& who) { return core_->Login(who.user, *r); },
                {r, [&] { return absl::StrCat("token/", o->token().name()); }, {}});
}

grpc::Status AdminService::Logout(Ctx* c, const v1::LogoutRequest* r, v1::LogoutResponse* o) {
  std::string ended;  // The session's token name, for the audit record.
  return Answer(
      __func__, c, o,
      [&](const Caller& who) -> absl::StatusOr<v1::LogoutResponse> {
        ASSIGN_OR_RETURN(ended, core_->Logout(who.credential, who.user));
        auth_->Forget(who);  // This replica refuses it at once; others within their cache.
        return v1::LogoutResponse();
      },
      {r, [&] { return absl::StrCat("token/", ended); }, {}});
}

grpc::Status AdminService::WhoAmI(Ctx* c, const v1::WhoAmIRequest*, v1::WhoAmIResponse* o) {
  return Answer(__func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::WhoAmIResponse> {
    v1::WhoAmIResponse me;
    me.set_role(who.access.role);
    if (!who.access.IsAdmin()) *me.mutable_grants() = who.access.grants;
    me.set_user(who.user);
    me.set_server_version(gnomon::Version());
    me.set_server_revision(gnomon::Revision());
    return me;
  });
}

grpc::Status AdminService::ListExecutors(Ctx* c, const v1::ListExecutorsRequest* r,
                                         v1::ListExecutorsResponse* o) {
  return Answer(
      __func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::ListExecutorsResponse> {
        RETURN_IF_ERROR(checks::CheckRange("group_id", r->group_id(), 0, INT64_MAX));
        ASSIGN_OR_RETURN(std::vector<int64_t> groups, who.access.ListScope(r->group_id()));
        absl::StatusOr<v1::ListExecutorsResponse> resp = core_->ListExecutors(groups);
        if (resp.ok() && r->group_id() != 0 && resp->groups().empty()) {
          return absl::NotFoundError(
              absl::StrCat("group_id: group ", r->group_id(), " does not exist"));
        }
        return resp;
      });
}

std::string AdminService::UserJson(const std::string& name) {
  absl::StatusOr<store::StoredUser> u = stores_.credentials->GetUser(name);
  return u.ok() ? AuditLog::Json(u->user) : "";
}

}  // namespace gnomon::scheduler
