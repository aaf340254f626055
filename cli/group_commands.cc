// gnomonctl group create|list|get|update|delete|rotate-token.
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/format.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

// Shows a group whose answer carries its access token, and tells the user to
// keep it (on stderr with -o json, so stdout stays one JSON document).
int PrintGroupWithToken(CommandContext& c, const v1::Group& group) {
  std::string note =
      absl::StrCat("Keep this access token now: it is not shown again. Executors of '",
                   group.app_name(), "' present it (x-gnomon-access-token).");
  if (group.has_previous_token_expire_time()) {
    absl::StrAppend(&note, "\nThe replaced token is accepted until ",
                    FormatTime(group.previous_token_expire_time(), c.env().zone),
                    ": restart the group's executors with the new one before then.");
  }
  if (c.structured()) {
    int code = c.PrintMessage(group);
    c.err() << note << "\n";
    return code;
  }
  PrintGroupDetails(group, c.env().zone, c.out());
  c.out() << "\n" << note << "\n";
  return kExitOk;
}

int PrintGroup(CommandContext& c, const v1::Group& group) {
  if (c.structured()) return c.PrintMessage(group);
  PrintGroupDetails(group, c.env().zone, c.out());
  return kExitOk;
}

int Create(CommandContext& c) {
  absl::StatusOr<v1::CreateGroupRequest> req = BuildCreateGroupRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::Group group;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().CreateGroup(rpc.get(), *req, &group);
  if (!s.ok()) return c.RpcError(s);
  return PrintGroupWithToken(c, group);
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) {
    return c.UsageError(s);
  }
  v1::ListGroupsResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().ListGroups(rpc.get(), v1::ListGroupsRequest(), &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  PrintGroupTable(resp.groups(), c.env().zone, c.out());
  return kExitOk;
}

int Get(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::GetGroupRequest req;
  req.set_group_id(*id);
  v1::Group group;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().GetGroup(rpc.get(), req, &group);
  if (!s.ok()) return c.RpcError(s);
  return PrintGroup(c, group);
}

int Update(CommandContext& c) {
  absl::StatusOr<v1::UpdateGroupRequest> req = BuildUpdateGroupRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::Group group;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().UpdateGroup(rpc.get(), *req, &group);
  if (!s.ok()) return c.RpcError(s);
  return PrintGroup(c, group);
}

int Delete(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::DeleteGroupRequest req;
  req.set_group_id(*id);
  v1::DeleteGroupResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().DeleteGroup(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted group " << *id << "\n";
  return kExitOk;
}

int RotateToken(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::RotateGroupTokenRequest req;
  req.set_group_id(*id);
  if (auto text = c.args().Get("grace")) {
    absl::StatusOr<absl::Duration> grace = ParseDurationFlag("--grace", *text);
    if (!grace.ok()) return c.UsageError(grace.status());
    if (*grace < absl::ZeroDuration())
      return c.UsageError(absl::InvalidArgumentError("--grace must not be negative"));
    req.mutable_grace()->set_seconds(absl::ToInt64Seconds(*grace));
    req.mutable_grace()->set_nanos(static_cast<int32_t>(
        absl::ToInt64Nanoseconds(*grace - absl::Seconds(absl::ToInt64Seconds(*grace)))));
  }
  v1::Group group;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().RotateGroupToken(rpc.get(), req, &group);
  if (!s.ok()) return c.RpcError(s);
  return PrintGroupWithToken(c, group);
}

}  // namespace

std::vector<Command> GroupCommands() {
  return {
      {"group", "create", "APP [--title T] [--addresses A,B]",
       "Create an executor group; prints its access token once.", GroupCreateFlagSpecs(),
       "gnomonctl group create billing --title 'Billing workers'\n"
       "gnomonctl group create legacy --addresses billing-0,billing-1",
       Create},
      {"group", "list", "", "List all groups.", {}, "gnomonctl group list -o json", List},
      {"group",
       "get",
       "ID",
       "Show one group (without its token).",
       {},
       "gnomonctl group get 3",
       Get},
      {"group", "update", "ID [--title T] [--addresses A,B | --auto]",
       "Change a group's title or membership; other fields stay.", GroupUpdateFlagSpecs(),
       "gnomonctl group update 3 --title 'Billing (EU)'\n"
       "gnomonctl group update 3 --auto",
       Update},
      {"group",
       "delete",
       "ID",
       "Delete a group no job uses.",
       {},
       "gnomonctl group delete 3",
       Delete},
      {"group",
       "rotate-token",
       "ID [--grace DUR]",
       "Replace a group's access token; prints the new one once. The replaced "
       "token is still accepted for --grace (default: the server's, 1h; 0s: "
       "not at all), so running executors keep working until restarted.",
       {{"grace", "", true, "DUR", "How long the replaced token is still accepted."}},
       "gnomonctl group rotate-token 3\ngnomonctl group rotate-token 3 --grace 24h",
       RotateToken},
  };
}

}  // namespace gnomon::cli
