#include "services/executor-sdk/gnomon-executor/command_allow_list.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "services/executor-sdk/gnomon-executor/task_params.h"

namespace gnomon::generic_executor {
bool IsCleanAbsolutePath(absl::string_view path, bool directory) {
  if (path.size() < 2 || path[0] != '/') return false;
  if (path.find('\0') != absl::string_view::npos) return false;
  absl::string_view rest = path.substr(1);
  if (directory) {
    if (!absl::ConsumeSuffix(&rest, "/")) return false;
  }
  for (absl::string_view part : absl::StrSplit(absl::string_view(rest.data(), rest.size()), '/')) {
    if (part.empty() || part == "." || part == "..") return false;
  }
  return true;
}

absl::StatusOr<CommandAllowList> CommandAllowList::Parse(absl::string_view list) {
  CommandAllowList out;
  for (absl::string_view raw : absl::StrSplit(absl::string_view(list.data(), list.size()), ',')) {
    absl::string_view entry = absl::StripAsciiWhitespace(raw);
    if (entry.empty()) continue;
    const bool directory = absl::EndsWith(entry, "/");
    if (entry == "/" || !IsCleanAbsolutePath(entry, directory)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--command-allow entry '", Shown(entry),
          "' is not an absolute program path or a directory ending in '/' (without '.', '..' or "
          "'//'; '/' itself is refused: it would allow every program)"));
    }
    out.entries_.emplace_back(entry);
  }
  return out;
}

std::string CommandAllowList::ToString() const { return absl::StrJoin(entries_, ","); }

absl::Status CommandAllowList::Check(absl::string_view program) const {
  if (empty()) {
    return absl::PermissionDeniedError(
        "commands are refused: this executor's --command-allow list (GNOMON_COMMAND_ALLOW) is "
        "empty. Start it with the programs jobs may run, e.g. "
        "--command-allow=/usr/local/bin/backup,/opt/jobs/");
  }
  if (!IsCleanAbsolutePath(program, /*directory=*/false)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argv[0] '", Shown(program),
        "' must be an absolute path without '.', '..' or '//' components (no PATH lookup is "
        "made)"));
  }
  for (const std::string& entry : entries_) {
    if (absl::EndsWith(entry, "/") ? absl::StartsWith(program, entry) : program == entry) {
      return absl::OkStatus();
    }
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "program ", Shown(program),
      " is not allowed by this executor's --command-allow list (GNOMON_COMMAND_ALLOW: ",
      Shown(ToString()), "); to allow it, list it or its directory (ending in '/') there"));
}

}  // namespace gnomon::generic_executor
