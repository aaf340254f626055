#include "cli/completion.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli/cli.h"

namespace gnomon::cli {
namespace {

constexpr char kOutputFormats[] = "table wide json yaml";

// "--name" and, when there is one, "-n".
std::vector<std::string> Spellings(const FlagSpec& f) {
  std::vector<std::string> out = {absl::StrCat("--", f.name)};
  if (!f.short_name.empty()) out.push_back(absl::StrCat("-", f.short_name));
  return out;
}

std::string FlagWords(const std::vector<FlagSpec>& specs) {
  std::vector<std::string> words;
  for (const FlagSpec& f : specs) words.push_back(absl::StrCat("--", f.name));
  return absl::StrJoin(words, " ");
}

// Nouns in table order, each with its verbs.
std::vector<std::pair<std::string, std::vector<const Command*>>> ByNoun(
    const std::vector<Command>& commands) {
  std::vector<std::pair<std::string, std::vector<const Command*>>> out;
  for (const Command& c : commands) {
    if (out.empty() || out.back().first != c.noun) out.push_back({c.noun, {}});
    out.back().second.push_back(&c);
  }
  return out;
}

std::string Bash(const std::vector<Command>& commands, const std::vector<FlagSpec>& globals) {
  // Flags that take a value, so their value is not taken for the noun.
  std::set<std::string> valued;
  auto note_valued = [&](const std::vector<FlagSpec>& specs) {
    for (const FlagSpec& f : specs) {
      if (!f.takes_value) continue;
      for (const std::string& s : Spellings(f)) valued.insert(s);
    }
  };
  note_valued(globals);
  for (const Command& c : commands) note_valued(c.flags);

  std::string nouns, verbs, flags;
  for (const auto& [noun, list] : ByNoun(commands)) {
    absl::StrAppend(&nouns, nouns.empty() ? "" : " ", noun);
    std::vector<std::string> names;
    for (const Command* c : list) {
      names.push_back(c->verb);
      absl::StrAppend(&flags, "    \"", noun, " ", c->verb, "\") words=\"", FlagWords(c->flags),
                      "\" ;;\n");
    }
    absl::StrAppend(&verbs, "    ", noun, ") words=\"", absl::StrJoin(names, " "), "\" ;;\n");
  }
  return absl::StrCat(
      "# bash completion for gnomonctl (from 'gnomonctl completion bash').\n"
      "# Load it with: source <(gnomonctl completion bash)\n"
      "_gnomonctl() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
      "  local valued=\" ",
      absl::StrJoin(valued, " "),
      " \"\n"
      "  local noun='' verb='' words='' w i skip=0\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=${COMP_WORDS[i]}\n"
      "    if ((skip)); then skip=0; continue; fi\n"
      "    case $w in\n"
      "      -*=*) ;;\n"
      "      -*) [[ $valued == *\" $w \"* ]] && skip=1 ;;\n"
      "      *) if [[ -z $noun ]]; then noun=$w; elif [[ -z $verb ]]; then verb=$w; fi ;;\n"
      "    esac\n"
      "  done\n"
      "  case $prev in\n"
      "    -o|--output) COMPREPLY=($(compgen -W \"",
      kOutputFormats,
      "\" -- \"$cur\")); return ;;\n"
      "  esac\n"
      "  if [[ $prev == -* && $valued == *\" $prev \"* ]]; then\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\")); return\n"
      "  fi\n"
      "  if [[ $cur == -* ]]; then\n"
      "    case \"$noun $verb\" in\n",
      flags,
      "    esac\n"
      "    words=\"$words ",
      FlagWords(globals),
      "\"\n"
      "  elif [[ -z $noun ]]; then\n"
      "    words=\"",
      nouns,
      "\"\n"
      "  elif [[ -z $verb ]]; then\n"
      "    case $noun in\n",
      verbs,
      "    esac\n"
      "  fi\n"
      "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "}\n"
      "complete -F _gnomonctl gnomonctl\n");
}

// `text` in fish single quotes.
std::string FishQuote(const std::string& text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"'", "\\'"}}), "'");
}

void AppendFishFlags(const std::vector<FlagSpec>& specs, const std::string& condition,
                     std::string* out) {
  for (const FlagSpec& f : specs) {
    absl::StrAppend(out, "complete -c gnomonctl", condition, " -l ", f.name);
    if (!f.short_name.empty()) absl::StrAppend(out, " -s ", f.short_name);
    if (f.takes_value) absl::StrAppend(out, " -r");
    if (f.name == "output") absl::StrAppend(out, " -f -a ", FishQuote(kOutputFormats));
    absl::StrAppend(out, " -d ", FishQuote(f.help), "\n");
  }
}

std::string Fish(const std::vector<Command>& commands, const std::vector<FlagSpec>& globals) {
  std::string out =
      "# fish completion for gnomonctl (from 'gnomonctl completion fish').\n"
      "# Load it with: gnomonctl completion fish | source\n"
      "complete -c gnomonctl -f\n";
  AppendFishFlags(globals, "", &out);
  const auto nouns = ByNoun(commands);
  std::vector<std::string> noun_names;
  for (const auto& [noun, list] : nouns) noun_names.push_back(noun);
  for (const auto& [noun, list] : nouns) {
    absl::StrAppend(&out, "complete -c gnomonctl -n '__fish_use_subcommand' -a ", noun, "\n");
    std::vector<std::string> verb_names;
    for (const Command* c : list) verb_names.push_back(c->verb);
    const std::string in_noun = absl::StrCat("__fish_seen_subcommand_from ", noun);
    for (const Command* c : list) {
      // A command without a verb (apply) takes its flags right after the noun.
      if (c->verb.empty()) {
        AppendFishFlags(c->flags, absl::StrCat(" -n ", FishQuote(in_noun)), &out);
        continue;
      }
      absl::StrAppend(&out, "complete -c gnomonctl -n ",
                      FishQuote(absl::StrCat(in_noun, "; and not __fish_seen_subcommand_from ",
                                             absl::StrJoin(verb_names, " "))),
                      " -a ", c->verb, " -d ", FishQuote(c->summary), "\n");
      AppendFishFlags(
          c->flags,
          absl::StrCat(" -n ", FishQuote(absl::StrCat(in_noun, "; and __fish_seen_subcommand_from ",
                                                      c->verb))),
          &out);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> CompletionScript(const std::string& shell,
                                             const std::vector<Command>& commands,
                                             const std::vector<FlagSpec>& globals) {
  if (shell == "bash") return Bash(commands, globals);
  if (shell == "zsh") {
    // zsh runs the bash function through its bash emulation.
    return absl::StrCat(
        "#compdef gnomonctl\n"
        "# zsh completion for gnomonctl (from 'gnomonctl completion zsh').\n"
        "# Load it with: source <(gnomonctl completion zsh)\n"
        "autoload -U +X bashcompinit && bashcompinit\n",
        Bash(commands, globals));
  }
  if (shell == "fish") return Fish(commands, globals);
  return absl::InvalidArgumentError(
      absl::StrCat("completion is for bash, zsh or fish, not '", shell, "'"));
}

std::vector<Command> CompletionCommands(std::function<const std::vector<Command>&()> all) {
  std::vector<Command> out;
  for (const char* shell : {"bash", "zsh", "fish"}) {
    out.push_back(Command{
        "completion",
        shell,
        "",
        absl::StrCat("Print the ", shell, " completion script (no server needed)."),
        {},
        std::string(shell) == "fish" ? "gnomonctl completion fish | source"
                                     : absl::StrCat("source <(gnomonctl completion ", shell, ")"),
        [all, shell = std::string(shell)](CommandContext& c) {
          if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
          absl::StatusOr<std::string> script = CompletionScript(shell, all(), GlobalFlagSpecs());
          if (!script.ok()) return c.UsageError(script.status());
          c.out() << *script;
          return kExitOk;
        },
        /*offline=*/true});
  }
  return out;
}

}  // namespace gnomon::cli
