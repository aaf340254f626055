// gnomonctl token create|list|revoke: API tokens for the admin API. A new
// token's secret is printed once; gnomond keeps only its SHA-256.
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/format.h"
#include "cli/names.h"
#include "cli/requests.h"

namespace gnomon::cli {
namespace {

void PrintToken(const v1::ApiToken& t, absl::TimeZone zone, std::ostream& out) {
  Details d;
  d.Add("name", t.name());
  d.Add("fingerprint", t.fingerprint());
  d.Add("role", RoleName(t.role()));
  d.Add("groups", GrantsText(t.role(), t.grants()));
  if (!t.user().empty()) d.Add("user", t.user());
  d.Add("created", FormatTime(t.create_time(), zone));
  d.Add("expires", t.has_expire_time() ? FormatTime(t.expire_time(), zone) : "never");
  if (t.has_revoke_time()) d.Add("revoked", FormatTime(t.revoke_time(), zone));
  d.Render(out);
}

int Create(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"NAME"}); !s.ok()) return c.UsageError(s);
  v1::CreateTokenRequest req;
  req.set_name(c.args().positionals()[0]);
  v1::Role role;
  if (absl::Status s = ParseRoleAndGrants(c.args(), v1::ROLE_ADMIN, &role, req.mutable_grants());
      !s.ok()) {
    return c.UsageError(s);
  }
  req.set_role(role);
  if (absl::Status s = ParseTtlFlag(c.args(), &req); !s.ok()) return c.UsageError(s);
  v1::CreateTokenResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().CreateToken(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  const char* note =
      "Keep this secret now: it is not shown again. Present it as 'authorization: Bearer <secret>' "
      "(gnomonctl --token or GNOMON_TOKEN).";
  if (c.structured()) {
    const int code = c.PrintMessage(resp);
    c.err() << note << "\n";
    return code;
  }
  PrintToken(resp.token(), c.env().zone, c.out());
  c.out() << "secret:       " << resp.secret() << "\n\n" << note << "\n";
  return kExitOk;
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListTokensResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().ListTokens(rpc.get(), v1::ListTokensRequest(), &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  Table table({"NAME", "FINGERPRINT", "ROLE", "GROUPS", "USER", "CREATED", "EXPIRES", "REVOKED"});
  for (const v1::ApiToken& t : resp.tokens()) {
    table.AddRow({t.name(), t.fingerprint(), RoleName(t.role()), GrantsText(t.role(), t.grants()),
                  t.user(), FormatTime(t.create_time(), c.env().zone),
                  t.has_expire_time() ? FormatTime(t.expire_time(), c.env().zone) : "never",
                  FormatTime(t.revoke_time(), c.env().zone)});
  }
  table.Render(c.out());
  return kExitOk;
}

int Revoke(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"NAME"}); !s.ok()) return c.UsageError(s);
  v1::RevokeTokenRequest req;
  req.set_name(c.args().positionals()[0]);
  v1::ApiToken token;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().RevokeToken(rpc.get(), req, &token);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(token);
  PrintToken(token, c.env().zone, c.out());
  return kExitOk;
}

}  // namespace

std::vector<Command> TokenCommands() {
  return {
      {"token", "create", "NAME [--ttl DUR] [--role ROLE [--group ID]... | --all-groups]",
       "Create an API token (a service account; admin unless --role) for the admin API; prints its "
       "secret once.",
       WithRoleFlags({{"ttl", "", true, "DUR", "Valid this long (default: until revoked)."}}),
       "gnomonctl token create ci --ttl 2160h\ngnomonctl token create deployer --role operator "
       "--group 3",
       Create},
      {"token",
       "list",
       "",
       "List API tokens (never their secrets).",
       {},
       "gnomonctl token list",
       List},
      {"token",
       "revoke",
       "NAME",
       "Revoke an API token: every gnomond refuses it within 5 s.",
       {},
       "gnomonctl token revoke ci",
       Revoke},
  };
}

}  // namespace gnomon::cli
