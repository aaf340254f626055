// Test helpers for RunManager without servers: a sink that records what runs
// produce (starts, log lines, results), run requests, handler maps, and a
// handler that blocks until released.
//
//   RecordingSink sink;
//   Gate gate;
//   RunManager manager(RunManagerOptions{}, Handlers({{"gate", gate.handler()}}), &sink, nullptr);
//   manager.Submit(Req(1, 1, "gate"));
//   gate.release.Notify();
//   std::optional<v1::RunResult> result = sink.Result(1);
//
// Thread safety: RecordingSink and Gate are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_TESTS_RUN_MANAGER_FAKES_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_TESTS_RUN_MANAGER_FAKES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "services/executor-sdk/src/run_manager.h"

namespace gnomon::executor::internal {

inline const absl::Duration kWait = absl::Seconds(30);

// Records what runs produce; waits for results by run id.
class RecordingSink final : public RunSink {
 public:
  void Started(const v1::RunRequest& request, absl::Time) override {
    absl::MutexLock l(&mu_);
    started_.push_back(request.run_id());
  }
  void Line(int64_t run_id, const v1::LogLine& line) override {
    absl::MutexLock l(&mu_);
    lines_[run_id].push_back(line.text());
  }
  void Finished(const v1::RunResult& result) override {
    absl::MutexLock l(&mu_);
    ++finishes_[result.run_id()];
    results_[result.run_id()] = result;
  }
  // The result of `run_id`, once it arrives (or nullopt after kWait).
  std::optional<v1::RunResult> Result(int64_t run_id) {
    absl::MutexLock l(&mu_);
    auto has = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return results_.count(run_id) > 0; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&has), kWait)) return std::nullopt;
    return results_.at(run_id);
  }
  bool WaitForResults(size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return results_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), kWait);
  }
  bool WaitForStarted(size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return started_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), kWait);
  }
  size_t started() {
    absl::MutexLock l(&mu_);
    return started_.size();
  }
  int finishes(int64_t run_id) {
    absl::MutexLock l(&mu_);
    return finishes_[run_id];
  }
  // The texts of the run's log lines so far (all of them once its result is in).
  std::vector<std::string> lines(int64_t run_id) {
    absl::MutexLock l(&mu_);
    return lines_[run_id];
  }
  bool WaitForLines(int64_t run_id, size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return lines_[run_id].size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), kWait);
  }

 private:
  absl::Mutex mu_;
  std::vector<int64_t> started_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, v1::RunResult> results_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, int> finishes_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::vector<std::string>> lines_ ABSL_GUARDED_BY(mu_);
};

inline v1::RunRequest Req(int64_t run_id, int64_t job_id, const std::string& handler,
                          v1::BlockStrategy strategy = v1::BLOCK_STRATEGY_SERIAL_EXECUTION,
                          absl::Duration timeout = absl::ZeroDuration()) {
  v1::RunRequest r;
  r.set_run_id(run_id);
  r.set_job_id(job_id);
  r.mutable_bean()->set_handler(handler);
  r.set_block_strategy(strategy);
  if (timeout > absl::ZeroDuration()) {
    r.mutable_timeout()->set_seconds(absl::ToInt64Seconds(timeout));
    r.mutable_timeout()->set_nanos(
        static_cast<int32_t>(absl::ToInt64Nanoseconds(timeout % absl::Seconds(1))));
  }
  return r;
}

inline HandlerMap Handlers(std::map<std::string, Handler> fns,
                           std::map<std::string, HandlerHooks> hooks = {}) {
  HandlerMap map;
  for (auto& [name, fn] : fns) {
    map[name] = std::make_shared<const HandlerEntry>(HandlerEntry{name, fn, hooks[name]});
  }
  return map;
}

// A handler that blocks until released (or cancelled).
struct Gate {
  absl::Notification release;
  Handler handler() {
    return [this](JobContext& ctx) {
      while (!release.HasBeenNotified() &&
             !ctx.cancellation().WaitForCancellation(absl::Milliseconds(5))) {
      }
    };
  }
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_TESTS_RUN_MANAGER_FAKES_H_
