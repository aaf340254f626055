// Shell completion scripts for gnomonctl, generated from its command table so
// they never fall behind it: nouns, each noun's verbs, each command's flags
// and the global flags, plus the values of -o.
//
//   std::string script = CompletionScript("bash", AllCommands(), GlobalFlagSpecs());
//   // eval "$(gnomonctl completion bash)"
//
// bash: a _gnomonctl function for `complete -F`; zsh: the same through
// bashcompinit; fish: `complete -c gnomonctl` lines.
// Thread safety: pure functions.
#ifndef GNOMON_CLI_COMPLETION_H_
#define GNOMON_CLI_COMPLETION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/command.h"
#include "cli/flags.h"

namespace gnomon::cli {

// The script for `shell` (bash, zsh or fish); InvalidArgument otherwise.
absl::StatusOr<std::string> CompletionScript(const std::string& shell,
                                             const std::vector<Command>& commands,
                                             const std::vector<FlagSpec>& globals);

// The completion commands: `completion bash|zsh|fish`; `all` yields the
// whole command table when one runs.
std::vector<Command> CompletionCommands(std::function<const std::vector<Command>&()> all);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_COMPLETION_H_
