// StoreTest cases for schema upgrades: a v1 database with runs is migrated
// to the current schema (statistics counters backfilled); statistics a
// previous release writes to the report_* tables are added, and, on MySQL, a
// migration whose DDL committed before a crash is re-applied cleanly; a
// script stored before versions were kept is kept at its first edit.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kDayMs = 86400000;
constexpr int64_t kDay = 1704067200000;  // 2024-01-01T00:00:00Z.

// Statements that take a current database back to schema version 1.
std::vector<std::string> RewindToV1(bool mysql) {
  // An index of `table` dropped in the dialect's words.
  auto drop_index = [mysql](const char* table, const char* index) {
    return mysql ? absl::StrCat("ALTER TABLE ", table, " DROP INDEX ", index)
                 : absl::StrCat("DROP INDEX ", index);
  };
  // Version 27 added pools, 26 alarm channels, 25 calendars and the calendar a job or workflow
  // names (the workflow's column goes with its table below), 24 counted the fires a job has left,
  // 23 gave runs deadlines, 22 indexed workflow runs by status (gone with their table below), 21
  // counted a job's consecutive failures, 20 stored outputs and inputs, 19 linked runs to workflow
  // nodes, 18 added workflows; 17 counted a run's log bytes; 16 recorded which registration wrote
  // an executor's row; 15 decided follow-ups on success when a run is recorded.
  std::vector<std::string> out = {"DROP TABLE pool",
                                  "DROP TABLE pool_slot",
                                  "DROP TABLE pool_queue",
                                  "ALTER TABLE run DROP COLUMN pool",
                                  "ALTER TABLE run DROP COLUMN priority",
                                  "ALTER TABLE run DROP COLUMN queued_ms",
                                  "DROP TABLE alarm_channel",
                                  "DROP TABLE calendar",
                                  drop_index("job", "job_calendar"),
                                  "ALTER TABLE job DROP COLUMN calendar",
                                  "ALTER TABLE job DROP COLUMN fires_left",
                                  drop_index("run", "run_deadline_watch"),
                                  "ALTER TABLE run DROP COLUMN deadline_ms",
                                  "ALTER TABLE run DROP COLUMN deadline_watch_ms",
                                  "ALTER TABLE job DROP COLUMN consecutive_failures",
                                  "ALTER TABLE job DROP COLUMN failures_counted_run",
                                  "ALTER TABLE job DROP COLUMN pause_reason",
                                  "ALTER TABLE run DROP COLUMN output",
                                  "ALTER TABLE run DROP COLUMN inputs",
                                  drop_index("run", "run_node"),
                                  "ALTER TABLE run DROP COLUMN workflow_run_id",
                                  "ALTER TABLE run DROP COLUMN workflow_node",
                                  "ALTER TABLE run DROP COLUMN workflow_attempt"};
  out.insert(out.end(), {"DROP TABLE workflow_run", "DROP TABLE workflow",
                         "ALTER TABLE registry DROP COLUMN registration_id",
                         "ALTER TABLE run DROP COLUMN followup_on_success",
                         "ALTER TABLE run DROP COLUMN log_bytes"});
  // Version 11 named jobs.
  std::vector<std::string> names =
      mysql ? std::vector<std::string>{"ALTER TABLE job DROP INDEX job_group_name, DROP INDEX job_name, DROP COLUMN name"}
            : std::vector<std::string>{"DROP INDEX job_group_name", "DROP INDEX job_name",
                                       "ALTER TABLE job DROP COLUMN name"};
  // Version 5 dropped run_followup and run_executor (v1 has the latter).
  if (mysql) {
    out.insert(out.end(),
               {"ALTER TABLE run ADD KEY run_executor (executor_address, status)",
                "ALTER TABLE run DROP INDEX run_retry, DROP INDEX run_child,"
                " DROP INDEX run_end, DROP INDEX run_followup_due, DROP COLUMN followup_pending,"
                " DROP COLUMN retry_of, DROP COLUMN child_of, DROP COLUMN alarm_status,"
                " DROP COLUMN followup_due_ms",
                "ALTER TABLE report_day DROP INDEX report_day_job"});
  } else {
    out.insert(out.end(),
               {"CREATE INDEX run_executor ON run(executor_address, status)",
                "DROP INDEX run_followup_due", "ALTER TABLE run DROP COLUMN followup_due_ms",
                "DROP INDEX run_retry", "DROP INDEX run_child", "DROP INDEX run_end",
                "DROP INDEX report_day_job", "ALTER TABLE run DROP COLUMN followup_pending",
                "ALTER TABLE run DROP COLUMN retry_of", "ALTER TABLE run DROP COLUMN child_of",
                "ALTER TABLE run DROP COLUMN alarm_status"});
  }
  // Version 13 moved the daily statistics to stats_* tables.
  for (const char* table : {"stats_lateness", "stats_duration", "stats_day"}) {
    out.push_back(absl::StrCat("DROP TABLE ", table));
  }
  // Version 12 added the lateness histogram.
  out.push_back("DROP TABLE report_lateness");
  // Version 10 gave script versions their author.
  out.push_back("ALTER TABLE glue_version DROP COLUMN author");
  // Version 9 gave tokens and users roles and grants, 8 made tokens expire
  // and revocable, 7 added the audit log, 6 a group's previous token.
  if (mysql) {
    out.push_back(
        "ALTER TABLE admin_token DROP INDEX admin_token_user, DROP COLUMN role, DROP COLUMN grants,"
        " DROP COLUMN user_name");
    out.push_back("ALTER TABLE `user` DROP COLUMN grants");
  } else {
    out.push_back("DROP INDEX admin_token_user");
    out.push_back("ALTER TABLE admin_token DROP COLUMN role");
    out.push_back("ALTER TABLE admin_token DROP COLUMN grants");
    out.push_back("ALTER TABLE admin_token DROP COLUMN user_name");
    out.push_back("ALTER TABLE \"user\" DROP COLUMN grants");
  }
  if (mysql) {
    out.push_back("ALTER TABLE admin_token DROP COLUMN expire_ms, DROP COLUMN revoke_ms");
  } else {
    out.push_back("ALTER TABLE admin_token DROP COLUMN expire_ms");
    out.push_back("ALTER TABLE admin_token DROP COLUMN revoke_ms");
  }
  out.push_back("DROP TABLE audit_log");
  if (mysql) {
    out.push_back(
        "ALTER TABLE job_group DROP COLUMN previous_access_token, DROP COLUMN "
        "previous_token_expire_ms");
  } else {
    out.push_back("ALTER TABLE job_group DROP COLUMN previous_access_token");
    out.push_back("ALTER TABLE job_group DROP COLUMN previous_token_expire_ms");
  }
  out.push_back("DROP TABLE report_duration");
  out.push_back("DELETE FROM schema_migrations WHERE version >= 2");
  out.insert(out.begin(), names.begin(), names.end());
  return out;
}

// A v1 run row of job_id at trigger_ms with the given status and end time.
std::string V1Run(int64_t job_id, int64_t trigger_ms, int status, int64_t end_ms) {
  return absl::StrCat(
      "INSERT INTO run(job_id, group_id, trigger_type, trigger_ms, params, trigger_message, "
      "handle_message, end_ms, status) VALUES (",
      job_id, ", 1, ", v1::TRIGGER_TYPE_API, ", ", trigger_ms, ", '', '', '', ", end_ms, ", ",
      status, ")");
}

TEST_P(StoreTest, UpgradeFromV1BackfillsReportCounters) {
  store_.reset();
  std::vector<std::string> statements = RewindToV1(is_mysql());
  for (const std::string& s :
       {V1Run(7, kDay + 10, v1::RUN_STATUS_RUNNING, 0),
        V1Run(7, kDay + 20, v1::RUN_STATUS_SUCCEEDED, kDay + 30),
        V1Run(7, kDay + 40, v1::RUN_STATUS_FAILED, kDay + 50),
        V1Run(8, kDay + 60, v1::RUN_STATUS_PENDING, 0),
        V1Run(8, kDay + kDayMs + 1, v1::RUN_STATUS_FAILED, kDay + kDayMs + 2)}) {
    statements.push_back(s);
  }
  ASSERT_NO_FATAL_FAILURE(RawExec(statements));
  EXPECT_THAT(AppliedMigrations(), ElementsAre(1));

  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_THAT(AppliedMigrations(), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                               16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27));
  ASSERT_OK_AND_ASSIGN(report, store().GetStats(kDay, kDay + 2 * kDayMs, 0));
  ASSERT_EQ(report.size(), 2u);
  EXPECT_EQ(report[0].running(), 2);
  EXPECT_EQ(report[0].succeeded(), 1);
  EXPECT_EQ(report[0].failed(), 1);
  EXPECT_EQ(report[0].duration_p50_ms(), 0);  // Durations are not backfilled.
  EXPECT_EQ(report[1].failed(), 1);
  // Runs that ended before the upgrade are not follow-ups.
  ASSERT_OK_AND_ASSIGN(pending, store().ListPendingFollowups(10, kFarFuture, {}));
  EXPECT_THAT(pending, IsEmpty());

  // Counters carry on from the backfilled values.
  RunFilter running;
  running.job_id = 7;
  running.statuses = {v1::RUN_STATUS_RUNNING};
  ASSERT_OK_AND_ASSIGN(active, store().ListRuns(running));
  ASSERT_EQ(active.size(), 1u);
  ASSERT_OK_AND_ASSIGN(failed, store().FailRuns({active[0].id()}, 504, "lost", kDay + 100));
  EXPECT_EQ(failed, 1);
  ASSERT_OK_AND_ASSIGN(job7, store().GetStats(kDay, kDay + kDayMs, 7));
  ASSERT_EQ(job7.size(), 1u);
  EXPECT_EQ(job7[0].running(), 0);
  EXPECT_EQ(job7[0].failed(), 2);
}

// A binary of the release before migration 13 still writes the daily
// statistics to report_* during a rolling upgrade: what it adds counts.
TEST_P(StoreTest, StatisticsThePreviousReleaseWritesToReportTablesAreAddedToThisReleases) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, kDay));
  ASSERT_OK(store().ApplyReports({Started(id, kDay), Result(id, 200, kDay + 5000)}, 0).status());
  store_.reset();
  const std::string job = absl::StrCat(job_.id());
  ASSERT_NO_FATAL_FAILURE(RawExec(
      {absl::StrCat("INSERT INTO report_day(day_ms, job_id, running, succeeded, failed) VALUES (",
                    kDay, ", ", job, ", 1, 2, 1)"),
       absl::StrCat("INSERT INTO report_duration(day_ms, job_id, bucket, runs) VALUES (", kDay,
                    ", ", job, ", 0, 2)")}));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  for (int64_t asked : {job_.id(), int64_t{0}}) {
    SCOPED_TRACE(asked);
    ASSERT_OK_AND_ASSIGN(rows, store().GetStats(kDay, kDay + kDayMs, asked));
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].running(), 1);
    EXPECT_EQ(rows[0].succeeded(), 3);
    EXPECT_EQ(rows[0].failed(), 1);
    // Durations 0, 0 (bucket 0, from report_duration) and about 5 s: the median is 0.
    EXPECT_EQ(rows[0].duration_p50_ms(), 0);
    EXPECT_GT(rows[0].duration_p99_ms(), 4000);
  }
  // Purging the job removes its rows from both.
  ASSERT_OK(store().DeleteJob(job_.id(), /*purge_runs=*/true));
  ASSERT_OK_AND_ASSIGN(after, store().GetStats(kDay, kDay + kDayMs, 0));
  EXPECT_TRUE(after.empty());
}

TEST_P(StoreTest, MysqlMigrationWhoseDdlCommittedBeforeACrashIsReapplied) {
  if (!is_mysql()) GTEST_SKIP() << "SQLite applies a migration in one transaction";
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  v1::Run run = MakeRun(job_, kDay);
  const int64_t id = Insert(run);
  ASSERT_OK(store().ApplyReports({Result(id, 200, kDay + 5000)}, 0).status());
  // As if the server died after the ALTERs of versions 2 to 8 but before they were recorded.
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(RawExec({"DELETE FROM schema_migrations WHERE version >= 2",
                                   "DELETE FROM report_day", "DELETE FROM stats_day"}));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  EXPECT_THAT(AppliedMigrations(), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                               16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27));
  ASSERT_OK_AND_ASSIGN(report, store().GetStats(kDay, kDay + kDayMs, job_.id()));
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].succeeded(), 1);
  ASSERT_OK_AND_ASSIGN(pending, store().ListPendingFollowups(10, kFarFuture, {}));
  ASSERT_EQ(pending.size(), 1u);  // The column and its value survived.
  EXPECT_EQ(pending[0].id(), id);
}

TEST_P(StoreTest, AScriptStoredBeforeVersionsIsKeptAtItsFirstEdit) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("scripts"), 1));
  v1::Job job_spec = MakeJob(g.id(), "unused");
  job_spec.clear_child_job_ids();
  job_spec.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL);
  job_spec.mutable_script()->set_source("old");
  ASSERT_OK_AND_ASSIGN(job, store().CreateJob(job_spec, v1::JOB_STATE_STOPPED, kNever, 1));
  // As a job written before schema version 10 looks: no version rows.
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(RawExec({"DELETE FROM glue_version"}));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  v1::Job edit = job;
  edit.mutable_script()->set_source("new");
  ASSERT_OK_AND_ASSIGN(updated, store().UpdateJob(edit, std::nullopt, 2000, "user:dave"));
  EXPECT_EQ(updated.script().version(), 2);
  ASSERT_OK_AND_ASSIGN(before, store().GetScriptVersion(job.id(), 1));
  EXPECT_EQ(before.source(), "old");
  EXPECT_EQ(before.author(), "");
}

}  // namespace
}  // namespace gnomon::store::testing
