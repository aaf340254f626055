// JobContext: what a handler sees of the run it executes.
//
// A handler is any callable taking a JobContext&. It reads the run's
// parameters, writes run-log lines (streamed to the log service and kept in a
// local file), watches the cancellation token, and may set a result:
//
//   void Backup(gnomon::executor::JobContext& ctx) {
//     ctx.Log("backing up " + ctx.params());
//     for (const auto& table : Tables()) {
//       if (ctx.cancelled()) return;          // killed or timed out
//       if (!Dump(table)) {
//         ctx.SetResult(gnomon::executor::kHandleFailure, "dump failed: " + table);
//         return;
//       }
//     }
//   }
//
// Returning without SetResult means success (200). A handler that throws is a
// failure (500) with the exception text as its message.
//
// A workflow node's run also reads its parent nodes' outputs and may return a
// small output of its own, which its children get as inputs and condition
// nodes test:
//
//   void Count(gnomon::executor::JobContext& ctx) {
//     std::optional<std::string> day = ctx.Input("extract");  // that parent's output
//     absl::Status set = ctx.SetOutput(std::to_string(CountRows(day.value_or(""))));
//     if (!set.ok()) ctx.SetResult(gnomon::executor::kHandleFailure, set.ToString());
//   }
//
// Thread safety: all methods are thread-safe; a handler may log from threads
// it starts, as long as it does not use the context after it returns.
#ifndef GNOMON_EXECUTOR_JOB_CONTEXT_H_
#define GNOMON_EXECUTOR_JOB_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace gnomon::executor {

namespace internal {
struct RunState;
struct CancelState;
}  // namespace internal

// Result codes (gnomon.v1.HandleCode). Handlers may use others; anything but
// 200 is a failure.
inline constexpr int kHandleSuccess = 200;
inline constexpr int kHandleFailure = 500;
inline constexpr int kHandleTimeout = 502;
inline constexpr int kHandleKilled = 503;
inline constexpr int kHandleRejected = 506;

// The longest output a run may return (JobContext::SetOutput), in bytes: the
// log service refuses a result with a longer one.
inline constexpr size_t kMaxOutputBytes = 4096;

// A parent node's output, as an input of a workflow node's run. A sharded
// parent's output is its shards' outputs in shard order, one per line.
struct WorkflowInput {
  std::string node;    // The parent node's name.
  std::string output;  // Its output ("" if it set none).
};

// Why a run exists (mirrors gnomon.v1.TriggerType numerically).
enum class TriggerType {
  kUnspecified = 0,
  kCron = 1,
  kFixRate = 2,
  kFixDelay = 3,
  kManual = 4,
  kApi = 5,
  kParent = 6,
  kRetry = 7,
  kMisfire = 8,
  kBackfill = 9,
};

// Read side of a run's cancellation: set when the run is killed, covered by a
// newer run (COVER_EARLY), times out, or the executor shuts down.
class CancellationToken {
 public:
  // True once cancellation was requested.
  bool IsCancelled() const;
  // Blocks up to `timeout`; returns true as soon as cancellation is requested.
  // Use it instead of sleeping in handlers that wait.
  bool WaitForCancellation(absl::Duration timeout) const;
  // Why the run was cancelled ("" while not cancelled).
  std::string reason() const;

  explicit CancellationToken(std::shared_ptr<internal::CancelState> state)
      : state_(std::move(state)) {}

 private:
  std::shared_ptr<internal::CancelState> state_;
};

class JobContext {
 public:
  // The run (unique per execution attempt), its job and the parameters.
  int64_t run_id() const;
  int64_t job_id() const;
  const std::string& params() const;
  // Shard index (0-based) and total (1 when not sharded).
  uint32_t shard_index() const;
  uint32_t shard_total() const;
  // Attempt number, 0 for the first; retries count up.
  uint32_t attempt() const;
  TriggerType trigger_type() const;
  // When the run times out; absl::InfiniteFuture() without a timeout.
  absl::Time deadline() const;

  // A workflow node's run: its workflow run (0 when the run is no workflow
  // node's) and its parents' outputs, in the order the scheduler sent them
  // (empty for a node without parents and for other runs).
  int64_t workflow_run_id() const;
  const std::vector<WorkflowInput>& inputs() const;
  // The output of parent `node`, or nullopt if `node` is not among inputs().
  std::optional<std::string> Input(std::string_view node) const;

  // Cancellation: check it regularly in long handlers.
  const CancellationToken& cancellation() const { return token_; }
  bool cancelled() const { return token_.IsCancelled(); }

  // Appends a run-log line (text containing '\n' becomes several lines).
  void Log(std::string_view text);
  // Sets the result reported when the handler returns (last call wins).
  void SetResult(int code, std::string_view message);
  // Sets the output reported with the run's result (RunResult.output; last
  // call wins; none set: ""). Any run may set one; a workflow passes a node's
  // to its children. InvalidArgument, keeping the output set before, if
  // `value` is longer than kMaxOutputBytes or not valid UTF-8;
  // FailedPrecondition if the run was reported already (its handler was
  // abandoned after ignoring cancellation). The output goes with whatever
  // result the run ends with: a run that fails, times out or is killed
  // reports the output set until then.
  absl::Status SetOutput(std::string value);

  explicit JobContext(std::shared_ptr<internal::RunState> state);
  JobContext(const JobContext&) = delete;
  JobContext& operator=(const JobContext&) = delete;

 private:
  std::shared_ptr<internal::RunState> state_;
  CancellationToken token_;
};

}  // namespace gnomon::executor

#endif  // GNOMON_EXECUTOR_JOB_CONTEXT_H_
