// gnomonctl's config file: named contexts (server, token file, TLS) and the
// current one, so a command needs no connection flags.
//
//   # ~/.config/gnomon/config.yaml
//   current-context: prod
//   contexts:
//     - name: prod
//       server: scheduler.internal:7070
//       token-file: /home/ana/.config/gnomon/prod.token
//       tls: {ca: /etc/gnomon/ca.crt, server-name: scheduler.internal}
//
// The file is --config, else $GNOMONCTL_CONFIG, else
// $XDG_CONFIG_HOME/gnomon/config.yaml, else ~/.config/gnomon/config.yaml.
// Relative paths in it are relative to its directory. Settings apply in the
// order flags > environment (GNOMON_*) > context > defaults (docs/cli.md).
//
// Thread safety: pure functions plus file I/O; no shared state.
#ifndef GNOMON_CLI_CONFIG_H_
#define GNOMON_CLI_CONFIG_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/command.h"

namespace gnomon::cli {

// One named set of connection settings.
struct CliContext {
  std::string name;
  // "host:port"; empty leaves the default.
  std::string server;
  // File holding the bearer token (surrounding whitespace is dropped).
  std::string token_file;
  // TLS: on when `tls` or when a CA or client certificate is given.
  bool tls = false;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string server_name;
};

struct CliConfig {
  std::string current_context;
  std::vector<CliContext> contexts;

  // The context called `name`, or nullptr.
  const CliContext* Find(const std::string& name) const;
  CliContext* Find(const std::string& name);
};

// The config file's path (see above); empty when neither a flag, the
// environment nor HOME names one.
std::string ConfigPath(const std::optional<std::string>& flag, const CliEnv& env);

// Reads `path`; a missing file is an empty config. Errors (InvalidArgument)
// name the file and, for YAML and unknown keys, the line.
absl::StatusOr<CliConfig> LoadConfig(const std::string& path);

// Writes `config` to `path` (creating its directory; mode 0600), replacing
// the file in one rename.
absl::Status SaveConfig(const std::string& path, const CliConfig& config);

// The config as YAML, as SaveConfig writes it.
std::string ConfigYaml(const CliConfig& config);

// Applies `context` onto `globals` (server, TLS). Its token file is read
// only when `want_token`; a file that cannot be read is an error naming the
// context. Relative paths resolve against `config_dir`.
absl::Status ApplyContext(const CliContext& context, const std::string& config_dir, bool want_token,
                          GlobalOptions* globals);

// Loads globals->config_path and applies its context `context_flag`, else
// its current context, onto `globals`; nothing when there is neither. A
// named context the file lacks is an error.
absl::Status ApplyConfiguredContext(const std::optional<std::string>& context_flag, bool want_token,
                                    GlobalOptions* globals);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_CONFIG_H_
