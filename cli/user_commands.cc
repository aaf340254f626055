// gnomonctl user create|list|update|delete|login: people who log in with a
// password for session tokens. Passwords are read from a file
// (--password-file) or GNOMON_PASSWORD, never from the command line, where
// other users of the machine could see them.
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/format.h"
#include "cli/names.h"
#include "cli/requests.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

void PrintUser(const v1::User& u, absl::TimeZone zone, std::ostream& out) {
  Details d;
  d.Add("name", u.name());
  d.Add("role", RoleName(u.role()));
  d.Add("groups", GrantsText(u.role(), u.grants()));
  d.Add("created", FormatTime(u.create_time(), zone));
  d.Add("updated", FormatTime(u.update_time(), zone));
  d.Render(out);
}

// The password from --password-file (its first line) or GNOMON_PASSWORD;
// empty if neither is given and `required` is false.
absl::StatusOr<std::string> ReadPassword(CommandContext& c, bool required) {
  if (auto file = c.args().Get("password-file")) {
    ASSIGN_OR_RETURN(std::string text, c.env().read_file(*file));
    std::string line = text.substr(0, text.find('\n'));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }
  if (auto env = c.env().getenv("GNOMON_PASSWORD")) return *env;
  if (required)
    return absl::InvalidArgumentError(
        "give the password with --password-file FILE or GNOMON_PASSWORD");
  return std::string();
}

// The user named by the one positional, with --role (required) and its
// groups, and the password (required on create).
absl::Status UserFromArgs(CommandContext& c, bool password_required, v1::User* user,
                          std::string* password) {
  RETURN_IF_ERROR(ExpectPositionals(c.args(), {"NAME"}));
  user->set_name(c.args().positionals()[0]);
  v1::Role role;
  RETURN_IF_ERROR(
      ParseRoleAndGrants(c.args(), v1::ROLE_UNSPECIFIED, &role, user->mutable_grants()));
  if (role == v1::ROLE_UNSPECIFIED) {
    return absl::InvalidArgumentError("--role is required (role and groups are set together)");
  }
  user->set_role(role);
  ASSIGN_OR_RETURN(std::string read, ReadPassword(c, password_required));
  *password = std::move(read);
  return absl::OkStatus();
}

// Prints the user a create or update answered, or the RPC's error.
int PrintAnswer(CommandContext& c, const grpc::Status& s, const v1::User& user) {
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(user);
  PrintUser(user, c.env().zone, c.out());
  return kExitOk;
}

int Create(CommandContext& c) {
  v1::CreateUserRequest req;
  if (absl::Status s =
          UserFromArgs(c, /*password_required=*/true, req.mutable_user(), req.mutable_password());
      !s.ok()) {
    return c.UsageError(s);
  }
  v1::User user;
  auto rpc = c.NewRpcContext();
  return PrintAnswer(c, c.admin().CreateUser(rpc.get(), req, &user), user);
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListUsersResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().ListUsers(rpc.get(), v1::ListUsersRequest(), &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  Table table({"NAME", "ROLE", "GROUPS", "CREATED", "UPDATED"});
  for (const v1::User& u : resp.users()) {
    table.AddRow({u.name(), RoleName(u.role()), GrantsText(u.role(), u.grants()),
                  FormatTime(u.create_time(), c.env().zone),
                  FormatTime(u.update_time(), c.env().zone)});
  }
  table.Render(c.out());
  return kExitOk;
}

int Update(CommandContext& c) {
  v1::UpdateUserRequest req;
  if (absl::Status s =
          UserFromArgs(c, /*password_required=*/false, req.mutable_user(), req.mutable_password());
      !s.ok()) {
    return c.UsageError(s);
  }
  v1::User user;
  auto rpc = c.NewRpcContext();
  return PrintAnswer(c, c.admin().UpdateUser(rpc.get(), req, &user), user);
}

int Delete(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"NAME"}); !s.ok()) return c.UsageError(s);
  v1::DeleteUserRequest req;
  req.set_name(c.args().positionals()[0]);
  v1::DeleteUserResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().DeleteUser(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted user " << req.name() << " and revoked its sessions\n";
  return kExitOk;
}

int Login(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"NAME"}); !s.ok()) return c.UsageError(s);
  const std::string name = c.args().positionals()[0];
  absl::StatusOr<std::string> password = ReadPassword(c, /*required=*/true);
  if (!password.ok()) return c.UsageError(password.status());
  v1::LoginRequest req;
  if (absl::Status s = ParseTtlFlag(c.args(), &req); !s.ok()) return c.UsageError(s);
  // The password, not the bearer token NewRpcContext would add.
  auto rpc = std::make_unique<grpc::ClientContext>();
  rpc->set_deadline(absl::ToChronoTime(absl::Now() + c.globals().timeout));
  rpc->AddMetadata(std::string(kAuthorizationKey),
                   "Basic " + absl::Base64Escape(name + ":" + *password));
  v1::CreateTokenResponse resp;
  grpc::Status s = c.admin().Login(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  // Only the secret on stdout, for export GNOMON_TOKEN=$(gnomonctl user login ...).
  c.out() << resp.secret() << "\n";
  c.err() << "session " << resp.token().name() << " for " << name << " ("
          << RoleName(resp.token().role()) << ", "
          << GrantsText(resp.token().role(), resp.token().grants()) << "), expires "
          << FormatTime(resp.token().expire_time(), c.env().zone) << "\n";
  return kExitOk;
}

int Logout(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::LogoutResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().Logout(rpc.get(), v1::LogoutRequest(), &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "session ended: its token is refused from now on\n";
  return kExitOk;
}

const FlagSpec kPasswordFile{
    "password-file", "", true, "FILE",
    "Read the password from the first line of FILE (else GNOMON_PASSWORD)."};

}  // namespace

std::vector<Command> UserCommands() {
  return {
      {"user", "create", "NAME --role ROLE [--group ID]... [--all-groups] --password-file FILE",
       "Create a user who logs in with a password.", WithRoleFlags({kPasswordFile}),
       "gnomonctl user create alice --role operator --group 3 --password-file alice.pw", Create},
      {"user", "list", "", "List users (never their passwords).", {}, "gnomonctl user list", List},
      {"user", "update", "NAME --role ROLE [--group ID]... [--all-groups] [--password-file FILE]",
       "Replace a user's role and groups (and password, if given: that ends its sessions); "
       "applies to its sessions within 5 s.",
       WithRoleFlags({kPasswordFile}), "gnomonctl user update alice --role viewer --all-groups",
       Update},
      {"user",
       "delete",
       "NAME",
       "Delete a user and revoke its sessions.",
       {},
       "gnomonctl user delete alice",
       Delete},
      {"user",
       "login",
       "NAME [--password-file FILE] [--ttl DUR]",
       "Log in: prints a session token (valid 12 h unless --ttl) with the user's role.",
       {kPasswordFile, {"ttl", "", true, "DUR", "Valid this long (at most 720h)."}},
       "export GNOMON_TOKEN=$(gnomonctl user login alice --password-file alice.pw)",
       Login},
      {"user",
       "logout",
       "",
       "End the login session whose token this call presents (--token / GNOMON_TOKEN).",
       {},
       "gnomonctl user logout",
       Logout},
  };
}

}  // namespace gnomon::cli
