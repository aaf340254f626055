// gnomonctl audit list: the admin API's audit log, newest first.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/format.h"
#include "cli/requests.h"

namespace gnomon::cli {
namespace {

std::vector<FlagSpec> AuditListFlagSpecs() {
  return {
      {"object", "", true, "KIND/ID", "Only changes of this object: group/3, job/12, run/7."},
      {"limit", "n", true, "N", "At most N entries (default 50, at most 1000)."},
  };
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListAuditRequest req;
  req.set_object(c.args().Get("object").value_or(""));
  int64_t limit = 50;
  if (auto n = c.args().Get("limit")) {
    absl::StatusOr<int64_t> parsed = ParseId("--limit", *n);
    if (!parsed.ok()) return c.UsageError(parsed.status());
    if (*parsed > 1000) return c.UsageError(absl::InvalidArgumentError("--limit is at most 1000"));
    limit = *parsed;
  }
  req.set_page_size(static_cast<int32_t>(limit));
  v1::ListAuditResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().ListAudit(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  Table table({"ID", "TIME", "ACTOR", "CHANGE", "OBJECT"});
  for (const v1::AuditEntry& e : resp.entries()) {
    table.AddRow({absl::StrCat(e.id()), FormatTime(e.time(), c.env().zone), e.actor(), e.method(),
                  e.object()});
  }
  table.Render(c.out());
  return kExitOk;
}

}  // namespace

std::vector<Command> AuditCommands() {
  return {
      {"audit", "list", "[--object KIND/ID] [-n N]",
       "Show who changed what through the admin API, newest first (-o json: the request, and the "
       "object before and after, as JSON).",
       AuditListFlagSpecs(), "gnomonctl audit list\ngnomonctl audit list --object job/12 -o json",
       List},
  };
}

}  // namespace gnomon::cli
