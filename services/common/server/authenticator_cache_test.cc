// The Authenticator against its store, without a server: how long a valid
// token is remembered (5 s: security.md and operations.md promise a revoked
// token, a changed user, a deleted user are refused everywhere within that),
// expiry to the millisecond, and a store outage answered as Unavailable — a
// client retries that — never as a refusal, which makes it drop its
// credentials. Time is a SimulatedClock; store reads are counted, failed or
// interleaved with writes through a FailingCredentialStore.
#include <string>
#include <string_view>

#include "absl/strings/escaping.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/passwords.h"
#include "services/common/server/testing/call_metadata.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_credential_store.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon {
namespace {

using metrics::testing::SampleOf;
using store::testing::CallPhase;

constexpr int64_t kStart = 1'800'000'000'000;

class AuthenticatorCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    ASSERT_TRUE(store_->CreateAdminToken("ops", Sha256Hex("ops-token"), kStart).ok());
  }
  // Another gnomond replica: its own cache, the same store.
  Authenticator Replica() {
    return Authenticator(&credentials_, store_.get(), "cluster-token", &metrics_, &clock_);
  }
  // A JobAdmin call (GetJob: any role) carrying `token`.
  absl::StatusOr<Caller> Call(Authenticator& auth, const std::string& token,
                              std::string_view method = "GetJob",
                              std::string_view service = v1::JobAdmin::service_full_name()) {
    return auth.Authorize(testing::BearerMetadata(token), service, method);
  }
  absl::Status Refused(Authenticator& auth, const std::string& token,
                       std::string_view method = "GetJob") {
    absl::StatusOr<Caller> c = Call(auth, token, method);
    return c.ok() ? absl::OkStatus() : c.status();
  }
  void At(int64_t ms) { clock_.AdvanceTo(absl::FromUnixMillis(ms)); }
  // Fails every credential read with `s` (OK: the store is back).
  void StoreAnswers(absl::Status s) {
    hook_.Set([s](std::string_view, CallPhase phase) {
      return phase == CallPhase::kBefore ? s : absl::OkStatus();
    });
  }
  double Failures(const std::string& reason) {
    return SampleOf(registry_, "gnomon_auth_failures_total{reason=\"" + reason + "\"}")
        .value_or(-1);
  }
  void AddUser(const std::string& name, v1::Role role) {
    v1::User u;
    u.set_name(name);
    u.set_role(role);
    u.mutable_grants()->add_group_ids(1);
    ASSERT_TRUE(store_->CreateUser(u, HashPassword(name + "-password", 1000), kStart).ok());
  }

  store::testing::TempStore store_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingCredentialStore credentials_{store_.get(), &hook_};
  metrics::MetricsRegistry registry_;
  ServerMetrics metrics_{registry_};
  SimulatedClock clock_{absl::FromUnixMillis(kStart)};
  Authenticator auth_{&credentials_, store_.get(), "cluster-token", &metrics_, &clock_};
};

absl::Status Refusal() { return absl::UnauthenticatedError(kRefusedMessage); }

// A caller that goes on calling after its token is revoked (a console
// polling, a script's loop) is refused by every replica within 5 s of the
// revocation, however recently each replica saw the token valid.
TEST_F(AuthenticatorCacheTest,
       ARevokedTokenIsRefusedByEveryReplicaWithinFiveSecondsOfTheRevocation) {
  Authenticator a = Replica(), b = Replica();
  const int64_t revoked = kStart + 3'000;
  ASSERT_TRUE(Call(a, "ops-token").ok());  // Remembered until kStart + 5 s.
  At(revoked - 1);
  ASSERT_TRUE(Call(b, "ops-token").ok());  // The latest a replica can see it valid.
  At(revoked);
  ASSERT_TRUE(store_->RevokeAdminToken("ops", revoked).ok());

  const int reads = hook_.calls("FindAdminToken");
  At(kStart + 4'999);
  EXPECT_TRUE(Call(a, "ops-token").ok());  // From a's cache, without a store read.
  EXPECT_EQ(hook_.calls("FindAdminToken"), reads);
  At(kStart + 5'000);
  EXPECT_EQ(Refused(a, "ops-token"), Refusal());
  At(revoked + 4'998);
  EXPECT_TRUE(Call(b, "ops-token").ok());
  At(revoked + 4'999);
  EXPECT_EQ(Refused(b, "ops-token"), Refusal());
  Authenticator c = Replica();  // One that never saw it.
  EXPECT_EQ(Refused(c, "ops-token"), Refusal());
  EXPECT_EQ(Failures("invalid_admin_token"), 3);
}

// A refusal is not remembered: a token created after a call was refused with
// it (a typo, then the right one; a token made on another replica) works at once.
TEST_F(AuthenticatorCacheTest, ARefusedTokenIsLookedUpAgainOnEveryCall) {
  EXPECT_EQ(Refused(auth_, "new-token"), Refusal());
  ASSERT_TRUE(store_->CreateAdminToken("new", Sha256Hex("new-token"), kStart).ok());
  EXPECT_TRUE(Call(auth_, "new-token").ok());
}

// An expiry is exact: valid the millisecond before, refused from the
// millisecond it names, even when the token was remembered moments earlier
// (the cache never outlives the token).
TEST_F(AuthenticatorCacheTest, AnExpiringTokenIsRefusedFromItsExpiryToTheMillisecond) {
  const int64_t expires = kStart + 2'000;
  ASSERT_TRUE(store_->CreateAdminToken("ci", Sha256Hex("ci-token"), kStart, expires).ok());
  ASSERT_TRUE(Call(auth_, "ci-token").ok());  // Remembered, but only until it expires.
  At(expires - 1);
  EXPECT_TRUE(Call(auth_, "ci-token").ok());
  At(expires);
  EXPECT_EQ(Refused(auth_, "ci-token"), Refusal());
  // A replica that first sees it at its expiry refuses it too.
  Authenticator other = Replica();
  EXPECT_EQ(Refused(other, "ci-token"), Refusal());
}

// `user delete` revokes the user's sessions; a session remembered just
// before it ends within the same 5 s.
TEST_F(AuthenticatorCacheTest, ASessionOfADeletedUserEndsWithinFiveSeconds) {
  ASSERT_NO_FATAL_FAILURE(AddUser("alice", v1::ROLE_OPERATOR));
  ASSERT_TRUE(store_
                  ->CreateAdminToken("login.alice.1", Sha256Hex("alice-session"), kStart, 0,
                                     store::TokenScope{v1::ROLE_VIEWER, {}, "alice"})
                  .ok());
  absl::StatusOr<Caller> before = Call(auth_, "alice-session", "CreateJob");
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(before->user, "alice");
  EXPECT_EQ(before->access.role, v1::ROLE_OPERATOR);  // The user's role, not the row's.
  At(kStart + 1'000);
  ASSERT_TRUE(store_->DeleteUser("alice", kStart + 1'000).ok());
  At(kStart + 4'999);
  EXPECT_TRUE(Call(auth_, "alice-session", "CreateJob").ok());
  At(kStart + 5'000);
  EXPECT_EQ(Refused(auth_, "alice-session", "CreateJob"), Refusal());
}

// DeleteUser revokes the sessions and deletes the user in one transaction; a
// check that read the session token just before and reads the user just
// after finds a live token of no user, and refuses it.
TEST_F(AuthenticatorCacheTest, ASessionWhoseUserIsDeletedBetweenTheTwoReadsOfOneCheckIsRefused) {
  ASSERT_NO_FATAL_FAILURE(AddUser("bob", v1::ROLE_ADMIN));
  ASSERT_TRUE(store_
                  ->CreateAdminToken("login.bob.1", Sha256Hex("bob-session"), kStart, 0,
                                     store::TokenScope{v1::ROLE_ADMIN, {}, "bob"})
                  .ok());
  hook_.Set([this](std::string_view call, CallPhase phase) {
    if (call == "FindAdminToken" && phase == CallPhase::kAfter) {
      EXPECT_TRUE(store_->DeleteUser("bob", kStart).ok());  // Commits between the reads.
    }
    return absl::OkStatus();
  });
  EXPECT_EQ(Refused(auth_, "bob-session"), Refusal());
  EXPECT_EQ(Failures("invalid_admin_token"), 1);
  hook_.Set(nullptr);
  EXPECT_EQ(Refused(auth_, "bob-session"), Refusal());  // Not remembered as valid.
}

// A store outage is Unavailable (the client retries) for every kind of
// credential the store holds — never a refusal, never counted as one, and
// never with the store's own error (the caller may not have authenticated).
TEST_F(AuthenticatorCacheTest, AStoreOutageIsUnavailableNotARefusal) {
  ASSERT_NO_FATAL_FAILURE(AddUser("carol", v1::ROLE_OPERATOR));
  ASSERT_TRUE(store_
                  ->CreateAdminToken("login.carol.1", Sha256Hex("carol-session"), kStart, 0,
                                     store::TokenScope{v1::ROLE_OPERATOR, {}, "carol"})
                  .ok());
  const absl::Status down = absl::UnavailableError("store: connection refused");
  const absl::Status unverifiable = absl::UnavailableError(kUnverifiableMessage);
  StoreAnswers(down);
  EXPECT_EQ(Refused(auth_, "ops-token"), unverifiable);
  EXPECT_EQ(Refused(auth_, "carol-session"), unverifiable);
  absl::StatusOr<Caller> login = auth_.Authorize(
      [](std::string_view key) {
        return key == kAuthorizationKey ? "Basic " + absl::Base64Escape("carol:carol-password")
                                        : std::string();
      },
      v1::JobAdmin::service_full_name(), "Login");
  EXPECT_EQ(login.status(), unverifiable);
  // At start-up, gnomond's own call: the store's error, for its log.
  EXPECT_EQ(auth_.BootstrapAdminToken("a-new-bootstrap-token-of-32-characters").status(), down);
  EXPECT_EQ(Failures("invalid_admin_token"), 0);
  EXPECT_EQ(Failures("wrong_password"), 0);

  // Only the session's user read fails: still Unavailable.
  hook_.Set([&](std::string_view call, CallPhase phase) {
    return call == "GetUser" && phase == CallPhase::kBefore ? down : absl::OkStatus();
  });
  EXPECT_EQ(Refused(auth_, "carol-session"), unverifiable);

  StoreAnswers(absl::OkStatus());
  EXPECT_TRUE(Call(auth_, "ops-token").ok());
  EXPECT_TRUE(Call(auth_, "carol-session").ok());
}

// A token seen valid moments before an outage keeps working through its
// first seconds (the cache), then the outage shows as Unavailable.
TEST_F(AuthenticatorCacheTest, ATokenSeenBeforeAStoreOutageWorksUntilItsCacheWindowEnds) {
  ASSERT_TRUE(Call(auth_, "ops-token").ok());
  StoreAnswers(absl::UnavailableError("store down"));
  At(kStart + 4'999);
  EXPECT_TRUE(Call(auth_, "ops-token").ok());
  At(kStart + 5'000);
  EXPECT_THAT(Call(auth_, "ops-token"), StatusIs(absl::StatusCode::kUnavailable));
  // Roles keep authenticating each other: the cluster token needs no store read.
  EXPECT_TRUE(
      Call(auth_, "cluster-token", "WatchExecutors", v1::Registry::service_full_name()).ok());
}

}  // namespace
}  // namespace gnomon
