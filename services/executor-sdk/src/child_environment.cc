#include "services/executor-sdk/src/child_environment.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gnomon::executor::internal {
namespace {

// The name of a "NAME=value" entry (all of it when there is no '=').
std::string_view NameOf(std::string_view entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

std::vector<std::string> ChildEnvironment(const char* const* env,
                                          const std::map<std::string, std::string>& extra) {
  std::vector<std::string> kept;
  if (env != nullptr) {
    for (; *env != nullptr; ++env) {
      // The prefix is part of the name: "GNOMON_" cannot contain '='.
      if (absl::StartsWith(*env, "GNOMON_")) continue;
      if (!extra.empty() && extra.count(std::string(NameOf(*env))) > 0) continue;
      kept.emplace_back(*env);
    }
  }
  for (const auto& [name, value] : extra) kept.push_back(absl::StrCat(name, "=", value));
  return kept;
}

absl::Status ValidateExtraEnvironment(const std::map<std::string, std::string>& extra) {
  for (const auto& [name, value] : extra) {
    if (name.empty() || name.find('=') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          "an environment variable's name must be non-empty, without '=' or NUL");
    }
    if (absl::StartsWith(name, "GNOMON_")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "environment variable ", name,
          " may not be set: GNOMON_ variables configure the executor and never reach a child"));
    }
    if (value.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("environment variable ", name, ": the value holds a NUL"));
    }
  }
  return absl::OkStatus();
}

}  // namespace gnomon::executor::internal
