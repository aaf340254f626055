#include "services/executor-sdk/src/child_environment.h"

#include "absl/strings/match.h"

namespace gnomon::executor::internal {

std::vector<std::string> ChildEnvironment(const char* const* env) {
  std::vector<std::string> kept;
  if (env == nullptr) return kept;
  for (; *env != nullptr; ++env) {
    // The prefix is part of the name: "GNOMON_" cannot contain '='.
    if (!absl::StartsWith(*env, "GNOMON_")) kept.emplace_back(*env);
  }
  return kept;
}

}  // namespace gnomon::executor::internal
