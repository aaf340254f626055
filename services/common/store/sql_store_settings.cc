// SqlStore: construction, with the installation's settings (the `setting`
// table): the scheduler partition count, recorded once when a store is
// first initialised and read by every process that opens it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/migrations.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

constexpr char kPartitionsSetting[] = "partitions";

bool InPartitionRange(int64_t n) { return n >= 1 && n <= kMaxPartitions; }

// Records `wanted` as the partition count unless one is recorded (the first
// of several processes opening a new store at once wins), then reads it.
absl::StatusOr<int> RecordPartitions(SqlDb& db, const Statements& sql, int wanted) {
  std::string recorded;
  RETURN_IF_ERROR(db.Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(
        c.Exec(sql.ensure_setting, {SqlText(kPartitionsSetting), SqlText(absl::StrCat(wanted))})
            .status());
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql.select_setting, {SqlText(kPartitionsSetting)}));
    if (rows.empty()) return absl::InternalError("the partition count was not recorded");
    recorded = ColStr(rows.front(), 0);
    return absl::OkStatus();
  }));
  int64_t n = 0;
  if (!absl::SimpleAtoi(recorded, &n) || !InPartitionRange(n)) {
    return absl::FailedPreconditionError(absl::StrCat("the store records partitions = \"", recorded,
                                                      "\", not a count in 1..", kMaxPartitions));
  }
  return static_cast<int>(n);
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqlStore>> SqlStore::Create(std::unique_ptr<SqlDb> db,
                                                           Dialect dialect,
                                                           const StoreOptions& options) {
  if (!InPartitionRange(options.initial_partitions)) {
    return absl::InvalidArgumentError(
        absl::StrCat("partitions: ", options.initial_partitions, " is not in 1..", kMaxPartitions));
  }
  const Statements& sql = StatementsFor(dialect);
  int partitions = kDefaultPartitions;
  // A binary of a release before the setting (tests play one with
  // migrate_up_to) knew only the default.
  if (options.migrate_up_to == 0 || options.migrate_up_to >= kSettingsMigration) {
    ASSIGN_OR_RETURN(partitions, RecordPartitions(*db, sql, options.initial_partitions));
  }
  // Wrapped after: opening commits nothing the store's counters report.
  return std::unique_ptr<SqlStore>(
      new SqlStore(std::make_unique<CountingSqlDb>(std::move(db)), sql, options, partitions));
}

}  // namespace gnomon::store::internal
