// gnomonctl pool ..., --pool/--priority on jobs, queued runs in run get and
// run list, apply of Pool documents and get pool(s), against the fake
// JobAdmin's in-memory pools and queues (fake_pools.h).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cli_test_fixture.h"
#include "cli/format.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using Result = testing::CliResult;

// 2024-05-01T12:00:00Z, the fixture's "now".
constexpr int64_t kNow = 1714564800;

// A run of job `job_id` in pool etl-db, queued `queued_ago` seconds before
// kNow; `let_go_ago` >= 0: it got a slot then.
v1::Run PoolRun(int64_t id, int64_t job_id, int32_t priority, v1::RunStatus status,
                int64_t queued_ago, int64_t let_go_ago = -1) {
  v1::Run run;
  run.set_id(id);
  run.set_job_id(job_id);
  run.set_pool("etl-db");
  run.set_priority(priority);
  run.set_status(status);
  run.mutable_queued_time()->set_seconds(kNow - queued_ago);
  if (let_go_ago >= 0) run.mutable_trigger_time()->set_seconds(kNow - let_go_ago);
  return run;
}

class PoolCliTest : public testing::CliTest {
 protected:
  // Stores "etl-db" (4 slots, 3 running, 12 queued) and "gpu" (2 slots, idle).
  void SeedPools() {
    servers_.state.Set([](testing::AdminState& s) {
      v1::CreatePoolRequest req;
      v1::Pool created;
      req.mutable_pool()->set_name("etl-db");
      req.mutable_pool()->set_description("the ETL database");
      req.mutable_pool()->set_slots(4);
      EXPECT_TRUE(s.pools.CreatePool(req, &created).ok());
      s.pools.stored["etl-db"].set_running(3);
      s.pools.stored["etl-db"].set_queued(12);
      req.mutable_pool()->set_name("gpu");
      req.mutable_pool()->clear_description();
      req.mutable_pool()->set_slots(2);
      EXPECT_TRUE(s.pools.CreatePool(req, &created).ok());
    });
  }
  void ClearCalls() {
    servers_.state.Set([](testing::AdminState& s) { s.calls.clear(); });
  }
  std::vector<std::string> Methods() { return servers_.state.Methods(); }
  v1::Pool Stored(const std::string& name) { return servers_.state.Snapshot().pools.stored[name]; }
};

TEST_F(PoolCliTest, UsageErrorsExitTwoWithoutCallingTheServer) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"pool"},
           {"pool", "create"},
           {"pool", "create", "etl-db"},  // no --slots
           {"pool", "create", "etl-db", "--slots", "0"},
           {"pool", "create", "etl-db", "--slots", "-1"},
           {"pool", "create", "etl-db", "--slots", "four"},
           {"pool", "create", "etl-db", "--slots", "99999999999"},
           {"pool", "create", "a", "b", "--slots", "1"},
           {"pool", "create", "etl-db", "--slots", "1", "--size", "2"},
           {"pool", "get"},
           {"pool", "get", ""},
           {"pool", "list", "etl-db"},
           {"pool", "update", "etl-db"},
           {"pool", "update", "etl-db", "--slots", "x"},
           {"pool", "delete"},
           {"pool", "queue"},
           {"pool", "queue", "etl-db", "--limit", "0"},
           {"pool", "queue", "etl-db", "--limit", "ten"},
           {"pool", "queue", "etl-db", "--limit", "3000000000"},
           {"get", "pool"},
           {"get", "pools", "etl-db"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--priority", "high"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--priority", "1.5"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--priority",
            "99999999999"},
           {"run", "list", "--status", "waiting"},
       }) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_THAT(r.err, HasSubstr("--help")) << r.err;
    EXPECT_THAT(r.out, IsEmpty());
  }
  EXPECT_THAT(Methods(), IsEmpty());
}

TEST_F(PoolCliTest, UsageErrorsNameTheFlag) {
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"pool", "create", "etl-db"}, "a pool needs --slots N (1 to 10000)"},
           {{"pool", "create", "etl-db", "--slots", "four"},
            "--slots must be a positive integer, not 'four'"},
           {{"pool", "create", "etl-db", "--slots", "0"},
            "--slots must be a positive integer, not '0'"},
           {{"pool", "create", "etl-db", "--slots", "99999999999"},
            "--slots is too large: 99999999999"},
           {{"pool", "update", "etl-db"}, "nothing to change: give --slots or --description"},
           {{"pool", "queue", "etl-db", "--limit", "ten"},
            "--limit must be a positive integer, not 'ten'"},
           {{"pool", "queue", "etl-db", "--limit", "3000000000"},
            "--limit is too large: 3000000000"},
           {{"job", "update", "7", "--priority", "high"},
            "--priority must be an integer from -1000 to 1000 (higher first), not 'high'"},
           {{"run", "list", "--status", "waiting"},
            "unknown run status 'waiting'; use one of pending, running, succeeded, failed, queued"},
       }) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args);
    EXPECT_THAT(r.err, HasSubstr(message)) << ::testing::PrintToString(args);
  }
}

TEST_F(PoolCliTest, HelpListsTheVerbsAndTheJobFlags) {
  Result r = Run({"pool", "--help"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* verb : {"create", "list", "get", "update", "delete", "queue"}) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("pool ", verb, " "))) << verb;
  }
  r = Run({"pool", "create", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--slots N"));
  EXPECT_THAT(r.out, HasSubstr("--description TEXT"));
  EXPECT_THAT(r.out, HasSubstr("Examples:"));
  r = Run({"pool", "queue", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--limit N"));
  r = Run({"job", "create", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--pool NAME"));
  EXPECT_THAT(r.out, HasSubstr("--priority N"));
  r = Run({"run", "list", "--help"});
  EXPECT_THAT(r.out, HasSubstr("queued (waiting for a pool's slot)"));
}

TEST_F(PoolCliTest, CreateSendsTheFlagsAndPrintsThePool) {
  Result r = Run({"pool", "create", "etl-db", "--slots", "4", "--description", "the ETL database"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("CreatePool"));
  const v1::Pool sent = servers_.state.Last<v1::CreatePoolRequest>("CreatePool").pool();
  EXPECT_EQ(sent.name(), "etl-db");
  EXPECT_EQ(sent.slots(), 4u);
  EXPECT_EQ(sent.description(), "the ETL database");
  EXPECT_EQ(r.out,
            "name:         etl-db\n"
            "description:  the ETL database\n"
            "slots:        4\n"
            "running:      0 (runs holding a slot)\n"
            "queued:       0 (runs waiting for one)\n"
            "created:      2024-05-01T12:00:00.000+00:00\n"
            "updated:      2024-05-01T12:00:00.000+00:00\n");

  // Out of the server's range: its refusal passes through.
  servers_.state.Set([](testing::AdminState& s) {
    s.fail = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "pool.slots: must be 1 to 10000");
  });
  r = Run({"pool", "create", "big", "--slots", "20000"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("pool.slots: must be 1 to 10000"));
  EXPECT_EQ(servers_.state.Last<v1::CreatePoolRequest>("CreatePool").pool().slots(), 20000u);
  servers_.state.Set([](testing::AdminState& s) { s.fail.reset(); });

  r = Run({"pool", "create", "etl-db", "--slots", "2"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("ALREADY_EXISTS: pool.name: a pool is named 'etl-db'"));
}

TEST_F(PoolCliTest, ListIsATableOfSlotsAndCountsAndGetShowsOnePool) {
  SeedPools();
  ClearCalls();
  Result r = Run({"pool", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("ListPools"));
  EXPECT_EQ(r.out,
            "NAME    SLOTS  RUNNING  QUEUED  DESCRIPTION\n"
            "etl-db  4      3        12      the ETL database\n"
            "gpu     2      0        0       -\n");

  r = Run({"pool", "list", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListPoolsResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &listed).ok()) << r.out;
  ASSERT_EQ(listed.pools_size(), 2);
  EXPECT_EQ(listed.pools(0).queued(), 12u);

  r = Run({"pool", "get", "etl-db"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::GetPoolRequest>("GetPool").name(), "etl-db");
  EXPECT_THAT(r.out, HasSubstr("slots:        4\n"));
  EXPECT_THAT(r.out, HasSubstr("running:      3 (runs holding a slot)\n"));
  EXPECT_THAT(r.out, HasSubstr("queued:       12 (runs waiting for one)\n"));

  r = Run({"pool", "get", "etl-db", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("name: etl-db\n"));
  EXPECT_THAT(r.out, HasSubstr("slots: 4\n"));

  r = Run({"pool", "get", "printers"});
  EXPECT_EQ(r.code, 3);  // NOT_FOUND
  EXPECT_THAT(r.err, HasSubstr("no pool is named 'printers'"));
}

TEST_F(PoolCliTest, UpdateChangesTheGivenFieldsAndKeepsTheOthers) {
  SeedPools();
  ClearCalls();
  Result r = Run({"pool", "update", "etl-db", "--slots", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("GetPool", "UpdatePool"));
  v1::Pool sent = servers_.state.Last<v1::UpdatePoolRequest>("UpdatePool").pool();
  EXPECT_EQ(sent.name(), "etl-db");
  EXPECT_EQ(sent.slots(), 8u);
  EXPECT_EQ(sent.description(), "the ETL database");  // Kept.
  EXPECT_EQ(Stored("etl-db").slots(), 8u);
  EXPECT_EQ(Stored("etl-db").description(), "the ETL database");
  EXPECT_THAT(r.out, HasSubstr("slots:        8\n"));
  EXPECT_THAT(r.out, HasSubstr("updated:      2024-05-01T12:01:00.000+00:00\n"));

  r = Run({"pool", "update", "etl-db", "--description", ""});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdatePoolRequest>("UpdatePool").pool();
  EXPECT_EQ(sent.description(), "");
  EXPECT_EQ(sent.slots(), 8u);  // Kept.
  EXPECT_EQ(Stored("etl-db").description(), "");

  r = Run({"pool", "update", "etl-db", "--slots", "1", "--description", "one at a time"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Stored("etl-db").slots(), 1u);
  EXPECT_EQ(Stored("etl-db").description(), "one at a time");

  ClearCalls();
  r = Run({"pool", "update", "printers", "--slots", "2"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(Methods(), ElementsAre("GetPool"));
}

TEST_F(PoolCliTest, DeleteIsRefusedWhileAJobNamesThePool) {
  SeedPools();
  servers_.state.Set([](testing::AdminState& s) { s.pools.in_use.insert("gpu"); });
  Result r = Run({"pool", "delete", "gpu"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION: pool 'gpu' is named by job 7"));
  EXPECT_EQ(Stored("gpu").name(), "gpu");

  servers_.state.Set([](testing::AdminState& s) { s.pools.in_use.clear(); });
  r = Run({"pool", "delete", "gpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "deleted pool gpu\n");
  EXPECT_EQ(servers_.state.Last<v1::DeletePoolRequest>("DeletePool").name(), "gpu");
  EXPECT_EQ(servers_.state.Snapshot().pools.stored.count("gpu"), 0u);
}

TEST_F(PoolCliTest, QueueShowsTheRunsHoldingSlotsThenTheQueuedOnesInOrder) {
  SeedPools();
  servers_.state.Set([](testing::AdminState& s) {
    v1::ListPoolQueueResponse& q = s.pools.queues["etl-db"];
    *q.add_running() = PoolRun(40, 7, 0, v1::RUN_STATUS_RUNNING, 120, 90);
    *q.add_running() = PoolRun(41, 9, 5, v1::RUN_STATUS_PENDING, 60, 1);
    *q.add_queued() = PoolRun(44, 9, 10, v1::RUN_STATUS_QUEUED, 30);
    *q.add_queued() = PoolRun(42, 7, 0, v1::RUN_STATUS_QUEUED, 50);
    *q.add_queued() = PoolRun(43, 8, -5, v1::RUN_STATUS_QUEUED, 40);
  });
  ClearCalls();
  Result r = Run({"pool", "queue", "etl-db"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("ListPoolQueue"));
  v1::ListPoolQueueRequest req = servers_.state.Last<v1::ListPoolQueueRequest>("ListPoolQueue");
  EXPECT_EQ(req.name(), "etl-db");
  EXPECT_EQ(req.limit(), 0);  // The server's default.
  // Times in UTC: the runs are of many jobs.
  EXPECT_EQ(r.out,
            "#  RUN  JOB  PRIORITY  STATUS   QUEUED                         TRIGGERED\n"
            "-  40   7    0         running  2024-05-01T11:58:00.000+00:00  "
            "2024-05-01T11:58:30.000+00:00\n"
            "-  41   9    5         pending  2024-05-01T11:59:00.000+00:00  "
            "2024-05-01T11:59:59.000+00:00\n"
            "1  44   9    10        queued   2024-05-01T11:59:30.000+00:00  -\n"
            "2  42   7    0         queued   2024-05-01T11:59:10.000+00:00  -\n"
            "3  43   8    -5        queued   2024-05-01T11:59:20.000+00:00  -\n");

  // Fewer shown than wait: it says how many wait in all.
  r = Run({"pool", "queue", "etl-db", "--limit", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::ListPoolQueueRequest>("ListPoolQueue").limit(), 2);
  EXPECT_THAT(r.out, HasSubstr("2  42   7    0         queued"));
  EXPECT_THAT(r.out, Not(HasSubstr("  43  ")));
  EXPECT_THAT(r.out, HasSubstr("\n3 queued in all (the first 2 shown)\n"));

  r = Run({"pool", "queue", "etl-db", "--limit", "1", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListPoolQueueResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &listed).ok()) << r.out;
  EXPECT_EQ(listed.running_size(), 2);
  ASSERT_EQ(listed.queued_size(), 1);
  EXPECT_EQ(listed.queued(0).id(), 44);
  EXPECT_EQ(listed.queued_total(), 3);

  r = Run({"pool", "queue", "gpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "no run holds a slot or waits for one\n");

  r = Run({"pool", "queue", "printers"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("no pool is named 'printers'"));
}

TEST_F(PoolCliTest, JobsNameAPoolAndAPriority) {
  SeedPools();
  Result r = Run({"job", "create", "--group", "1", "--handler", "load", "--every", "1m", "--pool",
                  "etl-db", "--priority", "-5"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::Job sent = servers_.state.Last<v1::CreateJobRequest>("CreateJob").job();
  EXPECT_EQ(sent.pool(), "etl-db");
  EXPECT_EQ(sent.priority(), -5);
  // job create prints the job: pool and priority after the block strategy.
  EXPECT_THAT(r.out, HasSubstr("block:           serial\n"
                               "pool:            etl-db\n"
                               "priority:        -5\n"));

  // A pool no one defined: the server's NOT_FOUND names the field.
  r = Run({"job", "create", "--group", "1", "--handler", "load", "--manual", "--pool", "printers"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("job.pool: no pool is named 'printers' (gnomonctl pool list)"));

  // Without a pool or a priority, job get shows neither.
  r = Run({"job", "create", "--group", "1", "--handler", "load", "--manual"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("pool:")));
  EXPECT_THAT(r.out, Not(HasSubstr("priority:")));
}

TEST_F(PoolCliTest, JobUpdateSetsKeepsAndClearsThePoolAndPriority) {
  SeedPools();
  servers_.state.Set([](testing::AdminState& s) {
    testing::SeedEtlMerge(s);
    s.job.mutable_schedule()->mutable_fix_rate()->set_seconds(60);
  });
  Result r = Run({"job", "update", "7", "--pool", "etl-db", "--priority", "10"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::Job sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.pool(), "etl-db");
  EXPECT_EQ(sent.priority(), 10);

  // Other flags keep them.
  servers_.state.Set([&](testing::AdminState& s) {
    s.job.set_pool(sent.pool());
    s.job.set_priority(sent.priority());
  });
  r = Run({"job", "update", "7", "--desc", "loads"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.pool(), "etl-db");
  EXPECT_EQ(sent.priority(), 10);

  // --pool '' leaves the pool; --priority 0 is the default.
  r = Run({"job", "update", "7", "--pool", "", "--priority", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.pool(), "");
  EXPECT_EQ(sent.priority(), 0);

  // job get and job list -o wide show them.
  r = Run({"job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pool:            etl-db\npriority:        10\n"));
  servers_.state.Set([](testing::AdminState& s) {
    s.job_pages.resize(1);
    *s.job_pages[0].add_jobs() = s.job;
    v1::Job* other = s.job_pages[0].add_jobs();
    other->set_id(8);
    other->set_name("other");
  });
  r = Run({"job", "list", "-o", "wide"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  BLOCK   POOL    PRIORITY  RUN TIMEOUT"));
  EXPECT_THAT(r.out, HasSubstr("  serial  etl-db  10        -  "));
  EXPECT_THAT(r.out, HasSubstr("  serial  -       -         -  "));
  r = Run({"job", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("POOL")));
}

TEST_F(PoolCliTest, QueuedRunsShowTheirPoolPriorityAndQueuedTime) {
  servers_.state.Set([](testing::AdminState& s) {
    *s.run.mutable_run() = PoolRun(44, 7, 10, v1::RUN_STATUS_QUEUED, 30);
    s.run.mutable_run()->mutable_scheduled_time()->set_seconds(kNow - 30);
    s.run_pages.resize(1);
    *s.run_pages[0].add_runs() = s.run.run();
  });
  Result r = Run({"run", "get", "44"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("status:          queued\n"));
  EXPECT_THAT(r.out, HasSubstr("pool:            etl-db\npriority:        10\n"));
  EXPECT_THAT(r.out, HasSubstr("scheduled:       2024-05-01T11:59:30.000+00:00\n"
                               "queued:          2024-05-01T11:59:30.000+00:00\n"
                               "triggered:       -\n"));

  r = Run({"run", "list", "--status", "queued,pending"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(servers_.state.Last<v1::ListRunsRequest>("ListRuns").statuses(),
              ElementsAre(v1::RUN_STATUS_QUEUED, v1::RUN_STATUS_PENDING));
  EXPECT_THAT(r.out, HasSubstr("44  7    queued  "));

  // A run that never queued shows none of it.
  servers_.state.Set([](testing::AdminState& s) {
    s.run.mutable_run()->clear_pool();
    s.run.mutable_run()->clear_priority();
    s.run.mutable_run()->clear_queued_time();
    s.run.mutable_run()->set_status(v1::RUN_STATUS_SUCCEEDED);
  });
  r = Run({"run", "get", "44"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("pool:")));
  EXPECT_THAT(r.out, Not(HasSubstr("priority:")));
  EXPECT_THAT(r.out, Not(HasSubstr("queued:")));
}

constexpr char kLoad[] = R"(kind: Job
app: etl
job:
  name: merge
  bean: {handler: merge}
  schedule:
    fixRate: 60s
  pool: etl-db
  priority: 10
---
kind: Pool
pool:
  name: etl-db
  description: the ETL database
  slots: 4
---
kind: Calendar
calendar:
  name: workdays
)";

TEST_F(PoolCliTest, ApplyCreatesPoolsBeforeTheJobsThatNameThem) {
  servers_.state.Set([](testing::AdminState& s) {
    testing::SeedEtlMerge(s);
    s.job.mutable_schedule()->mutable_fix_rate()->set_seconds(60);
  });
  // The Pool document comes after the job in the file; it is applied first
  // (after the calendars), or the job's update would name a pool that does
  // not exist.
  Result r = ApplyText(kLoad);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/workdays created\npool/etl-db created\njob/etl/merge configured\n");
  EXPECT_THAT(Methods(), ElementsAre("GetCalendar", "CreateCalendar", "GetPool", "CreatePool",
                                     "ListGroups", "GetJob", "UpdateJob"));
  const v1::Pool created = Stored("etl-db");
  EXPECT_EQ(created.slots(), 4u);
  EXPECT_EQ(created.description(), "the ETL database");
  const v1::Job sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job();
  EXPECT_EQ(sent.pool(), "etl-db");
  EXPECT_EQ(sent.priority(), 10);

  // Again: nothing changes, whatever the pool's counts.
  servers_.state.Set([&](testing::AdminState& s) {
    s.job.set_pool(sent.pool());
    s.job.set_priority(sent.priority());
    s.pools.stored["etl-db"].set_running(4);
    s.pools.stored["etl-db"].set_queued(9);
  });
  r = ApplyText(kLoad);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/workdays unchanged\npool/etl-db unchanged\njob/etl/merge unchanged\n");
  EXPECT_THAT(Methods(), ElementsAre("GetCalendar", "GetPool", "ListGroups", "GetJob"));

  // More slots replace the pool's; --dry-run only says so.
  std::string edited = kLoad;
  edited.replace(edited.find("slots: 4"), 8, "slots: 6");
  files_["etl.yaml"] = edited;
  ClearCalls();
  r = Run({"apply", "-f", "etl.yaml", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "calendar/workdays unchanged (dry run)\npool/etl-db configured (dry run)\n"
            "job/etl/merge unchanged (dry run)\n");
  EXPECT_THAT(Methods(), Not(::testing::Contains("UpdatePool")));
  r = ApplyText(edited);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "calendar/workdays unchanged\npool/etl-db configured\njob/etl/merge unchanged\n");
  const v1::Pool updated = Stored("etl-db");
  EXPECT_EQ(updated.slots(), 6u);
  EXPECT_EQ(updated.id(), created.id());
  EXPECT_EQ(updated.queued(), 9u);  // The server's count, not the document's.
}

TEST_F(PoolCliTest, ApplyRefusesBadPoolDocumentsBeforeAnythingChanges) {
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"kind: Pool\npool: {slots: 2}\n", "pool.name is required"},
           {"kind: Pool\napp: etl\npool: {name: x, slots: 2}\n", "app: pools belong to no group"},
           {"kind: Pool\npool: {name: x, slots: 2}\n---\nkind: Pool\npool: {name: x, slots: 3}\n",
            "pool x is declared twice"},
           {"kind: Pool\npool: {name: x, size: 2}\n", "size"},
           {"kind: Pool\npool: {name: x, slots: -2}\n", "slots"},
           {"kind: Pools\npool: {name: x, slots: 2}\n",
            "kind must be Group, Job, Workflow, Calendar, AlarmChannel or Pool"},
       }) {
    Result r = ApplyText(text);
    EXPECT_EQ(r.code, 2) << text;
    EXPECT_THAT(r.err, HasSubstr(message)) << text;
    EXPECT_THAT(Methods(), IsEmpty()) << text;
  }
}

TEST_F(PoolCliTest, GetPoolPrintsADocumentThatAppliesBackUnchanged) {
  SeedPools();
  Result r = Run({"get", "pool", "etl-db"});
  ASSERT_EQ(r.code, 0) << r.err;
  // No times and no counts: the server's (a pool with runs applies back
  // unchanged all the same).
  EXPECT_EQ(r.out,
            "kind: Pool\n"
            "app: \"\"\n"
            "children: []\n"
            "pool:\n"
            "  id: \"0\"\n"
            "  name: etl-db\n"
            "  description: the ETL database\n"
            "  slots: 4\n"
            "  running: 0\n"
            "  queued: 0\n");
  r = ApplyText(r.out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "pool/etl-db unchanged\n");
  EXPECT_THAT(Methods(), ElementsAre("GetPool", "ListGroups"));

  r = Run({"get", "pools"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  name: gpu\n"));
  EXPECT_THAT(r.out, HasSubstr("---\n"));
  r = ApplyText(r.out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "pool/etl-db unchanged\npool/gpu unchanged\n");
  EXPECT_THAT(Methods(), ElementsAre("GetPool", "GetPool", "ListGroups"));

  r = Run({"get", "pool", "printers"});
  EXPECT_EQ(r.code, 3);
}

}  // namespace
}  // namespace gnomon::cli
