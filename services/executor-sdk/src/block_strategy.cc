#include "services/executor-sdk/src/block_strategy.h"

#include "absl/strings/str_cat.h"

namespace gnomon::executor::internal {

Admission SerialExecution::Admit(int64_t, int64_t, const JobLoad&) const {
  return {Admission::kQueue, ""};
}

Admission DiscardLater::Admit(int64_t job_id, int64_t, const JobLoad& load) const {
  if (!load.busy()) return {Admission::kQueue, ""};
  return {Admission::kReject,
          absl::StrCat("job ", job_id, " is running and the block strategy is DISCARD_LATER")};
}

Admission CoverEarly::Admit(int64_t, int64_t run_id, const JobLoad& load) const {
  if (!load.busy()) return {Admission::kQueue, ""};
  return {Admission::kCoverThenQueue,
          absl::StrCat("covered by run ", run_id, " (block strategy COVER_EARLY)")};
}

const BlockStrategy& BlockStrategyFor(v1::BlockStrategy s) {
  static const SerialExecution serial;
  static const DiscardLater discard;
  static const CoverEarly cover;
  switch (s) {
    case v1::BLOCK_STRATEGY_DISCARD_LATER:
      return discard;
    case v1::BLOCK_STRATEGY_COVER_EARLY:
      return cover;
    default:
      return serial;
  }
}

}  // namespace gnomon::executor::internal
