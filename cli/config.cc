#include "cli/config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "services/common/status/status_macros.h"
#include "yaml-cpp/yaml.h"

namespace gnomon::cli {
namespace {

namespace fs = std::filesystem;

absl::Status At(const std::string& path, const YAML::Mark& mark, const std::string& what) {
  if (mark.is_null()) return absl::InvalidArgumentError(absl::StrCat("config ", path, ": ", what));
  return absl::InvalidArgumentError(
      absl::StrFormat("config %s: line %d: %s", path, mark.line + 1, what));
}

// The string at a mapping value; an error for anything but a scalar.
absl::StatusOr<std::string> Text(const std::string& path, const std::string& key,
                                 const YAML::Node& value) {
  if (value.IsNull()) return std::string();
  if (!value.IsScalar()) return At(path, value.Mark(), absl::StrCat(key, " must be a string"));
  return value.Scalar();
}

// Reads the string keys of mapping `node` named in `fields`; any other key
// but `skip` is an error listing `known`. `prefix` names a nested mapping.
absl::Status ReadFields(const std::string& path, const YAML::Node& node, const std::string& prefix,
                        const std::vector<std::pair<std::string, std::string*>>& fields,
                        const std::string& known, const std::string& skip = "") {
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    if (key == skip) continue;
    auto field =
        std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == key; });
    if (field == fields.end()) {
      return At(path, item.first.Mark(),
                absl::StrCat("unknown key '", prefix, key, "' (", known, ")"));
    }
    ASSIGN_OR_RETURN(std::string text, Text(path, key, item.second));
    *field->second = text;
  }
  return absl::OkStatus();
}

absl::Status ReadTls(const std::string& path, const YAML::Node& node, CliContext* context) {
  if (node.IsScalar()) {
    bool on = false;
    if (!YAML::convert<bool>::decode(node, on)) {
      return At(path, node.Mark(), "tls must be true, false or a mapping");
    }
    context->tls = on;
    return absl::OkStatus();
  }
  if (!node.IsMap()) return At(path, node.Mark(), "tls must be true, false or a mapping");
  context->tls = true;
  return ReadFields(path, node, "tls.",
                    {{"ca", &context->ca_file},
                     {"cert", &context->cert_file},
                     {"key", &context->key_file},
                     {"server-name", &context->server_name}},
                    "ca, cert, key, server-name");
}

absl::StatusOr<CliContext> ReadContext(const std::string& path, const YAML::Node& node) {
  if (!node.IsMap()) return At(path, node.Mark(), "each context must be a mapping");
  CliContext context;
  RETURN_IF_ERROR(ReadFields(
      path, node, "",
      {{"name", &context.name}, {"server", &context.server}, {"token-file", &context.token_file}},
      "name, server, token-file, tls", /*skip=*/"tls"));
  if (node["tls"]) {
    RETURN_IF_ERROR(ReadTls(path, node["tls"], &context));
  }
  if (context.name.empty()) return At(path, node.Mark(), "a context needs a name");
  return context;
}

absl::StatusOr<CliConfig> ParseConfig(const std::string& path, const std::string& text) {
  CliConfig config;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return At(path, e.mark, e.msg);
  }
  if (root.IsNull()) return config;
  if (!root.IsMap()) return At(path, root.Mark(), "expected a mapping");
  for (const auto& item : root) {
    const std::string key = item.first.as<std::string>();
    if (key == "current-context") {
      ASSIGN_OR_RETURN(std::string name, Text(path, key, item.second));
      config.current_context = name;
    } else if (key == "contexts") {
      if (!item.second.IsSequence() && !item.second.IsNull()) {
        return At(path, item.second.Mark(), "contexts must be a list");
      }
      for (const YAML::Node& node : item.second) {
        ASSIGN_OR_RETURN(CliContext context, ReadContext(path, node));
        if (config.Find(context.name) != nullptr) {
          return At(path, node.Mark(), absl::StrCat("context '", context.name, "' twice"));
        }
        config.contexts.push_back(std::move(context));
      }
    } else {
      return At(path, item.first.Mark(),
                absl::StrCat("unknown key '", key, "' (current-context, contexts)"));
    }
  }
  return config;
}

}  // namespace

const CliContext* CliConfig::Find(const std::string& name) const {
  for (const CliContext& c : contexts) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

CliContext* CliConfig::Find(const std::string& name) {
  return const_cast<CliContext*>(static_cast<const CliConfig*>(this)->Find(name));
}

std::string ConfigPath(const std::optional<std::string>& flag, const CliEnv& env) {
  if (flag) return *flag;
  auto get = [&](const char* name) -> std::string {
    if (!env.getenv) return "";
    return env.getenv(name).value_or("");
  };
  if (std::string path = get("GNOMONCTL_CONFIG"); !path.empty()) return path;
  if (std::string xdg = get("XDG_CONFIG_HOME"); !xdg.empty()) {
    return absl::StrCat(xdg, "/gnomon/config.yaml");
  }
  if (std::string home = get("HOME"); !home.empty()) {
    return absl::StrCat(home, "/.config/gnomon/config.yaml");
  }
  return "";
}

absl::StatusOr<CliConfig> LoadConfig(const std::string& path) {
  if (path.empty()) return CliConfig();
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return CliConfig();
    return absl::InvalidArgumentError(absl::StrCat("config ", path, ": cannot read it"));
  }
  std::stringstream text;
  text << in.rdbuf();
  return ParseConfig(path, text.str());
}

std::string ConfigYaml(const CliConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "current-context" << YAML::Value << config.current_context;
  out << YAML::Key << "contexts" << YAML::Value;
  if (config.contexts.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const CliContext& c : config.contexts) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << c.name;
    if (!c.server.empty()) out << YAML::Key << "server" << YAML::Value << c.server;
    if (!c.token_file.empty()) out << YAML::Key << "token-file" << YAML::Value << c.token_file;
    const bool tls_details =
        !c.ca_file.empty() || !c.cert_file.empty() || !c.key_file.empty() || !c.server_name.empty();
    if (tls_details) {
      out << YAML::Key << "tls" << YAML::Value << YAML::BeginMap;
      for (const auto& [key, value] :
           {std::pair{"ca", &c.ca_file}, std::pair{"cert", &c.cert_file},
            std::pair{"key", &c.key_file}, std::pair{"server-name", &c.server_name}}) {
        if (!value->empty()) out << YAML::Key << key << YAML::Value << *value;
      }
      out << YAML::EndMap;
    } else if (c.tls) {
      out << YAML::Key << "tls" << YAML::Value << true;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return absl::StrCat(out.c_str(), "\n");
}

absl::Status SaveConfig(const std::string& path, const CliConfig& config) {
  if (path.empty()) {
    return absl::InvalidArgumentError("no config file: set HOME, GNOMONCTL_CONFIG or --config");
  }
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  const std::string temp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(temp, std::ios::trunc);
    out << ConfigYaml(config);
    if (!out.flush()) {
      return absl::InvalidArgumentError(absl::StrCat("config ", path, ": cannot write it"));
    }
  }
  ::chmod(temp.c_str(), 0600);
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::InvalidArgumentError(absl::StrCat("config ", path, ": cannot write it"));
  }
  return absl::OkStatus();
}

absl::Status ApplyContext(const CliContext& context, const std::string& config_dir, bool want_token,
                          GlobalOptions* globals) {
  auto resolve = [&](const std::string& file) {
    if (file.empty() || fs::path(file).is_absolute() || config_dir.empty()) return file;
    return (fs::path(config_dir) / file).string();
  };
  if (!context.server.empty()) globals->server = context.server;
  if (context.tls) globals->tls.enabled = true;
  for (auto [from, to] : {std::pair{&context.ca_file, &globals->tls.ca_file},
                          std::pair{&context.cert_file, &globals->tls.cert_file},
                          std::pair{&context.key_file, &globals->tls.key_file}}) {
    if (!from->empty()) *to = resolve(*from);
  }
  if (!context.server_name.empty()) globals->tls.server_name = context.server_name;
  if (want_token && !context.token_file.empty()) {
    absl::StatusOr<std::string> token = ReadLocalFile(resolve(context.token_file));
    if (!token.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("context '", context.name,
                                                     "': cannot read its token file ",
                                                     resolve(context.token_file)));
    }
    globals->token = std::string(absl::StripAsciiWhitespace(*token));
  }
  return absl::OkStatus();
}

absl::Status ApplyConfiguredContext(const std::optional<std::string>& context_flag, bool want_token,
                                    GlobalOptions* globals) {
  const std::string path = globals->config_path;
  ASSIGN_OR_RETURN(CliConfig config, LoadConfig(path));
  const std::string name = context_flag.value_or(config.current_context);
  if (name.empty()) return absl::OkStatus();
  const CliContext* context = config.Find(name);
  if (context == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("no context '", name, "' in config ", path.empty() ? "(none found)" : path));
  }
  return ApplyContext(*context, fs::path(path).parent_path().string(), want_token, globals);
}

}  // namespace gnomon::cli
