// The five ChatFormats of chat_channel.h: the request each chat service
// documents for a plain-text message from a robot, and how it reads the
// answer. docs/alarms.md shows every request; chat_channel_test.cc checks
// each byte for byte.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "services/common/client/json_text.h"
#include "services/scheduler/alarm/chat_channel.h"

namespace gnomon::scheduler::alarm {
namespace {

// ---- Text ----

// `text` as a service takes it: valid UTF-8 (each stray byte becomes U+FFFD:
// a service refuses a request that is not UTF-8, and an alarm is not worth
// losing over one byte of a handle message), and at most `max` bytes, cut on
// a character boundary and ending in "…" when cut.
std::string ServiceText(absl::string_view text, size_t max) {
  static constexpr absl::string_view kReplacement = "\xEF\xBF\xBD";
  static constexpr absl::string_view kEllipsis = "\xE2\x80\xA6";
  std::string out;
  out.reserve(std::min(text.size(), max));
  size_t fits = 0;  // The longest prefix of `out` that leaves room for kEllipsis.
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8CharLength(text, i);
    const absl::string_view ch = n == 0 ? kReplacement : text.substr(i, n);
    i += n == 0 ? 1 : n;
    if (out.size() + ch.size() > max) {
      out.resize(fits);
      absl::StrAppend(&out, kEllipsis);
      return out;
    }
    absl::StrAppend(&out, ch);
    if (out.size() + kEllipsis.size() <= max) fits = out.size();
  }
  return out;
}

std::string JsonString(absl::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// Percent-encodes all but RFC 3986's unreserved characters.
std::string UrlEncode(absl::string_view s) {
  std::string out;
  for (char c : s) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      absl::StrAppend(&out, "%",
                      absl::AsciiStrToUpper(absl::BytesToHexString(absl::string_view(&c, 1))));
    }
  }
  return out;
}

// ---- Signatures ----

std::string Base64HmacSha256(absl::string_view key, absl::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac,
           &length) == nullptr) {
    return "";  // The service then refuses the signature: a permanent error.
  }
  return absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(mac), length));
}

// ---- Answers ----

// A service's text in a message: one line of valid UTF-8 (it ends up in a
// run's alarm status, a proto string), at most 100 bytes.
std::string Said(absl::string_view text) {
  return ServiceText(absl::StrReplaceAll(absl::StripAsciiWhitespace(text),
                                         {{"\r\n", " "}, {"\n", " "}, {"\r", " "}}),
                     100);
}

bool Is2xx(long code) { return code >= 200 && code <= 299; }

// A non-2xx answer: a 4xx other than 408 and 429 says the request as
// configured is refused (a bad token, a chat that is gone): permanent.
// Anything else (429, 5xx, 3xx, ...) may pass later.
absl::Status HttpFailure(long code, absl::string_view said) {
  std::string message = absl::StrCat("HTTP ", code, said.empty() ? "" : ": ", said);
  if (code >= 400 && code <= 499 && code != 408 && code != 429) {
    return absl::InvalidArgumentError(message);
  }
  return absl::UnavailableError(message);
}

std::optional<google::protobuf::Struct> JsonObject(const std::string& body) {
  google::protobuf::Struct object;
  if (!google::protobuf::util::JsonStringToMessage(body, &object).ok()) return std::nullopt;
  return object;
}

// object[name] as an integer (a JSON number, or a string of digits).
std::optional<int64_t> IntField(const google::protobuf::Struct& object, const char* name) {
  auto it = object.fields().find(name);
  if (it == object.fields().end()) return std::nullopt;
  if (it->second.kind_case() == google::protobuf::Value::kNumberValue) {
    const double v = it->second.number_value();
    if (!(v > -1e15 && v < 1e15)) return std::nullopt;  // No code is that large.
    return static_cast<int64_t>(v);
  }
  int64_t n = 0;
  if (it->second.kind_case() == google::protobuf::Value::kStringValue &&
      absl::SimpleAtoi(it->second.string_value(), &n)) {
    return n;
  }
  return std::nullopt;
}

std::string StringField(const google::protobuf::Struct& object, const char* name) {
  auto it = object.fields().find(name);
  if (it == object.fields().end()) return "";
  if (it->second.kind_case() == google::protobuf::Value::kStringValue) {
    return it->second.string_value();
  }
  return "";
}

// How a service that answers {"<code>": N, "<msg>": "..."} (N = 0: sent) is
// judged: `permanent` codes never work as configured; every other code,
// rate limits included, may pass later. A non-2xx answer without such a
// document is judged by its HTTP status.
struct CodeAnswer {
  std::vector<const char*> code_fields;  // The first present counts.
  std::vector<const char*> message_fields;
  std::vector<int64_t> permanent;
};

absl::Status CheckCodeAnswer(const CodeAnswer& how, long http_code, const std::string& body) {
  std::optional<google::protobuf::Struct> answer = JsonObject(body);
  std::optional<int64_t> code;
  const char* code_field = "";
  for (const char* field : how.code_fields) {
    if (answer.has_value() && (code = IntField(*answer, field)).has_value()) {
      code_field = field;
      break;
    }
  }
  if (!code.has_value()) {
    if (!Is2xx(http_code)) return HttpFailure(http_code, Said(body));
    return absl::UnavailableError(absl::StrCat("HTTP ", http_code, ", an answer without ",
                                               how.code_fields.front(), ": ", Said(body)));
  }
  if (*code == 0) {
    return Is2xx(http_code) ? absl::OkStatus() : HttpFailure(http_code, Said(body));
  }
  std::string said;
  for (const char* field : how.message_fields) {
    said = StringField(*answer, field);
    if (!said.empty()) break;
  }
  std::string message = absl::StrCat(code_field, " ", *code, said.empty() ? "" : ": ", Said(said));
  for (int64_t permanent : how.permanent) {
    if (*code == permanent) return absl::InvalidArgumentError(message);
  }
  return absl::UnavailableError(message);
}

// ---- The services ----

// {"msgtype":"text","text":{"content":TEXT}}: DingTalk's and WeCom's body.
std::string MsgtypeTextBody(absl::string_view text) {
  return absl::StrCat(R"({"msgtype":"text","text":{"content":)", JsonString(text), "}}");
}

// DingTalk custom robot ("自定义机器人发送群消息"). Signed ("加签") when it has
// a secret: &timestamp=<ms>&sign=<urlencode(base64(HmacSHA256(key: secret,
// data: "<ms>\n<secret>")))> on the url.
class DingTalkFormat final : public ChatFormat {
 public:
  v1::AlarmChannelKind kind() const override { return v1::DINGTALK; }
  ChatRequest Request(const v1::AlarmChannel& channel, const std::string& text,
                      absl::Time now) const override {
    ChatRequest r{channel.url(), MsgtypeTextBody(ServiceText(text, 20000))};
    if (!channel.secret().empty()) {
      const std::string ms = absl::StrCat(absl::ToUnixMillis(now));
      const std::string sign =
          Base64HmacSha256(channel.secret(), absl::StrCat(ms, "\n", channel.secret()));
      const char* sep = r.url.find('?') == std::string::npos           ? "?"
                        : (r.url.back() == '?' || r.url.back() == '&') ? ""
                                                                       : "&";
      absl::StrAppend(&r.url, sep, "timestamp=", ms, "&sign=", UrlEncode(sign));
    }
    return r;
  }
  // {"errcode":0,"errmsg":"ok"}. 310000: the signature, a keyword or the IP
  // is refused; 300001: no such token. 130101: too many messages.
  absl::Status Check(long http_code, const std::string& body) const override {
    return CheckCodeAnswer({{"errcode"}, {"errmsg"}, {310000, 300001}}, http_code, body);
  }
};

// WeCom group robot ("群机器人配置说明"); text at most 2048 bytes.
class WeComFormat final : public ChatFormat {
 public:
  v1::AlarmChannelKind kind() const override { return v1::WECOM; }
  ChatRequest Request(const v1::AlarmChannel& channel, const std::string& text,
                      absl::Time /*now*/) const override {
    return {channel.url(), MsgtypeTextBody(ServiceText(text, 2048))};
  }
  // {"errcode":0,"errmsg":"ok"}. 93000: not a valid webhook url (its key);
  // 45009: too many messages.
  absl::Status Check(long http_code, const std::string& body) const override {
    return CheckCodeAnswer({{"errcode"}, {"errmsg"}, {93000}}, http_code, body);
  }
};

// Feishu (Lark) custom bot ("自定义机器人使用指南"); a request of at most 20 KB.
// Signed when it has a secret: "timestamp":"<s>","sign":"<base64(HmacSHA256(
// key: "<s>\n<secret>", data: ""))>" in the body.
class FeishuFormat final : public ChatFormat {
 public:
  v1::AlarmChannelKind kind() const override { return v1::FEISHU; }
  ChatRequest Request(const v1::AlarmChannel& channel, const std::string& text,
                      absl::Time now) const override {
    std::string body = "{";
    if (!channel.secret().empty()) {
      const std::string s = absl::StrCat(absl::ToUnixSeconds(now));
      absl::StrAppend(&body, R"("timestamp":")", s, R"(","sign":")",
                      Base64HmacSha256(absl::StrCat(s, "\n", channel.secret()), ""), R"(",)");
    }
    absl::StrAppend(&body, R"("msg_type":"text","content":{"text":)",
                    JsonString(ServiceText(text, 16000)), "}}");
    return {channel.url(), std::move(body)};
  }
  // {"code":0,"msg":"success"} (and {"StatusCode":0} from the older API).
  // 19021: the signature (or its timestamp) is refused; 19022: the IP;
  // 19024: no keyword. 11232: too many messages.
  absl::Status Check(long http_code, const std::string& body) const override {
    return CheckCodeAnswer(
        {{"code", "StatusCode"}, {"msg", "StatusMessage"}, {19021, 19022, 19024}}, http_code, body);
  }
};

// Slack incoming webhook. Slack reads "<", ">" and "&" as markup ("<!channel>"
// notifies everyone): escaped as Slack documents, so a handle message cannot
// ping anyone.
class SlackFormat final : public ChatFormat {
 public:
  v1::AlarmChannelKind kind() const override { return v1::SLACK; }
  ChatRequest Request(const v1::AlarmChannel& channel, const std::string& text,
                      absl::Time /*now*/) const override {
    const std::string escaped = absl::StrReplaceAll(ServiceText(text, 40000),
                                                    {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}});
    return {channel.url(), absl::StrCat(R"({"text":)", JsonString(escaped), "}")};
  }
  // HTTP 200 "ok"; otherwise the status and a word: 404 no_service, 403
  // invalid_token, 410 channel_is_archived (permanent), 429, 5xx (retried).
  absl::Status Check(long http_code, const std::string& body) const override {
    return Is2xx(http_code) ? absl::OkStatus() : HttpFailure(http_code, Said(body));
  }
};

// The digits of a numeric Telegram chat id ("-1001234567890"), sent as the
// JSON number the Bot API documents; anything else ("@channel") as a string.
bool IsNumericChatId(absl::string_view id) {
  if (!id.empty() && id.front() == '-') id.remove_prefix(1);
  return !id.empty() && id.size() <= 16 && id.front() != '0' &&
         std::all_of(id.begin(), id.end(), [](char c) { return absl::ascii_isdigit(c); });
}

// Telegram Bot API sendMessage: POST <api>/bot<token>/sendMessage. The token
// is percent-encoded but for unreserved characters and ':' (all a real token
// has: "123456:ABC-DEF_ghi"), so it stays one path segment whatever it holds.
class TelegramFormat final : public ChatFormat {
 public:
  v1::AlarmChannelKind kind() const override { return v1::TELEGRAM; }
  ChatRequest Request(const v1::AlarmChannel& channel, const std::string& text,
                      absl::Time /*now*/) const override {
    std::string api = channel.url().empty() ? "https://api.telegram.org" : channel.url();
    while (!api.empty() && api.back() == '/') api.pop_back();
    std::string token;
    for (char c : channel.secret()) {
      if (c == ':') {
        token.push_back(c);
      } else {
        token.append(UrlEncode(absl::string_view(&c, 1)));
      }
    }
    const std::string chat =
        IsNumericChatId(channel.chat_id()) ? channel.chat_id() : JsonString(channel.chat_id());
    return {absl::StrCat(api, "/bot", token, "/sendMessage"),
            absl::StrCat(R"({"chat_id":)", chat, R"(,"text":)", JsonString(ServiceText(text, 4096)),
                         "}")};
  }
  // {"ok":true,...}; otherwise {"ok":false,"error_code":401,"description":
  // "Unauthorized"}: 400, 401, 403, 404 permanent; 429, 5xx retried.
  absl::Status Check(long http_code, const std::string& body) const override {
    std::optional<google::protobuf::Struct> answer = JsonObject(body);
    bool ok = false;
    if (answer.has_value()) {
      auto it = answer->fields().find("ok");
      ok = it != answer->fields().end() &&
           it->second.kind_case() == google::protobuf::Value::kBoolValue && it->second.bool_value();
    }
    if (ok && Is2xx(http_code)) return absl::OkStatus();
    std::string said = answer.has_value() ? StringField(*answer, "description") : body;
    if (Is2xx(http_code)) {
      return absl::UnavailableError(absl::StrCat("HTTP ", http_code, ", not ok: ", Said(said)));
    }
    return HttpFailure(http_code, Said(said));
  }
};

}  // namespace

ChatFormat::~ChatFormat() = default;

const ChatFormat* FormatOf(v1::AlarmChannelKind kind) {
  static const DingTalkFormat kDingTalk;
  static const WeComFormat kWeCom;
  static const FeishuFormat kFeishu;
  static const SlackFormat kSlack;
  static const TelegramFormat kTelegram;
  switch (kind) {
    case v1::DINGTALK:
      return &kDingTalk;
    case v1::WECOM:
      return &kWeCom;
    case v1::FEISHU:
      return &kFeishu;
    case v1::SLACK:
      return &kSlack;
    case v1::TELEGRAM:
      return &kTelegram;
    default:
      return nullptr;
  }
}

}  // namespace gnomon::scheduler::alarm
