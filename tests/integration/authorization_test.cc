// Per-object authorization on a real gnomond with two groups, each with a
// sample executor and a job that has run: an operator granted group B, and a
// viewer granted group A, try everything on the other group's objects (jobs,
// runs, logs, reports, children, executors) and get PERMISSION_DENIED with
// nothing changed; within their own groups they read (and the operator
// changes) as their role allows, and every list shows only their groups.
// The rules are docs/security.md's.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/testing/declared_methods.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/server/method_credentials.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

class AuthorizationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    channel_ = grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials());
    admin_ = v1::JobAdmin::NewStub(channel_);
    logs_ = v1::LogService::NewStub(channel_);
    registry_ = v1::Registry::NewStub(channel_);
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "authz-a"}, &group_a_));
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "authz-b"}, &group_b_));
    for (auto [group, job] : {std::pair{&group_a_, &job_a_}, std::pair{&group_b_, &job_b_}}) {
      ASSERT_TRUE(cluster_.CtlJson(
          {"job", "create", "--group", absl::StrCat(group->id()), "--handler", "demo", "--manual"},
          job));
      executors_.push_back(cluster_.StartExecutor(group->app_name(), group->access_token()));
    }
    ASSERT_TRUE(AwaitExecutors(2));
    run_a_ = RunToEnd(job_a_.id());
    run_b_ = RunToEnd(job_b_.id());
    {  // A workflow of group a's job, and a run of it.
      v1::CreateWorkflowRequest w;
      w.mutable_workflow()->set_group_id(group_a_.id());
      w.mutable_workflow()->set_name("authz-flow");
      v1::WorkflowNode* n = w.mutable_workflow()->add_nodes();
      n->set_name("only");
      n->set_job_id(job_a_.id());
      ASSERT_TRUE(admin_->CreateWorkflow(As(cluster_.admin_token()).get(), w, &workflow_a_).ok());
      v1::TriggerWorkflowRequest t;
      t.set_workflow_id(workflow_a_.id());
      ASSERT_TRUE(
          admin_->TriggerWorkflow(As(cluster_.admin_token()).get(), t, &workflow_run_a_).ok());
      // Ended, so the snapshots the test compares stay still.
      const absl::Time deadline = absl::Now() + absl::Seconds(30);
      while (workflow_run_a_.status() == v1::WORKFLOW_RUN_STATUS_RUNNING &&
             absl::Now() < deadline) {
        cluster_.PollInterval(absl::Milliseconds(100));
        v1::GetWorkflowRunRequest get;
        get.set_workflow_run_id(workflow_run_a_.id());
        ASSERT_TRUE(
            admin_->GetWorkflowRun(As(cluster_.admin_token()).get(), get, &workflow_run_a_).ok());
      }
      ASSERT_EQ(workflow_run_a_.status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED)
          << workflow_run_a_.ShortDebugString();
    }
    v1::CreateTokenResponse op, viewer;
    ASSERT_TRUE(cluster_.CtlJson(
        {"token", "create", "op-b", "--role", "operator", "--group", absl::StrCat(group_b_.id())},
        &op));
    ASSERT_TRUE(cluster_.CtlJson(
        {"token", "create", "view-a", "--role", "viewer", "--group", absl::StrCat(group_a_.id())},
        &viewer));
    operator_b_ = op.secret();
    viewer_a_ = viewer.secret();
  }

  std::unique_ptr<grpc::ClientContext> As(const std::string& token) {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
    return ctx;
  }
  // Waits (on the watch stream, with the admin token) until `n` executors are online.
  bool AwaitExecutors(int n) {
    auto ctx = As(cluster_.admin_token());
    auto stream = registry_->WatchExecutors(ctx.get(), v1::WatchExecutorsRequest());
    v1::WatchExecutorsResponse msg;
    int online = 0;
    while (stream->Read(&msg)) {
      if (msg.has_snapshot()) online = msg.snapshot().executors_size();
      if (msg.has_change())
        online += msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_JOINED ? 1 : 0;
      if (online >= n) {
        ctx->TryCancel();
        return true;
      }
    }
    return false;
  }
  // Triggers the job (as admin) until a run of it succeeds (an executor
  // just started may not be routable yet: that run fails, the next one
  // goes); that run's id.
  int64_t RunToEnd(int64_t job_id) {
    const v1::Run run = cluster_.TriggerUntilSucceeded(job_id);
    EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED)
        << "job " << job_id << ": " << run.ShortDebugString();
    return run.status() == v1::RUN_STATUS_SUCCEEDED ? run.id() : 0;
  }
  // Everything a call could have changed, read as admin.
  std::string Snapshot() {
    v1::ListJobsResponse jobs;
    v1::ListRunsResponse runs;
    v1::ListGroupsResponse groups;
    EXPECT_TRUE(
        admin_->ListJobs(As(cluster_.admin_token()).get(), v1::ListJobsRequest(), &jobs).ok());
    EXPECT_TRUE(
        admin_->ListRuns(As(cluster_.admin_token()).get(), v1::ListRunsRequest(), &runs).ok());
    EXPECT_TRUE(
        admin_->ListGroups(As(cluster_.admin_token()).get(), v1::ListGroupsRequest(), &groups)
            .ok());
    for (v1::Job& j : *jobs.mutable_jobs()) j.clear_update_time();
    return absl::StrCat(jobs.DebugString(), runs.DebugString(), groups.DebugString());
  }

  testing::GnomonCluster cluster_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::JobAdmin::Stub> admin_;
  std::unique_ptr<v1::LogService::Stub> logs_;
  std::unique_ptr<v1::Registry::Stub> registry_;
  v1::Group group_a_, group_b_;
  v1::Job job_a_, job_b_;
  std::vector<std::unique_ptr<testing::Subprocess>> executors_;
  int64_t run_a_ = 0, run_b_ = 0;
  v1::Workflow workflow_a_;
  v1::WorkflowRun workflow_run_a_;
  std::string operator_b_, viewer_a_;
};

TEST_F(AuthorizationTest, AGrantOnOneGroupGivesNothingOnAnother) {
  const std::string before = Snapshot();
  const std::string& t = operator_b_;
  v1::Job job_in_a = job_a_;
  job_in_a.set_description("changed by an operator of b");
  v1::Job job_b_into_a = job_b_;
  job_b_into_a.set_group_id(group_a_.id());
  v1::Job job_b_with_child_in_a = job_b_;
  job_b_with_child_in_a.add_child_job_ids(job_a_.id());
  v1::Job new_in_a = job_a_;
  new_in_a.clear_id();

  struct Call {
    const char* what;
    grpc::Status status;
  };
  auto get_job = [&](int64_t id) {
    v1::GetJobRequest r;
    r.set_job_id(id);
    v1::Job o;
    return admin_->GetJob(As(t).get(), r, &o);
  };
  std::vector<Call> calls;
  calls.push_back({"JobAdmin.GetJob a", get_job(job_a_.id())});
  {
    v1::UpdateJobRequest r;
    *r.mutable_job() = job_in_a;
    v1::Job o;
    calls.push_back({"JobAdmin.UpdateJob a", admin_->UpdateJob(As(t).get(), r, &o)});
    *r.mutable_job() = job_b_into_a;
    calls.push_back({"JobAdmin.UpdateJob b into a", admin_->UpdateJob(As(t).get(), r, &o)});
    *r.mutable_job() = job_b_with_child_in_a;
    calls.push_back(
        {"JobAdmin.UpdateJob b with a child in a", admin_->UpdateJob(As(t).get(), r, &o)});
  }
  {
    v1::CreateJobRequest r;
    *r.mutable_job() = new_in_a;
    v1::Job o;
    calls.push_back({"JobAdmin.CreateJob in a", admin_->CreateJob(As(t).get(), r, &o)});
    v1::BatchCreateJobsRequest batch;
    v1::Job in_b = job_b_;
    in_b.clear_id();
    *batch.add_requests()->mutable_job() = in_b;
    *batch.add_requests()->mutable_job() = new_in_a;
    v1::BatchCreateJobsResponse bo;
    calls.push_back({"JobAdmin.BatchCreateJobs with one in a",
                     admin_->BatchCreateJobs(As(t).get(), batch, &bo)});
  }
  {
    v1::DeleteJobRequest d;
    d.set_job_id(job_a_.id());
    v1::DeleteJobResponse dout;
    calls.push_back({"JobAdmin.DeleteJob a", admin_->DeleteJob(As(t).get(), d, &dout)});
    v1::StopJobRequest s;
    s.set_job_id(job_a_.id());
    v1::Job o;
    calls.push_back({"JobAdmin.StopJob a", admin_->StopJob(As(t).get(), s, &o)});
    v1::StartJobRequest st;
    st.set_job_id(job_a_.id());
    calls.push_back({"JobAdmin.StartJob a", admin_->StartJob(As(t).get(), st, &o)});
    v1::TriggerJobRequest tr;
    tr.set_job_id(job_a_.id());
    v1::TriggerJobResponse tro;
    calls.push_back({"JobAdmin.TriggerJob a", admin_->TriggerJob(As(t).get(), tr, &tro)});
    v1::BackfillRequest bf;
    bf.set_job_id(job_a_.id());
    bf.mutable_start_time()->set_seconds(1700000000);
    bf.mutable_end_time()->set_seconds(1700000060);
    v1::BackfillResponse bfo;
    calls.push_back({"JobAdmin.Backfill a", admin_->Backfill(As(t).get(), bf, &bfo)});
  }
  {
    // Job a is a bean job: a script job's versions are refused alike, and
    // these are refused before the job is read.
    v1::ListScriptVersionsRequest l;
    l.set_job_id(job_a_.id());
    v1::ListScriptVersionsResponse lo;
    calls.push_back(
        {"JobAdmin.ListScriptVersions a", admin_->ListScriptVersions(As(t).get(), l, &lo)});
    v1::GetScriptVersionRequest g;
    g.set_job_id(job_a_.id());
    g.set_version(1);
    v1::ScriptVersion go;
    calls.push_back({"JobAdmin.GetScriptVersion a", admin_->GetScriptVersion(As(t).get(), g, &go)});
    v1::RollbackScriptRequest r;
    r.set_job_id(job_a_.id());
    r.set_version(1);
    v1::Job ro;
    calls.push_back({"JobAdmin.RollbackScript a", admin_->RollbackScript(As(t).get(), r, &ro)});
  }
  {
    v1::GetRunRequest r;
    r.set_run_id(run_a_);
    v1::GetRunResponse o;
    calls.push_back({"JobAdmin.GetRun a", admin_->GetRun(As(t).get(), r, &o)});
    v1::Run run;
    calls.push_back({"LogService.GetRun a", logs_->GetRun(As(t).get(), r, &run)});
    v1::KillRunRequest k;
    k.set_run_id(run_a_);
    v1::KillRunResponse ko;
    calls.push_back({"JobAdmin.KillRun a", admin_->KillRun(As(t).get(), k, &ko)});
    v1::StreamRunLogRequest sl;
    sl.set_run_id(run_a_);
    auto ctx = As(t);
    auto stream = logs_->StreamRunLog(ctx.get(), sl);
    v1::LogLine line;
    EXPECT_FALSE(stream->Read(&line)) << "a log line of group a's run";
    calls.push_back({"LogService.StreamRunLog a", stream->Finish()});
  }
  {
    v1::ListRunsRequest by_job, by_group;
    by_job.set_job_id(job_a_.id());
    by_group.set_group_id(group_a_.id());
    v1::ListRunsResponse o;
    calls.push_back({"JobAdmin.ListRuns job a", admin_->ListRuns(As(t).get(), by_job, &o)});
    calls.push_back({"LogService.ListRuns group a", logs_->ListRuns(As(t).get(), by_group, &o)});
    v1::ListJobsRequest jobs;
    jobs.set_group_id(group_a_.id());
    v1::ListJobsResponse jo;
    calls.push_back({"JobAdmin.ListJobs group a", admin_->ListJobs(As(t).get(), jobs, &jo)});
    v1::GetGroupRequest g;
    g.set_group_id(group_a_.id());
    v1::Group go;
    calls.push_back({"JobAdmin.GetGroup a", admin_->GetGroup(As(t).get(), g, &go)});
    v1::ListExecutorsRequest e;
    e.set_group_id(group_a_.id());
    v1::ListExecutorsResponse eo;
    calls.push_back({"JobAdmin.ListExecutors group a", admin_->ListExecutors(As(t).get(), e, &eo)});
  }
  {
    v1::GetStatsRequest by_job, totals;
    by_job.set_job_id(job_a_.id());
    for (v1::GetStatsRequest* r : {&by_job, &totals}) {
      *r->mutable_start_time() = google::protobuf::util::TimeUtil::GetCurrentTime();
      r->mutable_end_time()->set_seconds(r->start_time().seconds() + 86400);
    }
    v1::GetStatsResponse o;
    calls.push_back({"LogService.GetStats job a", logs_->GetStats(As(t).get(), by_job, &o)});
    calls.push_back({"LogService.GetStats totals", logs_->GetStats(As(t).get(), totals, &o)});
  }
  {
    v1::WatchExecutorsRequest w;
    w.add_app_names(group_a_.app_name());
    auto ctx = As(t);
    auto stream = registry_->WatchExecutors(ctx.get(), w);
    v1::WatchExecutorsResponse msg;
    EXPECT_FALSE(stream->Read(&msg)) << "executors of group a";
    calls.push_back({"Registry.WatchExecutors a", stream->Finish()});
  }
  {  // Group a's workflow and its run.
    v1::Workflow wo;
    v1::WorkflowRun ro;
    v1::CreateWorkflowRequest create;
    *create.mutable_workflow() = workflow_a_;
    create.mutable_workflow()->clear_id();
    create.mutable_workflow()->set_name("another");
    calls.push_back(
        {"JobAdmin.CreateWorkflow in a", admin_->CreateWorkflow(As(t).get(), create, &wo)});
    v1::GetWorkflowRequest get;
    get.set_workflow_id(workflow_a_.id());
    calls.push_back({"JobAdmin.GetWorkflow a", admin_->GetWorkflow(As(t).get(), get, &wo)});
    get.set_workflow_id(987654);  // No such workflow: the same answer.
    calls.push_back(
        {"JobAdmin.GetWorkflow that does not exist", admin_->GetWorkflow(As(t).get(), get, &wo)});
    v1::ListWorkflowsRequest list;
    list.set_group_id(group_a_.id());
    v1::ListWorkflowsResponse lo;
    calls.push_back(
        {"JobAdmin.ListWorkflows group a", admin_->ListWorkflows(As(t).get(), list, &lo)});
    v1::UpdateWorkflowRequest update;
    *update.mutable_workflow() = workflow_a_;
    update.mutable_workflow()->set_description("changed by an operator of b");
    calls.push_back(
        {"JobAdmin.UpdateWorkflow a", admin_->UpdateWorkflow(As(t).get(), update, &wo)});
    v1::DeleteWorkflowRequest del;
    del.set_workflow_id(workflow_a_.id());
    v1::DeleteWorkflowResponse dout;
    calls.push_back({"JobAdmin.DeleteWorkflow a", admin_->DeleteWorkflow(As(t).get(), del, &dout)});
    v1::TriggerWorkflowRequest trigger;
    trigger.set_workflow_id(workflow_a_.id());
    calls.push_back(
        {"JobAdmin.TriggerWorkflow a", admin_->TriggerWorkflow(As(t).get(), trigger, &ro)});
    v1::ListWorkflowRunsRequest runs;
    runs.set_workflow_id(workflow_a_.id());
    v1::ListWorkflowRunsResponse runs_out;
    calls.push_back(
        {"JobAdmin.ListWorkflowRuns a", admin_->ListWorkflowRuns(As(t).get(), runs, &runs_out)});
    v1::GetWorkflowRunRequest get_run;
    get_run.set_workflow_run_id(workflow_run_a_.id());
    calls.push_back(
        {"JobAdmin.GetWorkflowRun a", admin_->GetWorkflowRun(As(t).get(), get_run, &ro)});
    v1::CancelWorkflowRunRequest cancel;
    cancel.set_workflow_run_id(workflow_run_a_.id());
    calls.push_back(
        {"JobAdmin.CancelWorkflowRun a", admin_->CancelWorkflowRun(As(t).get(), cancel, &ro)});
    v1::WorkflowNodeRequest node;
    node.set_workflow_run_id(workflow_run_a_.id());
    node.set_node("only");
    calls.push_back(
        {"JobAdmin.RerunWorkflowNode a", admin_->RerunWorkflowNode(As(t).get(), node, &ro)});
    calls.push_back(
        {"JobAdmin.SkipWorkflowNode a", admin_->SkipWorkflowNode(As(t).get(), node, &ro)});
    calls.push_back({"JobAdmin.MarkWorkflowNodeSucceeded a",
                     admin_->MarkWorkflowNodeSucceeded(As(t).get(), node, &ro)});
    v1::ListRunsRequest node_runs;
    node_runs.set_workflow_run_id(workflow_run_a_.id());
    v1::ListRunsResponse nro;
    ASSERT_TRUE(admin_->ListRuns(As(t).get(), node_runs, &nro).ok());
    EXPECT_EQ(nro.runs_size(), 0) << "group a's workflow node runs listed to an operator of b";
  }
  {
    v1::GetJobRequest r;
    r.set_job_id(987654);  // No such job: the same answer, so ids reveal nothing.
    v1::Job o;
    calls.push_back(
        {"JobAdmin.GetJob of a job that does not exist", admin_->GetJob(As(t).get(), r, &o)});
  }
  {  // By name: naming another group's job is refused the same way.
    v1::GetJobRequest r;
    r.mutable_job_name()->set_group(group_a_.app_name());
    r.mutable_job_name()->set_name(job_a_.name());
    v1::Job o;
    calls.push_back({"JobAdmin.GetJob a by name", admin_->GetJob(As(t).get(), r, &o)});
    v1::TriggerJobRequest tr;
    *tr.mutable_job_name() = r.job_name();
    v1::TriggerJobResponse tout;
    calls.push_back({"JobAdmin.TriggerJob a by name", admin_->TriggerJob(As(t).get(), tr, &tout)});
    v1::UpdateJobRequest u;  // id 0: the job of that name in job.group_id's group.
    *u.mutable_job() = job_in_a;
    u.mutable_job()->clear_id();
    calls.push_back({"JobAdmin.UpdateJob a by name", admin_->UpdateJob(As(t).get(), u, &o)});
  }
  {  // A bare name is looked up only among the granted groups: a's job is not there.
    v1::GetJobRequest r;
    r.mutable_job_name()->set_name(job_a_.name());
    v1::Job o;
    grpc::Status s = admin_->GetJob(As(t).get(), r, &o);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND) << s.error_message();
  }
  // Every method that may name a group's object is tried (a new one must be
  // added here): those below an admin's, but for the ones naming none.
  std::set<std::string> tried, untried;
  for (const Call& c : calls)
    tried.insert("gnomon.v1." + std::string(c.what).substr(0, std::string(c.what).find(' ')));
  absl::StatusOr<std::vector<const google::protobuf::MethodDescriptor*>> methods =
      testing::DeclaredMethods();
  ASSERT_TRUE(methods.ok()) << methods.status();
  for (const google::protobuf::MethodDescriptor* m : *methods) {
    const std::string full = absl::StrCat("/", m->service()->full_name(), "/", m->name());
    const Credential* credential = RequiredCredential(full);
    if (credential == nullptr || *credential == Credential::kGroupOfApp ||
        *credential == Credential::kPassword ||
        *RequiredPermission(full) == Permission::kAdminister) {
      continue;
    }
    // Names no group's object: a schedule to preview, the caller itself (or
    // its session), calendars, alarm channels and pools (they belong to no
    // group; writing one is an admin's); groups are listed filtered
    // (ListsShowOnlyTheGrantedGroups), and so is a pool's queue (another
    // group's runs by their place only: pools_e2e_test).
    if (m->name() == "PreviewSchedule" || m->name() == "ListGroups" || m->name() == "WhoAmI" ||
        m->name() == "Logout" || m->name() == "GetCalendar" || m->name() == "ListCalendars" ||
        m->name() == "GetAlarmChannel" || m->name() == "ListAlarmChannels" ||
        m->name() == "GetPool" || m->name() == "ListPools" || m->name() == "ListPoolQueue")
      continue;
    if (!tried.count(m->full_name())) untried.insert(m->full_name());
  }
  EXPECT_TRUE(untried.empty()) << "not tried on another group's objects: "
                               << absl::StrJoin(untried, ", ");
  for (const Call& c : calls) {
    EXPECT_EQ(c.status.error_code(), grpc::StatusCode::PERMISSION_DENIED)
        << c.what << ": " << c.status.error_message();
    const std::string& m = c.status.error_message();
    EXPECT_TRUE(m.find("not in a group this credential is granted") != std::string::npos ||
                m.find("totals span every group") != std::string::npos)
        << c.what << ": " << m;
  }
  EXPECT_EQ(Snapshot(), before) << "a refused call changed something";

  // Within its own group the operator reads and changes.
  EXPECT_TRUE(get_job(job_b_.id()).ok());
  v1::UpdateJobRequest u;
  *u.mutable_job() = job_b_;
  u.mutable_job()->set_description("changed by its operator");
  v1::Job updated;
  ASSERT_TRUE(admin_->UpdateJob(As(t).get(), u, &updated).ok());
  EXPECT_EQ(updated.description(), "changed by its operator");
  v1::GetRunRequest own;
  own.set_run_id(run_b_);
  v1::GetRunResponse own_run;
  EXPECT_TRUE(admin_->GetRun(As(t).get(), own, &own_run).ok());
  EXPECT_GT(own_run.log_lines_size(), 0);
  // A trigger may name only the group's own executors: the group's token is
  // never sent to an address the caller picks.
  v1::TriggerJobRequest pinned;
  pinned.set_job_id(job_b_.id());
  pinned.add_executor_addresses("127.0.0.1:1");
  v1::TriggerJobResponse fired;
  grpc::Status outside = admin_->TriggerJob(As(t).get(), pinned, &fired);
  EXPECT_EQ(outside.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << outside.error_message();
  EXPECT_EQ(outside.error_message(),
            "executor_addresses[0]: \"127.0.0.1:1\" is not an online executor of the group");
}

TEST_F(AuthorizationTest, ListsShowOnlyTheGrantedGroups) {
  const std::string& t = operator_b_;
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(admin_->ListJobs(As(t).get(), v1::ListJobsRequest(), &jobs).ok());
  ASSERT_EQ(jobs.jobs_size(), 1);
  EXPECT_EQ(jobs.jobs(0).id(), job_b_.id());
  v1::ListGroupsResponse groups;
  ASSERT_TRUE(admin_->ListGroups(As(t).get(), v1::ListGroupsRequest(), &groups).ok());
  ASSERT_EQ(groups.groups_size(), 1);
  EXPECT_EQ(groups.groups(0).id(), group_b_.id());
  EXPECT_TRUE(groups.groups(0).access_token().empty());
  for (bool through_admin : {true, false}) {
    v1::ListRunsResponse runs;
    ASSERT_TRUE((through_admin ? admin_->ListRuns(As(t).get(), v1::ListRunsRequest(), &runs)
                               : logs_->ListRuns(As(t).get(), v1::ListRunsRequest(), &runs))
                    .ok());
    ASSERT_EQ(runs.runs_size(), 1) << through_admin;
    EXPECT_EQ(runs.runs(0).id(), run_b_);
  }
  // The executors it sees: group b's only, through the admin API and the watch.
  v1::ListExecutorsResponse listed;
  ASSERT_TRUE(admin_->ListExecutors(As(t).get(), v1::ListExecutorsRequest(), &listed).ok());
  ASSERT_EQ(listed.groups_size(), 1);
  EXPECT_EQ(listed.groups(0).group_id(), group_b_.id());
  ASSERT_EQ(listed.groups(0).executors_size(), 1);
  EXPECT_EQ(listed.groups(0).executors(0).app_name(), group_b_.app_name());
  EXPECT_GT(listed.groups(0).executors(0).capacity(), 0u);
  auto ctx = As(t);
  auto stream = registry_->WatchExecutors(ctx.get(), v1::WatchExecutorsRequest());
  v1::WatchExecutorsResponse first;
  ASSERT_TRUE(stream->Read(&first));
  ASSERT_TRUE(first.has_snapshot());
  ASSERT_EQ(first.snapshot().executors_size(), 1);
  EXPECT_EQ(first.snapshot().executors(0).app_name(), group_b_.app_name());
  ctx->TryCancel();
  // Its job's daily report, not the totals of every group.
  v1::GetStatsRequest report;
  report.set_job_id(job_b_.id());
  *report.mutable_start_time() = google::protobuf::util::TimeUtil::GetCurrentTime();
  report.mutable_end_time()->set_seconds(report.start_time().seconds() + 86400);
  v1::GetStatsResponse rows;
  ASSERT_TRUE(logs_->GetStats(As(t).get(), report, &rows).ok());
  ASSERT_GT(rows.rows_size(), 0);
  EXPECT_EQ(rows.rows(0).succeeded(), 1);
}

TEST_F(AuthorizationTest, AViewerReadsItsGroupAndChangesNothing) {
  const std::string before = Snapshot();
  const std::string& t = viewer_a_;
  v1::GetJobRequest get;
  get.set_job_id(job_a_.id());
  v1::Job job;
  EXPECT_TRUE(admin_->GetJob(As(t).get(), get, &job).ok());
  v1::GetRunRequest run;
  run.set_run_id(run_a_);
  v1::GetRunResponse got;
  EXPECT_TRUE(admin_->GetRun(As(t).get(), run, &got).ok());
  v1::GetGroupRequest group;
  group.set_group_id(group_a_.id());
  v1::Group g;
  ASSERT_TRUE(admin_->GetGroup(As(t).get(), group, &g).ok());
  EXPECT_TRUE(g.access_token().empty());

  v1::TriggerJobRequest trigger;
  trigger.set_job_id(job_a_.id());
  v1::TriggerJobResponse fired;
  grpc::Status s = admin_->TriggerJob(As(t).get(), trigger, &fired);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(s.error_message(), "role viewer may not call TriggerJob");
  v1::KillRunRequest kill;
  kill.set_run_id(run_a_);
  v1::KillRunResponse killed;
  EXPECT_EQ(admin_->KillRun(As(t).get(), kill, &killed).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  v1::CreateTokenRequest token;
  token.set_name("escalate");
  v1::CreateTokenResponse created;
  EXPECT_EQ(admin_->CreateToken(As(t).get(), token, &created).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Snapshot(), before);
}

// A bad run id is named as such before any run is looked up, whoever asks:
// a scoped caller learns that its request is malformed, not whether it may
// see a run that cannot exist.
TEST_F(AuthorizationTest, ABadRunIdIsInvalidBeforeAccessIsChecked) {
  for (int64_t id : {int64_t{0}, int64_t{-5}}) {
    v1::GetRunRequest get;
    get.set_run_id(id);
    v1::GetRunResponse got;
    grpc::Status s = admin_->GetRun(As(operator_b_).get(), get, &got);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << id << " " << s.error_message();
    EXPECT_EQ(s.error_message().rfind("run_id", 0), 0u) << s.error_message();
    v1::KillRunRequest kill;
    kill.set_run_id(id);
    v1::KillRunResponse killed;
    s = admin_->KillRun(As(operator_b_).get(), kill, &killed);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << id << " " << s.error_message();
    EXPECT_EQ(s.error_message().rfind("run_id", 0), 0u) << s.error_message();
  }
}

}  // namespace
}  // namespace gnomon
