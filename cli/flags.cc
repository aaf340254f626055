#include "cli/flags.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace gnomon::cli {
namespace {

absl::string_view AbslView(std::string_view s) { return absl::string_view(s.data(), s.size()); }

const FlagSpec* FindSpec(const std::vector<FlagSpec>& specs, std::string_view name, bool is_short) {
  for (const FlagSpec& spec : specs) {
    if (is_short ? spec.short_name == name : spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

bool ParsedArgs::Has(std::string_view name) const { return values_.find(name) != values_.end(); }

std::optional<std::string> ParsedArgs::Get(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedArgs::GetAll(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return {};
  return it->second;
}

absl::StatusOr<ParsedArgs> ParseFlags(const std::vector<std::string>& args,
                                      const std::vector<FlagSpec>& specs,
                                      int stop_after_positionals) {
  ParsedArgs parsed;
  size_t i = 0;
  bool flags_done = false;
  for (; i < args.size(); ++i) {
    if (stop_after_positionals >= 0 &&
        parsed.positionals_.size() >= static_cast<size_t>(stop_after_positionals)) {
      break;
    }
    const std::string& arg = args[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      parsed.positionals_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    const bool is_long = arg[1] == '-';
    std::string body = arg.substr(is_long ? 2 : 1);
    std::optional<std::string> inline_value;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      inline_value = body.substr(eq + 1);
      body.resize(eq);
    }
    const FlagSpec* spec = FindSpec(specs, body, !is_long);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", arg));
    }
    std::string value;
    if (spec->takes_value) {
      if (inline_value.has_value()) {
        value = *inline_value;
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", spec->name, " needs a value (", spec->value_name, ")"));
      }
    } else {
      if (inline_value.has_value() && *inline_value != "true") {
        return absl::InvalidArgumentError(absl::StrCat("flag --", spec->name, " takes no value"));
      }
      value = "true";
    }
    parsed.values_[spec->name].push_back(std::move(value));
  }
  parsed.consumed_ = i;
  return parsed;
}

absl::StatusOr<int64_t> ParseId(std::string_view what, std::string_view text) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(AbslView(text), &id) || id <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(what), " must be a positive integer, not '", AbslView(text), "'"));
  }
  return id;
}

absl::StatusOr<int64_t> ParseCount(std::string_view what, std::string_view text) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(AbslView(text), &n) || n < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(what), " must be a non-negative integer, not '", AbslView(text), "'"));
  }
  return n;
}

absl::StatusOr<absl::Duration> ParseDurationFlag(std::string_view what, std::string_view text) {
  absl::Duration d;
  if (!absl::ParseDuration(AbslView(text), &d) || d < absl::ZeroDuration() ||
      d == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(what), " must be a duration such as 2s, 500ms or 1h30m, not '",
                     AbslView(text), "'"));
  }
  return d;
}

absl::StatusOr<absl::Time> ParseTimeFlag(std::string_view what, std::string_view text) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, AbslView(text), &t, &err)) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(what), " must be an RFC 3339 time such as 2024-05-01T12:00:00Z, not '",
        AbslView(text), "'"));
  }
  return t;
}

std::vector<std::string> SplitList(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    for (absl::string_view part : absl::StrSplit(v, ',', absl::SkipEmpty())) {
      absl::string_view trimmed = absl::StripAsciiWhitespace(part);
      if (!trimmed.empty()) out.emplace_back(trimmed);
    }
  }
  return out;
}

std::string FlagHelp(const std::vector<FlagSpec>& specs) {
  std::vector<std::string> heads;
  size_t width = 0;
  for (const FlagSpec& spec : specs) {
    std::string head = spec.short_name.empty()
                           ? absl::StrCat("    --", spec.name)
                           : absl::StrCat("-", spec.short_name, ", --", spec.name);
    if (spec.takes_value) absl::StrAppend(&head, " ", spec.value_name);
    width = std::max(width, head.size());
    heads.push_back(std::move(head));
  }
  std::string out;
  for (size_t i = 0; i < specs.size(); ++i) {
    absl::StrAppend(&out, "  ", heads[i], std::string(width - heads[i].size() + 2, ' '),
                    specs[i].help, "\n");
  }
  return out;
}

}  // namespace gnomon::cli
