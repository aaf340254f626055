#include "services/scheduler/pool_admin.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {
namespace {

using checks::Charset;
using checks::CheckRange;
using checks::CheckString;

constexpr size_t kMaxPoolDescription = 1024;

// A pool's name in a request that only looks one up: as other names looked
// up (GetCalendar's), at most 128 bytes; one that long names no pool.
absl::Status CheckName(std::string_view field, std::string_view name) {
  return CheckString(field, name, 128, Charset::kName, 1);
}

// The request's pool within its limits (docs/operations.md, "Input limits").
absl::Status CheckFields(const v1::Pool& p) {
  std::vector<absl::Status> each = {
      CheckRange("pool.id", p.id(), 0, INT64_MAX),
      CheckString("pool.name", p.name(), 64, Charset::kName, 1),
      checks::CheckText("pool.description", p.description(), kMaxPoolDescription),
      CheckRange("pool.slots", p.slots(), 1, kMaxPoolSlots),
      checks::CheckTimestamp("pool.create_time", p.create_time()),
      checks::CheckTimestamp("pool.update_time", p.update_time()),
  };
  for (const absl::Status& s : each) RETURN_IF_ERROR(s);
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPoolExists(store::PoolStore* store, std::string_view name,
                             std::string_view field) {
  if (name.empty()) return absl::OkStatus();
  if (store == nullptr) return absl::UnimplementedError("pools are not served here");
  absl::StatusOr<v1::Pool> p = store->GetPool(name, 0);
  if (absl::IsNotFound(p.status())) {
    return absl::NotFoundError(absl::StrCat(std::string(field), ": no pool is named '",
                                            std::string(name), "' (gnomonctl pool list)"));
  }
  return p.status();
}

absl::StatusOr<v1::Pool> PoolAdmin::Create(const v1::Pool& pool) {
  RETURN_IF_ERROR(CheckFields(pool));
  return store_->CreatePool(pool, clock_->NowMillis());
}

absl::StatusOr<v1::Pool> PoolAdmin::Get(std::string_view name) {
  RETURN_IF_ERROR(CheckName("name", name));
  return store_->GetPool(name, clock_->NowMillis());
}

absl::StatusOr<v1::ListPoolsResponse> PoolAdmin::List() {
  ASSIGN_OR_RETURN(std::vector<v1::Pool> pools, store_->ListPools(clock_->NowMillis()));
  v1::ListPoolsResponse out;
  for (v1::Pool& p : pools) *out.add_pools() = std::move(p);
  return out;
}

absl::StatusOr<v1::Pool> PoolAdmin::Update(const v1::Pool& pool) {
  RETURN_IF_ERROR(CheckFields(pool));
  return store_->UpdatePool(pool, clock_->NowMillis());
}

absl::Status PoolAdmin::Delete(std::string_view name) {
  RETURN_IF_ERROR(CheckName("name", name));
  return store_->DeletePool(name);
}

absl::StatusOr<v1::ListPoolQueueResponse> PoolAdmin::Queue(const v1::ListPoolQueueRequest& r) {
  RETURN_IF_ERROR(CheckName("name", r.name()));
  RETURN_IF_ERROR(CheckRange("limit", r.limit(), 0, kMaxPoolQueueLimit));
  const int64_t now = clock_->NowMillis();
  // NotFound for a pool that does not exist (its queue would read empty).
  RETURN_IF_ERROR(store_->GetPool(r.name(), now).status());
  ASSIGN_OR_RETURN(store::PoolQueue q,
                   store_->ListPoolQueue(r.name(), r.limit() == 0 ? 100 : r.limit(), now));
  v1::ListPoolQueueResponse out;
  for (v1::Run& run : q.running) *out.add_running() = std::move(run);
  for (v1::Run& run : q.queued) *out.add_queued() = std::move(run);
  out.set_queued_total(q.queued_total);
  return out;
}

}  // namespace gnomon::scheduler
