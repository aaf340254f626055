// Store: gnomon's persistence, with a SQLite and a MySQL backend.
//
// The Store is made of role-sized interfaces, one header each: JobStore
// (groups and jobs), RunStore (runs and their logs), FollowupStore (the
// follow-up outbox), StatsStore (daily statistics), AuditStore,
// MembershipStore (registered executors), CredentialStore (tokens and users),
// LeaseStore, WorkflowStore, CalendarStore (calendars and the schedules
// naming them), AlarmChannelStore (alarm channels) and PoolStore (pools of
// concurrency slots and their queues). Each part of gnomon
// takes only the interfaces it uses; the parts that assemble a role hold the
// whole Store. SQL lives only in the store's implementation in this
// directory (sql_store*.cc, statements.cc, the schema files) and in
// benchmarks that inspect a store. Calls are batch-oriented so the scheduler
// and the log service can keep store transactions and SQL statements per run
// low: a batch costs a few multi-row statements per kind, not one per run
// (batch_sql.h).
//
// Example:
//   absl::StatusOr<std::unique_ptr<Store>> store =
//       OpenStore("sqlite:/var/lib/gnomon/gnomon.db", StoreOptions{});
//   if (!store.ok()) return store.status();
//   absl::StatusOr<v1::Group> g = (*store)->CreateGroup(group);
//
// Times are UTC milliseconds since the Unix epoch (int64). Errors are values:
// NotFound for a missing row, AlreadyExists for a unique-key clash,
// FailedPrecondition for a refused change, Unavailable for a store that is down
// or timed out (callers retry), Internal for anything else. No exception escapes.
//
// Thread safety: every method may be called concurrently from any thread.
#ifndef GNOMON_SERVICES_COMMON_STORE_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_STORE_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/store/alarm_channel_store.h"
#include "services/common/store/audit_store.h"
#include "services/common/store/calendar_store.h"
#include "services/common/store/credential_store.h"
#include "services/common/store/followup_store.h"
#include "services/common/store/job_store.h"
#include "services/common/store/lease_store.h"
#include "services/common/store/membership_store.h"
#include "services/common/store/pool_store.h"
#include "services/common/store/run_store.h"
#include "services/common/store/stats_store.h"
#include "services/common/store/workflow_store.h"

namespace gnomon::store {

struct StoreOptions {
  // Lines, and bytes of their text, kept per run; further lines are dropped
  // and the run is marked truncated.
  int64_t max_log_lines_per_run = 10000;
  int64_t max_log_bytes_per_run = int64_t{32} << 20;
  // Per-statement timeout for the MySQL backend (connect, read, write).
  int timeout_seconds = 5;
  // Busy timeout for the SQLite backend.
  int sqlite_busy_timeout_ms = 5000;
  // Apply the backend's migrations only up to this version (0: all). Tests
  // set it to play a binary of the previous release against a newer store.
  int64_t migrate_up_to = 0;
  // Script versions kept per job (the newest; at least 1), as XXL-JOB's 30.
  int64_t script_versions_kept = 30;
  // Daily statistics are written this long after the runs they count, merged
  // (stats_writer.h); zero: after each run transaction.
  absl::Duration stats_flush_interval = absl::Seconds(5);
  // The scheduler partition count (1..kMaxPartitions) recorded when this
  // open initialises the store; a store that has one keeps it, whatever
  // this says (JobStore::partition_count() tells which; gnomond refuses to
  // start when its --partitions differs).
  int initial_partitions = kDefaultPartitions;
};

// The whole store: every role-sized interface, implemented by one SQL store
// (sql_store.h) for SQLite and MySQL. Only the parts that assemble a role
// (scheduler_role.cc, registry_role.h, log_role.h, gnomond) hold a Store;
// everything else takes the interfaces it uses.
class Store : public JobStore,
              public RunStore,
              public FollowupStore,
              public StatsStore,
              public AuditStore,
              public MembershipStore,
              public CredentialStore,
              public LeaseStore,
              public WorkflowStore,
              public CalendarStore,
              public AlarmChannelStore,
              public PoolStore {
 public:
  ~Store() override = default;

  // Write transactions committed since the store was opened (for stats and
  // benchmarks; 0 where not counted).
  virtual uint64_t committed_transactions() const { return 0; }
  // OK if the store answers a trivial read now (health checks).
  virtual absl::Status Ping() = 0;
  // SQL statements executed since the store was opened, one per round trip
  // to the database (transaction control not counted); with
  // committed_transactions() it gives a benchmark its statements per run.
  // 0 where not counted.
  virtual uint64_t executed_statements() const { return 0; }
};

// Opens "sqlite:PATH" or "mysql://user:password@host:port/database",
// applies pending migrations and, if the store has no partition count yet,
// records options.initial_partitions. InvalidArgument names the problem
// with the URL or the options.
absl::StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view url, const StoreOptions& options);

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_STORE_H_
