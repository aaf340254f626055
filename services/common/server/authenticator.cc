#include "services/common/server/authenticator.h"

#include <algorithm>
#include <map>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/client/log.h"
#include "services/common/server/passwords.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_macros.h"

namespace gnomon {

using google::protobuf::util::TimeUtil;
namespace {
constexpr int64_t kCacheMillis = 5'000;
// A token caller's credential: this, then the token's digest.
constexpr std::string_view kTokenCredential = "admin:";
// Failed logins per user name from one client address: 10, then one per
// 6 s. Keyed by address too, so a stranger's guesses do not lock the user
// out elsewhere; only failures count, so the user's own logins never do.
constexpr RateLimit kLoginFailures{1.0 / 6, 10};
// Failed logins from one client address, whatever the names: 30, then one
// per 2 s (guessing across names from one place).
constexpr RateLimit kClientLoginFailures{1.0 / 2, 30};

// Compared against when a login names no user, so an unknown name costs as
// much time as a wrong password.
const std::string& DecoyHash() {
  static const std::string* hash = new std::string(HashPassword(NewToken()));
  return *hash;
}
// What a user's role and grants let its calls reach.
Access AccessOf(const v1::User& user) {
  Access a;
  a.role = user.role();
  a.grants = user.grants();
  return a;
}

}  // namespace

Authenticator::MetadataLookup CopiedMetadata(const grpc::ServerContextBase& context) {
  auto metadata = std::make_shared<std::map<std::string, std::string, std::less<>>>();
  for (const auto& [k, v] : context.client_metadata()) {
    metadata->emplace(std::string(k.data(), k.size()), std::string(v.data(), v.size()));
  }
  return [metadata](std::string_view key) -> std::string {
    auto it = metadata->find(key);
    return it == metadata->end() ? "" : it->second;
  };
}

std::string_view TokenDigestOf(std::string_view credential) {
  if (credential.substr(0, kTokenCredential.size()) != kTokenCredential) return {};
  return credential.substr(kTokenCredential.size());
}

std::string MetadataValue(const grpc::ServerContext& context, std::string_view key) {
  if (key == kClientAddressKey) return ClientAddress(context);
  const auto& md = context.client_metadata();
  auto it = md.find(grpc::string_ref(key.data(), key.size()));
  if (it == md.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

std::string ClientAddress(const grpc::ServerContext& context) {
  std::string peer = context.peer();
  // "ipv4:10.0.0.1:5000", "ipv6:[::1]:5000": the address without the port.
  if (absl::StartsWith(peer, "ipv4:") || absl::StartsWith(peer, "ipv6:"))
    return peer.substr(0, peer.rfind(':'));
  if (absl::StartsWith(peer, "unix:")) return peer;
  // No socket: gRPC's in-process transport (its peer is "unknown"), which
  // only gnomond's own HTTP/JSON gateway can reach; it names its client.
  std::string http_client = MetadataValue(context, kHttpClientKey);
  return http_client.empty() ? peer : http_client;
}

Authenticator::Authenticator(store::CredentialStore* credentials, store::JobStore* groups,
                             std::string cluster_token, ServerMetrics* metrics, Clock* clock)
    : credentials_(credentials),
      groups_(groups),
      cluster_token_(std::move(cluster_token)),
      metrics_(metrics),
      clock_(clock),
      login_failures_(kLoginFailures, clock),
      client_login_failures_(kClientLoginFailures, clock) {}

absl::StatusOr<Caller> Authenticator::Authorize(const grpc::ServerContext& context,
                                                std::string_view service, std::string_view method) {
  return Authorize([&context](std::string_view key) { return MetadataValue(context, key); },
                   service, method);
}

absl::StatusOr<Caller> Authenticator::Authorize(const MetadataLookup& context,
                                                std::string_view service, std::string_view method) {
  const std::string full_method = FullMethodName(service, method);
  const Credential* required = RequiredCredential(full_method);
  if (required == nullptr) {
    // A handler whose method has no row in the table: fail closed.
    GNOMON_LOG(ERROR) << "auth: " << full_method << " is not in the method credential table";
    return absl::UnauthenticatedError(kRefusedMessage);
  }
  absl::StatusOr<Caller> caller = absl::UnauthenticatedError(kRefusedMessage);
  switch (*required) {
    case Credential::kAdmin:
      caller = CheckAdmin(context, full_method, /*cluster=*/false);
      break;
    case Credential::kAdminOrCluster:
      caller = CheckAdmin(context, full_method, /*cluster=*/true);
      break;
    case Credential::kPassword:
      caller = CheckPassword(context, full_method);
      break;
    case Credential::kGroupOfApp:
      caller = CheckGroup(context, full_method);
      break;
  }
  const absl::StatusCode code = caller.status().code();
  if (code != absl::StatusCode::kOk && code != absl::StatusCode::kUnauthenticated &&
      code != absl::StatusCode::kResourceExhausted) {
    // The store failed: the caller, who may not have authenticated, learns
    // that and no more (its message can name hosts, tables, SQL).
    GNOMON_LOG(WARNING) << "auth: cannot check the credentials of a call to " << full_method << ": "
                        << caller.status();
    return absl::UnavailableError(kUnverifiableMessage);
  }
  RETURN_IF_ERROR(caller);
  if (*required == Credential::kGroupOfApp) return caller;
  RETURN_IF_ERROR(CheckPermission(caller->access, *RequiredPermission(full_method), method));
  return caller;
}

absl::Status Authenticator::Refuse(AuthFailure reason, std::string_view full_method,
                                   std::string_view app) {
  if (metrics_ != nullptr) metrics_->AuthFailed(reason);
  // The app comes from the caller: bounded and escaped before it is logged.
  constexpr size_t kMaxLoggedApp = 64;
  GNOMON_LOG(WARNING) << "auth: refused " << full_method << " (" << AuthFailureName(reason)
                      << (app.empty() ? "" : ", app \"")
                      << absl::CHexEscape(std::string(app.substr(0, kMaxLoggedApp)))
                      << (app.empty() ? "" : "\"") << ")";
  return absl::UnauthenticatedError(kRefusedMessage);
}

absl::StatusOr<Caller> Authenticator::CheckAdmin(const MetadataLookup& context,
                                                 std::string_view full_method, bool cluster) {
  std::string header = context(kAuthorizationKey);
  constexpr absl::string_view kBearer = "Bearer ";
  if (header.empty()) return Refuse(AuthFailure::kMissingCredentials, full_method);
  if (!absl::StartsWith(header, kBearer)) return Refuse(AuthFailure::kMalformed, full_method);
  std::string token = header.substr(kBearer.size());
  if (!cluster_token_.empty() && SecretsEqual(token, cluster_token_)) {
    if (!cluster)
      return Refuse(AuthFailure::kInvalidAdminToken,
                    full_method);  // Roles' secret, not an API token.
    Caller c;
    c.credential = "cluster";
    c.access = Access::ClusterReader();
    return c;
  }
  std::string digest = Sha256Hex(token);
  const int64_t now = clock_->NowMillis();
  {
    absl::MutexLock l(&mu_);
    auto it = valid_.find(digest);
    if (it != valid_.end() && it->second.expires_ms > now) return it->second.caller;
  }
  absl::StatusOr<v1::ApiToken> found = credentials_->FindAdminToken(digest);
  if (absl::IsNotFound(found.status())) return Refuse(AuthFailure::kInvalidAdminToken, full_method);
  RETURN_IF_ERROR(found);
  const int64_t expires =
      found->has_expire_time() ? TimeUtil::TimestampToMilliseconds(found->expire_time()) : 0;
  if (found->has_revoke_time() || (expires != 0 && expires <= now)) {
    return Refuse(AuthFailure::kInvalidAdminToken, full_method);
  }
  ASSIGN_OR_RETURN(Caller caller, TokenCaller(*found, digest, full_method));
  absl::MutexLock l(&mu_);
  // Remembered briefly: a revocation, or a change to a user's role, reaches
  // every replica within that.
  valid_[digest] =
      Valid{expires != 0 ? std::min(now + kCacheMillis, expires) : now + kCacheMillis, caller};
  return caller;
}

absl::StatusOr<Caller> Authenticator::TokenCaller(const v1::ApiToken& token, std::string digest,
                                                  std::string_view full_method) {
  Caller caller;
  caller.credential = std::string(kTokenCredential) + digest;
  if (token.user().empty()) {
    caller.access.role = token.role();
    caller.access.grants = token.grants();
    return caller;
  }
  absl::StatusOr<store::StoredUser> user = credentials_->GetUser(token.user());
  // A session of a deleted user (its tokens are revoked with it; this covers
  // the moment between).
  if (absl::IsNotFound(user.status())) return Refuse(AuthFailure::kInvalidAdminToken, full_method);
  RETURN_IF_ERROR(user);
  caller.user = token.user();
  caller.access = AccessOf(user->user);
  return caller;
}

void Authenticator::Forget(const Caller& caller) {
  const std::string_view digest = TokenDigestOf(caller.credential);
  if (digest.empty()) return;
  absl::MutexLock l(&mu_);
  valid_.erase(std::string(digest));
}

void Authenticator::ForgetUser(std::string_view user) {
  absl::MutexLock l(&mu_);
  absl::erase_if(valid_, [user](const auto& entry) { return entry.second.caller.user == user; });
}

absl::StatusOr<Caller> Authenticator::CheckPassword(const MetadataLookup& context,
                                                    std::string_view full_method) {
  std::string header = context(kAuthorizationKey);
  constexpr absl::string_view kBasic = "Basic ";
  if (header.empty()) return Refuse(AuthFailure::kMissingCredentials, full_method);
  std::string decoded;
  if (!absl::StartsWith(header, kBasic) ||
      !absl::Base64Unescape(absl::string_view(header).substr(kBasic.size()), &decoded)) {
    return Refuse(AuthFailure::kMalformed, full_method);
  }
  const size_t colon = decoded.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 128)
    return Refuse(AuthFailure::kMalformed, full_method);
  const std::string name = decoded.substr(0, colon);
  const std::string password = decoded.substr(colon + 1);
  const std::string client = context(kClientAddressKey);
  const std::string name_key = absl::StrCat(name, "|", client);
  if (!login_failures_.Peek(name_key) || !client_login_failures_.Peek(client))
    return Refuse(AuthFailure::kLoginThrottled, full_method, name);
  absl::StatusOr<store::StoredUser> user = credentials_->GetUser(name);
  if (!user.ok() && !absl::IsNotFound(user.status())) return user.status();
  const bool known = user.ok();
  {
    absl::MutexLock l(&password_mu_);
    auto slot = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(password_mu_) {
      return password_checks_ < kPasswordChecksAtOnce;
    };
    if (!clock_->AwaitWithDeadline(&password_mu_, absl::Condition(&slot),
                                   clock_->Now() + kPasswordCheckWait)) {
      return absl::ResourceExhaustedError(
          "too many password checks at once; try again in a moment");
    }
    ++password_checks_;
  }
  // Verified either way, so the time taken does not tell whether the user exists.
  const bool match = VerifyPassword(password, known ? user->password_hash : DecoyHash());
  {
    absl::MutexLock l(&password_mu_);
    --password_checks_;
  }
  if (!known || !match) {
    login_failures_.Allow(name_key);
    client_login_failures_.Allow(client);
    return Refuse(AuthFailure::kWrongPassword, full_method, name);
  }
  Caller caller;
  caller.credential = "user:" + name;
  caller.user = name;
  caller.access = AccessOf(user->user);
  return caller;
}

absl::StatusOr<Caller> Authenticator::CheckGroup(const MetadataLookup& context,
                                                 std::string_view full_method) {
  std::string app = context(kAppNameKey);
  std::string token = context(kAccessTokenKey);
  if (app.empty() || token.empty())
    return Refuse(AuthFailure::kMissingCredentials, full_method, app);
  return GroupCaller(app, token, full_method);
}

absl::StatusOr<Caller> Authenticator::GroupCaller(std::string_view app, std::string_view token,
                                                  std::string_view full_method) {
  absl::StatusOr<v1::Group> group = groups_->GetGroupByApp(app);
  if (absl::IsNotFound(group.status())) return Refuse(AuthFailure::kUnknownApp, full_method, app);
  RETURN_IF_ERROR(group);
  if (SecretsEqual(token, group->access_token())) {
    return Caller{*std::move(group),
                  "app:" + std::string(app),
                  TokenFingerprint(token),
                  std::nullopt,
                  {},
                  ""};
  }
  // The token a rotation replaced, while its grace period lasts.
  const int64_t expires =
      group->has_previous_token_expire_time()
          ? TimeUtil::TimestampToMilliseconds(group->previous_token_expire_time())
          : 0;
  if (!group->previous_access_token().empty() && clock_->NowMillis() < expires &&
      SecretsEqual(token, group->previous_access_token())) {
    return Caller{
        *std::move(group), "app:" + std::string(app), TokenFingerprint(token), expires, {}, ""};
  }
  return Refuse(AuthFailure::kWrongAccessToken, full_method, app);
}

absl::StatusOr<std::optional<std::string>> Authenticator::BootstrapAdminToken(
    std::optional<std::string> given) {
  ASSIGN_OR_RETURN(bool has, credentials_->HasAdminTokens());
  if (has) return std::optional<std::string>();
  std::string token = given ? *std::move(given) : NewToken();
  absl::Status s =
      credentials_->CreateAdminToken("bootstrap", Sha256Hex(token), clock_->NowMillis());
  // Another replica may have bootstrapped concurrently; then it printed the token.
  if (absl::IsAlreadyExists(s)) return std::optional<std::string>();
  RETURN_IF_ERROR(s);
  return std::optional<std::string>(token);
}

}  // namespace gnomon
