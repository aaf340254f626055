// CommandAllowList: which programs gnomon-executor's command handler may run
// (--command-allow / GNOMON_COMMAND_ALLOW). Fail-closed like the http
// handler's list: empty allows nothing, since a job that may run any program
// is a remote shell for whoever may create jobs.
//
// Entries, comma-separated, each an absolute path:
//   /usr/local/bin/backup   that program
//   /opt/jobs/              any program under that directory (the trailing '/')
//
// A command's program (argv[0]) must be an absolute path without '.' or '..'
// components or empty ones ("//"), so "/opt/jobs/../../bin/sh" cannot pass
// as being under /opt/jobs/. The check is on the path as written: a symbolic
// link inside an allowed directory is followed when the program starts, so
// allow only directories whose contents you control.
//
//   auto allow = CommandAllowList::Parse("/usr/bin/,/opt/tools/report");
//   absl::Status ok = allow->Check("/usr/bin/rsync");
//
// Thread safety: immutable after Parse; safe to share.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_COMMAND_ALLOW_LIST_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_COMMAND_ALLOW_LIST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gnomon::generic_executor {

class CommandAllowList {
 public:
  // InvalidArgument naming the first entry that is not an absolute, clean path.
  static absl::StatusOr<CommandAllowList> Parse(absl::string_view list);

  bool empty() const { return entries_.empty(); }
  std::string ToString() const;

  // OK if `program` may run; InvalidArgument for a malformed path,
  // PermissionDenied (saying how to allow it) for one not on the list.
  absl::Status Check(absl::string_view program) const;

 private:
  std::vector<std::string> entries_;  // "/usr/bin/" (a directory) or "/opt/x/run" (a program)
};

// Whether `path` is absolute with no empty, '.' or '..' component (a
// trailing '/' is allowed when `directory`).
bool IsCleanAbsolutePath(absl::string_view path, bool directory);

}  // namespace gnomon::generic_executor

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_GNOMON_EXECUTOR_COMMAND_ALLOW_LIST_H_
