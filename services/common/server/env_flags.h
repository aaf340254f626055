// Environment equivalents for command-line flags.
//
// Every absl flag `some_name` is accepted as `--some-name` (or `--some_name`)
// and may also be given as GNOMON_SOME_NAME; the command line wins over the
// environment.
//
//   int main(int argc, char** argv) {
//     gnomon::ParseFlagsWithEnv(argc, argv, "gnomond: the gnomon server");
//   }
//
// Thread safety: call once from main before starting threads.
#ifndef GNOMON_SERVICES_COMMON_SERVER_ENV_FLAGS_H_
#define GNOMON_SERVICES_COMMON_SERVER_ENV_FLAGS_H_

#include <string>
#include <string_view>
#include <vector>

namespace gnomon {

// "max-params-bytes" -> "GNOMON_MAX_PARAMS_BYTES".
std::string EnvNameForFlag(std::string_view flag_name);

// Applies GNOMON_* variables to flags defined in gnomon's own sources, then
// parses argv (exits with usage on error). Returns positional arguments.
std::vector<char*> ParseFlagsWithEnv(int argc, char** argv, std::string_view usage);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_ENV_FLAGS_H_
