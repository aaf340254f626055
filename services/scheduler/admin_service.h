// AdminService: the gRPC adapter of gnomon.v1.JobAdmin over AdminCore. Every
// call needs a bearer token whose role allows the method (Login: a user's
// password); after it is authenticated, the call is counted against its
// credential's rate limit (RESOURCE_EXHAUSTED beyond it), and the objects it
// names are checked against the groups the caller reaches (access.h).
// Every change that succeeds is written to the audit log with the object as
// it was before (read once the caller is authorized) and after.
//
// Thread safety: gRPC calls it from many threads; AdminCore is thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_ADMIN_SERVICE_H_
#define GNOMON_SERVICES_SCHEDULER_ADMIN_SERVICE_H_

#include <functional>
#include <string>

#include "gnomon/v1/admin.grpc.pb.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/rate_limiter.h"
#include "services/scheduler/admin_core.h"
#include "services/scheduler/alarm_channel_admin.h"
#include "services/scheduler/audit_log.h"
#include "services/scheduler/calendar_admin.h"
#include "services/scheduler/job_names.h"
#include "services/scheduler/pool_admin.h"
#include "services/scheduler/workflow_admin.h"

namespace gnomon::scheduler {

// For a change made through the API: its request, the object it changes
// ("job/12"; asked after the change, so a creation can name what it created)
// and the object's JSON before (asked before the change; none: "").
struct AdminChange {
  const google::protobuf::Message* request = nullptr;
  std::function<std::string()> object;
  std::function<std::string()> before;
};

class AdminService final : public v1::JobAdmin::Service {
 public:
  // `limiter` may be null (no rate limit); `audit` may be null (no audit
  // log); `workflows`, `calendars`, `alarm_channels` and `pools` may be null
  // (their methods answer UNIMPLEMENTED).
  AdminService(AdminCore* core, Authenticator* auth, RateLimiter* limiter = nullptr,
               AuditLog* audit = nullptr, WorkflowAdmin* workflows = nullptr,
               CalendarAdmin* calendars = nullptr, AlarmChannelAdmin* alarm_channels = nullptr,
               PoolAdmin* pools = nullptr)
      : core_(core),
        auth_(auth),
        stores_(core->stores()),
        limiter_(limiter),
        audit_(audit),
        workflows_(workflows),
        calendars_(calendars),
        alarm_channels_(alarm_channels),
        pools_(pools) {}

  using Ctx = grpc::ServerContext;
  grpc::Status CreateGroup(Ctx*, const v1::CreateGroupRequest*, v1::Group*) override;
  grpc::Status GetGroup(Ctx*, const v1::GetGroupRequest*, v1::Group*) override;
  grpc::Status ListGroups(Ctx*, const v1::ListGroupsRequest*, v1::ListGroupsResponse*) override;
  grpc::Status UpdateGroup(Ctx*, const v1::UpdateGroupRequest*, v1::Group*) override;
  grpc::Status DeleteGroup(Ctx*, const v1::DeleteGroupRequest*, v1::DeleteGroupResponse*) override;
  grpc::Status RotateGroupToken(Ctx*, const v1::RotateGroupTokenRequest*, v1::Group*) override;
  grpc::Status CreateJob(Ctx*, const v1::CreateJobRequest*, v1::Job*) override;
  grpc::Status BatchCreateJobs(Ctx*, const v1::BatchCreateJobsRequest*,
                               v1::BatchCreateJobsResponse*) override;
  grpc::Status GetJob(Ctx*, const v1::GetJobRequest*, v1::Job*) override;
  grpc::Status ListJobs(Ctx*, const v1::ListJobsRequest*, v1::ListJobsResponse*) override;
  grpc::Status UpdateJob(Ctx*, const v1::UpdateJobRequest*, v1::Job*) override;
  grpc::Status DeleteJob(Ctx*, const v1::DeleteJobRequest*, v1::DeleteJobResponse*) override;
  grpc::Status StartJob(Ctx*, const v1::StartJobRequest*, v1::Job*) override;
  grpc::Status StopJob(Ctx*, const v1::StopJobRequest*, v1::Job*) override;
  grpc::Status TriggerJob(Ctx*, const v1::TriggerJobRequest*, v1::TriggerJobResponse*) override;
  grpc::Status PreviewSchedule(Ctx*, const v1::PreviewScheduleRequest*,
                               v1::PreviewScheduleResponse*) override;
  grpc::Status Backfill(Ctx*, const v1::BackfillRequest*, v1::BackfillResponse*) override;
  grpc::Status ListScriptVersions(Ctx*, const v1::ListScriptVersionsRequest*,
                                  v1::ListScriptVersionsResponse*) override;
  grpc::Status GetScriptVersion(Ctx*, const v1::GetScriptVersionRequest*,
                                v1::ScriptVersion*) override;
  grpc::Status RollbackScript(Ctx*, const v1::RollbackScriptRequest*, v1::Job*) override;
  grpc::Status ListRuns(Ctx*, const v1::ListRunsRequest*, v1::ListRunsResponse*) override;
  grpc::Status GetRun(Ctx*, const v1::GetRunRequest*, v1::GetRunResponse*) override;
  grpc::Status KillRun(Ctx*, const v1::KillRunRequest*, v1::KillRunResponse*) override;
  grpc::Status ListAudit(Ctx*, const v1::ListAuditRequest*, v1::ListAuditResponse*) override;
  grpc::Status CreateToken(Ctx*, const v1::CreateTokenRequest*, v1::CreateTokenResponse*) override;
  grpc::Status ListTokens(Ctx*, const v1::ListTokensRequest*, v1::ListTokensResponse*) override;
  grpc::Status RevokeToken(Ctx*, const v1::RevokeTokenRequest*, v1::ApiToken*) override;
  grpc::Status CreateUser(Ctx*, const v1::CreateUserRequest*, v1::User*) override;
  grpc::Status ListUsers(Ctx*, const v1::ListUsersRequest*, v1::ListUsersResponse*) override;
  grpc::Status UpdateUser(Ctx*, const v1::UpdateUserRequest*, v1::User*) override;
  grpc::Status DeleteUser(Ctx*, const v1::DeleteUserRequest*, v1::DeleteUserResponse*) override;
  grpc::Status Login(Ctx*, const v1::LoginRequest*, v1::CreateTokenResponse*) override;
  grpc::Status Logout(Ctx*, const v1::LogoutRequest*, v1::LogoutResponse*) override;
  grpc::Status WhoAmI(Ctx*, const v1::WhoAmIRequest*, v1::WhoAmIResponse*) override;
  grpc::Status ListExecutors(Ctx*, const v1::ListExecutorsRequest*,
                             v1::ListExecutorsResponse*) override;
  // Workflows (admin_workflows.cc).
  grpc::Status CreateWorkflow(Ctx*, const v1::CreateWorkflowRequest*, v1::Workflow*) override;
  grpc::Status GetWorkflow(Ctx*, const v1::GetWorkflowRequest*, v1::Workflow*) override;
  grpc::Status ListWorkflows(Ctx*, const v1::ListWorkflowsRequest*,
                             v1::ListWorkflowsResponse*) override;
  grpc::Status UpdateWorkflow(Ctx*, const v1::UpdateWorkflowRequest*, v1::Workflow*) override;
  grpc::Status DeleteWorkflow(Ctx*, const v1::DeleteWorkflowRequest*,
                              v1::DeleteWorkflowResponse*) override;
  grpc::Status CreateCalendar(Ctx*, const v1::CreateCalendarRequest*, v1::Calendar*) override;
  grpc::Status GetCalendar(Ctx*, const v1::GetCalendarRequest*, v1::Calendar*) override;
  grpc::Status ListCalendars(Ctx*, const v1::ListCalendarsRequest*,
                             v1::ListCalendarsResponse*) override;
  grpc::Status UpdateCalendar(Ctx*, const v1::UpdateCalendarRequest*, v1::Calendar*) override;
  grpc::Status DeleteCalendar(Ctx*, const v1::DeleteCalendarRequest*,
                              v1::DeleteCalendarResponse*) override;
  grpc::Status CreateAlarmChannel(Ctx*, const v1::CreateAlarmChannelRequest*,
                                  v1::AlarmChannel*) override;
  grpc::Status GetAlarmChannel(Ctx*, const v1::GetAlarmChannelRequest*, v1::AlarmChannel*) override;
  grpc::Status ListAlarmChannels(Ctx*, const v1::ListAlarmChannelsRequest*,
                                 v1::ListAlarmChannelsResponse*) override;
  grpc::Status UpdateAlarmChannel(Ctx*, const v1::UpdateAlarmChannelRequest*,
                                  v1::AlarmChannel*) override;
  grpc::Status DeleteAlarmChannel(Ctx*, const v1::DeleteAlarmChannelRequest*,
                                  v1::DeleteAlarmChannelResponse*) override;
  grpc::Status TestAlarmChannel(Ctx*, const v1::TestAlarmChannelRequest*,
                                v1::TestAlarmChannelResponse*) override;
  grpc::Status CreatePool(Ctx*, const v1::CreatePoolRequest*, v1::Pool*) override;
  grpc::Status GetPool(Ctx*, const v1::GetPoolRequest*, v1::Pool*) override;
  grpc::Status ListPools(Ctx*, const v1::ListPoolsRequest*, v1::ListPoolsResponse*) override;
  grpc::Status UpdatePool(Ctx*, const v1::UpdatePoolRequest*, v1::Pool*) override;
  grpc::Status DeletePool(Ctx*, const v1::DeletePoolRequest*, v1::DeletePoolResponse*) override;
  grpc::Status ListPoolQueue(Ctx*, const v1::ListPoolQueueRequest*,
                             v1::ListPoolQueueResponse*) override;
  grpc::Status TriggerWorkflow(Ctx*, const v1::TriggerWorkflowRequest*, v1::WorkflowRun*) override;
  grpc::Status GetWorkflowRun(Ctx*, const v1::GetWorkflowRunRequest*, v1::WorkflowRun*) override;
  grpc::Status ListWorkflowRuns(Ctx*, const v1::ListWorkflowRunsRequest*,
                                v1::ListWorkflowRunsResponse*) override;
  grpc::Status CancelWorkflowRun(Ctx*, const v1::CancelWorkflowRunRequest*,
                                 v1::WorkflowRun*) override;
  grpc::Status RerunWorkflowNode(Ctx*, const v1::WorkflowNodeRequest*, v1::WorkflowRun*) override;
  grpc::Status SkipWorkflowNode(Ctx*, const v1::WorkflowNodeRequest*, v1::WorkflowRun*) override;
  grpc::Status MarkWorkflowNodeSucceeded(Ctx*, const v1::WorkflowNodeRequest*,
                                         v1::WorkflowRun*) override;

 private:
  // Authorizes the call to `method` (the handler's __func__, which is the
  // RPC's name), resolves and checks the caller's reach of `job` if given,
  // runs `fn(caller)` and stores its value in `out`; a `change` that
  // succeeds is audited.
  template <typename T, typename Fn>
  grpc::Status Answer(const char* method, Ctx* ctx, T* out, Fn&& fn, const AdminChange& change = {},
                      JobRef* job = nullptr);
  // The JSON of a job or group now ("" if it cannot be read).
  std::string JobJson(int64_t job_id);
  std::string GroupJson(int64_t group_id);
  std::string UserJson(const std::string& name);
  // A workflow, or a workflow run, as the audit records it ("" if gone).
  std::string WorkflowJson(int64_t workflow_id);
  std::string WorkflowRunJson(int64_t workflow_run_id);
  // A calendar as the audit records it ("" if gone).
  std::string CalendarJson(const std::string& name);
  // UNIMPLEMENTED without a CalendarAdmin.
  absl::Status CheckCalendars() const;
  // An alarm channel as the audit records it (no secret; "" if gone), and
  // UNIMPLEMENTED without an AlarmChannelAdmin.
  std::string AlarmChannelJson(const std::string& name);
  absl::Status CheckAlarmChannels() const;
  // A pool as the audit records it (its configuration; "" if gone), and
  // UNIMPLEMENTED without a PoolAdmin.
  std::string PoolJson(const std::string& name);
  absl::Status CheckPools() const;
  // The workflow methods: UNIMPLEMENTED without a WorkflowAdmin, else
  // PermissionDenied unless the caller reaches `group` (once it is known).
  absl::Status CheckWorkflows() const;
  // An operation on workflow run r->workflow_run_id(): the caller's reach
  // checked, `fn()` answered, the change audited.
  template <typename Request, typename Fn>
  grpc::Status OnWorkflowRun(const char* method, Ctx* c, const Request* r, v1::WorkflowRun* o,
                             Fn&& fn);
  // PermissionDenied unless `a` reaches the job's group and its children's.
  absl::Status CheckJobSpec(const Access& a, const v1::Job& job);

  AdminCore* const core_;
  Authenticator* const auth_;
  const AdminStores stores_;
  RateLimiter* const limiter_;
  AuditLog* const audit_;
  WorkflowAdmin* const workflows_;
  CalendarAdmin* const calendars_;
  AlarmChannelAdmin* const alarm_channels_;
  PoolAdmin* const pools_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_ADMIN_SERVICE_H_
