// gnomonctl's entry point as a library function, so tests can run whole
// command lines against in-process servers.
//
//   std::ostringstream out, err;
//   int code = RunCli({"--server", "127.0.0.1:7070", "job", "list", "-o", "json"},
//                     SystemEnv(), out, err);
//
// Global flags (--server, --token, -o/--output, --timeout, --rpc-timeout,
// --tls, --ca, --cert, --key, --tls-server-name, --config, --context,
// -h/--help) may appear before or after the noun. GNOMON_SERVER,
// GNOMON_TOKEN, GNOMON_TLS, GNOMON_TLS_CA, GNOMON_TLS_CERT, GNOMON_TLS_KEY and
// GNOMON_TLS_SERVER_NAME (when not empty) override the config file's context
// (cli/config.h); flags override both.
//
// Returns the process exit code: 0 success, 1 server or runtime error (message
// on `err`), 2 usage error (message and a hint to --help on `err`).
// Thread safety: each call is independent; `env` must outlive the call.
#ifndef GNOMON_CLI_CLI_H_
#define GNOMON_CLI_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/command.h"

namespace gnomon::cli {

int RunCli(const std::vector<std::string>& args, const CliEnv& env, std::ostream& out,
           std::ostream& err);

// Flags accepted by every command.
std::vector<FlagSpec> GlobalFlagSpecs();

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_CLI_H_
