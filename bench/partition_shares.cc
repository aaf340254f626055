#include "bench/partition_shares.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "services/common/status/status_macros.h"

namespace gnomon::bench {

std::vector<int> PartitionHolders::Held(const std::string& id) const {
  std::vector<int> out;
  for (int p = 0; p < count(); ++p) {
    if (replica[p] == id) out.push_back(p);
  }
  return out;
}

std::map<std::string, int> PartitionHolders::Counts() const {
  std::map<std::string, int> out;
  for (const std::string& r : replica) ++out[r];
  return out;
}

absl::StatusOr<PartitionHolders> ReadPartitionHolders(StoreReader& db, int64_t now_ms) {
  int count = store::kDefaultPartitions;  // A store from before the setting.
  RETURN_IF_ERROR(db.ForEachRow("SELECT value FROM setting WHERE name = 'partitions'",
                                [&](absl::Span<const absl::string_view> row) {
                                  if (!row.empty()) count = static_cast<int>(AsInt(row[0], count));
                                }));
  PartitionHolders h;
  h.replica.resize(count);
  h.epoch.resize(count, 0);
  RETURN_IF_ERROR(db.ForEachRow(
      "SELECT name, holder, epoch, expires_ms FROM lease WHERE name LIKE 'partition/%'",
      [&](absl::Span<const absl::string_view> row) {
        if (row.size() < 4) return;
        absl::string_view name = row[0];
        int p = -1;
        if (!absl::ConsumePrefix(&name, "partition/") || !absl::SimpleAtoi(name, &p) || p < 0 ||
            p >= count) {
          return;
        }
        h.epoch[p] = AsInt(row[2]);
        if (AsInt(row[3]) <= now_ms) return;  // Free (released) or expired.
        const absl::string_view holder = row[1];
        h.replica[p] = std::string(holder.substr(0, holder.rfind('#')));
      }));
  return h;
}

absl::StatusOr<FireShares> ReadFireShares(StoreReader& db, int64_t from_ms, int64_t to_ms,
                                          const std::vector<PartitionHolders>& snapshots) {
  std::map<std::pair<int, int64_t>, std::string> holder;  // (partition, epoch) -> replica
  int count = 0;
  for (const PartitionHolders& h : snapshots) {
    count = std::max(count, h.count());
    for (int p = 0; p < h.count(); ++p) {
      if (!h.replica[p].empty()) holder[{p, h.epoch[p]}] = h.replica[p];
    }
  }
  FireShares out;
  if (count == 0) return absl::FailedPreconditionError("no snapshot of the partition leases");
  RETURN_IF_ERROR(
      db.ForEachRow(absl::StrCat("SELECT job_id % ", count,
                                 ", fence_epoch, count(*) FROM run WHERE trigger_ms >= ", from_ms,
                                 " AND trigger_ms < ", to_ms, " GROUP BY 1, 2"),
                    [&](absl::Span<const absl::string_view> row) {
                      if (row.size() < 3) return;
                      const int64_t n = AsInt(row[2]);
                      out.total += n;
                      auto it = holder.find({static_cast<int>(AsInt(row[0])), AsInt(row[1])});
                      if (it == holder.end()) {
                        out.unattributed += n;
                      } else {
                        out.by_replica[it->second] += n;
                      }
                    }));
  return out;
}

}  // namespace gnomon::bench
