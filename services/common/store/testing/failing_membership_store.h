// FailingMembershipStore: a MembershipStore that forwards every call to a
// real one (a TempStore shared by several RegistryCores, as replicas share a
// database) through a StoreCallHook, so a test can fail or pause the calls
// it chooses: a store outage during beats, a removal held while the
// executor registers with another replica.
//
//   StoreCallHook hook;
//   FailingMembershipStore rows(store.get(), &hook);
//   RegistryCore core(&rows, &clock, options);
//
// Thread safety: as the store it wraps.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_MEMBERSHIP_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_MEMBERSHIP_STORE_H_

#include <string_view>
#include <vector>

#include "services/common/store/membership_store.h"
#include "services/common/store/testing/store_call_hook.h"

namespace gnomon::store::testing {

class FailingMembershipStore final : public MembershipStore {
 public:
  FailingMembershipStore(MembershipStore* inner, StoreCallHook* hook)
      : inner_(inner), hook_(hook) {}

  absl::Status UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms,
                              int64_t registration_id) override {
    return hook_->Forward("UpsertExecutor",
                          [&] { return inner_->UpsertExecutor(info, now_ms, registration_id); });
  }
  absl::Status RemoveExecutor(std::string_view app_name, std::string_view address,
                              int64_t register_ms, int64_t registration_id) override {
    return hook_->Forward("RemoveExecutor", [&] {
      return inner_->RemoveExecutor(app_name, address, register_ms, registration_id);
    });
  }
  absl::StatusOr<std::vector<v1::ExecutorInfo>> ListExecutors() override {
    return hook_->Forward("ListExecutors", [&] { return inner_->ListExecutors(); });
  }
  absl::StatusOr<int64_t> PruneExecutors(int64_t before_ms) override {
    return hook_->Forward("PruneExecutors", [&] { return inner_->PruneExecutors(before_ms); });
  }

 private:
  MembershipStore* const inner_;
  StoreCallHook* const hook_;
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_MEMBERSHIP_STORE_H_
