// Pools on gnomond (SQLite, or MariaDB under scripts/test) and the sample
// executor, through the real gRPC API: a job naming no pool that exists is
// refused; with a pool of one slot, a long run of a priority-0 job holds
// the slot while more runs of it and of a priority-5 job wait QUEUED, the
// priority-5 ones first (ListPoolQueue, GetPool); a viewer of another group
// sees those runs by their place only and cannot write pools; a queued run
// killed fails at once as killed and never reaches the executor; once the
// long run ends the others run one at a time, on the executor as recorded
// (no two overlap), in the queue's order; the pool cannot be deleted while
// a job names it, and can be once none does; the changes are audited as
// pool/NAME; gnomond's metrics count the runs let go and their waits; a
// resize replaces description and slots.
#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;
using testing::GnomonCluster;

constexpr char kPool[] = "etl-db";
// The long run's and the others' handler time ("slow" sleeps that long).
constexpr char kLong[] = "600000";
constexpr char kShort[] = "300";

int64_t Ms(const google::protobuf::Timestamp& t) { return TimeUtil::TimestampToMilliseconds(t); }

bool Ended(const v1::Run& r) {
  return r.status() == v1::RUN_STATUS_SUCCEEDED || r.status() == v1::RUN_STATUS_FAILED;
}

std::vector<int64_t> Ids(const google::protobuf::RepeatedPtrField<v1::Run>& runs) {
  std::vector<int64_t> ids;
  for (const v1::Run& r : runs) ids.push_back(r.id());
  return ids;
}

// The value of `series` in a Prometheus exposition, or nullopt.
std::optional<double> Sample(const std::string& exposition, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (!absl::ConsumePrefix(&line, series) || !absl::ConsumePrefix(&line, " ")) continue;
    double v = 0;
    if (absl::SimpleAtod(line, &v)) return v;
  }
  return std::nullopt;
}

class PoolsE2E : public ::testing::Test {
 protected:
  // gnomond with metrics and the HTTP API, group "pools" and one sample
  // executor of it writing each handler invocation to a file, online.
  ::testing::AssertionResult Start() {
    if (!cluster_.Start()) return ::testing::AssertionFailure() << cluster_.Output();
    std::optional<std::string> metrics =
        cluster_.gnomond()->WaitForLine("metrics on http://", absl::Seconds(30));
    if (!metrics) return ::testing::AssertionFailure() << "no metrics URL\n" << cluster_.Output();
    metrics_url_ =
        std::string(absl::StripAsciiWhitespace(metrics->substr(metrics->find("http://"))));
    admin_ = v1::JobAdmin::NewStub(
        grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials()));
    if (!cluster_.CtlJson({"group", "create", "pools"}, &group_)) {
      return ::testing::AssertionFailure() << "group create\n" << cluster_.Output();
    }
    invocations_ = cluster_.dir() + "/invocations";
    executor_ = cluster_.StartExecutor("pools", group_.access_token(),
                                       {"--invocations-file=" + invocations_});
    if (!cluster_.AwaitOnline(group_.id(), 1)) {
      return ::testing::AssertionFailure() << executor_->Output();
    }
    return ::testing::AssertionSuccess();
  }
  std::unique_ptr<grpc::ClientContext> Ctx() const { return cluster_.AdminContext(); }
  std::unique_ptr<grpc::ClientContext> Ctx(const std::string& token) const {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
    return ctx;
  }

  // A manual job of the "slow" handler naming `pool` with `priority`.
  grpc::Status CreateJob(const std::string& name, const std::string& pool, int32_t priority,
                         v1::Job* out) {
    v1::CreateJobRequest req;
    v1::Job& j = *req.mutable_job();
    j.set_group_id(group_.id());
    j.set_name(name);
    j.mutable_bean()->set_handler("slow");
    j.set_params(kShort);
    j.set_pool(pool);
    j.set_priority(priority);
    return admin_->CreateJob(Ctx().get(), req, out);
  }
  // One run of `job_id`, with `params` if given; its id (0 and a failure
  // otherwise).
  int64_t Trigger(int64_t job_id, const std::string& params = "") {
    v1::TriggerJobRequest req;
    req.set_job_id(job_id);
    if (!params.empty()) req.set_params(params);
    v1::TriggerJobResponse out;
    grpc::Status s = admin_->TriggerJob(Ctx().get(), req, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(out.run_ids_size(), 1);
    return out.run_ids_size() == 1 ? out.run_ids(0) : 0;
  }
  v1::Run GetRun(int64_t id) {
    v1::GetRunRequest req;
    req.set_run_id(id);
    req.set_log_lines(1);
    v1::GetRunResponse out;
    grpc::Status s = admin_->GetRun(Ctx().get(), req, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out.run();
  }
  v1::Pool GetPool(const std::string& name) {
    v1::GetPoolRequest req;
    req.set_name(name);
    v1::Pool out;
    grpc::Status s = admin_->GetPool(Ctx().get(), req, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out;
  }
  grpc::Status Queue(const std::string& token, v1::ListPoolQueueResponse* out) {
    v1::ListPoolQueueRequest req;
    req.set_name(kPool);
    return admin_->ListPoolQueue(token.empty() ? Ctx().get() : Ctx(token).get(), req, out);
  }
  // Polls `done` (each look 100 ms apart) for up to `limit`.
  template <typename F>
  bool Await(F done, absl::Duration limit = absl::Seconds(60)) {
    const absl::Time deadline = absl::Now() + limit;
    while (!done()) {
      if (absl::Now() >= deadline) return false;
      cluster_.PollInterval(absl::Milliseconds(100));
    }
    return true;
  }
  // The run ids the executor's handlers were invoked for.
  std::set<int64_t> Invoked() const {
    std::ifstream in(invocations_);
    std::set<int64_t> ids;
    for (std::string line; std::getline(in, line);) {
      int64_t id = 0;
      const std::vector<std::string> words = absl::StrSplit(line, ' ');
      if (!words.empty() && absl::SimpleAtoi(words[0], &id)) ids.insert(id);
    }
    return ids;
  }

  GnomonCluster cluster_{[] {
    std::vector<std::string> flags = {"--metrics-listen=127.0.0.1:0", "--http-listen=127.0.0.1:0"};
    if (auto url = testing::FreshMysqlUrl()) flags.push_back("--store=" + *url);
    return flags;
  }()};
  std::string metrics_url_;
  std::unique_ptr<v1::JobAdmin::Stub> admin_;
  v1::Group group_;
  std::string invocations_;
  std::unique_ptr<testing::Subprocess> executor_;
};

TEST_F(PoolsE2E, OneSlotRunsOneAtATimeTheHighestPriorityFirst) {
  ASSERT_TRUE(Start());

  v1::CreatePoolRequest create_pool;
  create_pool.mutable_pool()->set_name(kPool);
  create_pool.mutable_pool()->set_description("the warehouse database");
  create_pool.mutable_pool()->set_slots(1);
  v1::Pool pool;
  grpc::Status s = admin_->CreatePool(Ctx().get(), create_pool, &pool);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_GT(pool.id(), 0);
  EXPECT_EQ(pool.slots(), 1u);
  EXPECT_EQ(pool.running(), 0u);
  EXPECT_EQ(pool.queued(), 0u);

  // A job naming no pool that exists is refused, naming the field.
  v1::Job job;
  s = CreateJob("typo", "etl-bd", 0, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(s.error_message(), "job.pool: no pool is named 'etl-bd' (gnomonctl pool list)");

  v1::Job low, high;
  s = CreateJob("load", kPool, 0, &low);
  ASSERT_TRUE(s.ok()) << s.error_message();
  s = CreateJob("report", kPool, 5, &high);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(low.pool(), kPool);
  EXPECT_EQ(high.priority(), 5);

  // The long run takes the one slot and reaches the executor. (An executor
  // just online may not be routable yet: such a run is let go, fails "no
  // executor" and frees the slot; then another is tried.)
  int64_t first = 0;
  int unrouted = 0;
  const absl::Time routable_by = absl::Now() + absl::Seconds(30);
  while (first == 0 && absl::Now() < routable_by) {
    const int64_t id = Trigger(low.id(), kLong);
    ASSERT_TRUE(Await([&] {
      const v1::Run r = GetRun(id);
      return r.status() == v1::RUN_STATUS_RUNNING || Ended(r);
    })) << GetRun(id).ShortDebugString();
    if (GetRun(id).status() == v1::RUN_STATUS_RUNNING) {
      first = id;
    } else {
      ++unrouted;
    }
  }
  ASSERT_NE(first, 0) << "no run reached the executor\n" << executor_->Output();
  v1::Run first_run = GetRun(first);
  ASSERT_EQ(first_run.status(), v1::RUN_STATUS_RUNNING) << first_run.ShortDebugString();
  EXPECT_EQ(first_run.pool(), kPool);
  EXPECT_EQ(first_run.priority(), 0);
  ASSERT_TRUE(first_run.has_queued_time());
  EXPECT_GE(Ms(first_run.trigger_time()), Ms(first_run.queued_time()));

  // More of both, interleaved: they wait, report's (priority 5) first.
  const int64_t l1 = Trigger(low.id());
  const int64_t h1 = Trigger(high.id());
  const int64_t l2 = Trigger(low.id());
  const int64_t h2 = Trigger(high.id());
  const int64_t doomed = Trigger(low.id());
  v1::ListPoolQueueResponse q;
  s = Queue("", &q);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(Ids(q.running()), std::vector<int64_t>{first});
  ASSERT_EQ(q.running_size(), 1);
  EXPECT_EQ(q.running(0).status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(Ids(q.queued()), (std::vector<int64_t>{h1, h2, l1, l2, doomed}));
  EXPECT_EQ(q.queued_total(), 5);
  for (const v1::Run& r : q.queued()) {
    EXPECT_EQ(r.status(), v1::RUN_STATUS_QUEUED) << r.ShortDebugString();
    EXPECT_EQ(r.pool(), kPool);
    EXPECT_EQ(r.priority(), r.job_id() == high.id() ? 5 : 0);
    EXPECT_TRUE(r.has_queued_time());
    EXPECT_TRUE(r.executor_address().empty());
    EXPECT_FALSE(r.has_dispatch_time());
    EXPECT_EQ(r.handler(), "slow");  // The admin reaches their group.
  }
  v1::Pool counted = GetPool(kPool);
  EXPECT_EQ(counted.running(), 1u);
  EXPECT_EQ(counted.queued(), 5u);

  // A viewer of another group reads pools, sees these runs by their place
  // only, and writes nothing.
  v1::Group other;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "elsewhere"}, &other));
  v1::CreateTokenResponse viewer;
  ASSERT_TRUE(cluster_.CtlJson(
      {"token", "create", "pool-viewer", "--role", "viewer", "--group", absl::StrCat(other.id())},
      &viewer));
  v1::ListPoolQueueResponse seen;
  s = Queue(viewer.secret(), &seen);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(Ids(seen.queued()), Ids(q.queued()));
  for (const v1::Run& r : seen.queued()) {
    EXPECT_TRUE(r.handler().empty() && r.params().empty()) << r.ShortDebugString();
    EXPECT_TRUE(r.job_id() == high.id() || r.job_id() == low.id());
    EXPECT_EQ(r.group_id(), group_.id());
    EXPECT_EQ(r.status(), v1::RUN_STATUS_QUEUED);
    EXPECT_EQ(r.pool(), kPool);
    EXPECT_EQ(r.priority(), r.job_id() == high.id() ? 5 : 0);
    EXPECT_TRUE(r.has_queued_time());
  }
  v1::Pool viewed;
  v1::GetPoolRequest get_pool;
  get_pool.set_name(kPool);
  s = admin_->GetPool(Ctx(viewer.secret()).get(), get_pool, &viewed);
  EXPECT_TRUE(s.ok()) << s.error_message();
  v1::CreatePoolRequest sneaky;
  sneaky.mutable_pool()->set_name("viewers-pool");
  sneaky.mutable_pool()->set_slots(1);
  v1::Pool not_made;
  s = admin_->CreatePool(Ctx(viewer.secret()).get(), sneaky, &not_made);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();

  // Over HTTP too.
  std::optional<std::string> http = cluster_.HttpUrl();
  ASSERT_TRUE(http.has_value()) << cluster_.Output();
  testing::HttpResult answer =
      testing::HttpCall("POST", *http + "/v1/JobAdmin/ListPoolQueue", R"({"name": "etl-db"})",
                        {"Authorization: Bearer " + cluster_.admin_token()});
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_TRUE(absl::StrContains(answer.body, R"("queuedTotal":5)") ||
              absl::StrContains(answer.body, R"("queuedTotal": 5)"))
      << answer.body;

  // A queued run killed fails at once, as killed, and leaves the queue.
  v1::KillRunRequest kill;
  kill.set_run_id(doomed);
  v1::KillRunResponse killed;
  s = admin_->KillRun(Ctx().get(), kill, &killed);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_TRUE(killed.found());
  const v1::Run doomed_run = GetRun(doomed);
  EXPECT_EQ(doomed_run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(doomed_run.handle_code(), v1::HANDLE_CODE_KILLED);
  EXPECT_EQ(doomed_run.handle_message(), "killed by an admin while queued for pool 'etl-db'");
  s = Queue("", &q);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(Ids(q.queued()), (std::vector<int64_t>{h1, h2, l1, l2}));
  EXPECT_EQ(q.queued_total(), 4);

  // The pool stays while a job names it.
  v1::DeletePoolRequest del;
  del.set_name(kPool);
  v1::DeletePoolResponse deleted;
  s = admin_->DeletePool(Ctx().get(), del, &deleted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(s.error_message(), absl::StrCat("pool 'etl-db' is named by job ", low.id()));

  // The long run ends (killed on its executor): the others get the slot
  // one at a time, in the queue's order.
  kill.set_run_id(first);
  s = admin_->KillRun(Ctx().get(), kill, &killed);
  ASSERT_TRUE(s.ok()) << s.error_message();
  const std::vector<int64_t> order = {first, h1, h2, l1, l2};
  std::vector<v1::Run> runs;
  ASSERT_TRUE(Await([&] {
    runs.clear();
    for (int64_t id : order) runs.push_back(GetRun(id));
    return std::all_of(runs.begin(), runs.end(), Ended);
  })) << "not all ended:\n"
      << [&] {
           std::string out;
           for (const v1::Run& r : runs) absl::StrAppend(&out, r.ShortDebugString(), "\n");
           return out;
         }();
  EXPECT_EQ(runs[0].status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(runs[0].handle_code(), v1::HANDLE_CODE_KILLED) << runs[0].ShortDebugString();
  for (size_t i = 1; i < runs.size(); ++i) {
    const v1::Run& prev = runs[i - 1];
    const v1::Run& r = runs[i];
    EXPECT_EQ(r.status(), v1::RUN_STATUS_SUCCEEDED) << r.ShortDebugString();
    ASSERT_TRUE(r.has_start_time() && r.has_end_time() && prev.has_end_time())
        << r.ShortDebugString();
    // It got its slot once the one before had ended, and ran after it.
    EXPECT_GE(Ms(r.trigger_time()), Ms(prev.end_time()))
        << "run " << r.id() << " let go before run " << prev.id() << " ended";
    EXPECT_GE(Ms(r.start_time()), Ms(prev.end_time()))
        << "run " << r.id() << " started before run " << prev.id() << " ended";
    EXPECT_GE(Ms(r.trigger_time()), Ms(r.queued_time()));
    EXPECT_EQ(r.pool(), kPool);
  }
  // No two of them overlapped on the executor, in any order.
  for (size_t i = 0; i < runs.size(); ++i) {
    for (size_t j = i + 1; j < runs.size(); ++j) {
      const bool apart = Ms(runs[i].end_time()) <= Ms(runs[j].start_time()) ||
                         Ms(runs[j].end_time()) <= Ms(runs[i].start_time());
      EXPECT_TRUE(apart) << runs[i].id() << " and " << runs[j].id() << " overlap";
    }
  }
  // The killed queued run never reached the executor; the others did.
  const v1::Run doomed_after = GetRun(doomed);
  EXPECT_TRUE(doomed_after.executor_address().empty()) << doomed_after.ShortDebugString();
  EXPECT_FALSE(doomed_after.has_dispatch_time());
  EXPECT_FALSE(doomed_after.has_start_time());
  const std::set<int64_t> invoked = Invoked();
  EXPECT_EQ(invoked, std::set<int64_t>(order.begin(), order.end()));
  EXPECT_EQ(invoked.count(doomed), 0u);

  counted = GetPool(kPool);
  EXPECT_EQ(counted.running(), 0u);
  EXPECT_EQ(counted.queued(), 0u);

  // gnomond counted the five runs let go, and their waits.
  std::optional<std::string> exposition = testing::HttpGet(metrics_url_);
  ASSERT_TRUE(exposition.has_value());
  EXPECT_EQ(Sample(*exposition, "gnomon_scheduler_pool_runs_let_go_total"), 5 + unrouted)
      << *exposition;
  EXPECT_EQ(Sample(*exposition, "gnomon_scheduler_pool_wait_seconds_count"), 5 + unrouted);

  // Resized: description and slots replaced.
  v1::UpdatePoolRequest update;
  *update.mutable_pool() = GetPool(kPool);
  update.mutable_pool()->set_slots(2);
  update.mutable_pool()->set_description("two loads at once");
  v1::Pool resized;
  s = admin_->UpdatePool(Ctx().get(), update, &resized);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resized.slots(), 2u);
  EXPECT_EQ(resized.description(), "two loads at once");
  EXPECT_EQ(resized.id(), pool.id());

  // Once no job names it, the pool goes.
  for (const v1::Job& j : {low, high}) {
    v1::DeleteJobRequest delete_job;
    delete_job.set_job_id(j.id());
    v1::DeleteJobResponse job_deleted;
    s = admin_->DeleteJob(Ctx().get(), delete_job, &job_deleted);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  s = admin_->DeletePool(Ctx().get(), del, &deleted);
  EXPECT_TRUE(s.ok()) << s.error_message();
  v1::Pool gone;
  s = admin_->GetPool(Ctx().get(), get_pool, &gone);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  v1::ListPoolsResponse pools;
  s = admin_->ListPools(Ctx().get(), v1::ListPoolsRequest(), &pools);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(pools.pools_size(), 0);

  // Every change is audited as pool/etl-db.
  v1::ListAuditRequest audit;
  audit.set_object("pool/etl-db");
  v1::ListAuditResponse entries;
  s = admin_->ListAudit(Ctx().get(), audit, &entries);
  ASSERT_TRUE(s.ok()) << s.error_message();
  std::multiset<std::string> methods;
  for (const v1::AuditEntry& e : entries.entries()) methods.insert(e.method());
  EXPECT_EQ(methods.count("CreatePool"), 1u);
  EXPECT_EQ(methods.count("UpdatePool"), 1u);
  EXPECT_EQ(methods.count("DeletePool"), 1u) << "the refused delete is not a change";
}

}  // namespace
}  // namespace gnomon
