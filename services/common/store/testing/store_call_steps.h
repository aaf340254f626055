// StoreCallHook functions for one step of a test (beside FailWhile and
// HoldUntil in store_call_hook.h): fail the next calls of one kind, or do
// something once, on the caller's thread, just before a call of one kind —
// another replica's pass, a result arriving between a read and a write — so
// a race is staged at that exact point, the same on every run.
//
//   StoreCallHook hook;
//   FailingRunStore runs(store.get(), &hook);
//   hook.Set(FailNext("InsertRuns", absl::UnavailableError("store down")));
//   hook.Set(DoBefore("FailRuns", [&] { ApplyTheResult(); }));
//
// Thread safety: the functions are as thread-safe as StoreCallHook needs;
// DoBefore's action runs on the thread making the call.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_STORE_CALL_STEPS_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_STORE_CALL_STEPS_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "services/common/store/testing/store_call_hook.h"

namespace gnomon::store::testing {

// The next `times` calls of `call` fail with `status` before they reach the
// store (nothing is written); later ones go through.
inline StoreCallHook::Fn FailNext(std::string call, absl::Status status, int times = 1) {
  auto left = std::make_shared<std::atomic<int>>(times);
  return [call = std::move(call), status = std::move(status), left](std::string_view c,
                                                                    CallPhase phase) {
    if (phase != CallPhase::kBefore || c != call || left->fetch_sub(1) <= 0)
      return absl::OkStatus();
    return status;
  };
}

// `action` runs once, just before the first call of `call` reaches the store.
inline StoreCallHook::Fn DoBefore(std::string call, std::function<void()> action) {
  auto done = std::make_shared<std::atomic<bool>>(false);
  return [call = std::move(call), action = std::move(action), done](std::string_view c,
                                                                    CallPhase phase) {
    if (phase == CallPhase::kBefore && c == call && !done->exchange(true)) action();
    return absl::OkStatus();
  };
}

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_STORE_CALL_STEPS_H_
