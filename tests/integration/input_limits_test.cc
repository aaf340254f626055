// Every RPC of every gnomond service (read from the descriptors, so a new one
// must get a baseline here) is called on a real gnomond with each field of a
// valid request set, one at a time, to a bad value: oversized, empty,
// negative, NaN, out of range, malformed, not UTF-8 (every string field, of
// unary calls and of streamed messages alike). The limits come from the "Input
// limits" table of docs/operations.md, so the table is checked against the
// code. Each call must be refused with INVALID_ARGUMENT naming the field in
// a short message; afterwards nothing was written and the server still
// answers. A second test checks the per-credential rate limit of JobAdmin.
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/substitute.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/testing/declared_methods.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/request_mutations.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using google::protobuf::Message;
using google::protobuf::MethodDescriptor;
using Metadata = std::vector<std::pair<std::string, std::string>>;

// A user the walk logs in as.
constexpr char kWalkerPassword[] = "walker-password-1";
// Refusals quote at most a short prefix of a value: no message is longer.
constexpr size_t kMaxMessageBytes = 240;

// Fields any value of their kind is valid for (paths with "[]" for elements).
const std::set<std::string>& Exempt() {
  static const auto* exempt = new std::set<std::string>{
      // An executor's own numbering of report items, echoed in the acks.
      "items[].sequence",
      // Handlers may set any code (HandleCode lists the well-known ones).
      "items[].result.handle_code",
      // Output only: a job's last result, echoed back.
      "job.last_run.handle_code",
      "requests[].job.last_run.handle_code",
  };
  return *exempt;
}

// Mutations that are valid requests, as "<method> <path> = <what>".
const std::set<std::string>& Valid() {
  static const auto* valid = new std::set<std::string>{
      // UpdateGroup cannot change the app name; clients leave it empty.
      "gnomon.v1.JobAdmin.UpdateGroup group.app_name = empty",
      // UpdateUser keeps the password when none is given.
      "gnomon.v1.JobAdmin.UpdateUser password = empty",
      // ListJobs: no name filter.
      "gnomon.v1.JobAdmin.ListJobs name = empty",
  };
  return *valid;
}

// Methods whose credential is a group's (docs/operations.md, "Authentication").
bool TakesGroupCredential(const MethodDescriptor* m) {
  return m->full_name() == "gnomon.v1.Registry.Session" ||
         m->full_name() == "gnomon.v1.LogService.ReportResults" ||
         m->full_name() == "gnomon.v1.Dispatch.Connect";
}

// Sends `messages` (serialized) on `method`, reads every answer, returns the status.
grpc::Status RawCall(grpc::GenericStub& stub, const MethodDescriptor* method, const Metadata& md,
                     const std::vector<std::string>& messages) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
  for (const auto& [k, v] : md) ctx.AddMetadata(k, v);
  grpc::CompletionQueue cq;
  auto call = stub.PrepareCall(
      &ctx, absl::StrCat("/", method->service()->full_name(), "/", method->name()), &cq);
  bool ok = true;
  // One operation at a time, so the next event is always the one just started.
  auto await = [&cq, &ok] {
    void* tag;
    cq.Next(&tag, &ok);
  };
  call->StartCall(nullptr);
  await();
  for (const std::string& m : messages) {
    grpc::Slice slice(m);
    grpc::ByteBuffer buffer(&slice, 1);
    call->Write(buffer, nullptr);
    await();
    if (!ok) break;
  }
  call->WritesDone(nullptr);
  await();
  do {  // Until the server has nothing more to say (await sets ok).
    grpc::ByteBuffer answer;
    call->Read(&answer, nullptr);
    await();
  } while (ok);
  grpc::Status status;
  call->Finish(&status, nullptr);
  await();
  cq.Shutdown();
  void* tag;
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

// A valid call: messages before the one walked (a stream's Register), and
// the walked one, in text format.
struct Baseline {
  std::string method;  // "gnomon.v1.JobAdmin.CreateJob"
  std::vector<std::string> before;
  std::string request;
};

class InputLimitsTest : public ::testing::Test {
 protected:
  explicit InputLimitsTest(std::vector<std::string> flags = {"--admin-rate-limit=0"})
      : cluster_(std::move(flags)) {}

  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    channel_ = grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials());
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "walk-app"}, &group_));
    ASSERT_TRUE(cluster_.CtlJson(
        {"job", "create", "--group", absl::StrCat(group_.id()), "--handler", "h", "--manual"},
        &job_));
    const std::string password_file = cluster_.dir() + "/walker.pw";
    std::ofstream(password_file) << kWalkerPassword << "\n";
    {  // A workflow for the calls that name one.
      auto admin = v1::JobAdmin::NewStub(channel_);
      grpc::ClientContext ctx;
      ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
      v1::CreateWorkflowRequest req;
      req.mutable_workflow()->set_group_id(group_.id());
      req.mutable_workflow()->set_name("walked");
      v1::WorkflowNode* n = req.mutable_workflow()->add_nodes();
      n->set_name("a");
      n->set_job_id(job_.id());
      ASSERT_TRUE(admin->CreateWorkflow(&ctx, req, &workflow_).ok());
    }
    v1::User walker;
    ASSERT_TRUE(cluster_.CtlJson({"user", "create", "walker", "--role", "viewer", "--all-groups",
                                  "--password-file", password_file},
                                 &walker));
  }

  Metadata AdminMetadata(const std::string& token) const {
    return {{std::string(kAuthorizationKey), BearerValue(token)}};
  }
  Metadata MetadataFor(const MethodDescriptor* m) const {
    if (m->full_name() == "gnomon.v1.JobAdmin.Login") {
      return {{std::string(kAuthorizationKey),
               "Basic " + absl::Base64Escape(absl::StrCat("walker:", kWalkerPassword))}};
    }
    if (!TakesGroupCredential(m)) return AdminMetadata(cluster_.admin_token());
    return {{std::string(kAppNameKey), group_.app_name()},
            {std::string(kAccessTokenKey), group_.access_token()}};
  }

  // Everything the walk could have changed, as text.
  std::string Snapshot() {
    auto admin = v1::JobAdmin::NewStub(channel_);
    grpc::ClientContext g, j, r;
    for (grpc::ClientContext* c : {&g, &j, &r}) {
      c->AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
    }
    v1::ListGroupsResponse groups;
    v1::ListJobsResponse jobs;
    v1::ListRunsResponse runs;
    EXPECT_TRUE(admin->ListGroups(&g, v1::ListGroupsRequest(), &groups).ok());
    EXPECT_TRUE(admin->ListJobs(&j, v1::ListJobsRequest(), &jobs).ok());
    EXPECT_TRUE(admin->ListRuns(&r, v1::ListRunsRequest(), &runs).ok());
    return absl::StrCat(groups.DebugString(), jobs.DebugString(), runs.DebugString());
  }

  std::vector<Baseline> Baselines() const;

  testing::GnomonCluster cluster_;
  std::shared_ptr<grpc::Channel> channel_;
  v1::Group group_;
  v1::Job job_;
  v1::Workflow workflow_;
};

std::vector<Baseline> InputLimitsTest::Baselines() const {
  const std::string job = absl::Substitute(
      R"(group_id: $0 description: "d" author: "a" bean { handler: "h" } params: "p"
         schedule { cron { expression: "0 0 0 * * ?" time_zone: "Europe/Berlin" } }
         child_job_ids: $1 alarm { emails: "ops@example.com" webhook_urls: "https://example.com/hook"
                                   channels: "walk-chan" on: ALARM_ON_BOTH silence { seconds: 60 } }
         pool: "walk-pool" priority: 1)",
      group_.id(), job_.id());
  const std::string script_job = absl::Substitute(
      R"(group_id: $0 script { language: SCRIPT_LANGUAGE_SHELL source: "echo" version: 1 remark: "r" }
         schedule { fix_rate { seconds: 60 } calendar: "walk-cal" jitter { seconds: 1 } })",
      group_.id());
  const std::string delay_job = absl::Substitute(
      R"(group_id: $0 bean { handler: "h" } schedule { fix_delay { seconds: 60 } })", group_.id());
  const std::string group =
      R"(app_name: "walk-new" title: "t" manual { addresses: "127.0.0.1:1" })";
  const std::string reg = absl::Substitute(
      R"(register { app_name: "$0" address: "127.0.0.1:1" handlers: "h" capacity: 4 version: "1"
                    labels { key: "zone" value: "a" } instance_id: "i-1" })",
      group_.app_name());
  const std::string times =
      R"(start_time { seconds: 1700000000 } end_time { seconds: 1700086400 })";
  const std::string g = absl::StrCat(group_.id()), j = absl::StrCat(job_.id());
  const std::string w = absl::StrCat(workflow_.id());
  // A node of each kind (a job by id and by name, a condition), an edge of
  // each kind. The walk goes into a list's first item only: the update's
  // nodes start with the condition, the create's with a job.
  const std::string fields = absl::Substitute(
      R"(group_id: $0 name: "walk-flow" description: "d" params: "p" state: WORKFLOW_STATE_STOPPED
         schedule { cron { expression: "0 0 0 * * ?" time_zone: "Europe/Berlin" } }
         misfire_policy: MISFIRE_POLICY_DO_NOTHING
         create_time { seconds: 1700000000 } update_time { seconds: 1700000000 }
         edges { from: "a" to: "c" when: WORKFLOW_EDGE_WHEN_SUCCESS }
         edges { from: "c" to: "b" when: WORKFLOW_EDGE_WHEN_TRUE } )",
      group_.id());
  const std::string job_node = absl::Substitute(R"(nodes { name: "a" job_id: $0 } )", job_.id());
  const std::string condition_node =
      R"(nodes { name: "c" condition { subject: WORKFLOW_CONDITION_SUBJECT_OUTPUT
                                       op: WORKFLOW_CONDITION_OP_EQ value: "v" } } )";
  const std::string named_node =
      absl::Substitute(R"(nodes { name: "b" job_name: "$0" } )", job_.name());
  const std::string workflow = fields + job_node + condition_node + named_node;
  const std::string channel =
      R"(id: 1 name: "walk-chan" kind: TELEGRAM url: "https://api.example.com" secret: "123:abc"
         chat_id: "-100" template: "{{job_id}} {{reason}}" has_secret: true
         create_time { seconds: 1700000000 } update_time { seconds: 1700000000 })";
  const std::string calendar =
      R"(id: 1 name: "walk-cal" description: "d" time_zone: "Asia/Shanghai" weekdays: MONDAY
         excluded_dates: "2026-10-01" included_dates: "2026-10-10" windows: "09:00-17:00"
         create_time { seconds: 1700000000 } update_time { seconds: 1700000000 })";
  const std::string pool =
      R"(id: 1 name: "walk-pool" description: "d" slots: 2 running: 1 queued: 1
         create_time { seconds: 1700000000 } update_time { seconds: 1700000000 })";
  const std::string condition_first = fields + condition_node + job_node + named_node;
  return {
      {"gnomon.v1.JobAdmin.CreateGroup", {}, absl::StrCat("group { ", group, " }")},
      {"gnomon.v1.JobAdmin.GetGroup", {}, "group_id: " + g},
      {"gnomon.v1.JobAdmin.ListGroups", {}, ""},
      {"gnomon.v1.JobAdmin.UpdateGroup",
       {},
       absl::Substitute(R"(group { id: $0 title: "t" manual { addresses: "127.0.0.1:1" } }
                           update_mask { paths: "title" })",
                        g)},
      {"gnomon.v1.JobAdmin.DeleteGroup", {}, "group_id: " + g},
      {"gnomon.v1.JobAdmin.RotateGroupToken",
       {},
       absl::StrCat("group_id: ", g, " grace { seconds: 60 }")},
      {"gnomon.v1.JobAdmin.CreateJob", {}, absl::StrCat("job { ", job, " }")},
      {"gnomon.v1.JobAdmin.CreateJob", {}, absl::StrCat("job { ", script_job, " }")},
      {"gnomon.v1.JobAdmin.CreateJob", {}, absl::StrCat("job { ", delay_job, " }")},
      {"gnomon.v1.JobAdmin.BatchCreateJobs", {}, absl::StrCat("requests { job { ", job, " } }")},
      {"gnomon.v1.JobAdmin.GetJob", {}, "job_id: " + j},
      {"gnomon.v1.JobAdmin.ListJobs",
       {},
       absl::StrCat("group_id: ", g, " page_size: 10 page_token: \"1\"")},
      {"gnomon.v1.JobAdmin.UpdateJob", {}, absl::StrCat("job { id: ", j, " ", job, " }")},
      {"gnomon.v1.JobAdmin.DeleteJob", {}, "job_id: " + j},
      {"gnomon.v1.JobAdmin.StartJob", {}, "job_id: " + j},
      {"gnomon.v1.JobAdmin.StopJob", {}, "job_id: " + j},
      {"gnomon.v1.JobAdmin.TriggerJob",
       {},
       absl::StrCat("job_id: ", j, R"( params: "p" executor_addresses: "127.0.0.1:1" shard_index: 0
                                      trigger_type: TRIGGER_TYPE_MANUAL)")},
      {"gnomon.v1.JobAdmin.PreviewSchedule",
       {},
       R"(schedule { cron { expression: "0 0 0 * * ?" } } from_time { seconds: 1700000000 } count: 5
          params: "day=$[yyyyMMdd-1]")"},
      {"gnomon.v1.JobAdmin.PreviewSchedule",
       {},
       R"(schedule { fix_delay { seconds: 60 } } count: 5)"},
      {"gnomon.v1.JobAdmin.Backfill", {}, absl::StrCat("job_id: ", j, " ", times)},
      {"gnomon.v1.JobAdmin.ListScriptVersions",
       {},
       absl::StrCat("job_id: ", j, " page_size: 10 page_token: \"1\"")},
      {"gnomon.v1.JobAdmin.GetScriptVersion", {}, absl::StrCat("job_id: ", j, " version: 1")},
      {"gnomon.v1.JobAdmin.RollbackScript",
       {},
       absl::StrCat("job_id: ", j, R"( version: 1 remark: "r")")},
      {"gnomon.v1.JobAdmin.ListRuns",
       {},
       absl::StrCat("job_id: ", j, " group_id: ", g,
                    " statuses: RUN_STATUS_FAILED page_size: 10 page_token: \"1\" ",
                    "workflow_run_id: 1 ", "trigger_type: TRIGGER_TYPE_CRON ", times)},
      {"gnomon.v1.JobAdmin.GetRun", {}, "run_id: 1 log_lines: 10"},
      {"gnomon.v1.JobAdmin.KillRun", {}, "run_id: 1"},
      {"gnomon.v1.JobAdmin.CreateCalendar", {}, absl::StrCat("calendar { ", calendar, " }")},
      {"gnomon.v1.JobAdmin.GetCalendar", {}, R"(name: "walk-cal")"},
      {"gnomon.v1.JobAdmin.ListCalendars", {}, ""},
      {"gnomon.v1.JobAdmin.UpdateCalendar", {}, absl::StrCat("calendar { ", calendar, " }")},
      {"gnomon.v1.JobAdmin.DeleteCalendar", {}, R"(name: "walk-cal")"},
      {"gnomon.v1.JobAdmin.CreatePool", {}, absl::StrCat("pool { ", pool, " }")},
      {"gnomon.v1.JobAdmin.GetPool", {}, R"(name: "walk-pool")"},
      {"gnomon.v1.JobAdmin.ListPools", {}, ""},
      {"gnomon.v1.JobAdmin.UpdatePool", {}, absl::StrCat("pool { ", pool, " }")},
      {"gnomon.v1.JobAdmin.DeletePool", {}, R"(name: "walk-pool")"},
      {"gnomon.v1.JobAdmin.ListPoolQueue", {}, R"(name: "walk-pool" limit: 10)"},
      {"gnomon.v1.JobAdmin.CreateAlarmChannel", {}, absl::StrCat("channel { ", channel, " }")},
      {"gnomon.v1.JobAdmin.GetAlarmChannel", {}, R"(name: "walk-chan")"},
      {"gnomon.v1.JobAdmin.ListAlarmChannels", {}, ""},
      {"gnomon.v1.JobAdmin.UpdateAlarmChannel", {}, absl::StrCat("channel { ", channel, " }")},
      {"gnomon.v1.JobAdmin.DeleteAlarmChannel", {}, R"(name: "walk-chan")"},
      {"gnomon.v1.JobAdmin.TestAlarmChannel", {}, R"(name: "walk-chan")"},
      {"gnomon.v1.JobAdmin.CreateWorkflow", {}, absl::StrCat("workflow { ", workflow, " }")},
      {"gnomon.v1.JobAdmin.GetWorkflow", {}, "workflow_id: " + w},
      {"gnomon.v1.JobAdmin.ListWorkflows", {}, "group_id: " + g},
      {"gnomon.v1.JobAdmin.UpdateWorkflow",
       {},
       absl::StrCat("workflow { id: ", w, " ", condition_first, " }")},
      {"gnomon.v1.JobAdmin.DeleteWorkflow", {}, "workflow_id: " + w},
      {"gnomon.v1.JobAdmin.TriggerWorkflow",
       {},
       absl::StrCat("workflow_id: ", w, R"( params: "p" trigger_type: TRIGGER_TYPE_MANUAL)")},
      {"gnomon.v1.JobAdmin.GetWorkflowRun", {}, "workflow_run_id: 1"},
      {"gnomon.v1.JobAdmin.ListWorkflowRuns",
       {},
       absl::StrCat("workflow_id: ", w, " page_size: 10")},
      {"gnomon.v1.JobAdmin.CancelWorkflowRun", {}, "workflow_run_id: 1"},
      {"gnomon.v1.JobAdmin.RerunWorkflowNode", {}, R"(workflow_run_id: 1 node: "a")"},
      {"gnomon.v1.JobAdmin.SkipWorkflowNode", {}, R"(workflow_run_id: 1 node: "a")"},
      {"gnomon.v1.JobAdmin.MarkWorkflowNodeSucceeded",
       {},
       R"(workflow_run_id: 1 node: "a" output: "o")"},
      {"gnomon.v1.JobAdmin.ListAudit", {}, R"(object: "job/1" page_size: 10 page_token: "1")"},
      {"gnomon.v1.JobAdmin.CreateToken",
       {},
       absl::StrCat(
           R"(name: "walk-token" ttl { seconds: 3600 } role: ROLE_OPERATOR grants { group_ids: )",
           g, " }")},
      {"gnomon.v1.JobAdmin.ListTokens", {}, ""},
      {"gnomon.v1.JobAdmin.RevokeToken", {}, R"(name: "walk-token")"},
      {"gnomon.v1.JobAdmin.CreateUser",
       {},
       absl::StrCat(R"(user { name: "walk-user" role: ROLE_VIEWER grants { group_ids: )", g,
                    R"( } } password: "walk-password-1")")},
      {"gnomon.v1.JobAdmin.ListUsers", {}, ""},
      {"gnomon.v1.JobAdmin.UpdateUser",
       {},
       absl::StrCat(R"(user { name: "walker" role: ROLE_OPERATOR grants { group_ids: )", g,
                    R"( } } password: "walk-password-2")")},
      {"gnomon.v1.JobAdmin.DeleteUser", {}, R"(name: "walker")"},
      {"gnomon.v1.JobAdmin.Login", {}, "ttl { seconds: 3600 }"},
      {"gnomon.v1.JobAdmin.Logout", {}, ""},
      {"gnomon.v1.JobAdmin.WhoAmI", {}, ""},
      {"gnomon.v1.JobAdmin.ListExecutors", {}, "group_id: " + g},
      {"gnomon.v1.LogService.ReportResults",
       {},
       R"(items { sequence: 1 started { run_id: 1 start_time { seconds: 1700000000 }
                                         executor_address: "127.0.0.1:1" } })"},
      {"gnomon.v1.LogService.ReportResults",
       {},
       R"(items { sequence: 1 log { run_id: 1 lines { line_number: 1 time { seconds: 1700000000 } text: "x" } } })"},
      {"gnomon.v1.LogService.ReportResults",
       {},
       R"(items { sequence: 1 result { run_id: 1 handle_code: 200 handle_message: "ok"
                                        start_time { seconds: 1700000000 } end_time { seconds: 1700000001 } } })"},
      {"gnomon.v1.LogService.StreamRunLog", {}, "run_id: 1 from_line: 1"},
      {"gnomon.v1.LogService.GetRun", {}, "run_id: 1 log_lines: 10"},
      {"gnomon.v1.LogService.ListRuns",
       {},
       absl::StrCat("job_id: ", j,
                    " statuses: RUN_STATUS_FAILED trigger_type: TRIGGER_TYPE_BACKFILL ", times)},
      {"gnomon.v1.LogService.GetStats", {}, absl::StrCat("job_id: ", j, " ", times)},
      {"gnomon.v1.Registry.Session", {}, reg},
      {"gnomon.v1.Registry.Session",
       {reg},
       R"(beat { busy_jobs { job_id: 1 running: 1 queued: 1 } running_runs: 1 load: 0.5
                 busy_job_count: 1 queued_runs: 1 })"},
      {"gnomon.v1.Registry.Session", {reg}, R"(deregister { reason: "bye" })"},
      {"gnomon.v1.Dispatch.Connect",
       {},
       absl::Substitute(R"(hello { app_name: "$0" executor: "e:1" instance_id: "i-1" })",
                        group_.app_name())},
      {"gnomon.v1.Registry.WatchExecutors",
       {},
       absl::Substitute(R"(app_names: "$0")", group_.app_name())},
  };
}

std::string ReadDocs() {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/operations.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(InputLimitsTest, EveryFieldOfEveryRequestIsBounded) {
  absl::StatusOr<testing::LimitTable> table = testing::ReadLimitTable(ReadDocs());
  ASSERT_TRUE(table.ok()) << table.status();
  absl::StatusOr<std::vector<const MethodDescriptor*>> methods = testing::DeclaredMethods();
  ASSERT_TRUE(methods.ok()) << methods.status();
  const std::string before = Snapshot();
  grpc::GenericStub stub(channel_);
  google::protobuf::DynamicMessageFactory factory;
  std::set<std::string> unlisted, used, walked_methods;
  int calls = 0;
  for (const Baseline& b : Baselines()) {
    const MethodDescriptor* m = nullptr;
    for (const MethodDescriptor* d : *methods) m = d->full_name() == b.method ? d : m;
    ASSERT_NE(m, nullptr) << b.method;
    walked_methods.insert(b.method);
    auto parse = [&](const std::string& text) {
      std::unique_ptr<Message> msg(factory.GetPrototype(m->input_type())->New());
      EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, msg.get()))
          << b.method << ": " << text;
      return msg;
    };
    std::vector<std::string> messages;
    for (const std::string& text : b.before) messages.push_back(parse(text)->SerializeAsString());
    std::set<std::string> method_unlisted;
    for (testing::Mutation& mu :
         testing::Mutate(*parse(b.request), *table, Exempt(), &method_unlisted, &used)) {
      if (Valid().count(absl::StrCat(b.method, " ", mu.path, " = ", mu.what))) continue;
      {
        // protobuf logs each string it serializes that is not UTF-8.
        google::protobuf::LogSilencer quiet;
        messages.push_back(mu.request->SerializeAsString());
      }
      grpc::Status s = RawCall(stub, m, MetadataFor(m), messages);
      messages.pop_back();
      ++calls;
      const std::string where =
          absl::StrCat(b.method, " ", mu.path, " = ", mu.what, ": ", s.error_message());
      EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << where;
      EXPECT_NE(testing::BarePath(s.error_message()).find(testing::BarePath(mu.path)),
                std::string::npos)
          << where << " (the field is not named)";
      EXPECT_LE(s.error_message().size(), kMaxMessageBytes) << where << " (too long)";
      EXPECT_NE(s.error_message().find(mu.expect_in_message), std::string::npos)
          << where << " (docs/operations.md says " << mu.row << ": " << mu.expect_in_message << ")";
    }
    for (const std::string& u : method_unlisted) unlisted.insert(absl::StrCat(b.method, ": ", u));
  }
  EXPECT_GT(calls, 300);
  EXPECT_TRUE(unlisted.empty()) << "fields with no row in docs/operations.md \"Input limits\":\n"
                                << absl::StrJoin(unlisted, "\n");
  for (const testing::LimitRow& row : *table) {
    EXPECT_TRUE(used.count(row.field))
        << "docs/operations.md lists " << row.field << ", which no request has";
  }
  for (const MethodDescriptor* d : *methods) {
    EXPECT_TRUE(walked_methods.count(d->full_name())) << d->full_name() << " has no baseline here";
  }

  EXPECT_EQ(Snapshot(), before) << "a refused request wrote something";
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext hctx;
  grpc::health::v1::HealthCheckRequest hreq;
  hreq.set_service("liveness");  // The process serves (readiness also waits for partition leases).
  grpc::health::v1::HealthCheckResponse hresp;
  EXPECT_TRUE(health->Check(&hctx, hreq, &hresp).ok());
  EXPECT_EQ(hresp.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  EXPECT_EQ(cluster_.gnomond()->WaitFor(absl::ZeroDuration()), std::nullopt);  // Still running.
}

class AdminRateLimitTest : public InputLimitsTest {
 protected:
  // A small burst and a slow refill, so the test's own calls cannot refill it.
  AdminRateLimitTest() : InputLimitsTest({"--admin-rate-limit=0.01", "--admin-rate-burst=20"}) {}
};

TEST_F(AdminRateLimitTest, ABurstOverTheLimitIsRefusedPerCredential) {
  auto admin = v1::JobAdmin::NewStub(channel_);
  auto get = [&](const std::string& token) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
    v1::GetJobRequest req;
    req.set_job_id(job_.id());
    v1::Job out;
    return admin->GetJob(&ctx, req, &out);
  };
  // A second API token (the fifth of the admin token's 20 calls: SetUp
  // spent 4, one of them creating the walk's workflow).
  v1::CreateTokenResponse second;
  {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
    v1::CreateTokenRequest req;
    req.set_name("second");
    ASSERT_TRUE(admin->CreateToken(&ctx, req, &second).ok());
  }
  int ok = 0, exhausted = 0;
  for (int i = 0; i < 40; ++i) {
    grpc::Status s = get(cluster_.admin_token());
    if (s.ok()) {
      ++ok;
    } else {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
      EXPECT_EQ(
          s.error_message(),
          "rate limit: this credential may make 0.01 calls per second (bursts of 20); retry later");
      ++exhausted;
    }
  }
  EXPECT_EQ(ok, 15);
  EXPECT_EQ(exhausted, 25);
  // Another credential has its own bucket.
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(get(second.secret()).ok()) << i;
  EXPECT_EQ(get(second.secret()).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  // A wrong token is still refused as unauthenticated, not rate limited.
  EXPECT_EQ(get("not-a-token").error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

// docs/operations.md gives the flags' defaults and the refusal they lead to.
TEST(AdminRateLimitDocs, DefaultsAndMessageAreAsDocumented) {
  const std::string docs = absl::StrReplaceAll(ReadDocs(), {{"\n", " "}});
  EXPECT_NE(docs.find("| `--admin-rate-limit` | 50 |"), std::string::npos);
  EXPECT_NE(docs.find("| `--admin-rate-burst` | 100 |"), std::string::npos);
  EXPECT_NE(docs.find("(`rate limit: this credential may make 50 calls per second (bursts of 100); "
                      "retry later`)"),
            std::string::npos);
  testing::Subprocess help({GNOMOND_PATH, "--help"});
  help.Wait();
  const std::string usage = absl::StrReplaceAll(help.Output(), {{"\n", " "}, {"  ", ""}});
  EXPECT_NE(usage.find("RESOURCE_EXHAUSTED.); default: 50;"), std::string::npos) << usage;
  EXPECT_NE(usage.find("applies.); default: 100;"), std::string::npos) << usage;
}

}  // namespace
}  // namespace gnomon
