// BlockStrategy: what a new run of a job does when the job already has runs
// on this executor (XXL-JOB's ExecutorBlockStrategyEnum), one small class per
// strategy.
//
//   const BlockStrategy& strategy = BlockStrategyFor(request.block_strategy());
//   Admission a = strategy.Admit(request.job_id(), JobLoad{.running = 1, .queued = 0});
//   if (a.verdict == Admission::kReject) return Reject(a.reason);
//
// The run manager applies the verdict: kQueue appends the run to the job's
// FIFO queue (runs of one job execute one at a time, in arrival order);
// kCoverThenQueue first kills the running run and drops the queued ones.
// Queue bounds are the run manager's business, not the strategy's.
//
// Thread safety: strategies are stateless and immutable.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_BLOCK_STRATEGY_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_BLOCK_STRATEGY_H_

#include <cstdint>
#include <string>

#include "gnomon/v1/common.pb.h"

namespace gnomon::executor::internal {

// Runs of one job on this executor.
struct JobLoad {
  uint32_t running = 0;
  uint32_t queued = 0;
  bool busy() const { return running > 0 || queued > 0; }
};

struct Admission {
  enum Verdict { kQueue, kCoverThenQueue, kReject };
  Verdict verdict = kQueue;
  std::string reason;  // kReject: why; kCoverThenQueue: the message of the covered runs.
};

class BlockStrategy {
 public:
  virtual ~BlockStrategy() = default;
  virtual Admission Admit(int64_t job_id, int64_t run_id, const JobLoad& load) const = 0;
};

// SERIAL_EXECUTION (and UNSPECIFIED): wait behind the job's earlier runs.
class SerialExecution final : public BlockStrategy {
 public:
  Admission Admit(int64_t job_id, int64_t run_id, const JobLoad& load) const override;
};

// DISCARD_LATER: refuse the new run while the job has one running or queued.
class DiscardLater final : public BlockStrategy {
 public:
  Admission Admit(int64_t job_id, int64_t run_id, const JobLoad& load) const override;
};

// COVER_EARLY: kill the running run (and drop queued ones), run the new one.
class CoverEarly final : public BlockStrategy {
 public:
  Admission Admit(int64_t job_id, int64_t run_id, const JobLoad& load) const override;
};

// The strategy for `s`; unknown values behave as SERIAL_EXECUTION.
const BlockStrategy& BlockStrategyFor(v1::BlockStrategy s);

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_BLOCK_STRATEGY_H_
