// The credential every RPC gnomond serves requires, by full method name.
//
// One table, consulted by Authenticator::Authorize at the top of every handler
// before it reads a message or touches the store. A method missing from the
// table is refused (fail closed); auth_matrix_test walks every method of the
// gnomon protos, so a new RPC cannot be served until it has a row here.
//
//   const Credential* c = RequiredCredential("/gnomon.v1.Registry/Session");
//   // *c == Credential::kGroupOfApp
//   const Permission* p = RequiredPermission("/gnomon.v1.JobAdmin/CreateJob");
//   // *p == Permission::kOperate
//
// Thread safety: immutable; safe from any thread.
#ifndef GNOMON_SERVICES_COMMON_SERVER_METHOD_CREDENTIALS_H_
#define GNOMON_SERVICES_COMMON_SERVER_METHOD_CREDENTIALS_H_

#include <string>
#include <string_view>

namespace gnomon {

enum class Credential {
  // "authorization: Bearer <token>": an API (admin) token that is neither
  // revoked nor expired.
  kAdmin,
  // The same, or the cluster token: the calls gnomond roles make on each
  // other (the scheduler watching the registry), and no others.
  kAdminOrCluster,
  // "x-gnomon-access-token" equal to the token of the group whose app is named
  // by "x-gnomon-app" (metadata, so it is checked before any message is read).
  kGroupOfApp,
  // "authorization: Basic <base64 of user:password>": a user's password
  // (Login, which hands out session tokens).
  kPassword,
};

// The least role a bearer-credential method needs (access.h): reading,
// changing or firing jobs of granted groups, or administering gnomon
// (groups, tokens, users, the audit log).
enum class Permission { kRead, kOperate, kAdminister };

// The credential `full_method` ("/gnomon.v1.JobAdmin/CreateJob") requires, or
// null for a method gnomond does not serve (the Executor service is served by
// the executor SDK, which checks its callers itself).
const Credential* RequiredCredential(std::string_view full_method);
// The permission `full_method` needs, or null as above.
const Permission* RequiredPermission(std::string_view full_method);

// "/<service>/<method>", the name gRPC gives a call.
std::string FullMethodName(std::string_view service, std::string_view method);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_METHOD_CREDENTIALS_H_
