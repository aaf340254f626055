// Pool flags (pool create / pool update) applied to a v1::Pool, and the
// request of pool queue. The server checks the ranges (slots 1 to 10000,
// limit 1 to 1000); here only that each number is a positive integer that
// fits its field, so a huge one is not sent wrapped around.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/requests.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

// The value of flag `name` (given) as a positive integer of at most `max`.
absl::StatusOr<int64_t> PositiveFlag(const ParsedArgs& args, const char* name, int64_t max) {
  const std::string flag = absl::StrCat("--", name);
  const std::string text = *args.Get(name);
  ASSIGN_OR_RETURN(int64_t n, ParseId(flag, text));
  if (n > max) return absl::InvalidArgumentError(absl::StrCat(flag, " is too large: ", text));
  return n;
}

}  // namespace

std::vector<FlagSpec> PoolFlagSpecs() {
  return {
      {"slots", "", true, "N",
       "Runs of its jobs at once at most, across every replica: 1 to 10000 (required on "
       "create). Lowered, the runs holding slots finish; none is let go until fewer hold one."},
      {"description", "", true, "TEXT", "For people."},
  };
}

absl::Status ApplyPoolFlags(const ParsedArgs& args, v1::Pool* pool) {
  if (args.Has("slots")) {
    ASSIGN_OR_RETURN(int64_t slots,
                     PositiveFlag(args, "slots", std::numeric_limits<uint32_t>::max()));
    pool->set_slots(static_cast<uint32_t>(slots));
  }
  if (auto description = args.Get("description")) pool->set_description(*description);
  return absl::OkStatus();
}

absl::StatusOr<v1::CreatePoolRequest> BuildCreatePoolRequest(const ParsedArgs& args) {
  ASSIGN_OR_RETURN(std::string name, PositionalName(args));
  if (!args.Has("slots")) return absl::InvalidArgumentError("a pool needs --slots N (1 to 10000)");
  v1::CreatePoolRequest req;
  req.mutable_pool()->set_name(name);
  RETURN_IF_ERROR(ApplyPoolFlags(args, req.mutable_pool()));
  return req;
}

std::vector<FlagSpec> PoolQueueFlagSpecs() {
  return {
      {"limit", "", true, "N",
       "Show at most N queued runs, in the order they get a slot: 1 to 1000 (default 100)."},
  };
}

absl::StatusOr<v1::ListPoolQueueRequest> BuildListPoolQueueRequest(const ParsedArgs& args) {
  ASSIGN_OR_RETURN(std::string name, PositionalName(args));
  v1::ListPoolQueueRequest req;
  req.set_name(name);
  if (args.Has("limit")) {
    ASSIGN_OR_RETURN(int64_t limit,
                     PositiveFlag(args, "limit", std::numeric_limits<int32_t>::max()));
    req.set_limit(static_cast<int32_t>(limit));
  }
  return req;
}

}  // namespace gnomon::cli
