#include "services/common/server/authenticator.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/server/tokens.h"

namespace gnomon {
namespace {
constexpr int64_t kCacheMillis = 30'000;
}  // namespace

std::string MetadataValue(const grpc::ServerContext& context, std::string_view key) {
  const auto& md = context.client_metadata();
  auto it = md.find(grpc::string_ref(key.data(), key.size()));
  if (it == md.end()) return "";
  return std::string(it->second.data(), it->second.size());
}

Authenticator::Authenticator(store::Store* store, std::string cluster_token, ServerMetrics* metrics,
                             Clock* clock)
    : store_(store), cluster_token_(std::move(cluster_token)), metrics_(metrics), clock_(clock) {}

absl::Status Authenticator::Refuse(AuthFailure reason, absl::Status status) {
  if (metrics_ != nullptr) metrics_->AuthFailed(reason);
  return status;
}

absl::Status Authenticator::CheckAdmin(const grpc::ServerContext& context) {
  std::string header = MetadataValue(context, kAuthorizationKey);
  constexpr absl::string_view kBearer = "Bearer ";
  if (header.empty()) {
    return Refuse(AuthFailure::kMissingCredentials,
                  absl::UnauthenticatedError("missing \"authorization: Bearer <token>\" metadata"));
  }
  if (!absl::StartsWith(header, kBearer)) {
    return Refuse(AuthFailure::kMalformed,
                  absl::UnauthenticatedError("authorization metadata must be \"Bearer <token>\""));
  }
  std::string token = header.substr(kBearer.size());
  if (!cluster_token_.empty() && SecretsEqual(token, cluster_token_)) return absl::OkStatus();
  std::string digest = Sha256Hex(token);
  int64_t now = clock_->NowMillis();
  {
    absl::MutexLock l(&mu_);
    auto it = valid_.find(digest);
    if (it != valid_.end() && it->second > now) return absl::OkStatus();
  }
  absl::StatusOr<std::string> name = store_->FindAdminToken(digest);
  if (absl::IsNotFound(name.status())) {
    return Refuse(AuthFailure::kInvalidAdminToken, absl::UnauthenticatedError("invalid admin token"));
  }
  if (!name.ok()) return name.status();
  absl::MutexLock l(&mu_);
  valid_[digest] = now + kCacheMillis;
  return absl::OkStatus();
}

absl::StatusOr<v1::Group> Authenticator::CheckGroup(const grpc::ServerContext& context,
                                                    std::string_view app_name) {
  std::string token = MetadataValue(context, kAccessTokenKey);
  if (token.empty()) {
    return Refuse(AuthFailure::kMissingCredentials,
                  absl::UnauthenticatedError(
                      absl::StrCat("missing \"", std::string(kAccessTokenKey), "\" metadata")));
  }
  absl::StatusOr<v1::Group> group = store_->GetGroupByApp(app_name);
  if (absl::IsNotFound(group.status())) {
    return Refuse(AuthFailure::kUnknownApp,
                  absl::NotFoundError(absl::StrCat("app_name: no group for app \"", std::string(app_name),
                                                   "\"; create it first")));
  }
  if (!group.ok()) return group.status();
  if (!SecretsEqual(token, group->access_token())) {
    return Refuse(AuthFailure::kWrongAccessToken,
                  absl::UnauthenticatedError(
                      absl::StrCat("wrong access token for app \"", std::string(app_name), "\"")));
  }
  return group;
}

absl::StatusOr<std::optional<std::string>> Authenticator::BootstrapAdminToken() {
  absl::StatusOr<bool> has = store_->HasAdminTokens();
  if (!has.ok()) return has.status();
  if (*has) return std::optional<std::string>();
  std::string token = NewToken();
  absl::Status s = store_->CreateAdminToken("bootstrap", Sha256Hex(token), clock_->NowMillis());
  // Another replica may have bootstrapped concurrently; then it printed the token.
  if (absl::IsAlreadyExists(s)) return std::optional<std::string>();
  if (!s.ok()) return s;
  return std::optional<std::string>(token);
}

}  // namespace gnomon
