// Alarm channel flags (alarm-channel create / alarm-channel update) applied
// to a v1::AlarmChannel. A secret never comes from a flag's value: it would
// land in the shell's history and in `ps`.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/names.h"
#include "cli/requests.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

absl::Status OneOf(const ParsedArgs& args, const char* a, const char* b) {
  if (args.Has(a) && args.Has(b)) {
    return absl::InvalidArgumentError(absl::StrCat("give --", a, " or --", b, ", not both"));
  }
  return absl::OkStatus();
}

// The secret --secret-env or --secret-file names; nullopt when neither is
// given.
absl::StatusOr<std::optional<std::string>> ReadSecret(const ParsedArgs& args,
                                                      const EnvReader& getenv,
                                                      const FileReader& read_file) {
  if (auto var = args.Get("secret-env")) {
    std::optional<std::string> value = getenv(*var);
    if (!value.has_value() || value->empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--secret-env: environment variable ", *var,
                                                     value ? " is empty" : " is not set"));
    }
    return value;
  }
  if (auto path = args.Get("secret-file")) {
    absl::StatusOr<std::string> text = read_file(*path);
    if (!text.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--secret-file: ", text.status().message()));
    }
    // `echo "$TOKEN" > file` ends it with a newline that is not the secret's.
    std::string secret(absl::StripTrailingAsciiWhitespace(*text));
    if (secret.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--secret-file: ", *path, " is empty"));
    }
    return std::optional<std::string>(std::move(secret));
  }
  return std::optional<std::string>();
}

}  // namespace

std::vector<FlagSpec> AlarmChannelFlagSpecs() {
  return {
      {"kind", "", true, "KIND",
       "The service: dingtalk, wecom, feishu, slack or telegram (required on create)."},
      {"url", "", true, "URL",
       "The robot's webhook URL (Telegram: the Bot API, default https://api.telegram.org). "
       "Shown back as its origin only; on update, omitted keeps the stored one."},
      {"secret-env", "", true, "VAR",
       "Read the secret (DingTalk/Feishu signing secret, Telegram bot token) from environment "
       "variable VAR. Never shown back; on update, omitted keeps the stored one."},
      {"secret-file", "", true, "PATH",
       "Read the secret from the file PATH instead (its trailing newline dropped)."},
      {"chat-id", "", true, "ID", "Telegram: the chat (\"-1001234567890\" or \"@channel\")."},
      {"template", "", true, "TEXT",
       "The message, {{field}} for the alarm's fields (job_name, run_id, reason, ...: "
       "docs/cli.md); '' for the default."},
      {"template-file", "", true, "PATH", "Read the template from the file PATH instead."},
  };
}

absl::Status ApplyAlarmChannelFlags(const ParsedArgs& args, const EnvReader& getenv,
                                    const FileReader& read_file, v1::AlarmChannel* channel) {
  RETURN_IF_ERROR(OneOf(args, "secret-env", "secret-file"));
  RETURN_IF_ERROR(OneOf(args, "template", "template-file"));
  if (auto word = args.Get("kind")) {
    absl::StatusOr<v1::AlarmChannelKind> kind = ParseAlarmChannelKind(*word);
    if (!kind.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--kind: ", kind.status().message()));
    }
    channel->set_kind(*kind);
  }
  if (auto url = args.Get("url")) {
    if (url->empty()) {
      return absl::InvalidArgumentError(
          "--url is empty: give the robot's URL (on update, leave --url out to keep it)");
    }
    channel->set_url(*url);
  }
  ASSIGN_OR_RETURN(std::optional<std::string> secret, ReadSecret(args, getenv, read_file));
  if (secret.has_value()) channel->set_secret(*std::move(secret));
  if (auto chat = args.Get("chat-id")) channel->set_chat_id(*chat);
  if (auto text = args.Get("template")) channel->set_template_(*text);
  if (auto path = args.Get("template-file")) {
    absl::StatusOr<std::string> text = read_file(*path);
    if (!text.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--template-file: ", text.status().message()));
    }
    channel->set_template_(*std::move(text));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::CreateAlarmChannelRequest> BuildCreateAlarmChannelRequest(
    const ParsedArgs& args, const EnvReader& getenv, const FileReader& read_file) {
  ASSIGN_OR_RETURN(std::string name, PositionalName(args));
  if (!args.Has("kind")) {
    return absl::InvalidArgumentError(
        "an alarm channel needs --kind dingtalk|wecom|feishu|slack|telegram");
  }
  v1::CreateAlarmChannelRequest req;
  req.mutable_channel()->set_name(name);
  RETURN_IF_ERROR(ApplyAlarmChannelFlags(args, getenv, read_file, req.mutable_channel()));
  return req;
}

}  // namespace gnomon::cli
