// The command line shared by the executor binaries (gnomon-sample-executor and
// gnomon-executor): the connection and run flags, the options built from them,
// and start-up and shutdown. Each binary keeps its own flags (handlers,
// allow-lists) and says in a CliSpec how it differs.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gnomon/executor/executor.h"

namespace gnomon::executor::cli {

struct CliSpec {
  const char* program;     // in errors, --version and the start-up lines
  const char* flags_file;  // part of the path of the binary's own flags, for --help
  const char* usage;
};

// $name, or fallback when unset or empty.
std::string Env(const char* name, const char* fallback = "");

// Parses argv (--spool-dir spelled as --spool_dir too), then blocks SIGTERM
// and SIGINT: call before any thread starts, so every thread inherits the
// mask and a signal arriving before Run() waits for it.
void ParseCommandLine(const CliSpec& spec, int argc, char** argv);

// The options the environment (OptionsFromEnvironment) says, overridden by
// the shared flags given on the command line.
absl::StatusOr<ExecutorOptions> OptionsFromFlags();

// Prints "PROGRAM: what" to stderr and returns code.
int Fail(int code, absl::string_view what);

// Starts the executor, prints the start-up lines, and runs until SIGTERM or
// SIGINT (drains for --shutdown-grace; a second signal exits at once).
// Returns the exit code.
int StartAndRun(Executor& executor, const ExecutorOptions& options);

}  // namespace gnomon::executor::cli
