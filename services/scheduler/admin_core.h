// AdminCore: the logic behind gnomon.v1.JobAdmin — groups, jobs, triggers,
// previews and run queries — with validation. The gRPC adapter
// (admin_service.h) only authenticates and converts statuses.
//
//   AdminCore admin({store, store, store, store}, &trigger, &targets, &loop,
//                   &executors, &RealClock(), JobLimits{});
//   absl::StatusOr<v1::Job> job = admin.CreateJob(request);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_ADMIN_CORE_H_
#define GNOMON_SERVICES_SCHEDULER_ADMIN_CORE_H_

#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "services/common/client/clock.h"
#include "services/common/store/alarm_channel_store.h"
#include "services/common/store/audit_store.h"
#include "services/common/store/calendar_store.h"
#include "services/common/store/credential_store.h"
#include "services/common/store/job_store.h"
#include "services/common/store/pool_store.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/executor_client.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/group_targets.h"
#include "services/scheduler/job_validation.h"
#include "services/scheduler/schedule_loop.h"

namespace gnomon::scheduler {

// The parts of the store the admin API reads and writes (a Store is all of them).
struct AdminStores {
  store::JobStore* jobs = nullptr;                // Groups, jobs and script versions.
  store::RunStore* runs = nullptr;                // Runs and their logs.
  store::CredentialStore* credentials = nullptr;  // API tokens and users.
  store::AuditStore* audit = nullptr;             // The audit log (AdminService reads it).
  // Calendars jobs name; null: a job naming one is refused (UNIMPLEMENTED).
  store::CalendarStore* calendars = nullptr;
  // Alarm channels jobs name; null: a job naming one is refused (UNIMPLEMENTED).
  store::AlarmChannelStore* alarm_channels = nullptr;
  // Pools jobs name; null: a job naming one is refused (UNIMPLEMENTED).
  store::PoolStore* pools = nullptr;
};

class AdminCore {
 public:
  // `sink` takes triggers and backfills; `targets` is told when a group
  // changes (it caches groups).
  // `token_grace`: how long a rotated group token is still accepted when a
  // rotation does not say.
  AdminCore(AdminStores stores, FireSink* sink, GroupTargets* targets, ScheduleLoop* loop,
            ExecutorClient* executors, Clock* clock, JobLimits limits,
            absl::Duration token_grace = absl::Hours(1))
      : stores_(stores),
        sink_(sink),
        targets_(targets),
        loop_(loop),
        executors_(executors),
        clock_(clock),
        limits_(limits),
        token_grace_(token_grace) {}

  // The store interfaces it was given (the gRPC adapter reads through them too).
  const AdminStores& stores() const { return stores_; }

  absl::StatusOr<v1::Group> CreateGroup(const v1::CreateGroupRequest& req);
  absl::StatusOr<v1::Group> GetGroup(int64_t group_id);
  absl::StatusOr<v1::ListGroupsResponse> ListGroups();
  absl::StatusOr<v1::Group> UpdateGroup(const v1::UpdateGroupRequest& req);
  absl::Status DeleteGroup(int64_t group_id);
  // A new token, returned this once; the replaced one stays accepted for
  // the request's grace (else token_grace), so running executors keep
  // working until they are restarted with the new one.
  absl::StatusOr<v1::Group> RotateGroupToken(const v1::RotateGroupTokenRequest& req);

  // `author`: who asks, as the audit log names the caller; stored with the
  // script version a script job's create or edit makes (Store::CreateJob).
  absl::StatusOr<v1::Job> CreateJob(const v1::CreateJobRequest& req, std::string_view author = {});
  absl::StatusOr<v1::BatchCreateJobsResponse> BatchCreateJobs(const v1::BatchCreateJobsRequest& req,
                                                              std::string_view author = {});
  absl::StatusOr<v1::Job> GetJob(int64_t job_id);
  // Limited to `groups` (empty: any), which take the place of req.group_id.
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& req,
                                                const std::vector<int64_t>& groups);
  absl::StatusOr<v1::Job> UpdateJob(const v1::UpdateJobRequest& req, std::string_view author = {});
  absl::Status DeleteJob(int64_t job_id, bool purge_runs);
  absl::StatusOr<v1::Job> StartJob(int64_t job_id);
  absl::StatusOr<v1::Job> StopJob(int64_t job_id);
  absl::StatusOr<v1::TriggerJobResponse> TriggerJob(const v1::TriggerJobRequest& req);
  absl::StatusOr<v1::PreviewScheduleResponse> PreviewSchedule(
      const v1::PreviewScheduleRequest& req);
  absl::StatusOr<v1::BackfillResponse> Backfill(const v1::BackfillRequest& req);
  absl::StatusOr<v1::KillRunResponse> KillRun(int64_t run_id);
  // Script versions (admin_scripts.cc).
  absl::StatusOr<v1::ListScriptVersionsResponse> ListScriptVersions(
      const v1::ListScriptVersionsRequest& req);
  absl::StatusOr<v1::ScriptVersion> GetScriptVersion(const v1::GetScriptVersionRequest& req);
  absl::StatusOr<v1::Job> RollbackScript(const v1::RollbackScriptRequest& req,
                                         std::string_view author);
  // The executors of `groups` (empty: every group), by group id.
  absl::StatusOr<v1::ListExecutorsResponse> ListExecutors(const std::vector<int64_t>& groups);

  // API tokens and users (admin_credentials.cc).
  absl::StatusOr<v1::CreateTokenResponse> CreateToken(const v1::CreateTokenRequest& req);
  absl::StatusOr<v1::ListTokensResponse> ListTokens();
  absl::StatusOr<v1::ApiToken> RevokeToken(const v1::RevokeTokenRequest& req);
  absl::StatusOr<v1::User> CreateUser(const v1::CreateUserRequest& req);
  absl::StatusOr<v1::ListUsersResponse> ListUsers();
  absl::StatusOr<v1::User> UpdateUser(const v1::UpdateUserRequest& req);
  absl::Status DeleteUser(const std::string& name);
  // A session token for `user` (whose password the caller proved).
  absl::StatusOr<v1::CreateTokenResponse> Login(const std::string& user,
                                                const v1::LoginRequest& req);
  // Revokes the login session a call was made with (its Caller's
  // credential and user); its token's name. FailedPrecondition if the
  // credential is not a login session.
  absl::StatusOr<std::string> Logout(const std::string& credential, const std::string& user);

 private:
  // A create request made into a row to insert: validated, with its state
  // and first cursor.
  absl::StatusOr<store::NewJob> PrepareNewJob(const v1::CreateJobRequest& req, int64_t now_ms);
  absl::StatusOr<v1::Group> FindGroup(int64_t group_id);
  absl::StatusOr<v1::Job> FindJob(int64_t job_id);
  // Sets each job's last_run from the store (one read for all of them).
  absl::Status AddLastRuns(std::vector<v1::Job*> jobs);
  // A new token's secret and row; AlreadyExists naming `name`.
  absl::StatusOr<v1::CreateTokenResponse> NewApiToken(const std::string& name, int64_t ttl_ms,
                                                      const store::TokenScope& scope);

  const AdminStores stores_;
  FireSink* const sink_;
  GroupTargets* const targets_;
  ScheduleLoop* const loop_;
  ExecutorClient* const executors_;
  Clock* const clock_;
  // ResourceExhausted naming `field` if `group_id` cannot take `adding` more jobs.
  absl::Status CheckGroupQuota(int64_t group_id, int64_t adding, std::string_view field);

  const JobLimits limits_;
  const absl::Duration token_grace_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_ADMIN_CORE_H_
