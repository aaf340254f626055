#include "services/common/server/env_flags.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "services/common/client/version.h"

namespace gnomon {

std::string EnvNameForFlag(std::string_view flag_name) {
  std::string name =
      absl::StrReplaceAll(absl::string_view(flag_name.data(), flag_name.size()), {{"-", "_"}});
  return "GNOMON_" + absl::AsciiStrToUpper(name);
}

namespace {

// Only flags defined in gnomon's own files get environment equivalents and
// appear in --help (not Abseil's or gRPC's internals).
bool IsOwnFile(absl::string_view file) {
  return absl::StrContains(file, "services/") || absl::StrContains(file, "cli/") ||
         absl::StrContains(file, "examples/");
}

}  // namespace

std::vector<char*> ParseFlagsWithEnv(int argc, char** argv, std::string_view usage) {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = IsOwnFile;
  config.contains_helpshort_flags = IsOwnFile;
  config.normalize_filename = [](absl::string_view f) { return std::string(f); };
  const std::string program = argc > 0 ? std::string(absl::string_view(argv[0]).substr(
                                             absl::string_view(argv[0]).rfind('/') + 1))
                                       : "gnomon";
  config.version_string = [program] { return absl::StrCat(program, " ", Version(), "\n"); };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(std::string(usage) +
                               "\n\nEvery flag --name can also be set as GNOMON_NAME in the "
                               "environment (dashes become underscores); the command line wins.");
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (!IsOwnFile(flag->Filename())) continue;
    const char* value = std::getenv(EnvNameForFlag(std::string(name)).c_str());
    if (value == nullptr) continue;
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      std::cerr << EnvNameForFlag(std::string(name)) << ": " << error << "\n";
      std::exit(2);
    }
  }
  // Flags are defined with underscores (absl's convention) but documented and
  // accepted with dashes: --max-params-bytes is --max_params_bytes.
  static std::vector<std::string> storage;
  storage.assign(argv, argv + argc);
  static std::vector<char*> args;
  args.clear();
  for (size_t i = 0; i < storage.size(); ++i) {
    std::string& a = storage[i];
    if (a == "--") {
      for (; i < storage.size(); ++i) args.push_back(storage[i].data());
      break;
    }
    if (i > 0 && absl::StartsWith(a, "--")) {
      size_t end = a.find('=');
      if (end == std::string::npos) end = a.size();
      std::replace(a.begin() + 2, a.begin() + end, '-', '_');
    }
    args.push_back(a.data());
  }
  return absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
}

}  // namespace gnomon
