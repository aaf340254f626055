// StoreCallHook: what a test's store decorator (failing_run_store.h,
// failing_membership_store.h, failing_credential_store.h) does around each
// call it forwards to a real store: nothing, fail it, or pause it — staged by
// the test, so an outage or a race is reached without servers or sleeps.
//
//   StoreCallHook hook;
//   FailingRunStore runs(temp_store.get(), &hook);
//   hook.Set([](std::string_view call, CallPhase phase) {
//     // The commit happens, but its caller hears it failed (a lost reply).
//     return call == "ApplyReports" && phase == CallPhase::kAfter ? absl::UnavailableError("down")
//                                                                 : absl::OkStatus();
//   });
//   ASSERT_TRUE(hook.AwaitCalls("ApplyReports", 2, absl::Seconds(30)));
//   std::atomic<bool> down{true};
//   hook.Set(FailWhile(&down));  // An outage of every call, until down = false.
//
// kBefore runs before the real call: a non-OK status is returned instead of
// making it (nothing is written). kAfter runs after a successful real call: a
// non-OK status replaces its result (it was written). A hook may block (on
// an absl::Notification) to pause the caller there.
//
// Thread safety: thread-safe; the function runs on the caller's thread,
// without the hook's lock held.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_STORE_CALL_HOOK_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_STORE_CALL_HOOK_H_

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace gnomon::store::testing {

enum class CallPhase { kBefore, kAfter };

class StoreCallHook {
 public:
  using Fn = std::function<absl::Status(std::string_view call, CallPhase phase)>;

  // Replaces the function (an empty one forwards every call unchanged).
  void Set(Fn fn) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    fn_ = std::move(fn);
  }
  // How many times `call` has been made (counted as it starts).
  int calls(std::string_view call) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    auto it = calls_.find(std::string(call));
    return it == calls_.end() ? 0 : it->second;
  }
  // Waits until `call` has been made `n` times; false if `timeout` (a bound
  // for a broken test, not a pace) passes first.
  bool AwaitCalls(std::string_view call, int n, absl::Duration timeout) const
      ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    const std::string name(call);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      auto it = calls_.find(name);
      return it != calls_.end() && it->second >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }

  // Makes `call` through `inner` (a callable returning absl::Status or
  // absl::StatusOr<T>) with the hook around it.
  template <typename Inner>
  auto Forward(std::string_view call, Inner&& inner) -> decltype(inner()) {
    if (absl::Status s = Run(call, CallPhase::kBefore); !s.ok()) return s;
    auto result = inner();
    if (!Ok(result)) return result;
    if (absl::Status s = Run(call, CallPhase::kAfter); !s.ok()) return s;
    return result;
  }

 private:
  static bool Ok(const absl::Status& s) { return s.ok(); }
  template <typename T>
  static bool Ok(const T& status_or) {
    return status_or.ok();
  }
  absl::Status Run(std::string_view call, CallPhase phase) ABSL_LOCKS_EXCLUDED(mu_) {
    Fn fn;
    {
      absl::MutexLock l(&mu_);
      if (phase == CallPhase::kBefore) ++calls_[std::string(call)];
      fn = fn_;
    }
    return fn ? fn(call, phase) : absl::OkStatus();
  }

  mutable absl::Mutex mu_;
  Fn fn_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, int> calls_ ABSL_GUARDED_BY(mu_);
};

// A hook function for an outage: while `*down`, `call` (every call if
// empty) fails with Unavailable before it reaches the store.
inline StoreCallHook::Fn FailWhile(const std::atomic<bool>* down, std::string call = "") {
  return [down, call = std::move(call)](std::string_view c, CallPhase phase) {
    return phase == CallPhase::kBefore && *down && (call.empty() || c == call)
               ? absl::UnavailableError("store down")
               : absl::OkStatus();
  };
}

// A hook function that holds `call` before it reaches the store: `entered`
// is notified, then the caller waits for `release`.
inline StoreCallHook::Fn HoldUntil(std::string call, absl::Notification* entered,
                                   absl::Notification* release) {
  return [call = std::move(call), entered, release](std::string_view c, CallPhase phase) {
    if (phase == CallPhase::kBefore && c == call) {
      entered->Notify();
      release->WaitForNotification();
    }
    return absl::OkStatus();
  };
}

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_STORE_CALL_HOOK_H_
