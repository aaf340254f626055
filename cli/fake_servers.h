// In-process fake JobAdmin and LogService for gnomonctl tests (test only).
//
//   FakeServers servers;                       // listens on 127.0.0.1:<port 0>
//   servers.admin.Set([](AdminState& s) { s.job.set_id(7); });
//   RunCli({"--server", servers.address(), "job", "get", "7"}, ...);
//   auto req = servers.admin.Last<v1::GetJobRequest>("GetJob");
//
// Every call is recorded (method, authorization metadata, request bytes);
// answers come from the canned responses in the state, or `fail` when set.
// Thread safety: state is guarded by a mutex; gRPC calls it from its threads.
#ifndef GNOMON_CLI_FAKE_SERVERS_H_
#define GNOMON_CLI_FAKE_SERVERS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "cli/fake_alarm_channels.h"
#include "cli/fake_calendars.h"
#include "cli/fake_pools.h"
#include "cli/fake_workflows.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli::testing {

struct RecordedCall {
  std::string method;
  // Value of the "authorization" metadata; empty when absent.
  std::string authorization;
  std::string request_bytes;
};

struct AdminState {
  std::optional<grpc::Status> fail;
  v1::WhoAmIResponse whoami;
  v1::Group group;
  v1::ListGroupsResponse groups;
  v1::Job job;
  // ListJobs answers page N for page_token "N" (empty = 0).
  std::vector<v1::ListJobsResponse> job_pages;
  // ListRuns likewise.
  std::vector<v1::ListRunsResponse> run_pages;
  v1::GetRunResponse run;
  v1::TriggerJobResponse trigger;
  v1::BackfillResponse backfill;
  v1::KillRunResponse kill;
  v1::ListExecutorsResponse executors;
  // PreviewSchedule's answer.
  v1::PreviewScheduleResponse preview;
  // LogService.StreamRunLog writes these, then ends with `fail` or OK.
  std::vector<v1::LogLine> stream_lines;
  // Workflows and their runs, kept as the server would (fake_workflows.h).
  FakeWorkflows workflows;
  // Calendars, kept as the server would (fake_calendars.h); CreateJob and
  // UpdateJob refuse a schedule naming one not stored.
  FakeCalendars calendars;
  // Alarm channels likewise (fake_alarm_channels.h); CreateJob and UpdateJob
  // refuse alarm targets naming one not stored.
  FakeAlarmChannels alarm_channels;
  // Pools and their queues likewise (fake_pools.h); CreateJob and UpdateJob
  // refuse a job naming a pool not stored.
  FakePools pools;
  std::vector<RecordedCall> calls;
};

// Shared by both fake services so tests see one call log.
class FakeState {
 public:
  void Set(const std::function<void(AdminState&)>& f) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    f(state_);
  }
  AdminState Snapshot() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return state_;
  }
  std::vector<std::string> Methods() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> out;
    for (const auto& c : state_.calls) out.push_back(c.method);
    return out;
  }
  // The request of the latest call to `method`; a default message if none.
  template <typename Request>
  Request Last(const std::string& method) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    Request req;
    for (auto it = state_.calls.rbegin(); it != state_.calls.rend(); ++it) {
      if (it->method == method) {
        req.ParseFromString(it->request_bytes);
        break;
      }
    }
    return req;
  }
  // Records the call, then answers with `fail` or runs `respond`.
  grpc::Status Handle(grpc::ServerContext* context, const std::string& method,
                      const google::protobuf::Message& request,
                      const std::function<void(AdminState&)>& respond) ABSL_LOCKS_EXCLUDED(mu_) {
    return HandleOr(context, method, request, [&](AdminState& s) {
      respond(s);
      return grpc::Status::OK;
    });
  }
  // The same for a `respond` that may refuse the call.
  grpc::Status HandleOr(grpc::ServerContext* context, const std::string& method,
                        const google::protobuf::Message& request,
                        const std::function<grpc::Status(AdminState&)>& respond)
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    RecordedCall call{method, "", request.SerializeAsString()};
    auto auth = context->client_metadata().find("authorization");
    if (auth != context->client_metadata().end()) {
      call.authorization = std::string(auth->second.data(), auth->second.size());
    }
    state_.calls.push_back(std::move(call));
    if (state_.fail.has_value()) return *state_.fail;
    return respond(state_);
  }

 private:
  absl::Mutex mu_;
  AdminState state_ ABSL_GUARDED_BY(mu_);
};

template <typename Pages>
int PageIndex(const std::string& token, const Pages& pages) {
  int index = 0;
  if (!token.empty() && !absl::SimpleAtoi(token, &index)) return 0;
  return std::min<int>(index, static_cast<int>(pages.size()) - 1);
}

class FakeJobAdmin final : public v1::JobAdmin::Service {
 public:
  explicit FakeJobAdmin(FakeState* state) : s_(state) {}

#define GNOMON_FAKE_UNARY(Method, Request, Response, body)                                  \
  grpc::Status Method(grpc::ServerContext* ctx, const v1::Request* req, v1::Response* resp) \
      override {                                                                            \
    return s_->Handle(ctx, #Method, *req, [&](AdminState& s) { body; });                    \
  }
  GNOMON_FAKE_UNARY(CreateGroup, CreateGroupRequest, Group, *resp = s.group)
  GNOMON_FAKE_UNARY(GetGroup, GetGroupRequest, Group, *resp = s.group)
  GNOMON_FAKE_UNARY(ListGroups, ListGroupsRequest, ListGroupsResponse, *resp = s.groups)
  GNOMON_FAKE_UNARY(UpdateGroup, UpdateGroupRequest, Group, *resp = s.group)
  GNOMON_FAKE_UNARY(DeleteGroup, DeleteGroupRequest, DeleteGroupResponse, )
  GNOMON_FAKE_UNARY(RotateGroupToken, RotateGroupTokenRequest, Group, *resp = s.group)
  grpc::Status CreateJob(grpc::ServerContext* ctx, const v1::CreateJobRequest* req,
                         v1::Job* resp) override {
    return s_->HandleOr(ctx, "CreateJob", *req, [&](AdminState& s) {
      if (grpc::Status c = NamesKnown(s, req->job()); !c.ok()) return c;
      *resp = req->job();
      return grpc::Status::OK;
    });
  }
  // As the server: an update leaves the state as it was (StartJob and StopJob
  // change it; the server pauses a job itself).
  grpc::Status UpdateJob(grpc::ServerContext* ctx, const v1::UpdateJobRequest* req,
                         v1::Job* resp) override {
    return s_->HandleOr(ctx, "UpdateJob", *req, [&](AdminState& s) {
      if (grpc::Status c = NamesKnown(s, req->job()); !c.ok()) return c;
      *resp = req->job();
      resp->set_state(s.job.state());
      return grpc::Status::OK;
    });
  }
  GNOMON_FAKE_UNARY(GetJob, GetJobRequest, Job, *resp = s.job)
  GNOMON_FAKE_UNARY(
      ListJobs, ListJobsRequest, ListJobsResponse,
      if (!s.job_pages.empty()) * resp = s.job_pages[PageIndex(req->page_token(), s.job_pages)])
  GNOMON_FAKE_UNARY(DeleteJob, DeleteJobRequest, DeleteJobResponse, )
  GNOMON_FAKE_UNARY(StartJob, StartJobRequest, Job, *resp = s.job;
                    resp->set_state(v1::JOB_STATE_RUNNING))
  GNOMON_FAKE_UNARY(StopJob, StopJobRequest, Job, *resp = s.job;
                    resp->set_state(v1::JOB_STATE_STOPPED))
  GNOMON_FAKE_UNARY(TriggerJob, TriggerJobRequest, TriggerJobResponse, *resp = s.trigger)
  GNOMON_FAKE_UNARY(Backfill, BackfillRequest, BackfillResponse, *resp = s.backfill)
  GNOMON_FAKE_UNARY(
      ListRuns, ListRunsRequest, ListRunsResponse,
      if (!s.run_pages.empty()) * resp = s.run_pages[PageIndex(req->page_token(), s.run_pages)])
  GNOMON_FAKE_UNARY(GetRun, GetRunRequest, GetRunResponse, *resp = s.run)
  GNOMON_FAKE_UNARY(KillRun, KillRunRequest, KillRunResponse, *resp = s.kill)
  GNOMON_FAKE_UNARY(ListExecutors, ListExecutorsRequest, ListExecutorsResponse, *resp = s.executors)
  GNOMON_FAKE_UNARY(PreviewSchedule, PreviewScheduleRequest, PreviewScheduleResponse,
                    *resp = s.preview)
  GNOMON_FAKE_UNARY(WhoAmI, WhoAmIRequest, WhoAmIResponse, *resp = s.whoami)
#undef GNOMON_FAKE_UNARY

  // Workflows: answered by FakeWorkflows' method of the same name.
#define GNOMON_FAKE_WORKFLOW(Method, Request, Response)                                     \
  grpc::Status Method(grpc::ServerContext* ctx, const v1::Request* req, v1::Response* resp) \
      override {                                                                            \
    return s_->HandleOr(ctx, #Method, *req,                                                 \
                        [&](AdminState& s) { return s.workflows.Method(*req, resp); });     \
  }
  GNOMON_FAKE_WORKFLOW(CreateWorkflow, CreateWorkflowRequest, Workflow)
  GNOMON_FAKE_WORKFLOW(GetWorkflow, GetWorkflowRequest, Workflow)
  GNOMON_FAKE_WORKFLOW(ListWorkflows, ListWorkflowsRequest, ListWorkflowsResponse)
  GNOMON_FAKE_WORKFLOW(UpdateWorkflow, UpdateWorkflowRequest, Workflow)
  GNOMON_FAKE_WORKFLOW(DeleteWorkflow, DeleteWorkflowRequest, DeleteWorkflowResponse)
  GNOMON_FAKE_WORKFLOW(TriggerWorkflow, TriggerWorkflowRequest, WorkflowRun)
  GNOMON_FAKE_WORKFLOW(GetWorkflowRun, GetWorkflowRunRequest, WorkflowRun)
  GNOMON_FAKE_WORKFLOW(ListWorkflowRuns, ListWorkflowRunsRequest, ListWorkflowRunsResponse)
  GNOMON_FAKE_WORKFLOW(CancelWorkflowRun, CancelWorkflowRunRequest, WorkflowRun)
  GNOMON_FAKE_WORKFLOW(RerunWorkflowNode, WorkflowNodeRequest, WorkflowRun)
  GNOMON_FAKE_WORKFLOW(SkipWorkflowNode, WorkflowNodeRequest, WorkflowRun)
  GNOMON_FAKE_WORKFLOW(MarkWorkflowNodeSucceeded, WorkflowNodeRequest, WorkflowRun)
#undef GNOMON_FAKE_WORKFLOW

  // Calendars: answered by FakeCalendars' method of the same name.
#define GNOMON_FAKE_CALENDAR(Method, Request, Response)                                     \
  grpc::Status Method(grpc::ServerContext* ctx, const v1::Request* req, v1::Response* resp) \
      override {                                                                            \
    return s_->HandleOr(ctx, #Method, *req,                                                 \
                        [&](AdminState& s) { return s.calendars.Method(*req, resp); });     \
  }
  GNOMON_FAKE_CALENDAR(CreateCalendar, CreateCalendarRequest, Calendar)
  GNOMON_FAKE_CALENDAR(GetCalendar, GetCalendarRequest, Calendar)
  GNOMON_FAKE_CALENDAR(ListCalendars, ListCalendarsRequest, ListCalendarsResponse)
  GNOMON_FAKE_CALENDAR(UpdateCalendar, UpdateCalendarRequest, Calendar)
  GNOMON_FAKE_CALENDAR(DeleteCalendar, DeleteCalendarRequest, DeleteCalendarResponse)
#undef GNOMON_FAKE_CALENDAR

  // Alarm channels: answered by FakeAlarmChannels' method of the same name.
#define GNOMON_FAKE_ALARM_CHANNEL(Method, Request, Response)                                 \
  grpc::Status Method(grpc::ServerContext* ctx, const v1::Request* req, v1::Response* resp)  \
      override {                                                                             \
    return s_->HandleOr(ctx, #Method, *req,                                                  \
                        [&](AdminState& s) { return s.alarm_channels.Method(*req, resp); }); \
  }
  GNOMON_FAKE_ALARM_CHANNEL(CreateAlarmChannel, CreateAlarmChannelRequest, AlarmChannel)
  GNOMON_FAKE_ALARM_CHANNEL(GetAlarmChannel, GetAlarmChannelRequest, AlarmChannel)
  GNOMON_FAKE_ALARM_CHANNEL(ListAlarmChannels, ListAlarmChannelsRequest, ListAlarmChannelsResponse)
  GNOMON_FAKE_ALARM_CHANNEL(UpdateAlarmChannel, UpdateAlarmChannelRequest, AlarmChannel)
  GNOMON_FAKE_ALARM_CHANNEL(DeleteAlarmChannel, DeleteAlarmChannelRequest,
                            DeleteAlarmChannelResponse)
  GNOMON_FAKE_ALARM_CHANNEL(TestAlarmChannel, TestAlarmChannelRequest, TestAlarmChannelResponse)
#undef GNOMON_FAKE_ALARM_CHANNEL

  // Pools: answered by FakePools' method of the same name.
#define GNOMON_FAKE_POOL(Method, Request, Response)                                         \
  grpc::Status Method(grpc::ServerContext* ctx, const v1::Request* req, v1::Response* resp) \
      override {                                                                            \
    return s_->HandleOr(ctx, #Method, *req,                                                 \
                        [&](AdminState& s) { return s.pools.Method(*req, resp); });         \
  }
  GNOMON_FAKE_POOL(CreatePool, CreatePoolRequest, Pool)
  GNOMON_FAKE_POOL(GetPool, GetPoolRequest, Pool)
  GNOMON_FAKE_POOL(ListPools, ListPoolsRequest, ListPoolsResponse)
  GNOMON_FAKE_POOL(UpdatePool, UpdatePoolRequest, Pool)
  GNOMON_FAKE_POOL(DeletePool, DeletePoolRequest, DeletePoolResponse)
  GNOMON_FAKE_POOL(ListPoolQueue, ListPoolQueueRequest, ListPoolQueueResponse)
#undef GNOMON_FAKE_POOL

 private:
  // As the server: a job naming a calendar, an alarm channel or a pool that
  // does not exist is NOT_FOUND naming the field.
  static grpc::Status NamesKnown(const AdminState& s, const v1::Job& job) {
    if (grpc::Status c = s.calendars.Names("job.schedule.calendar", job.schedule()); !c.ok()) {
      return c;
    }
    if (grpc::Status c = s.alarm_channels.Names(job.alarm()); !c.ok()) return c;
    return s.pools.Names(job);
  }

  FakeState* s_;
};

class FakeLogService final : public v1::LogService::Service {
 public:
  explicit FakeLogService(FakeState* state) : s_(state) {}

  grpc::Status StreamRunLog(grpc::ServerContext* ctx, const v1::StreamRunLogRequest* req,
                            grpc::ServerWriter<v1::LogLine>* writer) override {
    std::vector<v1::LogLine> lines;
    grpc::Status status =
        s_->Handle(ctx, "StreamRunLog", *req, [&](AdminState& s) { lines = s.stream_lines; });
    if (!status.ok()) return status;
    for (const v1::LogLine& line : lines) writer->Write(line);
    return grpc::Status::OK;
  }

 private:
  FakeState* s_;
};

// Both fakes on one server at 127.0.0.1 and a kernel-chosen port.
class FakeServers {
 public:
  FakeServers() : admin_service_(&state), log_service_(&state) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&admin_service_);
    builder.RegisterService(&log_service_);
    server_ = builder.BuildAndStart();
  }
  ~FakeServers() { server_->Shutdown(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  FakeState state;

 private:
  FakeJobAdmin admin_service_;
  FakeLogService log_service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_FAKE_SERVERS_H_
