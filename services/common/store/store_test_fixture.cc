#include "services/common/store/store_test_fixture.h"

#include <cppconn/exception.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>
#include <mysql_driver.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "services/common/store/store_url.h"

namespace gnomon::store::testing {
namespace {

std::atomic<int> next_db{0};

std::unique_ptr<sql::Connection> RawMysql(const MysqlAddress& a) {
  sql::ConnectOptionsMap opts;
  opts["hostName"] = sql::SQLString(absl::StrCat("tcp://", a.host, ":", a.port));
  opts["userName"] = sql::SQLString(a.user);
  opts["password"] = sql::SQLString(a.password);
  return std::unique_ptr<sql::Connection>(sql::mysql::get_mysql_driver_instance()->connect(opts));
}

}  // namespace

void StoreTest::SetUp() {
  if (is_mysql()) {
    const char* base = std::getenv("GNOMON_TEST_MYSQL_URL");
    if (base == nullptr || *base == '\0') {
      GTEST_SKIP() << "GNOMON_TEST_MYSQL_URL is not set; skipping the MySQL backend "
                      "(set it to e.g. mysql://root@127.0.0.1:3306/gnomon_test)";
    }
    std::string prefix(base);
    prefix = prefix.substr(0, prefix.rfind('/'));
    url_ = absl::StrCat(prefix, "/gnomon_t", getpid(), "_", next_db++);
  } else {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gnomon_store_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    url_ = absl::StrCat("sqlite:", dir_, "/gnomon.db");
  }
  Reopen();
}

void StoreTest::TearDown() {
  Drop();
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
}

void StoreTest::Drop() {
  store_.reset();
  if (!dir_.empty()) {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::filesystem::remove(absl::StrCat(dir_, "/gnomon.db", suffix));
    }
  }
  if (is_mysql() && !url_.empty()) {
    absl::StatusOr<StoreUrl> u = ParseStoreUrl(url_);
    ASSERT_TRUE(u.ok());
    try {
      std::unique_ptr<sql::Connection> c = RawMysql(u->mysql);
      std::unique_ptr<sql::Statement> st(c->createStatement());
      st->execute(
          sql::SQLString(absl::StrCat("DROP DATABASE IF EXISTS `", u->mysql.database, "`")));
    } catch (const sql::SQLException& e) {
      ADD_FAILURE() << "dropping " << u->mysql.database << ": " << e.what();
    }
  }
}

void StoreTest::Recreate() {
  Drop();
  Reopen();
}

void StoreTest::Reopen() {
  store_.reset();
  absl::StatusOr<std::unique_ptr<Store>> s = OpenStore(url_, options_);
  ASSERT_TRUE(s.ok()) << url_ << ": " << s.status();
  store_ = *std::move(s);
}

std::vector<int64_t> StoreTest::AppliedMigrations() {
  std::vector<int64_t> out;
  absl::StatusOr<StoreUrl> u = ParseStoreUrl(url_);
  if (!u.ok()) return out;
  const std::string q = "SELECT version FROM schema_migrations ORDER BY version";
  if (u->kind == StoreUrl::Kind::kSqlite) {
    sqlite3* db = nullptr;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_open_v2(u->sqlite_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) out.push_back(sqlite3_column_int64(st, 0));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }
  try {
    std::unique_ptr<sql::Connection> c = RawMysql(u->mysql);
    c->setSchema(sql::SQLString(u->mysql.database));
    std::unique_ptr<sql::Statement> st(c->createStatement());
    std::unique_ptr<sql::ResultSet> rs(st->executeQuery(sql::SQLString(q)));
    while (rs->next()) out.push_back(rs->getInt64(1));
  } catch (const sql::SQLException& e) {
    ADD_FAILURE() << "reading schema_migrations: " << e.what();
  }
  return out;
}

std::unique_ptr<sql::Connection> StoreTest::RawMysqlConnection() {
  absl::StatusOr<StoreUrl> u = ParseStoreUrl(url_);
  if (!u.ok()) return nullptr;
  std::unique_ptr<sql::Connection> c = RawMysql(u->mysql);
  c->setSchema(sql::SQLString(u->mysql.database));
  return c;
}

v1::Group StoreTest::MakeGroup(const std::string& app) {
  v1::Group g;
  g.set_app_name(app);
  g.set_title(absl::StrCat("Title of ", app));
  g.mutable_manual()->add_addresses("10.0.0.1:9999");
  g.mutable_manual()->add_addresses("10.0.0.2:9999");
  g.set_access_token(absl::StrCat("token-", app));
  return g;
}

v1::Job StoreTest::MakeJob(int64_t group_id, const std::string& handler) {
  v1::Job j;
  j.set_group_id(group_id);
  j.set_description(absl::StrCat("runs ", handler));
  j.set_author("ops");
  j.mutable_schedule()->mutable_cron()->set_expression("0 * * * * ?");
  j.mutable_schedule()->mutable_cron()->set_time_zone("Europe/Berlin");
  j.set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
  j.mutable_bean()->set_handler(handler);
  j.set_params("a=1");
  j.mutable_retry()->set_max_retries(2);
  j.add_child_job_ids(42);
  return j;
}

v1::Run StoreTest::MakeRun(const v1::Job& job, int64_t slot_ms, uint32_t shard, uint32_t attempt) {
  v1::Run r;
  r.set_job_id(job.id());
  r.set_group_id(job.group_id());
  r.set_trigger_type(v1::TRIGGER_TYPE_CRON);
  r.mutable_scheduled_time()->set_seconds(slot_ms / 1000);
  r.mutable_scheduled_time()->set_nanos(static_cast<int32_t>(slot_ms % 1000) * 1000000);
  r.mutable_trigger_time()->set_seconds(slot_ms / 1000 + 1);
  r.set_handler(job.bean().handler());
  r.set_params(job.params());
  r.set_shard_index(shard);
  r.set_shard_total(1);
  r.set_attempt(attempt);
  r.set_status(v1::RUN_STATUS_PENDING);
  // As the run recorder decides it (SuccessHasFollowups).
  r.set_success_has_followups(!job.child_job_ids().empty() || job.schedule().has_fix_delay());
  return r;
}

void StoreTest::RawExec(const std::vector<std::string>& statements) {
  if (is_mysql()) {
    std::unique_ptr<sql::Connection> conn = RawMysqlConnection();
    ASSERT_NE(conn, nullptr);
    try {
      std::unique_ptr<sql::Statement> st(conn->createStatement());
      for (const std::string& s : statements) st->execute(sql::SQLString(s));
    } catch (const sql::SQLException& e) {
      FAIL() << e.what();
    }
    return;
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(url().substr(std::string("sqlite:").size()).c_str(), &db,
                            SQLITE_OPEN_READWRITE, nullptr),
            SQLITE_OK);
  for (const std::string& s : statements) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db, s.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << s << ": " << (err ? err : "");
    sqlite3_free(err);
  }
  sqlite3_close(db);
}

void StoreTest::SeedGroupAndJob() {
  absl::StatusOr<v1::Group> g = store().CreateGroup(MakeGroup("app"), 1);
  ASSERT_TRUE(g.ok()) << g.status();
  group_ = *g;
  absl::StatusOr<v1::Job> j =
      store().CreateJob(MakeJob(group_.id(), "report"), v1::JOB_STATE_RUNNING, 0, 1);
  ASSERT_TRUE(j.ok()) << j.status();
  job_ = *j;
}

int64_t StoreTest::Insert(v1::Run run) {
  std::vector<v1::Run> runs = {std::move(run)};
  absl::StatusOr<std::vector<RunInsertOutcome>> out = store().InsertRuns(runs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->size() != 1) return 0;
  EXPECT_TRUE((*out)[0].inserted);
  return (*out)[0].inserted ? (*out)[0].run_id : 0;
}

v1::ReportItem StoreTest::Started(int64_t run_id, int64_t ms) {
  v1::ReportItem r;
  r.set_sequence(1);
  r.mutable_started()->set_run_id(run_id);
  r.mutable_started()->mutable_start_time()->set_seconds(ms / 1000);
  r.mutable_started()->set_executor_address("10.0.0.9:9999");
  return r;
}

v1::ReportItem StoreTest::Result(int64_t run_id, int32_t code, int64_t end_ms) {
  v1::ReportItem r;
  r.set_sequence(2);
  r.mutable_result()->set_run_id(run_id);
  r.mutable_result()->set_handle_code(code);
  r.mutable_result()->set_handle_message(code == 200 ? "ok" : "boom");
  r.mutable_result()->mutable_end_time()->set_seconds(end_ms / 1000);
  return r;
}

std::vector<int64_t> Ids(const std::vector<v1::Run>& runs) {
  std::vector<int64_t> ids;
  for (const v1::Run& r : runs) ids.push_back(r.id());
  return ids;
}

std::vector<int64_t> PendingFollowups(Store& store) {
  absl::StatusOr<std::vector<v1::Run>> runs = store.ListPendingFollowups(100, kFarFuture, {});
  EXPECT_TRUE(runs.ok()) << runs.status();
  return runs.ok() ? Ids(*runs) : std::vector<int64_t>{};
}

DispatchUpdate Dispatched(int64_t run_id, std::string address, int64_t ms, int64_t epoch) {
  return {run_id, v1::RUN_STATUS_RUNNING, 200, "dispatched", std::move(address), ms, 0, "", 0,
          epoch};
}

v1::ReportItem StoreTest::Lines(int64_t run_id, int from, int to, size_t text_bytes) {
  v1::ReportItem r;
  r.set_sequence(3);
  r.mutable_log()->set_run_id(run_id);
  for (int n = from; n <= to; ++n) {
    v1::LogLine* line = r.mutable_log()->add_lines();
    line->set_line_number(n);
    line->mutable_time()->set_seconds(100 + n);
    line->set_text(text_bytes > 0 ? std::string(text_bytes, static_cast<char>('a' + n % 26))
                                  : absl::StrCat("line ", n));
  }
  return r;
}

}  // namespace gnomon::store::testing
