#include "services/common/store/statements.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/workflow.pb.h"
#include "services/common/store/store.h"

namespace gnomon::store::internal {
namespace {

constexpr char kInsertRun[] =
    "INSERT INTO run(job_id, group_id, trigger_type, slot_ms, scheduled_ms, trigger_ms, "
    "dispatch_ms, executor_address, handler, params, shard_index, shard_total, attempt, "
    "first_run_id, parent_run_id, trigger_code, trigger_message, handle_code, handle_message, "
    "start_ms, end_ms, status, fence_epoch, log_line_count, log_truncated, "
    "followup_pending, retry_of, child_of, followup_on_success, workflow_run_id, workflow_node, "
    "workflow_attempt, output, inputs, deadline_ms, deadline_watch_ms, pool, priority, queued_ms) "
    "VALUES ";

constexpr int kRunInsertColumns = 39;

// kRunColumns, each column qualified with `prefix` (for a join).
std::string PrefixedRunColumns(absl::string_view prefix) {
  std::vector<std::string> columns = absl::StrSplit(kRunColumns, ", ");
  for (std::string& c : columns) c = absl::StrCat(prefix, c);
  return absl::StrJoin(columns, ", ");
}

// One assignment of a multi-row UPDATE: `column` = `expr`, where expr names
// the new value of column c as $c and the stored one as {t}.c.
struct Assignment {
  std::string column;
  std::string expr;
};

// UPDATE of `table` from `rows` rows of values (first column: the id),
// only where `where` also holds (may be empty; same naming as Assignment).
//
// SQLite (>= 3.33): UPDATE ... FROM (VALUES ...), joined on the primary key.
// MySQL/MariaDB have no portable VALUES table with named columns, so the
// rows are a UNION ALL derived table; STRAIGHT_JOIN makes the server read it
// first and find each row by primary key, in the order given (ascending id,
// see run_state.h), instead of scanning the table.
// `expr` with {t} as `table` and each $column as "?", appending to `order`
// the row-major index of the value each "?" takes (row `row`).
std::string ExpandForRow(const std::string& expr, const std::string& table,
                         const std::vector<std::string>& columns, int row,
                         std::vector<int>& order) {
  std::string out;
  for (size_t at = 0; at < expr.size();) {
    if (expr.compare(at, 3, "{t}") == 0) {
      out += table;
      at += 3;
      continue;
    }
    int match = -1;  // The longest column named at `at`.
    if (expr[at] == '$') {
      for (size_t c = 0; c < columns.size(); ++c) {
        if (expr.compare(at + 1, columns[c].size(), columns[c]) == 0 &&
            (match < 0 || columns[c].size() > columns[match].size())) {
          match = static_cast<int>(c);
        }
      }
    }
    if (match < 0) {
      out += expr[at++];
      continue;
    }
    out += "?";
    order.push_back(row * static_cast<int>(columns.size()) + match);
    at += 1 + columns[match].size();
  }
  return out;
}

OrderedSql MultiRowUpdate(Dialect d, const std::string& table,
                          const std::vector<std::string>& columns,
                          const std::vector<Assignment>& sets, const std::string& where, int rows) {
  if (d == Dialect::kSqlite) {
    std::vector<std::pair<std::string, std::string>> refs;
    for (size_t i = 0; i < columns.size(); ++i) {
      refs.push_back({absl::StrCat("$", columns[i]), absl::StrCat("v.column", i + 1)});
    }
    // Longest names first, so $trigger_code is not replaced inside $trigger_code_x.
    std::sort(refs.begin(), refs.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    auto expand = [&](const std::string& expr) {
      return absl::StrReplaceAll(absl::StrReplaceAll(expr, refs), {{"{t}", table}});
    };
    std::string set;
    for (const Assignment& a : sets) {
      absl::StrAppend(&set, set.empty() ? "" : ", ", a.column, " = ", expand(a.expr));
    }
    const std::string cond = where.empty() ? "" : absl::StrCat(" AND ", expand(where));
    return {absl::StrCat("UPDATE ", table, " SET ", set, " FROM (VALUES ",
                         RepeatJoined(Placeholders(static_cast<int>(columns.size())), rows, ", "),
                         ") AS v WHERE ", table, ".id = v.column1", cond),
            {}};
  }
  // MySQL: one single-table UPDATE with a CASE per column, not the
  // multi-table form UPDATE (SELECT ? ... UNION ALL ...) AS v JOIN t: under
  // load MariaDB 10.11 crashed (signal 11 in multi_update::initialize_tables,
  // creating its temporary table) re-executing that prepared statement.
  // Assignments run left to right and see earlier ones, so each expression
  // may read only new values and its own column (true of every caller).
  OrderedSql out;
  std::string set;
  for (const Assignment& a : sets) {
    absl::StrAppend(&set, set.empty() ? "" : ", ", a.column, " = CASE ", table, ".id");
    for (int r = 0; r < rows; ++r) {
      out.order.push_back(r * static_cast<int>(columns.size()));  // columns[0] is the id
      absl::StrAppend(&set, " WHEN ? THEN ", ExpandForRow(a.expr, table, columns, r, out.order));
    }
    absl::StrAppend(&set, " ELSE ", table, ".", a.column, " END");
  }
  for (int r = 0; r < rows; ++r) out.order.push_back(r * static_cast<int>(columns.size()));
  std::vector<int> unused;
  const std::string cond =
      where.empty() ? "" : absl::StrCat(" AND ", ExpandForRow(where, table, columns, 0, unused));
  if (!unused.empty()) std::abort();  // A condition on new values needs per-row CASEs: unsupported.
  out.text = absl::StrCat("UPDATE ", table, " SET ", set, " WHERE ", table, ".id IN (",
                          RepeatJoined("?", rows, ", "), ")", cond);
  return out;
}

// "id IN (?, ?, ...)" for `rows` ids.
std::string IdIn(int rows) { return absl::StrCat("id IN (", RepeatJoined("?", rows, ", "), ")"); }

// The multi-row statements (see batch_sql.h).
void AddBatchStatements(Dialect d, Statements& s) {
  const bool mysql = d == Dialect::kMysql;
  s.name_job_by_id = absl::StrCat(
      "UPDATE job SET name = ", mysql ? "CONCAT('job-', id)" : "'job-' || id", " WHERE id = ?");
  s.select_last_run_ids = BatchSql([](int n) {
    return absl::StrCat("SELECT MAX(id) FROM run WHERE job_id IN (", RepeatJoined("?", n, ", "),
                        ") GROUP BY job_id");
  });
  s.select_runs_by_id = BatchSql(
      [](int n) { return absl::StrCat("SELECT ", kRunColumns, " FROM run WHERE ", IdIn(n)); });
  const std::string lock = mysql ? " FOR UPDATE" : "";
  s.lock_jobs = BatchSql([=](int n) {
    return absl::StrCat("SELECT id, state, next_fire_ms, fires_left FROM job WHERE ", IdIn(n),
                        " ORDER BY id", lock);
  });
  s.select_jobs_by_id = BatchSql(
      [=](int n) { return absl::StrCat("SELECT ", kJobColumns, " FROM job WHERE ", IdIn(n)); });
  s.update_job_cursors = BatchSql([=](int n) {
    return MultiRowUpdate(d, "job", {"id", "next_fire_ms", "last_fire_ms", "fires_left"},
                          {{"next_fire_ms", "$next_fire_ms"},
                           {"last_fire_ms", "$last_fire_ms"},
                           {"fires_left", "$fires_left"}},
                          "", n);
  });
  s.insert_runs = BatchSql([](int n) {
    return absl::StrCat(kInsertRun, RepeatJoined(Placeholders(kRunInsertColumns), n, ", "));
  });
  const std::string keys = absl::StrCat("SELECT ", kRunKeyColumns, " FROM run WHERE ");
  s.select_runs_by_slot = BatchSql([=](int n) {
    return absl::StrCat(
        keys, RepeatJoined("(job_id = ? AND slot_ms = ? AND shard_index = ? AND attempt = ?)", n,
                           " OR "));
  });
  s.select_runs_by_retry = BatchSql([=](int n) {
    return absl::StrCat(keys, RepeatJoined("(retry_of = ? AND attempt = ?)", n, " OR "));
  });
  s.select_runs_by_child = BatchSql([=](int n) {
    return absl::StrCat(
        keys, RepeatJoined("(child_of = ? AND job_id = ? AND shard_index = ?)", n, " OR "));
  });
  s.select_runs_by_node = BatchSql([=](int n) {
    return absl::StrCat(keys,
                        RepeatJoined("(workflow_run_id = ? AND workflow_node = ? AND "
                                     "workflow_attempt = ? AND shard_index = ? AND attempt = ?)",
                                     n, " OR "));
  });
  s.lock_runs = BatchSql([=](int n) {
    return absl::StrCat("SELECT ", kRunStateColumns, " FROM run WHERE ", IdIn(n), " ORDER BY id",
                        lock);
  });
  // The columns update_runs takes per row; the first four identify the run
  // and are never changed.
  const std::vector<std::string> run_columns = {"id",
                                                "job_id",
                                                "group_id",
                                                "trigger_type",
                                                "status",
                                                "trigger_code",
                                                "trigger_message",
                                                "executor_address",
                                                "dispatch_ms",
                                                "handle_code",
                                                "handle_message",
                                                "start_ms",
                                                "end_ms",
                                                "fence_epoch",
                                                "followup_pending",
                                                "log_line_count",
                                                "log_truncated",
                                                "followup_due_ms",
                                                "log_bytes",
                                                "output"};
  if (mysql) {
    // An upsert on the primary key: O(rows), where a CASE per column costs
    // O(rows) per row (a third of MariaDB's time under a burst went to
    // comparing CASE branches). The rows were locked by lock_runs in the
    // same transaction, so every one exists and the insert never happens;
    // the identity columns and params (NOT NULL without a default) are given
    // only because MySQL checks an insert's row before it finds the clash.
    std::string row = "(?, ?, ?, ?, ''";
    for (size_t i = 4; i < run_columns.size(); ++i) row += ", ?";
    row += ")";
    std::string set;
    for (size_t i = 4; i < run_columns.size(); ++i) {
      absl::StrAppend(&set, i > 4 ? ", " : "", run_columns[i], " = VALUES(", run_columns[i], ")");
    }
    std::vector<std::string> names(run_columns.begin(), run_columns.begin() + 4);
    names.push_back("params");
    names.insert(names.end(), run_columns.begin() + 4, run_columns.end());
    s.update_runs = BatchSql([=](int n) {
      return absl::StrCat("INSERT INTO run(", absl::StrJoin(names, ", "), ") VALUES ",
                          RepeatJoined(row, n, ", "), " ON DUPLICATE KEY UPDATE ", set);
    });
  } else {
    std::vector<Assignment> sets;
    for (size_t i = 4; i < run_columns.size(); ++i) {
      sets.push_back({run_columns[i], absl::StrCat("$", run_columns[i])});
    }
    s.update_runs =
        BatchSql([=](int n) { return MultiRowUpdate(d, "run", run_columns, sets, "", n); });
  }
  s.insert_log_lines = BatchSql([](int n) {
    return absl::StrCat("INSERT INTO run_log(run_id, line_number, time_ms, text) VALUES ",
                        RepeatJoined(Placeholders(4), n, ", "));
  });
  s.select_log_lines = BatchSql([](int n) {
    return absl::StrCat("SELECT run_id, line_number FROM run_log WHERE ",
                        RepeatJoined("(run_id = ? AND line_number BETWEEN ? AND ?)", n, " OR "));
  });
  s.complete_followups = BatchSql(
      [](int n) { return absl::StrCat("UPDATE run SET followup_pending = 0 WHERE ", IdIn(n)); });
  s.complete_deadlines = BatchSql([](int n) {
    return absl::StrCat("UPDATE run SET deadline_watch_ms = NULL WHERE ", IdIn(n));
  });
  s.select_retries_of = BatchSql([](int n) {
    return absl::StrCat("SELECT ", kRunColumns, " FROM run WHERE retry_of IN (",
                        RepeatJoined("?", n, ", "), ")");
  });
  s.defer_followups = BatchSql([=](int n) {
    return MultiRowUpdate(d, "run", {"id", "followup_due_ms"},
                          {{"followup_due_ms", "$followup_due_ms"}}, "{t}.followup_pending = 1", n);
  });
  const std::string days =
      absl::StrCat("INSERT INTO stats_day(day_ms, job_id, running, succeeded, failed) VALUES ");
  // The histogram tables (stats_duration, stats_lateness) share one shape.
  auto histogram_upsert = [=](const std::string& table) {
    const std::string insert =
        absl::StrCat("INSERT INTO ", table, "(day_ms, job_id, bucket, runs) VALUES ");
    return BatchSql([=](int n) {
      return absl::StrCat(insert, RepeatJoined(Placeholders(4), n, ", "),
                          mysql ? " ON DUPLICATE KEY UPDATE runs = runs + VALUES(runs)"
                                : " ON CONFLICT(day_ms, job_id, bucket) DO UPDATE SET "
                                  "runs = runs + excluded.runs");
    });
  };
  s.upsert_stats_durations = histogram_upsert("stats_duration");
  s.upsert_stats_lateness = histogram_upsert("stats_lateness");
  if (mysql) {
    s.upsert_stats_days = BatchSql([=](int n) {
      return absl::StrCat(days, RepeatJoined(Placeholders(5), n, ", "),
                          " ON DUPLICATE KEY UPDATE running = running + VALUES(running), "
                          "succeeded = succeeded + VALUES(succeeded), "
                          "failed = failed + VALUES(failed)");
    });
  } else {
    s.upsert_stats_days = BatchSql([=](int n) {
      return absl::StrCat(days, RepeatJoined(Placeholders(5), n, ", "),
                          " ON CONFLICT(day_ms, job_id) DO UPDATE SET "
                          "running = running + excluded.running, "
                          "succeeded = succeeded + excluded.succeeded, "
                          "failed = failed + excluded.failed");
    });
  }
}

// `prefix`: "stats" (stats_day, stats_duration, stats_lateness) or "report".
StatsTables StatsTablesOf(const std::string& prefix) {
  const std::string day = prefix + "_day", duration = prefix + "_duration",
                    lateness = prefix + "_lateness";
  auto histogram_of_job = [](const std::string& table) {
    return absl::StrCat("SELECT day_ms, bucket, runs FROM ", table,
                        " WHERE job_id = ? AND day_ms >= ? AND day_ms < ? ORDER BY day_ms, bucket");
  };
  auto histogram_total = [](const std::string& table) {
    return absl::StrCat(
        "SELECT day_ms, bucket, SUM(runs) FROM ", table,
        " WHERE day_ms >= ? AND day_ms < ? GROUP BY day_ms, bucket ORDER BY day_ms, bucket");
  };
  StatsTables t;
  t.select_days_of_job =
      absl::StrCat("SELECT day_ms, running, succeeded, failed FROM ", day,
                   " WHERE job_id = ? AND day_ms >= ? AND day_ms < ? ORDER BY day_ms");
  t.select_days_total =
      absl::StrCat("SELECT day_ms, SUM(running), SUM(succeeded), SUM(failed) FROM ", day,
                   " WHERE day_ms >= ? AND day_ms < ? GROUP BY day_ms ORDER BY day_ms");
  t.select_durations_of_job = histogram_of_job(duration);
  t.select_durations_total = histogram_total(duration);
  t.select_lateness_of_job = histogram_of_job(lateness);
  t.select_lateness_total = histogram_total(lateness);
  t.delete_job_days = absl::StrCat("DELETE FROM ", day, " WHERE job_id = ?");
  t.delete_job_durations = absl::StrCat("DELETE FROM ", duration, " WHERE job_id = ?");
  t.delete_job_lateness = absl::StrCat("DELETE FROM ", lateness, " WHERE job_id = ?");
  return t;
}

Statements Portable() {
  // Enum values spelled into SQL (they are part of the stored format).
  const std::string kActive =
      absl::StrCat("(", v1::RUN_STATUS_PENDING, ", ", v1::RUN_STATUS_RUNNING, ")");
  const std::string kEnded =
      absl::StrCat("(", v1::RUN_STATUS_SUCCEEDED, ", ", v1::RUN_STATUS_FAILED, ")");
  Statements s;
  s.select_migrations = "SELECT version FROM schema_migrations ORDER BY version";
  s.insert_migration = "INSERT INTO schema_migrations(version, applied_ms) VALUES (?, ?)";
  s.select_setting = "SELECT value FROM setting WHERE name = ?";

  s.insert_group =
      "INSERT INTO job_group(app_name, title, membership, access_token, create_ms, update_ms) "
      "VALUES (?, ?, ?, ?, ?, ?)";
  s.select_group = absl::StrCat("SELECT ", kGroupColumns, " FROM job_group WHERE id = ?");
  s.select_group_by_app =
      absl::StrCat("SELECT ", kGroupColumns, " FROM job_group WHERE app_name = ?");
  s.select_groups = absl::StrCat("SELECT ", kGroupColumns, " FROM job_group ORDER BY id");
  s.update_group =
      "UPDATE job_group SET title = ?, membership = ?, access_token = ?, update_ms = ?, "
      "previous_access_token = ?, previous_token_expire_ms = ? "
      "WHERE id = ?";
  s.count_group_jobs = "SELECT COUNT(*) FROM job WHERE group_id = ?";
  s.delete_group = "DELETE FROM job_group WHERE id = ?";
  s.count_group_workflows = "SELECT COUNT(*) FROM workflow WHERE group_id = ?";

  const std::string workflow_columns = absl::StrCat("SELECT ", kWorkflowColumns, " FROM workflow");
  // calendar: Schedule.calendar, NULL when it names none (as for jobs).
  s.insert_workflow =
      "INSERT INTO workflow(group_id, name, state, next_fire_ms, spec, create_ms, update_ms, "
      "calendar) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
  s.select_workflow = workflow_columns + " WHERE id = ?";
  s.select_workflows = workflow_columns + " ORDER BY id";
  s.select_group_workflows = workflow_columns + " WHERE group_id = ? ORDER BY id";
  s.update_workflow =
      "UPDATE workflow SET name = ?, state = ?, spec = ?, calendar = ?, update_ms = ?, "
      "next_fire_ms = COALESCE(?, next_fire_ms) WHERE id = ?";
  s.advance_workflow = "UPDATE workflow SET next_fire_ms = ? WHERE id = ? AND next_fire_ms = ?";
  s.count_running_workflow_runs =
      absl::StrCat("SELECT COUNT(*) FROM workflow_run WHERE workflow_id = ? AND status = ",
                   v1::WORKFLOW_RUN_STATUS_RUNNING);
  s.delete_workflow_runs = "DELETE FROM workflow_run WHERE workflow_id = ?";
  s.delete_workflow = "DELETE FROM workflow WHERE id = ?";
  const std::string workflow_run_columns =
      "SELECT id, workflow_id, status, version, state, create_ms, end_ms FROM workflow_run";
  s.insert_workflow_run =
      "INSERT INTO workflow_run(workflow_id, slot_ms, status, version, state, create_ms, end_ms) "
      "VALUES (?, ?, ?, 1, ?, ?, 0)";
  s.select_workflow_run = workflow_run_columns + " WHERE id = ?";
  s.update_workflow_run =
      "UPDATE workflow_run SET status = ?, version = version + 1, state = ?, end_ms = ? "
      "WHERE id = ? AND version = ?";
  s.select_workflow_runs = workflow_run_columns + " WHERE workflow_id = ? ORDER BY id DESC LIMIT ?";

  s.insert_calendar = "INSERT INTO calendar(name, spec, create_ms, update_ms) VALUES (?, ?, ?, ?)";
  s.select_calendar = absl::StrCat("SELECT ", kCalendarColumns, " FROM calendar WHERE name = ?");
  s.select_calendars = absl::StrCat("SELECT ", kCalendarColumns, " FROM calendar ORDER BY name");
  s.update_calendar = "UPDATE calendar SET spec = ?, update_ms = ? WHERE name = ?";
  s.delete_calendar = "DELETE FROM calendar WHERE name = ?";
  s.select_calendar_job = "SELECT id FROM job WHERE calendar = ? ORDER BY id LIMIT 1";
  s.select_calendar_workflow = "SELECT id FROM workflow WHERE calendar = ? ORDER BY id LIMIT 1";
  s.select_calendar_jobs =
      absl::StrCat("SELECT ", kJobColumns, " FROM job WHERE calendar = ? ORDER BY id");
  s.select_calendar_workflows = workflow_columns + " WHERE calendar = ? ORDER BY id";
  // The update time always moves on, even for a user changed in the same
  // millisecond: a replica re-reads a job whose update time changed.
  auto move_user = [](const char* table, int running) {
    return absl::StrCat("UPDATE ", table,
                        " SET next_fire_ms = ?, update_ms = CASE WHEN update_ms < ? THEN ? "
                        "ELSE update_ms + 1 END WHERE id = ? AND calendar = ? AND state = ",
                        running);
  };
  s.move_calendar_job = move_user("job", v1::JOB_STATE_RUNNING);
  s.move_calendar_workflow = move_user("workflow", v1::WORKFLOW_STATE_RUNNING);
  // Ids are never reused (AUTOINCREMENT; AUTO_INCREMENT), so a delete and a
  // create between two reads still change the sum.
  s.select_calendars_version =
      "SELECT COUNT(*), COALESCE(MAX(update_ms), 0), COALESCE(SUM(id), 0) FROM calendar";

  s.insert_alarm_channel =
      "INSERT INTO alarm_channel(name, kind, spec, create_ms, update_ms) VALUES (?, ?, ?, ?, ?)";
  s.select_alarm_channel =
      absl::StrCat("SELECT ", kAlarmChannelColumns, " FROM alarm_channel WHERE name = ?");
  s.select_alarm_channels =
      absl::StrCat("SELECT ", kAlarmChannelColumns, " FROM alarm_channel ORDER BY name");
  s.update_alarm_channel =
      "UPDATE alarm_channel SET kind = ?, spec = ?, update_ms = ? WHERE name = ?";
  s.delete_alarm_channel = "DELETE FROM alarm_channel WHERE name = ?";
  s.select_job_specs = "SELECT id, spec FROM job ORDER BY id";
  s.insert_pool =
      "INSERT INTO pool(name, description, slots, create_ms, update_ms) VALUES (?, ?, ?, ?, ?)";
  s.select_pool = absl::StrCat("SELECT ", kPoolColumns, " FROM pool WHERE name = ?");
  s.select_pools = absl::StrCat("SELECT ", kPoolColumns, " FROM pool ORDER BY name");
  s.update_pool = "UPDATE pool SET description = ?, slots = ?, update_ms = ? WHERE name = ?";
  s.delete_pool = "DELETE FROM pool WHERE name = ?";
  s.select_pool_slots =
      "SELECT s.run_id, r.status, r.handle_code, r.end_ms FROM pool_slot s "
      "LEFT JOIN run r ON r.id = s.run_id WHERE s.pool = ? ORDER BY s.since_ms, s.run_id";
  s.insert_pool_slot = "INSERT INTO pool_slot(run_id, pool, since_ms) VALUES (?, ?, ?)";
  s.delete_pool_slot = "DELETE FROM pool_slot WHERE run_id = ?";
  s.select_pool_queue_head =
      "SELECT run_id, job_id FROM pool_queue WHERE pool = ? ORDER BY priority DESC, run_id "
      "LIMIT ?";
  s.insert_pool_queue =
      "INSERT INTO pool_queue(run_id, pool, job_id, priority) VALUES (?, ?, ?, ?)";
  s.delete_pool_queue = "DELETE FROM pool_queue WHERE run_id = ?";
  s.count_pool_queue = "SELECT COUNT(*) FROM pool_queue WHERE pool = ?";
  s.select_pool_queue_runs =
      absl::StrCat("SELECT ", PrefixedRunColumns("r."),
                   " FROM pool_queue q JOIN run r ON r.id = q.run_id WHERE q.pool = ? "
                   "ORDER BY q.priority DESC, q.run_id LIMIT ?");
  s.grant_pool_run = absl::StrCat(
      "UPDATE run SET status = ", v1::RUN_STATUS_PENDING,
      ", trigger_ms = ?, fence_epoch = ? WHERE id = ? AND status = ", v1::RUN_STATUS_QUEUED);
  s.count_pool_queues = "SELECT pool, COUNT(*) FROM pool_queue GROUP BY pool";
  s.select_alarm_channels_version =
      "SELECT COUNT(*), COALESCE(MAX(update_ms), 0), COALESCE(SUM(id), 0) FROM alarm_channel";

  // A job created without a name is inserted with NULL (NULLs never clash
  // in a unique index) and named "job-<id>" in the same transaction. The
  // calendar column is the spec's Schedule.calendar (NULL: none), written
  // with every spec so a calendar finds its users by index.
  s.insert_job =
      "INSERT INTO job(group_id, state, next_fire_ms, last_fire_ms, spec, create_ms, update_ms, "
      "name, fires_left, calendar) "
      "VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?)";
  s.select_job = absl::StrCat("SELECT ", kJobColumns, " FROM job WHERE id = ?");
  s.select_all_jobs = absl::StrCat("SELECT ", kJobColumns, " FROM job ORDER BY id");
  s.update_job_spec =
      "UPDATE job SET group_id = ?, spec = ?, name = ?, calendar = ?, update_ms = ? WHERE id = ?";
  s.update_job_spec_and_cursor =
      "UPDATE job SET group_id = ?, spec = ?, name = ?, calendar = ?, next_fire_ms = ?, "
      "update_ms = ? WHERE id = ?";
  s.set_job_state =
      "UPDATE job SET state = ?, next_fire_ms = ?, update_ms = ?, consecutive_failures = 0, "
      "pause_reason = NULL, fires_left = ? WHERE id = ?";
  s.set_fires_left = "UPDATE job SET fires_left = ? WHERE id = ?";
  // Parameters: failed (0/1), run id, job id, run id.
  s.count_job_end =
      "UPDATE job SET consecutive_failures = CASE WHEN ? = 1 THEN consecutive_failures + 1 "
      "ELSE 0 END, failures_counted_run = ? WHERE id = ? AND failures_counted_run < ?";
  s.select_job_failures = "SELECT consecutive_failures FROM job WHERE id = ?";
  s.pause_job = absl::StrCat("UPDATE job SET state = ", static_cast<int>(v1::JOB_STATE_PAUSED),
                             ", next_fire_ms = ?, pause_reason = ?, update_ms = ? WHERE id = ? "
                             "AND state = ",
                             static_cast<int>(v1::JOB_STATE_RUNNING));
  s.delete_job_logs = "DELETE FROM run_log WHERE run_id IN (SELECT id FROM run WHERE job_id = ?)";
  s.delete_job_runs = "DELETE FROM run WHERE job_id = ?";
  s.delete_job_glue = "DELETE FROM glue_version WHERE job_id = ?";
  s.insert_script_version =
      "INSERT INTO glue_version(job_id, version, language, source, note, author, create_ms) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)";
  s.max_script_version = "SELECT COALESCE(MAX(version), 0) FROM glue_version WHERE job_id = ?";
  s.prune_script_versions = "DELETE FROM glue_version WHERE job_id = ? AND version < ?";
  s.select_script_version =
      "SELECT version, language, note, author, create_ms, source FROM glue_version "
      "WHERE job_id = ? AND version = ?";
  s.delete_job = "DELETE FROM job WHERE id = ?";
  s.select_due_jobs = DueJobsSql("");
  s.count_jobs_by_group_state =
      "SELECT g.app_name, j.state, COUNT(*) FROM job j JOIN job_group g ON g.id = j.group_id "
      "GROUP BY g.app_name, j.state";

  s.insert_run = absl::StrCat(kInsertRun, Placeholders(kRunInsertColumns));
  s.select_slot_holder =
      "SELECT id FROM run WHERE job_id = ? AND slot_ms = ? AND shard_index = ? AND attempt = ?";
  s.select_retry_holder = "SELECT id FROM run WHERE retry_of = ? AND attempt = ?";
  s.select_child_holder =
      "SELECT id FROM run WHERE child_of = ? AND job_id = ? AND shard_index = ?";
  s.select_node_holder =
      "SELECT id FROM run WHERE workflow_run_id = ? AND workflow_node = ? AND workflow_attempt = ? "
      "AND shard_index = ? AND attempt = ?";
  s.select_run = absl::StrCat("SELECT ", kRunColumns, " FROM run WHERE id = ?");
  s.update_alarm_status = "UPDATE run SET alarm_status = ? WHERE id = ?";
  s.select_run_log =
      "SELECT line_number, time_ms, text FROM run_log WHERE run_id = ? AND line_number >= ? "
      "ORDER BY line_number LIMIT ?";
  s.select_active_runs_on =
      absl::StrCat("SELECT ", kRunColumns, " FROM run WHERE executor_address = ? AND status IN ",
                   kActive, " ORDER BY id");

  s.select_pending_followups = PendingFollowupsSql("");
  s.select_runs_ended_before =
      absl::StrCat("SELECT id FROM run WHERE end_ms < ? AND status IN ", kEnded,
                   " AND followup_pending = 0 ORDER BY end_ms, id LIMIT ?");
  s.select_job_ids_after = "SELECT id FROM job WHERE id > ? ORDER BY id LIMIT ?";
  s.select_keep_cutoff = "SELECT id FROM run WHERE job_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?";
  s.select_trimmable_runs =
      absl::StrCat("SELECT id FROM run WHERE job_id = ? AND id <= ? AND status IN ", kEnded,
                   " AND followup_pending = 0 ORDER BY id LIMIT ?");
  s.delete_ended_run = absl::StrCat("DELETE FROM run WHERE id = ? AND status IN ", kEnded,
                                    " AND followup_pending = 0");
  s.delete_run_logs = "DELETE FROM run_log WHERE run_id = ?";

  s.stats = StatsTablesOf("stats");
  s.legacy_stats = StatsTablesOf("report");

  // Only the registration's own row: the registration id tells apart two
  // replicas' registrations made in the same millisecond, the register time
  // a row that a replica of the release before migration 16 wrote over it
  // (such a write keeps the registration_id of the row it replaces).
  s.delete_executor =
      "DELETE FROM registry WHERE app_name = ? AND address = ? AND register_ms = ? "
      "AND registration_id = ?";
  s.select_executors =
      "SELECT info, register_ms, last_beat_ms FROM registry ORDER BY app_name, address";
  s.prune_executors = "DELETE FROM registry WHERE last_beat_ms < ?";

  s.insert_audit = "INSERT INTO audit_log(at_ms, object, entry) VALUES (?, ?, ?)";
  s.select_audit =
      "SELECT id, entry FROM audit_log WHERE (? = 0 OR id < ?) AND (? = '' OR object = ?) "
      "ORDER BY id DESC LIMIT ?";
  s.select_audit_cutoff = "SELECT id FROM audit_log WHERE at_ms < ? ORDER BY id LIMIT ?";
  s.delete_audit_through = "DELETE FROM audit_log WHERE id <= ? AND at_ms < ?";
  s.count_admin_tokens = "SELECT COUNT(*) FROM admin_token";
  s.insert_admin_token =
      "INSERT INTO admin_token(name, sha256, create_ms, expire_ms, role, grants, user_name)"
      " VALUES (?, ?, ?, ?, ?, ?, ?)";
  s.select_admin_token =
      absl::StrCat("SELECT ", kTokenColumns, " FROM admin_token WHERE sha256 = ?");
  s.select_admin_token_by_name =
      absl::StrCat("SELECT ", kTokenColumns, " FROM admin_token WHERE name = ?");
  s.select_admin_tokens = absl::StrCat("SELECT ", kTokenColumns, " FROM admin_token ORDER BY name");
  s.revoke_admin_token = "UPDATE admin_token SET revoke_ms = ? WHERE name = ? AND revoke_ms = 0";
  s.revoke_user_tokens =
      "UPDATE admin_token SET revoke_ms = ? WHERE user_name = ? AND revoke_ms = 0";
  s.select_ended_sessions =
      "SELECT name FROM admin_token WHERE user_name <> '' AND "
      "((revoke_ms > 0 AND revoke_ms < ?) OR (expire_ms > 0 AND expire_ms < ?)) LIMIT ?";
  s.delete_token = "DELETE FROM admin_token WHERE name = ?";

  // USER is a keyword but not reserved in MySQL, and none in SQLite.
  s.insert_user =
      "INSERT INTO user(username, password_hash, role, grants, create_ms, update_ms)"
      " VALUES (?, ?, ?, ?, ?, ?)";
  s.select_user = absl::StrCat("SELECT ", kUserColumns, " FROM user WHERE username = ?");
  s.select_users = absl::StrCat("SELECT ", kUserColumns, " FROM user ORDER BY username");
  s.update_user = "UPDATE user SET role = ?, grants = ?, update_ms = ? WHERE username = ?";
  s.update_user_password = "UPDATE user SET password_hash = ? WHERE username = ?";
  s.delete_user = "DELETE FROM user WHERE username = ?";

  s.update_lease = "UPDATE lease SET holder = ?, epoch = ?, expires_ms = ? WHERE name = ?";
  s.renew_leases_prefix = "UPDATE lease SET expires_ms = ? WHERE holder = ? AND name IN ";
  s.release_leases_prefix =
      "UPDATE lease SET holder = '', expires_ms = ? WHERE holder = ? AND name IN ";
  s.lock_leases_prefix = "SELECT name, holder, epoch, expires_ms FROM lease WHERE name IN ";
  s.delete_expired_leases_prefix = "DELETE FROM lease WHERE expires_ms < ? AND name IN ";
  s.list_leases =
      "SELECT name, holder, epoch, expires_ms FROM lease WHERE name LIKE ? ORDER BY name";
  return s;
}

// Listing of a job's versions; `bytes` is the dialect's byte length of source.
std::string ScriptVersionsSql(const std::string& bytes) {
  return absl::StrCat("SELECT version, language, note, author, create_ms, ", bytes,
                      " FROM glue_version WHERE job_id = ? AND (? = 0 OR version < ?) "
                      "ORDER BY version DESC LIMIT ?");
}

constexpr char kRegistryInsert[] =
    "INSERT INTO registry(app_name, address, info, register_ms, last_beat_ms, registration_id) "
    "VALUES (?, ?, ?, ?, ?, ?) ";

Statements Sqlite() {
  Statements s = Portable();
  AddBatchStatements(Dialect::kSqlite, s);
  s.create_migrations_table =
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      "version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)";
  const std::string upsert =
      absl::StrCat(kRegistryInsert,
                   "ON CONFLICT(app_name, address) DO UPDATE SET info = excluded.info, "
                   "last_beat_ms = excluded.last_beat_ms");
  s.upsert_executor_keep_register = upsert;
  s.upsert_executor_set_register = absl::StrCat(
      upsert, ", register_ms = excluded.register_ms, registration_id = excluded.registration_id");
  s.ensure_lease =
      "INSERT OR IGNORE INTO lease(name, holder, epoch, expires_ms) VALUES (?, '', 0, ?)";
  s.ensure_setting = "INSERT OR IGNORE INTO setting(name, value) VALUES (?, ?)";
  // The write transaction (BEGIN IMMEDIATE) already excludes other writers.
  s.lock_suffix = "";
  s.lock_job = "SELECT id FROM job WHERE id = ?";
  s.lock_calendars_newest_update = "SELECT COALESCE(MAX(update_ms), 0) FROM calendar";
  s.lock_pool = "SELECT slots FROM pool WHERE name = ?";
  s.lock_alarm_channels_newest_update = "SELECT COALESCE(MAX(update_ms), 0) FROM alarm_channel";
  s.select_script_versions = ScriptVersionsSql("LENGTH(CAST(source AS BLOB))");
  s.store_now_ms = "SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";
  return s;
}

Statements Mysql() {
  Statements s = Portable();
  AddBatchStatements(Dialect::kMysql, s);
  s.create_migrations_table =
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      "version BIGINT NOT NULL PRIMARY KEY, applied_ms BIGINT NOT NULL"
      ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";
  const std::string upsert = absl::StrCat(
      kRegistryInsert,
      "ON DUPLICATE KEY UPDATE info = VALUES(info), last_beat_ms = VALUES(last_beat_ms)");
  s.upsert_executor_keep_register = upsert;
  s.upsert_executor_set_register = absl::StrCat(
      upsert, ", register_ms = VALUES(register_ms), registration_id = VALUES(registration_id)");
  s.ensure_lease = "INSERT IGNORE INTO lease(name, holder, epoch, expires_ms) VALUES (?, '', 0, ?)";
  s.ensure_setting = "INSERT IGNORE INTO setting(name, value) VALUES (?, ?)";
  s.lock_suffix = " FOR UPDATE";
  s.lock_job = "SELECT id FROM job WHERE id = ? FOR UPDATE";
  s.lock_calendars_newest_update = "SELECT COALESCE(MAX(update_ms), 0) FROM calendar FOR UPDATE";
  s.lock_pool = "SELECT slots FROM pool WHERE name = ? FOR UPDATE";
  s.lock_alarm_channels_newest_update =
      "SELECT COALESCE(MAX(update_ms), 0) FROM alarm_channel FOR UPDATE";
  s.select_script_versions = ScriptVersionsSql("LENGTH(source)");
  s.store_now_ms = "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)";
  return s;
}

}  // namespace

const Statements& StatementsFor(Dialect dialect) {
  static const Statements* const sqlite = new Statements(Sqlite());
  static const Statements* const mysql = new Statements(Mysql());
  return dialect == Dialect::kSqlite ? *sqlite : *mysql;
}

std::string PendingFollowupsSql(const std::string& and_where) {
  return absl::StrCat("SELECT ", kRunColumns,
                      " FROM run WHERE followup_pending = 1 AND followup_due_ms <= ?", and_where,
                      " ORDER BY followup_due_ms, end_ms, id LIMIT ?");
}

std::string DueDeadlinesSql(int partition_count, const std::vector<int>& partitions) {
  return absl::StrCat("SELECT ", kRunColumns, " FROM run WHERE deadline_watch_ms <= ?",
                      partitions.empty() ? "" : InPartitions("job_id", partition_count, partitions),
                      " ORDER BY deadline_watch_ms, id LIMIT ?");
}

std::string QueuedPoolsSql(int partition_count, const std::vector<int>& partitions) {
  return absl::StrCat("SELECT DISTINCT pool FROM pool_queue WHERE 1 = 1",
                      partitions.empty() ? "" : InPartitions("job_id", partition_count, partitions),
                      " ORDER BY pool");
}

std::string InPartitions(const std::string& job_id_column, int partition_count,
                         const std::vector<int>& partitions) {
  // Partition numbers are ints, never user text: safe to inline, and a
  // replica's partition set changes rarely, so the statement cache keeps hitting.
  return absl::StrCat(" AND ", job_id_column, " % ", partition_count, " IN (",
                      absl::StrJoin(partitions, ", "), ")");
}

std::string PendingFollowupsInPartitionsSql(int partition_count,
                                            const std::vector<int>& partitions) {
  return PendingFollowupsSql(InPartitions("job_id", partition_count, partitions));
}

std::string DueJobsSql(const std::string& and_where) {
  return absl::StrCat("SELECT ", kJobColumns,
                      " FROM job WHERE state = ", static_cast<int>(v1::JOB_STATE_RUNNING),
                      " AND next_fire_ms >= 0 AND next_fire_ms <= ?", and_where,
                      " ORDER BY next_fire_ms, id LIMIT ?");
}

std::string DueJobsInPartitionsSql(int partition_count, const std::vector<int>& partitions) {
  return DueJobsSql(InPartitions("id", partition_count, partitions));
}

std::string DueWorkflowsSql(int partition_count, const std::vector<int>& partitions) {
  return absl::StrCat("SELECT ", kWorkflowColumns,
                      " FROM workflow WHERE state = ", static_cast<int>(v1::WORKFLOW_STATE_RUNNING),
                      " AND next_fire_ms >= 0 AND next_fire_ms <= ?",
                      partitions.empty() ? "" : InPartitions("id", partition_count, partitions),
                      " ORDER BY next_fire_ms, id LIMIT ?");
}

std::string RunningWorkflowRunsSql(int partition_count, const std::vector<int>& partitions) {
  return absl::StrCat(
      "SELECT id, workflow_id, status, version, state, create_ms, end_ms FROM workflow_run "
      "WHERE status = ",
      static_cast<int>(v1::WORKFLOW_RUN_STATUS_RUNNING),
      partitions.empty() ? "" : InPartitions("workflow_id", partition_count, partitions),
      " ORDER BY id LIMIT ?");
}

namespace {
// " AND <column> IN (?, ?, ...)" with `count` placeholders; "" for 0.
std::string InPlaceholders(const char* column, int count) {
  if (count <= 0) return "";
  std::string sql = absl::StrCat(" AND ", column, " IN (?");
  for (int i = 1; i < count; ++i) absl::StrAppend(&sql, ", ?");
  return sql + ")";
}
}  // namespace

std::string ListJobsSql(int group_count) {
  return absl::StrCat("SELECT ", kJobColumns, " FROM job WHERE id > ?",
                      InPlaceholders("group_id", group_count), " ORDER BY id LIMIT ?");
}

std::string JobsNamedSql(int group_count) {
  return absl::StrCat("SELECT ", kJobColumns, " FROM job WHERE name = ?",
                      InPlaceholders("group_id", group_count), " ORDER BY id");
}

std::string ListRunsSql(bool job, bool workflow_run, int group_count, int status_count,
                        bool trigger_type, bool from, bool to, bool before, int partition_count,
                        const std::vector<int>& partitions) {
  std::string sql = absl::StrCat("SELECT ", kRunColumns, " FROM run WHERE 1 = 1");
  if (!partitions.empty()) {
    absl::StrAppend(&sql, InPartitions("job_id", partition_count, partitions));
  }
  if (job) absl::StrAppend(&sql, " AND job_id = ?");
  if (workflow_run) absl::StrAppend(&sql, " AND workflow_run_id = ?");
  absl::StrAppend(&sql, InPlaceholders("group_id", group_count),
                  InPlaceholders("status", status_count));
  if (trigger_type) absl::StrAppend(&sql, " AND trigger_type = ?");
  if (from) absl::StrAppend(&sql, " AND trigger_ms >= ?");
  if (to) absl::StrAppend(&sql, " AND trigger_ms < ?");
  if (before) absl::StrAppend(&sql, " AND id < ?");
  absl::StrAppend(&sql, " ORDER BY id DESC LIMIT ?");
  return sql;
}

}  // namespace gnomon::store::internal
