#include "services/scheduler/alarm/chat_channel.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::scheduler::alarm {

// clang-format off
const char kDefaultAlarmTemplate[] =
    "[gnomon] job {{job_name}} (id {{job_id}}) {{kind}}: {{reason}}\n"
    "run: {{run_id}} (attempt {{attempt}})\n"
    "executor: {{executor_address}}\n"
    "handle code: {{handle_code}}\n"
    "message: {{handle_message}}\n"
    "scheduled: {{scheduled_time}}\n"
    "{{summary}}";
// clang-format on

namespace {

// What a template may name: AlarmFields, then job_name and summary.
std::vector<AlarmField> TemplateFields(const Alarm& alarm) {
  std::vector<AlarmField> fields = AlarmFields(alarm);
  const std::string& name = alarm.job.name();
  fields.push_back({"job_name", name.empty() ? absl::StrCat("job-", alarm.job.id()) : name});
  fields.push_back({"summary", SummaryLine(alarm)});
  return fields;
}

const AlarmField* FieldNamed(const std::vector<AlarmField>& fields, absl::string_view name) {
  for (const AlarmField& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// The 1-based number of the UTF-8 character at byte `at` of `s`.
size_t CharacterAt(absl::string_view s, size_t at) {
  size_t n = 1;
  for (size_t i = 0; i < at; ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// The next "{{name}}" of `tmpl` at or after `pos`: where "{{" starts (npos
// if none) and where its "}}" starts (npos if none follows).
struct Placeholder {
  size_t open = absl::string_view::npos;
  size_t close = absl::string_view::npos;
  absl::string_view name(absl::string_view tmpl) const {
    return tmpl.substr(open + 2, close - open - 2);
  }
};

Placeholder NextPlaceholder(absl::string_view tmpl, size_t pos) {
  Placeholder p;
  p.open = tmpl.find("{{", pos);
  if (p.open != absl::string_view::npos) p.close = tmpl.find("}}", p.open + 2);
  return p;
}

// A message must not carry the channel's secret (Telegram's token is in its
// request's path), whatever a service or curl put in it.
std::string WithoutSecret(std::string message, const v1::AlarmChannel& channel) {
  if (!channel.secret().empty()) {
    absl::StrReplaceAll({{channel.secret(), "<secret>"}}, &message);
  }
  return message;
}

}  // namespace

std::string AlarmText(std::string_view tmpl_view, const Alarm& alarm) {
  absl::string_view tmpl(tmpl_view.data(), tmpl_view.size());
  if (tmpl.empty()) tmpl = kDefaultAlarmTemplate;
  const std::vector<AlarmField> fields = TemplateFields(alarm);
  std::string out;
  size_t pos = 0;
  while (pos < tmpl.size()) {
    const Placeholder p = NextPlaceholder(tmpl, pos);
    if (p.close == absl::string_view::npos) break;
    absl::StrAppend(&out, tmpl.substr(pos, p.open - pos));
    if (const AlarmField* f = FieldNamed(fields, p.name(tmpl)); f != nullptr) {
      out.append(f->value);
    } else {
      absl::StrAppend(&out, tmpl.substr(p.open, p.close + 2 - p.open));  // Kept as written.
    }
    pos = p.close + 2;
  }
  if (pos < tmpl.size()) absl::StrAppend(&out, tmpl.substr(pos));
  // An empty last field ({{summary}} of one run) leaves no blank line.
  out.erase(out.find_last_not_of(" \t\r\n") + 1);
  return out;
}

absl::Status ValidateAlarmTemplate(std::string_view tmpl_view, std::string_view field_view) {
  const absl::string_view tmpl(tmpl_view.data(), tmpl_view.size());
  const absl::string_view field(field_view.data(), field_view.size());
  const std::vector<AlarmField> fields = TemplateFields(Alarm{});
  size_t pos = 0;
  while (pos < tmpl.size()) {
    const Placeholder p = NextPlaceholder(tmpl, pos);
    if (p.open == absl::string_view::npos) break;
    if (p.close == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": {{ at character ", CharacterAt(tmpl, p.open), " has no closing }}"));
    }
    const absl::string_view name = p.name(tmpl);
    if (FieldNamed(fields, name) == nullptr) {
      const absl::string_view trimmed = absl::StripAsciiWhitespace(name);
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": unknown field {{", curl::Shown(name), "}} at character ",
                       CharacterAt(tmpl, p.open),
                       trimmed != name && FieldNamed(fields, trimmed) != nullptr
                           ? absl::StrCat(" (no spaces inside: {{", trimmed, "}})")
                           : ""));
    }
    pos = p.close + 2;
  }
  return absl::OkStatus();
}

ChatChannel::ChatChannel(FindAlarmChannel find, ChatOptions options)
    : find_(std::move(find)),
      options_(std::move(options)),
      post_{.timeout = options_.timeout, .allow = options_.allow, .resolver = options_.resolver} {
  curl::CurlGlobalInit();
}

absl::Status ChatChannel::Send(const Alarm& alarm) {
  std::vector<absl::Status> outcomes;
  for (const std::string& name : alarm.job.alarm().channels()) {
    absl::StatusOr<v1::AlarmChannel> channel = find_(name);
    absl::Status s;
    if (channel.ok()) {
      s = SendTo(*channel, alarm);
    } else if (absl::IsNotFound(channel.status())) {
      s = absl::InvalidArgumentError(
          absl::StrCat(curl::Shown(name), ": no alarm channel of that name exists"));
    } else {
      s = absl::UnavailableError(absl::StrCat(
          curl::Shown(name), ": cannot read the channel: ", channel.status().message()));
    }
    outcomes.push_back(std::move(s));
  }
  return CombineDeliveries(outcomes);
}

absl::Status ChatChannel::SendTo(const v1::AlarmChannel& channel, const Alarm& alarm) const {
  const ChatFormat* format = FormatOf(channel.kind());
  if (format == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(channel.name(), " (", curl::UrlOrigin(channel.url()), "): unknown kind ",
                     static_cast<int>(channel.kind())));
  }
  const Clock& clock = options_.clock != nullptr ? *options_.clock : RealClock();
  const ChatRequest request =
      format->Request(channel, AlarmText(channel.template_(), alarm), clock.Now());
  const std::string shown = absl::StrCat(channel.name(), " (", curl::UrlOrigin(request.url), ")");
  absl::StatusOr<PostAnswer> answer = VettedPost(post_, request.url, request.body, shown);
  // The secret leaves the answer before anything of it is quoted (and
  // perhaps cut short, leaving part of the secret unrecognised).
  absl::Status s = answer.ok()
                       ? format->Check(answer->http_code, WithoutSecret(answer->body, channel))
                       : answer.status();
  if (s.ok()) return s;
  const std::string message =
      answer.ok() ? absl::StrCat(shown, ": ", s.message()) : std::string(s.message());
  return absl::Status(s.code(), WithoutSecret(message, channel));
}

}  // namespace gnomon::scheduler::alarm
