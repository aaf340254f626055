#include "services/scheduler/group_targets.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {

namespace {

// Long enough that a burst of fires reads each group once; short enough that
// a change made through another replica shows within seconds.
constexpr int64_t kGroupCacheMillis = 5'000;

}  // namespace

GroupTargets::GroupTargets(store::JobStore* store, Membership* membership, Clock* clock,
                           ManualProber* prober)
    : store_(store), membership_(membership), clock_(clock), prober_(prober) {}

absl::StatusOr<DispatchTargets> GroupTargets::GroupOf(int64_t group_id) {
  const int64_t now = clock_->NowMillis();
  {
    absl::MutexLock l(&mu_);
    auto it = groups_.find(group_id);
    if (it != groups_.end() && it->second.second > now) return it->second.first;
  }
  ASSIGN_OR_RETURN(v1::Group g, store_->GetGroup(group_id));
  DispatchTargets t;
  t.group = std::move(g);
  absl::MutexLock l(&mu_);
  groups_[group_id] = {t, now + kGroupCacheMillis};
  return t;
}

void GroupTargets::ForgetGroup(int64_t group_id) {
  absl::MutexLock l(&mu_);
  groups_.erase(group_id);
}

absl::StatusOr<DispatchTargets> GroupTargets::TargetsOf(const FireSpec& fire) {
  ASSIGN_OR_RETURN(DispatchTargets t, GroupOf(fire.job->group_id()));
  t.executors = Candidates(fire, t);
  t.registered = fire.addresses.empty() && !t.group.has_manual();
  return t;
}

v1::GroupExecutors GroupTargets::Members(const v1::Group& g) {
  v1::GroupExecutors out;
  out.set_group_id(g.id());
  out.set_app_name(g.app_name());
  if (!g.has_manual()) {
    const ExecutorList live = membership_->Live(g.app_name());  // Kept alive by the loop.
    for (const v1::ExecutorInfo& e : *live) *out.add_executors() = e;
    return out;
  }
  for (const std::string& a : g.manual().addresses()) {
    v1::ManualExecutor* m = out.add_manual();
    m->set_address(a);
    m->set_alive(prober_ == nullptr || prober_->Alive(a));
  }
  return out;
}

absl::Status GroupTargets::CheckMembers(int64_t group_id,
                                        const std::vector<std::string>& addresses) {
  if (addresses.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(DispatchTargets t, GroupOf(group_id));
  const v1::Group& g = t.group;
  absl::flat_hash_set<std::string> members(g.manual().addresses().begin(),
                                           g.manual().addresses().end());
  if (!g.has_manual()) {
    const ExecutorList live = membership_->Live(g.app_name());  // Kept alive by the loop.
    for (const v1::ExecutorInfo& e : *live) members.insert(e.address());
  }
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (!members.contains(addresses[i])) {
      return absl::FailedPreconditionError(absl::StrCat(
          checks::Indexed("executor_addresses", static_cast<int>(i)), ": ",
          checks::Prefix(addresses[i]), " is not ",
          g.has_manual() ? "one of the group's addresses" : "an online executor of the group"));
    }
  }
  return absl::OkStatus();
}

ExecutorList GroupTargets::Candidates(const FireSpec& f, const DispatchTargets& t) {
  const v1::Group& g = t.group;
  if (f.addresses.empty() && !g.has_manual()) {
    return membership_->Live(g.app_name());
  }
  std::vector<std::string> addresses = f.addresses;
  if (addresses.empty())
    addresses.assign(g.manual().addresses().begin(), g.manual().addresses().end());
  auto out = std::make_shared<std::vector<v1::ExecutorInfo>>();
  for (const std::string& a : addresses) {
    // A manual group's addresses that failed their last beat are skipped
    // (an explicit address list from a trigger is used as given).
    if (f.addresses.empty() && prober_ != nullptr && !prober_->Alive(a)) continue;
    v1::ExecutorInfo e;
    e.set_app_name(g.app_name());
    e.set_address(a);
    out->push_back(std::move(e));
  }
  std::sort(out->begin(), out->end(),
            [](const auto& a, const auto& b) { return a.address() < b.address(); });
  return out;
}

ExecutorList GroupTargets::StillLive(const DispatchTargets& t) {
  if (!t.registered) return t.executors;
  ExecutorList live = membership_->Live(t.group.app_name());
  if (live == t.executors) return live;  // Unchanged since planned: the common case.
  // Beats replace the snapshot often while its members stay: the planned list
  // is kept, and copied (per run, in a burst) only if one of them left.
  auto is_live = [&live](const v1::ExecutorInfo& e) {  // Both lists sorted by address.
    auto it = std::lower_bound(
        live->begin(), live->end(), e.address(),
        [](const v1::ExecutorInfo& l, const std::string& a) { return l.address() < a; });
    return it != live->end() && it->address() == e.address();
  };
  if (std::all_of(t.executors->begin(), t.executors->end(), is_live)) return t.executors;
  auto still = std::make_shared<std::vector<v1::ExecutorInfo>>();
  for (const v1::ExecutorInfo& e : *t.executors) {
    if (is_live(e)) still->push_back(e);
  }
  return still;
}

std::optional<std::string> GroupTargets::LiveInstance(const std::string& app,
                                                      const std::string& address) {
  const ExecutorList live = membership_->Live(app);  // Kept alive by the loop.
  for (const v1::ExecutorInfo& e : *live) {
    if (e.address() == address) return e.instance_id();
  }
  return std::nullopt;
}

}  // namespace gnomon::scheduler
