// FailingFollowupStore: a FollowupStore (the follow-up outbox) that
// forwards every call to a real one (a TempStore) through a StoreCallHook,
// so a test can fail or pause the calls it chooses: another replica's pass
// staged while this one holds a follow-up it has listed but not completed.
//
//   StoreCallHook hook;
//   FailingFollowupStore outbox(store.get(), &hook);
//   hook.Set(DoBefore("CompleteFollowups", [&] { other_replica.Tick(); }));
//
// Thread safety: as the store it wraps.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_FOLLOWUP_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_FOLLOWUP_STORE_H_

#include <utility>
#include <vector>

#include "services/common/store/followup_store.h"
#include "services/common/store/testing/store_call_hook.h"

namespace gnomon::store::testing {

class FailingFollowupStore final : public FollowupStore {
 public:
  FailingFollowupStore(FollowupStore* inner, StoreCallHook* hook) : inner_(inner), hook_(hook) {}

  absl::StatusOr<std::vector<v1::Run>> ListPendingFollowups(
      int limit, int64_t now_ms, const std::vector<int>& partitions) override {
    return hook_->Forward("ListPendingFollowups",
                          [&] { return inner_->ListPendingFollowups(limit, now_ms, partitions); });
  }
  absl::Status CompleteFollowups(const std::vector<int64_t>& run_ids) override {
    return hook_->Forward("CompleteFollowups", [&] { return inner_->CompleteFollowups(run_ids); });
  }
  absl::Status DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) override {
    return hook_->Forward("DeferFollowups", [&] { return inner_->DeferFollowups(due); });
  }
  absl::StatusOr<std::vector<v1::Run>> ListDueDeadlines(
      int limit, int64_t now_ms, const std::vector<int>& partitions) override {
    return hook_->Forward("ListDueDeadlines",
                          [&] { return inner_->ListDueDeadlines(limit, now_ms, partitions); });
  }
  absl::Status CompleteDeadlines(const std::vector<int64_t>& run_ids) override {
    return hook_->Forward("CompleteDeadlines", [&] { return inner_->CompleteDeadlines(run_ids); });
  }

 private:
  FollowupStore* const inner_;
  StoreCallHook* const hook_;
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_FOLLOWUP_STORE_H_
