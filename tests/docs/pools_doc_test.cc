// docs/pools.md shows a pool and two jobs naming it, then a timeline of
// what happens to their runs: which hold a slot and which wait, in order.
// This reads the page's manifests as `gnomonctl apply` does and replays
// every row of the timeline on the scheduler's own parts over a real
// (SQLite) store on a simulated clock: AdminCore records, kills and checks
// jobs, PoolAdmin creates and resizes the pool, PoolGranter lets the queued
// runs go as a replica does, with SchedulerMetrics counting them. It also
// checks the page's quoted refusals, its limits, its metric names, its
// statements about which runs queue, what frees a slot, a deleted pool and
// two replicas, and that its gnomonctl lines are command lines gnomonctl
// accepts.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "cli/cli.h"
#include "cli/yaml_json.h"
#include "gnomon/v1/manifest.pb.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/admin_core.h"
#include "services/scheduler/pool_admin.h"
#include "services/scheduler/pool_granter.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/scheduler/testing/fake_executors.h"
#include "services/scheduler/testing/ownership.h"
#include "services/scheduler/trigger.h"

#ifndef GNOMON_SOURCE_DIR
#error "GNOMON_SOURCE_DIR must name the source tree"
#endif

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

std::string Slurp(const std::string& path) {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Page() { return Slurp("docs/pools.md"); }

// The first ```yaml block's documents, as apply reads them.
std::vector<v1::Manifest> Manifests(const std::string& page) {
  const size_t open = page.find("```yaml\n");
  if (open == std::string::npos) return {};
  const size_t close = page.find("```", open + 8);
  absl::StatusOr<std::vector<cli::YamlDocument>> docs =
      cli::ParseYamlDocuments(page.substr(open + 8, close - open - 8));
  EXPECT_TRUE(docs.ok()) << docs.status();
  std::vector<v1::Manifest> out;
  if (!docs.ok()) return out;
  for (const cli::YamlDocument& d : *docs) {
    v1::Manifest m;
    absl::Status s = cli::YamlDocumentToMessage(d, &m);
    EXPECT_TRUE(s.ok()) << s;
    out.push_back(m);
  }
  return out;
}

// The lines of the fenced block after "<!-- pools_doc_test: NAME -->".
std::vector<std::string> Block(const std::string& page, const std::string& name) {
  const std::string marker = absl::StrCat("<!-- pools_doc_test: ", name, " -->\n");
  const size_t at = page.find(marker);
  if (at == std::string::npos) return {};
  const size_t open = page.find('\n', at + marker.size());  // The ``` line.
  const size_t close = page.find("\n```", open);
  return absl::StrSplit(page.substr(open + 1, close - open - 1), '\n');
}

// The first match of `pattern` in the page (its group `group`), or "".
std::string Find(const std::string& page, const std::string& pattern, int group = 1) {
  std::smatch m;
  if (!std::regex_search(page, m, std::regex(pattern))) return "";
  return m[group].str();
}

// "1, 2, 3" or "—" as numbers.
std::vector<int> Numbers(const std::string& cell) {
  std::vector<int> out;
  if (cell == "—") return out;
  for (absl::string_view n : absl::StrSplit(cell, ", ")) {
    int v = 0;
    EXPECT_TRUE(absl::SimpleAtoi(n, &v)) << "not a run number: " << n;
    out.push_back(v);
  }
  return out;
}

// A command line as a shell splits it (single quotes only, as the page uses).
std::vector<std::string> ShellWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, quoted = false;
  for (char c : line) {
    if (quoted) {
      if (c == '\'') {
        quoted = false;
      } else {
        word += c;
      }
    } else if (c == '\'') {
      quoted = in_word = true;
    } else if (c == ' ') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

int64_t Ms(const google::protobuf::Timestamp& t) { return TimeUtil::TimestampToMilliseconds(t); }

// The page's day (its timeline gives times only).
const absl::CivilDay kDay(2026, 11, 24);

// Records the runs a granter lets go, as the Resender would get them.
class RecordingSender final : public RunResender {
 public:
  void Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership>) override {
    for (const v1::Run& r : runs) sent.push_back(r.id());
  }
  std::vector<int64_t> sent;
};

class PoolsDocTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    page_ = Page();
    ASSERT_FALSE(page_.empty());
  }

  // Group `app` with one live executor; its id.
  int64_t Group(const std::string& app) {
    v1::CreateGroupRequest req;
    req.mutable_group()->set_app_name(app);
    absl::StatusOr<v1::Group> g = admin_.CreateGroup(req);
    EXPECT_TRUE(g.ok()) << g.status();
    executors_list_.push_back(testing::Registered(app, absl::StrCat(app, ":1")));
    membership_.Apply(testing::Snapshot(executors_list_));
    return g.ok() ? g->id() : 0;
  }
  v1::Pool CreatePool(const std::string& name, uint32_t slots) {
    v1::Pool p;
    p.set_name(name);
    p.set_slots(slots);
    absl::StatusOr<v1::Pool> created = pools_.Create(p);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : p;
  }
  absl::StatusOr<v1::Job> CreateJob(v1::Job job) {
    v1::CreateJobRequest req;
    *req.mutable_job() = std::move(job);
    return admin_.CreateJob(req, "admin:doc");
  }
  // A manual job of `group` naming `pool` with `priority`.
  v1::Job PoolJob(int64_t group, const std::string& name, const std::string& pool,
                  int32_t priority = 0) {
    v1::Job j;
    j.set_group_id(group);
    j.set_name(name);
    j.mutable_bean()->set_handler("h");
    j.set_pool(pool);
    j.set_priority(priority);
    absl::StatusOr<v1::Job> created = CreateJob(j);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : j;
  }
  void SetPool(v1::Job job, const std::string& pool) {
    v1::UpdateJobRequest req;
    job.set_pool(pool);
    *req.mutable_job() = job;
    absl::StatusOr<v1::Job> updated = admin_.UpdateJob(req, "admin:doc");
    ASSERT_TRUE(updated.ok()) << updated.status();
  }
  // Triggers `job_id` once (as gnomonctl job trigger does); its run.
  v1::Run Trigger(int64_t job_id) {
    v1::TriggerJobRequest req;
    req.set_job_id(job_id);
    req.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
    absl::StatusOr<v1::TriggerJobResponse> out = admin_.TriggerJob(req);
    EXPECT_TRUE(out.ok() && out->run_ids_size() == 1) << out.status();
    if (!out.ok() || out->run_ids_size() != 1) return v1::Run();
    return GetRun(out->run_ids(0));
  }
  v1::Run GetRun(int64_t id) {
    absl::StatusOr<v1::Run> r = store_->GetRun(id);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::Run();
  }
  // The run's result as its executor reports it, now.
  void Result(int64_t run_id, v1::HandleCode code) {
    v1::ReportItem item;
    item.set_sequence(1);
    item.mutable_result()->set_run_id(run_id);
    item.mutable_result()->set_handle_code(code);
    *item.mutable_result()->mutable_end_time() =
        TimeUtil::MillisecondsToTimestamp(clock_.NowMillis());
    absl::StatusOr<std::vector<v1::ReportAck>> acks = store_->ApplyReports({item}, 0);
    ASSERT_TRUE(acks.ok()) << acks.status();
  }
  std::vector<int64_t> Ids(const google::protobuf::RepeatedPtrField<v1::Run>& runs) {
    std::vector<int64_t> ids;
    for (const v1::Run& r : runs) ids.push_back(r.id());
    return ids;
  }
  v1::ListPoolQueueResponse Queue(const std::string& pool, int limit = 0) {
    v1::ListPoolQueueRequest req;
    req.set_name(pool);
    req.set_limit(limit);
    absl::StatusOr<v1::ListPoolQueueResponse> q = pools_.Queue(req);
    EXPECT_TRUE(q.ok()) << q.status();
    return q.ok() ? *q : v1::ListPoolQueueResponse();
  }

  std::string page_;
  store::testing::TempStore store_;
  SimulatedClock clock_{absl::FromCivil(kDay, absl::UTCTimeZone()) + absl::Hours(9)};
  Membership membership_{"cluster-token", &clock_};
  std::vector<v1::ExecutorInfo> executors_list_;
  testing::FakeExecutors executors_;
  DispatchRecorder outcomes_{store_.get(), &clock_};
  GroupTargets targets_{store_.get(), &membership_, &clock_};
  Deliveries deliveries_{{.executors = &executors_,
                          .outcomes = &outcomes_,
                          .targets = &targets_,
                          .clock = &clock_,
                          .partition_count = store_->partition_count()}};
  RunRecorder recorder_{store_.get(), &clock_};
  scheduler::Trigger trigger_{&recorder_, &targets_, &deliveries_};
  ScheduleLoop loop_{store_.get(), &trigger_, &clock_, {}};
  AdminCore admin_{{store_.get(), store_.get(), store_.get(), store_.get(), store_.get(),
                    store_.get(), store_.get()},
                   &trigger_,
                   &targets_,
                   &loop_,
                   &executors_,
                   &clock_,
                   JobLimits{},
                   absl::Hours(1)};
  PoolAdmin pools_{store_.get(), &clock_};
  metrics::MetricsRegistry registry_;
  SchedulerMetrics metrics_{registry_, {}, {}};
  RecordingSender sender_;
  PoolGranter granter_{store_.get(), &sender_, &clock_, nullptr, &metrics_};
};

TEST_F(PoolsDocTest, TheTimelineIsWhatTheSchedulerDoes) {
  const std::vector<v1::Manifest> docs = Manifests(page_);
  ASSERT_EQ(docs.size(), 3u) << "the first yaml block: a Pool and two Jobs";
  ASSERT_EQ(docs[0].kind(), "Pool");
  const v1::Pool declared = docs[0].pool();
  ASSERT_TRUE(pools_.Create(declared).ok());
  std::map<std::string, v1::Job> jobs;  // By name.
  const int64_t group = Group(docs[1].app());
  for (size_t i = 1; i < docs.size(); ++i) {
    ASSERT_EQ(docs[i].kind(), "Job");
    ASSERT_EQ(docs[i].app(), docs[1].app());
    v1::Job spec = docs[i].job();
    EXPECT_EQ(spec.pool(), declared.name());
    spec.set_group_id(group);
    absl::StatusOr<v1::Job> job = CreateJob(spec);
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->pool(), declared.name());
    jobs[job->name()] = *job;
  }
  // The kill message the page quotes.
  const std::string killed = Find(page_, "`(killed by an admin while queued for pool '[^']+')`");
  EXPECT_EQ(killed,
            absl::StrCat("killed by an admin while queued for pool '", declared.name(), "'"));

  static const std::regex kRow(
      R"(^\| (\d\d:\d\d:\d\d) \| (.+) \| ((?:\d+(?:, \d+)*)|—) \| ((?:\d+(?:, \d+)*)|—) \|$)");
  static const std::regex kQueued(R"(^runs? (\d+(?:, \d+)*) of `([a-z-]+)` queued$)");
  static const std::regex kEnds(R"(^(\d+) (succeeds|fails)$)");
  static const std::regex kLost(R"(^(\d+)'s executor is lost \(504\)$)");
  static const std::regex kKilled(R"(^(\d+) is killed$)");
  static const std::regex kSlots(R"(^slots (lowered|raised) to (\d+)$)");

  std::map<int, int64_t> id_of;      // Page number -> run id.
  std::map<int, int64_t> queued_at;  // Page number -> when it was queued.
  std::map<int, int64_t> let_go_at;  // Page number -> when it got a slot.
  std::set<int> holding_before;
  std::istringstream lines(page_);
  std::string line;
  int rows = 0;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::smatch row;
    if (!std::regex_match(line, row, kRow)) continue;
    ++rows;
    const std::string where = absl::StrCat("docs/pools.md line ", n);
    absl::CivilSecond at;
    ASSERT_TRUE(absl::ParseCivilTime(absl::StrCat("2026-11-24T", row[1].str()), &at)) << where;
    clock_.AdvanceTo(absl::FromCivil(at, absl::UTCTimeZone()));
    const int64_t now = clock_.NowMillis();
    const size_t let_go_before = sender_.sent.size();

    for (absl::string_view c : absl::StrSplit(row[2].str(), "; ")) {
      const std::string clause(c);
      std::smatch m;
      if (clause == "—") continue;
      if (std::regex_match(clause, m, kQueued)) {
        ASSERT_TRUE(jobs.count(m[2].str())) << where << ": no job " << m[2];
        const v1::Job& job = jobs[m[2].str()];
        for (int number : Numbers(m[1].str())) {
          ASSERT_FALSE(id_of.count(number)) << where << ": run " << number << " twice";
          const v1::Run run = Trigger(job.id());
          if (!id_of.empty()) {
            EXPECT_GT(run.id(), id_of.rbegin()->second) << where << ": runs numbered in order";
          }
          id_of[number] = run.id();
          queued_at[number] = now;
          EXPECT_EQ(run.status(), v1::RUN_STATUS_QUEUED) << where;
          EXPECT_EQ(run.pool(), declared.name()) << where;
          EXPECT_EQ(run.priority(), job.priority()) << where;
          EXPECT_EQ(Ms(run.queued_time()), now) << where;
          EXPECT_TRUE(run.executor_address().empty()) << where;
        }
      } else if (std::regex_match(clause, m, kEnds)) {
        const int number = std::stoi(m[1].str());
        Result(id_of.at(number),
               m[2] == "succeeds" ? v1::HANDLE_CODE_SUCCESS : v1::HANDLE_CODE_FAILURE);
      } else if (std::regex_match(clause, m, kLost)) {
        // What the run reaper does when a run's executor stops answering.
        absl::StatusOr<int64_t> failed = store_->FailRuns(
            {id_of.at(std::stoi(m[1].str()))}, v1::HANDLE_CODE_EXECUTOR_LOST, "executor lost", now);
        ASSERT_TRUE(failed.ok() && *failed == 1) << where;
      } else if (std::regex_match(clause, m, kKilled)) {
        const int64_t id = id_of.at(std::stoi(m[1].str()));
        absl::StatusOr<v1::KillRunResponse> kill = admin_.KillRun(id);
        ASSERT_TRUE(kill.ok()) << where << ": " << kill.status();
        EXPECT_TRUE(kill->found()) << where;
        const v1::Run run = GetRun(id);
        EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << where;
        EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_KILLED) << where;
        EXPECT_EQ(run.handle_message(), killed) << where;
        EXPECT_TRUE(run.executor_address().empty()) << where;
      } else if (std::regex_match(clause, m, kSlots)) {
        absl::StatusOr<v1::Pool> pool = pools_.Get(declared.name());
        ASSERT_TRUE(pool.ok()) << pool.status();
        const uint32_t slots = static_cast<uint32_t>(std::stoi(m[2].str()));
        EXPECT_EQ(slots < pool->slots(), m[1] == "lowered") << where;
        pool->set_slots(slots);
        ASSERT_TRUE(pools_.Update(*pool).ok()) << where;
      } else {
        ADD_FAILURE() << where << ": no such event: " << clause;
      }
    }

    // The replica's next look at the queue.
    granter_.Pass();
    std::vector<int64_t> holding, queued;
    for (int number : Numbers(row[3].str())) holding.push_back(id_of.at(number));
    for (int number : Numbers(row[4].str())) queued.push_back(id_of.at(number));
    const v1::ListPoolQueueResponse q = Queue(declared.name());
    EXPECT_EQ(Ids(q.running()), holding) << where << ": holding a slot";
    EXPECT_EQ(Ids(q.queued()), queued) << where << ": queued";
    EXPECT_EQ(q.queued_total(), static_cast<int32_t>(queued.size())) << where;
    for (const v1::Run& r : q.queued()) EXPECT_EQ(r.status(), v1::RUN_STATUS_QUEUED) << where;
    absl::StatusOr<v1::Pool> pool = pools_.Get(declared.name());
    ASSERT_TRUE(pool.ok());
    EXPECT_EQ(pool->running(), holding.size()) << where;
    EXPECT_EQ(pool->queued(), queued.size()) << where;
    // The runs let go now: PENDING, their trigger time now, as many as
    // joined the holders.
    std::set<int> now_holding;
    for (int number : Numbers(row[3].str())) now_holding.insert(number);
    int joined = 0;
    for (int number : now_holding) {
      if (holding_before.count(number)) continue;
      ++joined;
      let_go_at[number] = now;
      const v1::Run run = GetRun(id_of.at(number));
      EXPECT_EQ(run.status(), v1::RUN_STATUS_PENDING) << where << ": run " << number;
      EXPECT_EQ(Ms(run.trigger_time()), now) << where << ": run " << number;
      EXPECT_EQ(Ms(run.queued_time()), queued_at[number]) << where << ": run " << number;
    }
    EXPECT_EQ(sender_.sent.size() - let_go_before, static_cast<size_t>(joined)) << where;
    holding_before = now_holding;
  }
  EXPECT_GE(rows, 10) << "the timeline was not found";

  // Its metrics: every run let go, and how long each waited.
  double waited_s = 0;
  for (const auto& [number, at] : let_go_at) waited_s += (at - queued_at[number]) / 1000.0;
  const int let_go = static_cast<int>(let_go_at.size());
  EXPECT_EQ(metrics::testing::SampleOf(registry_, "gnomon_scheduler_pool_runs_let_go_total"),
            let_go);
  EXPECT_EQ(metrics::testing::SampleOf(registry_, "gnomon_scheduler_pool_wait_seconds_count"),
            let_go);
  EXPECT_EQ(metrics::testing::SampleOf(registry_, "gnomon_scheduler_pool_wait_seconds_sum"),
            waited_s);
  // "In the example, run N waited S s".
  std::smatch m;
  ASSERT_TRUE(std::regex_search(page_, m, std::regex(R"(run (\d+) waited (\d+) s)")));
  const int number = std::stoi(m[1].str());
  ASSERT_TRUE(let_go_at.count(number));
  EXPECT_EQ((let_go_at[number] - queued_at[number]) / 1000, std::stoi(m[2].str()));
}

TEST_F(PoolsDocTest, TheMetricsTableNamesWhatTheSchedulerExposes) {
  static const std::regex kRow(
      R"(^\| `(gnomon_scheduler_pool_[a-z_]+)` \| (counter|histogram) \|)");
  const std::string exposed = metrics::testing::Exposition(registry_);
  std::istringstream lines(page_);
  std::set<std::string> listed;
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, kRow)) continue;
    listed.insert(m[1].str());
    EXPECT_NE(exposed.find(absl::StrCat("# TYPE ", m[1].str(), " ", m[2].str())), std::string::npos)
        << m[1] << " is not a " << m[2];
  }
  // Every pool metric the scheduler has is on the page.
  std::set<std::string> have;
  static const std::regex kType(R"(# TYPE (gnomon_scheduler_pool_[a-z_]+) )");
  for (std::sregex_iterator it(exposed.begin(), exposed.end(), kType), end; it != end; ++it) {
    have.insert((*it)[1].str());
  }
  EXPECT_EQ(listed, have);
}

TEST_F(PoolsDocTest, TheQuotedRefusalsAreTheServers) {
  const int64_t group = Group("etl");
  // A job naming no such pool.
  const std::string not_found =
      Find(page_, R"(`(job\.pool: no pool is named '[^']+' \(gnomonctl pool list\))`)");
  const std::string missing = Find(page_, R"(`job\.pool: no pool is named '([^']+)')");
  ASSERT_FALSE(not_found.empty()) << "the page quotes no NOT_FOUND for job.pool";
  v1::Job spec;
  spec.set_group_id(group);
  spec.set_name("lost");
  spec.mutable_bean()->set_handler("h");
  spec.set_pool(missing);
  absl::StatusOr<v1::Job> refused = CreateJob(spec);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(refused.status().message(), not_found);

  // A pool a job names is not deleted.
  const std::string named = Find(page_, R"(`(pool '[^']+' is named by job \d+)`)");
  const std::string pool = Find(page_, R"(`pool '([^']+)' is named by job \d+`)");
  ASSERT_FALSE(named.empty()) << "the page quotes no refused DeletePool";
  CreatePool(pool, 2);
  const v1::Job job = PoolJob(group, "load", pool);
  absl::Status s = pools_.Delete(pool);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), absl::StrCat("pool '", pool, "' is named by job ", job.id()));
  static const std::regex kDigits(R"(\d+)");
  EXPECT_EQ(std::regex_replace(std::string(s.message()), kDigits, "N"),
            std::regex_replace(named, kDigits, "N"));
  // Once no job names it, it goes.
  SetPool(job, "");
  EXPECT_TRUE(pools_.Delete(pool).ok());
  EXPECT_EQ(pools_.Get(pool).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(PoolsDocTest, TheLimitsAreTheServers) {
  const int64_t group = Group("etl");
  auto row = [&](const std::string& what) {
    const std::string cell = Find(page_, absl::StrCat(R"(\n\| )", what, R"( \| ([^|\n]+) \|)"));
    EXPECT_FALSE(cell.empty()) << "no limits row for " << what;
    return cell;
  };
  auto range = [&](const std::string& cell) {
    std::smatch m;
    std::pair<int64_t, int64_t> r{1, 0};
    if (std::regex_search(cell, m, std::regex(R"((-?\d+) to (-?\d+))"))) {
      r = {std::stoll(m[1].str()), std::stoll(m[2].str())};
    }
    EXPECT_LE(r.first, r.second) << cell;
    return r;
  };
  auto refused_naming = [](const absl::Status& s, const std::string& field) {
    return s.code() == absl::StatusCode::kInvalidArgument && absl::StrContains(s.message(), field);
  };
  auto pool_with = [&](const std::string& name, int64_t slots, const std::string& description) {
    v1::Pool p;
    p.set_name(name);
    p.set_slots(static_cast<uint32_t>(slots));
    p.set_description(description);
    return pools_.Create(p).status();
  };

  // pool.name: "1 to 64 bytes: letters, digits, `.`, `_`, `-`".
  const std::string name_cell = row("`pool.name`");
  const auto [name_min, name_max] = range(name_cell);
  EXPECT_EQ(name_min, 1);
  EXPECT_TRUE(absl::StrContains(name_cell, "letters, digits, `.`, `_`, `-`")) << name_cell;
  EXPECT_TRUE(pool_with(std::string(name_max, 'n'), 1, "").ok());
  EXPECT_TRUE(refused_naming(pool_with(std::string(name_max + 1, 'n'), 1, ""), "pool.name"));
  EXPECT_TRUE(refused_naming(pool_with("", 1, ""), "pool.name"));
  EXPECT_TRUE(pool_with("Etl.db_2-a", 1, "").ok());
  for (const char* bad : {"etl db", "etl/db", "etl:db", "ètl"}) {
    EXPECT_TRUE(refused_naming(pool_with(bad, 1, ""), "pool.name")) << bad;
  }

  // pool.description: "at most N bytes".
  const int64_t max_description =
      std::stoll(Find(page_, R"(\| `pool\.description` \| at most (\d+) bytes \|)"));
  EXPECT_TRUE(pool_with("described", 1, std::string(max_description, 'd')).ok());
  EXPECT_TRUE(refused_naming(pool_with("overdescribed", 1, std::string(max_description + 1, 'd')),
                             "pool.description"));

  // pool.slots.
  const auto [slots_min, slots_max] = range(row("`pool.slots`"));
  EXPECT_TRUE(pool_with("smallest", slots_min, "").ok());
  EXPECT_TRUE(pool_with("largest", slots_max, "").ok());
  EXPECT_TRUE(refused_naming(pool_with("too-small", slots_min - 1, ""), "pool.slots"));
  EXPECT_TRUE(refused_naming(pool_with("too-large", slots_max + 1, ""), "pool.slots"));
  EXPECT_EQ(slots_max, kMaxPoolSlots);

  // job.priority.
  CreatePool("etl-db", 1);
  const auto [priority_min, priority_max] = range(row("`job.priority`"));
  for (int64_t p : {priority_min, priority_max, priority_min - 1, priority_max + 1}) {
    v1::Job spec;
    spec.set_group_id(group);
    spec.set_name(absl::StrCat("p", p < 0 ? "m" : "", p < 0 ? -p : p));
    spec.mutable_bean()->set_handler("h");
    spec.set_pool("etl-db");
    spec.set_priority(static_cast<int32_t>(p));
    absl::StatusOr<v1::Job> job = CreateJob(spec);
    if (p >= priority_min && p <= priority_max) {
      EXPECT_TRUE(job.ok()) << p << ": " << job.status();
    } else {
      EXPECT_TRUE(refused_naming(job.status(), "job.priority")) << p << ": " << job.status();
    }
  }
  // "0 by default".
  EXPECT_NE(page_.find("0 by default"), std::string::npos);
  EXPECT_EQ(PoolJob(group, "default", "etl-db").priority(), 0);

  // ListPoolQueue.limit: "0 to 1000 (0: 100)": 101 runs queued behind one.
  const std::string limit_cell = row("`ListPoolQueue.limit`");
  const auto [limit_min, limit_max] = range(limit_cell);
  EXPECT_EQ(limit_min, 0);
  const int default_limit = std::stoi(Find(limit_cell, R"(\(0: (\d+)\))"));
  EXPECT_EQ(limit_max, kMaxPoolQueueLimit);
  const v1::Job job = PoolJob(group, "many", "etl-db");
  Trigger(job.id());
  granter_.Pass();  // The first holds the one slot.
  for (int i = 0; i < default_limit + 1; ++i) Trigger(job.id());
  v1::ListPoolQueueResponse q = Queue("etl-db", 0);
  EXPECT_EQ(q.queued_size(), default_limit);
  EXPECT_EQ(q.queued_total(), default_limit + 1);
  EXPECT_EQ(q.running_size(), 1);
  EXPECT_EQ(Queue("etl-db", static_cast<int>(limit_max)).queued_size(), default_limit + 1);
  v1::ListPoolQueueRequest req;
  req.set_name("etl-db");
  for (int64_t bad : {limit_min - 1, limit_max + 1}) {
    req.set_limit(static_cast<int32_t>(bad));
    EXPECT_TRUE(refused_naming(pools_.Queue(req).status(), "limit")) << bad;
  }

  // The executor-lost minute (the timeline shows it at work).
  EXPECT_EQ(absl::StrCat(store::kLostRunSlotHoldMs / 1000, " s"),
            row(R"(slot kept after "executor lost")"));
  EXPECT_NE(page_.find(absl::StrCat("keeps its slot **", store::kLostRunSlotHoldMs / 1000, " s**")),
            std::string::npos);
}

TEST_F(PoolsDocTest, EachReplicaLooksAtTheQueuesEvery100Ms) {
  // Not a speed this test can measure: what the scheduler is built with.
  EXPECT_NE(page_.find("Each replica looks at the queues every 100 ms"), std::string::npos);
  EXPECT_NE(Slurp("services/scheduler/scheduler_role.cc")
                .find("kPoolGrantInterval = absl::Milliseconds(100)"),
            std::string::npos);
}

TEST_F(PoolsDocTest, EveryKindOfRunQueuesAndRunsWithoutAPoolDoNot) {
  const int64_t group = Group("etl");
  CreatePool("gpu", 1);
  auto job = std::make_shared<const v1::Job>(PoolJob(group, "train", "gpu", 7));
  auto free_job = std::make_shared<const v1::Job>(PoolJob(group, "free", ""));
  const v1::Run first = Trigger(job->id());
  ASSERT_EQ(first.status(), v1::RUN_STATUS_QUEUED);

  std::vector<FireSpec> fires(6);
  fires[0].type = v1::TRIGGER_TYPE_CRON;  // Its schedule.
  fires[0].scheduled_ms = clock_.NowMillis() - 1000;
  fires[1].type = v1::TRIGGER_TYPE_API;
  fires[2].type = v1::TRIGGER_TYPE_PARENT;  // A child of a parent's success.
  fires[2].parent_run_id = first.id();
  fires[3].type = v1::TRIGGER_TYPE_RETRY;  // A retry of the first.
  fires[3].attempt = 1;
  fires[3].first_run_id = first.id();
  fires[4].type = v1::TRIGGER_TYPE_API;  // A workflow node.
  fires[4].workflow_run_id = 1;
  fires[4].workflow_node = "train";
  fires[4].workflow_attempt = 1;
  fires[5].type = v1::TRIGGER_TYPE_FIX_RATE;
  fires[5].scheduled_ms = clock_.NowMillis() - 2000;
  for (FireSpec& f : fires) f.job = job;
  absl::StatusOr<std::vector<FireOutcome>> out = trigger_.Fire(fires);
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<int64_t> ids = {first.id()};
  for (size_t i = 0; i < out->size(); ++i) {
    ASSERT_EQ((*out)[i].run_ids.size(), 1u) << "fire " << i;
    const v1::Run run = GetRun((*out)[i].run_ids[0]);
    EXPECT_EQ(run.status(), v1::RUN_STATUS_QUEUED) << run.ShortDebugString();
    EXPECT_EQ(run.pool(), "gpu");
    EXPECT_EQ(run.priority(), 7);
    EXPECT_TRUE(run.has_queued_time());
    ids.push_back(run.id());
  }
  // All of one priority: the oldest (the lowest id) first; the retry, a new
  // run, behind the run it retries.
  const int64_t retry = (*out)[3].run_ids[0];
  EXPECT_GT(retry, first.id());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(Ids(Queue("gpu").queued()), ids);

  // A job without a pool: sent at once, in no queue.
  FireSpec f;
  f.job = free_job;
  absl::StatusOr<std::vector<FireOutcome>> sent = trigger_.Fire({f});
  ASSERT_TRUE(sent.ok()) << sent.status();
  ASSERT_EQ((*sent)[0].run_ids.size(), 1u);
  const v1::Run run = GetRun((*sent)[0].run_ids[0]);
  EXPECT_NE(run.status(), v1::RUN_STATUS_QUEUED);
  EXPECT_TRUE(run.pool().empty());
  EXPECT_FALSE(run.has_queued_time());
}

TEST_F(PoolsDocTest, EveryEndFreesTheSlot) {
  const int64_t group = Group("etl");
  CreatePool("one", 1);
  const v1::Job job = PoolJob(group, "load", "one");
  // "success, failure, a kill, a timeout, a dispatch no executor took".
  struct End {
    const char* what;
    std::function<void(int64_t)> end;
  };
  auto dispatch_failed = [this](v1::HandleCode code) {
    return [this, code](int64_t id) {
      store::DispatchUpdate u;
      u.run_id = id;
      u.status = v1::RUN_STATUS_FAILED;
      u.trigger_code = code;
      u.trigger_message = "no executor took it";
      u.dispatch_ms = clock_.NowMillis();
      u.handle_code = code;
      u.handle_message = "no executor took it";
      u.end_ms = clock_.NowMillis();
      ASSERT_TRUE(store_->RecordDispatches({u}).ok());
    };
  };
  const std::vector<End> ends = {
      {"success", [this](int64_t id) { Result(id, v1::HANDLE_CODE_SUCCESS); }},
      {"failure", [this](int64_t id) { Result(id, v1::HANDLE_CODE_FAILURE); }},
      {"kill", [this](int64_t id) { Result(id, v1::HANDLE_CODE_KILLED); }},
      {"timeout", [this](int64_t id) { Result(id, v1::HANDLE_CODE_TIMEOUT); }},
      {"no executor", dispatch_failed(v1::HANDLE_CODE_NO_EXECUTOR)},
      {"rejected", dispatch_failed(v1::HANDLE_CODE_REJECTED)},
  };
  std::vector<int64_t> runs;
  for (size_t i = 0; i <= ends.size(); ++i) runs.push_back(Trigger(job.id()).id());
  granter_.Pass();
  for (size_t i = 0; i < ends.size(); ++i) {
    clock_.Advance(absl::Seconds(1));
    ASSERT_EQ(Ids(Queue("one").running()), std::vector<int64_t>{runs[i]}) << ends[i].what;
    ends[i].end(runs[i]);
    const v1::RunStatus status = GetRun(runs[i]).status();
    EXPECT_TRUE(status == v1::RUN_STATUS_SUCCEEDED || status == v1::RUN_STATUS_FAILED)
        << ends[i].what << ": " << v1::RunStatus_Name(status);
    granter_.Pass();
    EXPECT_EQ(Ids(Queue("one").running()), std::vector<int64_t>{runs[i + 1]})
        << "after a " << ends[i].what;
  }
}

TEST_F(PoolsDocTest, RunsQueuedForADeletedPoolAreNoLongerLimited) {
  const int64_t group = Group("etl");
  CreatePool("gone", 1);
  const v1::Job job = PoolJob(group, "load", "gone");
  std::vector<int64_t> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(Trigger(job.id()).id());
  EXPECT_EQ(granter_.Pass(), 1);
  SetPool(job, "");
  ASSERT_TRUE(pools_.Delete("gone").ok());
  EXPECT_EQ(granter_.Pass(), 2);  // The next look lets both go.
  EXPECT_EQ(sender_.sent, runs);
  for (int64_t id : runs) EXPECT_EQ(GetRun(id).status(), v1::RUN_STATUS_PENDING);
}

TEST_F(PoolsDocTest, AcrossReplicasASlotIsKeptByItsRunAndTheHeadIsNotOvertaken) {
  const int64_t group = Group("etl");
  CreatePool("shared", 1);
  const v1::Job high = PoolJob(group, "high", "shared", 5);
  const v1::Job low = PoolJob(group, "low", "shared", 0);
  const int hp = testing::PartitionOf(high.id()), lp = testing::PartitionOf(low.id());
  ASSERT_NE(hp, lp);
  auto holding = [](std::vector<int> partitions, int64_t epoch) {
    std::sort(partitions.begin(), partitions.end());
    std::shared_ptr<Ownership> o = testing::Holding(partitions);
    for (int p : partitions) o->epochs[p] = epoch;
    return o;
  };
  RecordingSender sender_a, sender_b;
  PoolGranter a(store_.get(), &sender_a, &clock_);
  PoolGranter b(store_.get(), &sender_b, &clock_);
  a.SetOwnership(holding({hp}, 1));
  b.SetOwnership(holding({lp}, 2));
  const int64_t high1 = Trigger(high.id()).id();
  const int64_t low1 = Trigger(low.id()).id();
  const int64_t high2 = Trigger(high.id()).id();

  // The head is A's: B lets nothing of its own go ahead of it.
  EXPECT_EQ(b.Pass(), 0);
  EXPECT_EQ(a.Pass(), 1);
  EXPECT_EQ(sender_a.sent, std::vector<int64_t>{high1});
  EXPECT_EQ(GetRun(high1).fence_epoch(), 1);
  // A is killed -9: B takes its partition over (a new epoch). high1 keeps
  // its slot until it ends; then B lets the queue go, in order.
  b.SetOwnership(holding({hp, lp}, 3));
  EXPECT_EQ(b.Pass(), 0);
  EXPECT_EQ(Ids(Queue("shared").running()), std::vector<int64_t>{high1});
  clock_.Advance(absl::Seconds(5));
  Result(high1, v1::HANDLE_CODE_SUCCESS);
  EXPECT_EQ(b.Pass(), 1);
  EXPECT_EQ(GetRun(high2).fence_epoch(), 3);
  Result(high2, v1::HANDLE_CODE_SUCCESS);
  EXPECT_EQ(b.Pass(), 1);
  EXPECT_EQ(sender_b.sent, (std::vector<int64_t>{high2, low1}));
  EXPECT_LE(Queue("shared").running_size(), 1);
}

TEST_F(PoolsDocTest, ThePagesCommandLinesAreGnomonctls) {
  const std::vector<std::string> lines = Block(page_, "commands");
  ASSERT_GE(lines.size(), 5u) << "no commands block";
  cli::CliEnv env;
  env.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  env.now = [] { return absl::Now(); };
  env.read_file = [](const std::string&) -> absl::StatusOr<std::string> {
    return absl::NotFoundError("no files here");
  };
  for (const std::string& line : lines) {
    std::vector<std::string> words = ShellWords(line);
    ASSERT_FALSE(words.empty());
    ASSERT_EQ(words[0], "gnomonctl") << line;
    words.erase(words.begin());
    // No server there: a line gnomonctl accepts fails to reach it (exit 5),
    // one it does not is a usage error (exit 2) before any call.
    std::vector<std::string> args = {"--server", "127.0.0.1:1", "--timeout", "2s"};
    args.insert(args.end(), words.begin(), words.end());
    std::ostringstream out, err;
    const int code = cli::RunCli(args, env, out, err);
    EXPECT_EQ(code, cli::kExitUnavailable) << line << "\n" << err.str();
  }
}

}  // namespace
}  // namespace gnomon::scheduler
