// gnomonctl config current-context|get-contexts|use-context|set-context:
// edit the config file's contexts (cli/config.h); no server is involved.
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "cli/config.h"
#include "cli/format.h"
#include "cli/yaml_json.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

int Failed(CommandContext& c, const absl::Status& status) {
  return c.Fail(std::string(status.message()));
}

struct Loaded {
  std::string path;
  CliConfig config;
};

absl::StatusOr<Loaded> Load(CommandContext& c) {
  Loaded loaded;
  loaded.path = c.globals().config_path;
  ASSIGN_OR_RETURN(CliConfig config, LoadConfig(loaded.path));
  loaded.config = std::move(config);
  return loaded;
}

int CurrentContext(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  absl::StatusOr<Loaded> loaded = Load(c);
  if (!loaded.ok()) return Failed(c, loaded.status());
  if (loaded->config.current_context.empty()) {
    return c.Fail("no current context (gnomonctl config use-context NAME)");
  }
  c.out() << loaded->config.current_context << "\n";
  return kExitOk;
}

int GetContexts(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  absl::StatusOr<Loaded> loaded = Load(c);
  if (!loaded.ok()) return Failed(c, loaded.status());
  if (c.structured()) {
    // The file's own shape, as JSON or YAML.
    absl::StatusOr<std::vector<YamlDocument>> docs = ParseYamlDocuments(ConfigYaml(loaded->config));
    if (!docs.ok() || docs->size() != 1) return c.Fail("cannot print the config");
    return c.PrintJsonText(absl::StrCat((*docs)[0].json, "\n"));
  }
  Table table({"CURRENT", "NAME", "SERVER", "TOKEN FILE", "TLS"});
  for (const CliContext& context : loaded->config.contexts) {
    const bool tls = context.tls || !context.ca_file.empty() || !context.cert_file.empty();
    table.AddRow({context.name == loaded->config.current_context ? "*" : "", context.name,
                  context.server, context.token_file,
                  tls ? (context.ca_file.empty() ? "on" : "ca " + context.ca_file) : "off"});
  }
  table.Render(c.out());
  return kExitOk;
}

int UseContext(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"NAME"}); !s.ok()) return c.UsageError(s);
  const std::string& name = c.args().positionals()[0];
  absl::StatusOr<Loaded> loaded = Load(c);
  if (!loaded.ok()) return Failed(c, loaded.status());
  if (loaded->config.Find(name) == nullptr) {
    return c.Fail(absl::StrCat("no context '", name, "' in config ", loaded->path), kExitNotFound);
  }
  loaded->config.current_context = name;
  if (absl::Status s = SaveConfig(loaded->path, loaded->config); !s.ok()) {
    return Failed(c, s);
  }
  c.out() << "current context: " << name << "\n";
  return kExitOk;
}

std::vector<FlagSpec> SetContextFlagSpecs() {
  return {
      {"server", "", true, "HOST:PORT", "The context's gnomon server."},
      {"token-file", "", true, "FILE", "File holding the context's bearer token."},
      {"tls", "", false, "", "Connect with TLS (implied by --ca or --cert)."},
      {"ca", "", true, "FILE", "PEM roots that verify the server."},
      {"cert", "", true, "FILE", "PEM client certificate."},
      {"key", "", true, "FILE", "PEM key of --cert."},
      {"tls-server-name", "", true, "NAME", "Name the server's certificate must carry."},
  };
}

int SetContext(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"NAME"}); !s.ok()) return c.UsageError(s);
  const std::string& name = c.args().positionals()[0];
  absl::StatusOr<Loaded> loaded = Load(c);
  if (!loaded.ok()) return Failed(c, loaded.status());
  CliConfig& config = loaded->config;
  CliContext* context = config.Find(name);
  if (context == nullptr) {
    config.contexts.emplace_back();
    config.contexts.back().name = name;
    context = &config.contexts.back();
  }
  // Files are stored absolute, so the context works from any directory.
  auto absolute = [](const std::string& file) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::absolute(file, ec);
    return ec ? file : p.string();
  };
  if (auto v = c.args().Get("server")) context->server = *v;
  if (auto v = c.args().Get("token-file")) context->token_file = absolute(*v);
  if (c.args().Has("tls")) context->tls = true;
  if (auto v = c.args().Get("ca")) context->ca_file = absolute(*v);
  if (auto v = c.args().Get("cert")) context->cert_file = absolute(*v);
  if (auto v = c.args().Get("key")) context->key_file = absolute(*v);
  if (auto v = c.args().Get("tls-server-name")) context->server_name = *v;
  // The first context becomes current: one context is all most people need.
  if (config.current_context.empty()) config.current_context = name;
  if (absl::Status s = SaveConfig(loaded->path, config); !s.ok()) return Failed(c, s);
  c.out() << "context '" << name << "' set in " << loaded->path
          << (config.current_context == name ? " (current)" : "") << "\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> ConfigCommands() {
  std::vector<Command> commands = {
      {"config",
       "current-context",
       "",
       "Print the current context's name.",
       {},
       "gnomonctl config current-context",
       CurrentContext},
      {"config",
       "get-contexts",
       "",
       "List the config file's contexts (* marks the current one).",
       {},
       "gnomonctl config get-contexts",
       GetContexts},
      {"config",
       "use-context",
       "NAME",
       "Make NAME the current context.",
       {},
       "gnomonctl config use-context prod",
       UseContext},
      {"config", "set-context", "NAME [--server S] [--token-file F] [--ca F] [flags]",
       "Create or change a context; only the given flags change; the first context becomes "
       "current.",
       SetContextFlagSpecs(),
       "gnomonctl config set-context prod --server scheduler.internal:7070 --token-file "
       "~/.config/gnomon/prod.token --ca /etc/gnomon/ca.crt",
       SetContext},
  };
  for (Command& c : commands) c.offline = true;
  return commands;
}

}  // namespace gnomon::cli
