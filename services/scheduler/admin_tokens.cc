// AdminCore, API tokens: created with a secret shown once (only its SHA-256
// is stored), listed without secrets, revoked.
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/tokens.h"
#include "services/scheduler/admin_core.h"

namespace gnomon::scheduler {

using google::protobuf::util::TimeUtil;

namespace {

constexpr absl::Duration kMaxTokenTtl = absl::Hours(24 * 3650);

absl::Status CheckTokenName(const std::string& name) {
  return checks::CheckString("name", name, 128, checks::Charset::kName, 1);
}

}  // namespace

absl::StatusOr<v1::CreateTokenResponse> AdminCore::CreateToken(const v1::CreateTokenRequest& req) {
  if (absl::Status s = checks::FirstError(
          {CheckTokenName(req.name()),
           req.has_ttl() ? checks::CheckDuration("ttl", req.ttl(), absl::Seconds(1), kMaxTokenTtl)
                         : absl::OkStatus()});
      !s.ok()) {
    return s;
  }
  const int64_t now = clock_->NowMillis();
  const int64_t expire = req.has_ttl() ? now + TimeUtil::DurationToMilliseconds(req.ttl()) : 0;
  v1::CreateTokenResponse resp;
  resp.set_secret(NewToken());
  const std::string digest = Sha256Hex(resp.secret());
  if (absl::Status s = store_->CreateAdminToken(req.name(), digest, now, expire); !s.ok()) {
    if (absl::IsAlreadyExists(s)) {
      return absl::AlreadyExistsError(absl::StrCat("name: a token named ", checks::Prefix(req.name()), " exists"));
    }
    return s;
  }
  v1::ApiToken& t = *resp.mutable_token();  // As stored (TokenFromRow).
  t.set_name(req.name());
  t.set_fingerprint(digest.substr(0, 16));
  *t.mutable_create_time() = TimeUtil::MillisecondsToTimestamp(now);
  if (expire != 0) *t.mutable_expire_time() = TimeUtil::MillisecondsToTimestamp(expire);
  return resp;
}

absl::StatusOr<v1::ListTokensResponse> AdminCore::ListTokens() {
  absl::StatusOr<std::vector<v1::ApiToken>> tokens = store_->ListAdminTokens();
  if (!tokens.ok()) return tokens.status();
  v1::ListTokensResponse resp;
  for (v1::ApiToken& t : *tokens) *resp.add_tokens() = std::move(t);
  return resp;
}

absl::StatusOr<v1::ApiToken> AdminCore::RevokeToken(const v1::RevokeTokenRequest& req) {
  if (absl::Status s = CheckTokenName(req.name()); !s.ok()) return s;
  return store_->RevokeAdminToken(req.name(), clock_->NowMillis());
}

}  // namespace gnomon::scheduler
