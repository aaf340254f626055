#include "cli/yaml_json.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/format.h"
#include "google/protobuf/util/json_util.h"
#include "services/common/status/status_macros.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace gnomon::cli {
namespace {

// A YAML/JSON value with its members in document order (yaml-cpp's Node
// would do, but its parser gives no per-document errors).
struct Value {
  enum class Kind { kNull, kBool, kNumber, kString, kSeq, kMap };
  Kind kind = Kind::kNull;
  // kBool and kNumber: the JSON text; kString: the string itself.
  std::string text;
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> members;
};

Value Scalar(Value::Kind kind, std::string text) {
  Value v;
  v.kind = kind;
  v.text = std::move(text);
  return v;
}

bool AllOf(absl::string_view s, bool (*pred)(unsigned char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsOctal(unsigned char c) { return c >= '0' && c <= '7'; }
bool IsDigit(unsigned char c) { return absl::ascii_isdigit(c); }
bool IsHex(unsigned char c) { return absl::ascii_isxdigit(c); }

// Digits without leading zeros ("007" -> "7", "0" stays).
std::string TrimZeros(absl::string_view digits) {
  size_t i = 0;
  while (i + 1 < digits.size() && digits[i] == '0') ++i;
  return std::string(digits.substr(i));
}

// The JSON number for a YAML 1.2 core-schema float
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, or nullopt.
std::optional<std::string> CoreFloat(absl::string_view s, absl::string_view sign) {
  size_t e = s.find_first_of("eE");
  absl::string_view mantissa = s.substr(0, e);
  absl::string_view exponent = e == absl::string_view::npos ? "" : s.substr(e + 1);
  size_t dot = mantissa.find('.');
  absl::string_view whole = mantissa.substr(0, dot);
  absl::string_view fraction = dot == absl::string_view::npos ? "" : mantissa.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return std::nullopt;
  if ((!whole.empty() && !AllOf(whole, IsDigit)) ||
      (!fraction.empty() && !AllOf(fraction, IsDigit))) {
    return std::nullopt;
  }
  std::string out = absl::StrCat(sign, whole.empty() ? "0" : TrimZeros(whole));
  if (!fraction.empty()) absl::StrAppend(&out, ".", fraction);
  if (e != absl::string_view::npos) {
    absl::string_view exp_sign;
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
      exp_sign = exponent.substr(0, 1);
      exponent.remove_prefix(1);
    }
    if (!AllOf(exponent, IsDigit)) return std::nullopt;
    absl::StrAppend(&out, "e", exp_sign == "-" ? "-" : "", exponent);
  }
  return out;
}

// A plain scalar resolved by the YAML 1.2 core schema.
Value ResolvePlain(const std::string& s) {
  using K = Value::Kind;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return Value();
  if (s == "true" || s == "True" || s == "TRUE") return Scalar(K::kBool, "true");
  if (s == "false" || s == "False" || s == "FALSE") return Scalar(K::kBool, "false");
  absl::string_view body = s;
  absl::string_view sign;
  if (body[0] == '-' || body[0] == '+') {
    sign = body[0] == '-' ? "-" : "";
    body.remove_prefix(1);
  }
  // Protobuf's JSON mapping spells these as strings.
  if (body == ".inf" || body == ".Inf" || body == ".INF") {
    return Scalar(K::kString, absl::StrCat(sign, "Infinity"));
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return Scalar(K::kString, "NaN");
  if (AllOf(body, IsDigit)) return Scalar(K::kNumber, absl::StrCat(sign, TrimZeros(body)));
  // 0o and 0x integers take no sign in the core schema.
  if (body.size() == s.size() && s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    const bool hex = s[1] == 'x';
    if (AllOf(body.substr(2), hex ? IsHex : IsOctal)) {
      errno = 0;
      const unsigned long long v = std::strtoull(s.c_str() + 2, nullptr, hex ? 16 : 8);
      if (errno == 0) return Scalar(K::kNumber, absl::StrCat(v));
    }
  }
  if (std::optional<std::string> f = CoreFloat(body, sign)) return Scalar(K::kNumber, *f);
  return Scalar(K::kString, s);
}

// At most 40 characters of `s`, for messages.
std::string Clip(const std::string& s) {
  return s.size() <= 40 ? s : absl::StrCat(s.substr(0, 37), "...");
}

// Builds one Value per document from yaml-cpp's parse events. Errors are
// thrown as YAML::ParserException so they carry a mark like syntax errors.
class ValueBuilder final : public YAML::EventHandler {
 public:
  // The finished document (null for an empty one) and its first line.
  Value TakeRoot() { return std::move(root_); }
  int line() const { return line_; }

  void OnDocumentStart(const YAML::Mark&) override {
    root_ = Value();
    line_ = 0;
    anchors_.clear();
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Add(mark, Value(), anchor, "");
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw YAML::ParserException(mark, "unknown alias");
    Add(mark, it->second, 0, "");
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    // yaml-cpp tags a plain scalar "?" and a quoted or block one "!".
    const bool is_string = tag == "!" || absl::EndsWith(tag, ":str");
    Add(mark, is_string ? Scalar(Value::Kind::kString, value) : ResolvePlain(value), anchor, value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, Value::Kind::kSeq, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, Value::Kind::kMap, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    Value value;
    YAML::anchor_t anchor = 0;
    // A map's key awaiting its value.
    std::optional<std::string> key;
  };

  bool AwaitingKey() const {
    return !stack_.empty() && stack_.back().value.kind == Value::Kind::kMap &&
           !stack_.back().key.has_value();
  }

  // The document's line is its root node's, not that of its "---".
  void NoteLine(const YAML::Mark& mark) {
    if (stack_.empty() && line_ == 0) line_ = mark.line + 1;
  }

  void Open(const YAML::Mark& mark, Value::Kind kind, YAML::anchor_t anchor) {
    NoteLine(mark);
    if (AwaitingKey()) throw YAML::ParserException(mark, "a key must be a scalar");
    Frame frame;
    frame.value.kind = kind;
    frame.anchor = anchor;
    stack_.push_back(std::move(frame));
  }

  void Close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Place(std::move(frame.value), frame.anchor);
  }

  void Add(const YAML::Mark& mark, Value value, YAML::anchor_t anchor, const std::string& raw) {
    NoteLine(mark);
    if (AwaitingKey()) {
      if (value.kind == Value::Kind::kSeq || value.kind == Value::Kind::kMap) {
        throw YAML::ParserException(mark, "a key must be a scalar");
      }
      // A key is its text as written ("1: x" has the key "1").
      std::string key = value.kind == Value::Kind::kString ? value.text : raw;
      for (const auto& member : stack_.back().value.members) {
        if (member.first == key) {
          throw YAML::ParserException(mark, absl::StrCat("duplicate key '", Clip(key), "'"));
        }
      }
      if (anchor != 0) anchors_[anchor] = value;
      stack_.back().key = std::move(key);
      return;
    }
    Place(std::move(value), anchor);
  }

  void Place(Value value, YAML::anchor_t anchor) {
    if (anchor != 0) anchors_[anchor] = value;
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Frame& top = stack_.back();
    if (top.value.kind == Value::Kind::kSeq) {
      top.value.items.push_back(std::move(value));
    } else {
      top.value.members.emplace_back(*std::move(top.key), std::move(value));
      top.key.reset();
    }
  }

  Value root_;
  int line_ = 0;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Value> anchors_;
};

void AppendJsonString(const std::string& s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void AppendJson(const Value& v, std::string* out) {
  switch (v.kind) {
    case Value::Kind::kNull:
      *out += "null";
      return;
    case Value::Kind::kBool:
    case Value::Kind::kNumber:
      *out += v.text;
      return;
    case Value::Kind::kString:
      AppendJsonString(v.text, out);
      return;
    case Value::Kind::kSeq:
      out->push_back('[');
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJson(v.items[i], out);
      }
      out->push_back(']');
      return;
    case Value::Kind::kMap:
      out->push_back('{');
      for (size_t i = 0; i < v.members.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(v.members[i].first, out);
        out->push_back(':');
        AppendJson(v.members[i].second, out);
      }
      out->push_back('}');
      return;
  }
}

// Whether `s` reads back exactly from a literal block ("|"): one final line
// break (clip chomping), no leading blank or space (that would need an
// indentation indicator), and no characters a block cannot hold.
bool FitsLiteralBlock(const std::string& s) {
  if (s.size() < 2 || s.back() != '\n' || s[s.size() - 2] == '\n') return false;
  if (s[0] == ' ' || s[0] == '\n') return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) return false;
  }
  // A line ending in spaces is kept by YAML but risky to read; quote it.
  return s.find(" \n") == std::string::npos;
}

void EmitString(const std::string& s, bool is_key, YAML::Emitter* out) {
  if (!is_key && s.find('\n') != std::string::npos) {
    if (FitsLiteralBlock(s)) {
      // The block's clip chomping restores the final line break; writing it
      // too would print a blank line.
      *out << YAML::Literal << s.substr(0, s.size() - 1);
    } else {
      *out << YAML::DoubleQuoted << s;
    }
    return;
  }
  // Quote what a reader would take for another type, e.g. "7", "true", "".
  if (ResolvePlain(s).kind != Value::Kind::kString) {
    *out << YAML::DoubleQuoted << s;
    return;
  }
  *out << s;
}

void Emit(const Value& v, YAML::Emitter* out) {
  switch (v.kind) {
    case Value::Kind::kNull:
      *out << YAML::Null;
      return;
    case Value::Kind::kBool:
      *out << (v.text == "true");
      return;
    case Value::Kind::kNumber:
      *out << v.text;
      return;
    case Value::Kind::kString:
      EmitString(v.text, false, out);
      return;
    case Value::Kind::kSeq:
      // An empty collection is "[]" or "{}" on its key's line.
      if (v.items.empty()) *out << YAML::Flow;
      *out << YAML::BeginSeq;
      for (const Value& item : v.items) Emit(item, out);
      *out << YAML::EndSeq;
      return;
    case Value::Kind::kMap:
      if (v.members.empty()) *out << YAML::Flow;
      *out << YAML::BeginMap;
      for (const auto& [key, value] : v.members) {
        *out << YAML::Key;
        EmitString(key, true, out);
        *out << YAML::Value;
        Emit(value, out);
      }
      *out << YAML::EndMap;
      return;
  }
}

}  // namespace

absl::StatusOr<std::string> JsonToYaml(absl::string_view json) {
  std::istringstream in{std::string(json)};
  ValueBuilder builder;
  try {
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(builder)) return absl::InvalidArgumentError("empty JSON");
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read JSON: ", e.what()));
  }
  YAML::Emitter out;
  out.SetNullFormat(YAML::LowerNull);
  Emit(builder.TakeRoot(), &out);
  if (!out.good()) {
    return absl::InternalError(absl::StrCat("cannot write YAML: ", out.GetLastError()));
  }
  return absl::StrCat(out.c_str(), "\n");
}

absl::StatusOr<std::string> MessageToYaml(const google::protobuf::Message& message) {
  ASSIGN_OR_RETURN(std::string json, ToJson(message, /*indent=*/false));
  return JsonToYaml(json);
}

absl::StatusOr<std::vector<YamlDocument>> ParseYamlDocuments(absl::string_view yaml) {
  std::istringstream in{std::string(yaml)};
  std::vector<YamlDocument> documents;
  ValueBuilder builder;
  int index = 0;
  try {
    YAML::Parser parser(in);
    while (true) {
      ++index;
      if (!parser.HandleNextDocument(builder)) break;
      Value root = builder.TakeRoot();
      if (root.kind == Value::Kind::kNull) continue;
      YamlDocument document;
      document.index = index;
      document.line = builder.line();
      AppendJson(root, &document.json);
      documents.push_back(std::move(document));
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrFormat("document %d, line %d, column %d: %s", index,
                                                      e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  return documents;
}

absl::Status YamlDocumentToMessage(const YamlDocument& document,
                                   google::protobuf::Message* message) {
  const std::string where = absl::StrFormat("document %d (line %d)", document.index, document.line);
  if (document.json.empty() || document.json[0] != '{') {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expected a mapping of ",
                                                   message->GetDescriptor()->name(), " fields"));
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(document.json, message, options);
  if (!status.ok()) {
    const auto message_text = status.message();
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", absl::string_view(message_text.data(), message_text.size())));
  }
  return absl::OkStatus();
}

}  // namespace gnomon::cli
