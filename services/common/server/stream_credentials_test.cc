// StreamCredentials: a stream that outlives its credential ends. A token
// revoked or a user deleted while a stream is open (a console following a
// run's log, a watch) is refused within 6 s of the change (the
// Authenticator's 5 s memory, then the next check: docs/security.md); a
// user's grants narrowed below what the stream reads are refused; an
// executor's session on a rotated-out token ends when its grace period does;
// a store outage ends nothing. Time is a SimulatedClock over a real SQLite
// store; reads are counted through the failing-store decorators.
#include "services/common/server/stream_credentials.h"

#include <string>
#include <string_view>

#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "gtest/gtest.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/passwords.h"
#include "services/common/server/testing/call_metadata.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_credential_store.h"
#include "services/common/store/testing/failing_job_store.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon {
namespace {

using store::testing::CallPhase;
using testing::AppMetadata;
using testing::BearerMetadata;

constexpr int64_t kStart = 1'800'000'000'000;

class StreamCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    ASSERT_TRUE(store_->CreateAdminToken("ops", Sha256Hex("ops-token"), kStart).ok());
  }
  // A StreamRunLog opened now with `metadata`, checked every second.
  StreamCredentials OpenLogStream(const Authenticator::MetadataLookup& metadata) {
    return Open(metadata, v1::LogService::service_full_name(), "StreamRunLog", kBearerRecheck);
  }
  StreamCredentials Open(const Authenticator::MetadataLookup& metadata, std::string_view service,
                         std::string_view method, absl::Duration every) {
    absl::StatusOr<Caller> opened = auth_.Authorize(metadata, service, method);
    EXPECT_TRUE(opened.ok()) << opened.status();
    return StreamCredentials(&auth_, metadata, service, method, opened.value_or(Caller{}), every,
                             &clock_);
  }
  void At(int64_t ms) { clock_.AdvanceTo(absl::FromUnixMillis(ms)); }
  // Checks every 100 ms from now until `until`; when the first refusal came
  // (0: none), which `refusal` receives.
  int64_t FirstRefusal(StreamCredentials& creds, int64_t until, absl::Status* refusal,
                       const StreamCredentials::Reach& reach = nullptr) {
    for (int64_t t = clock_.NowMillis(); t <= until; t += 100) {
      At(t);
      if (absl::Status s = creds.Check(reach); !s.ok()) {
        *refusal = s;
        return t;
      }
    }
    return 0;
  }
  void AddUser(const std::string& name, v1::Role role, std::vector<int64_t> groups) {
    v1::User u;
    u.set_name(name);
    u.set_role(role);
    for (int64_t g : groups) u.mutable_grants()->add_group_ids(g);
    ASSERT_TRUE(store_->CreateUser(u, HashPassword(name + "-password", 1000), kStart).ok());
    ASSERT_TRUE(store_
                    ->CreateAdminToken("login." + name, Sha256Hex(name + "-session"), kStart, 0,
                                       store::TokenScope{v1::ROLE_VIEWER, {}, name})
                    .ok());
  }

  store::testing::TempStore store_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingCredentialStore credentials_{store_.get(), &hook_};
  store::testing::FailingJobStore groups_{store_.get(), &hook_};
  SimulatedClock clock_{absl::FromUnixMillis(kStart)};
  Authenticator auth_{&credentials_, &groups_, "cluster-token", nullptr, &clock_};
};

absl::Status Refusal() { return absl::UnauthenticatedError(kRefusedMessage); }

// The worst case: the token was seen valid just before its revocation, so
// the Authenticator remembers it 5 s more; the stream's next check after
// that refuses it — within 6 s of the revocation, never before the 5 s.
TEST_F(StreamCredentialsTest, AStreamOfARevokedTokenEndsWithinSixSecondsOfTheRevocation) {
  StreamCredentials creds = OpenLogStream(BearerMetadata("ops-token"));  // Remembered until +5 s.
  At(kStart + 1);
  ASSERT_TRUE(store_->RevokeAdminToken("ops", kStart + 1).ok());
  absl::Status refusal;
  const int64_t refused = FirstRefusal(creds, kStart + 20'000, &refusal);
  EXPECT_EQ(refusal, Refusal());
  EXPECT_GE(refused, kStart + 5'000);
  EXPECT_LE(refused, kStart + 1 + 6'000);
}

// Between checks nothing is asked; an executor's session (its group's token
// is read from the store) is checked every 10 s.
TEST_F(StreamCredentialsTest, ChecksAreSpacedByTheirInterval) {
  ASSERT_TRUE(store_.AddGroup("billing", "app-token", kStart).ok());
  StreamCredentials creds = Open(AppMetadata("billing", "app-token"),
                                 v1::Registry::service_full_name(), "Session", kGroupRecheck);
  const int reads = hook_.calls("GetGroupByApp");
  for (int64_t t = kStart; t < kStart + 10'000; t += 100) {
    At(t);
    ASSERT_THAT(creds.Check(), IsOk());
  }
  EXPECT_EQ(hook_.calls("GetGroupByApp"), reads);
  At(kStart + 10'000);
  EXPECT_THAT(creds.Check(), IsOk());
  EXPECT_EQ(hook_.calls("GetGroupByApp"), reads + 1);
}

// `user delete` revokes the user's sessions: its open streams end too.
TEST_F(StreamCredentialsTest, AStreamOfADeletedUsersSessionEnds) {
  ASSERT_NO_FATAL_FAILURE(AddUser("alice", v1::ROLE_VIEWER, {1}));
  StreamCredentials creds = OpenLogStream(BearerMetadata("alice-session"));
  ASSERT_TRUE(store_->DeleteUser("alice", kStart).ok());
  absl::Status refusal;
  EXPECT_LE(FirstRefusal(creds, kStart + 20'000, &refusal), kStart + 6'000);
  EXPECT_EQ(refusal, Refusal());
}

// A user's grants narrowed while it follows a run of group 1: what the
// stream reads is checked again with the new access, and the stream is
// refused when that no longer reaches it. Unchanged access is not checked again.
TEST_F(StreamCredentialsTest, AStreamWhoseUsersGrantsNoLongerReachWhatItReadsIsRefused) {
  ASSERT_NO_FATAL_FAILURE(AddUser("bob", v1::ROLE_VIEWER, {1, 2}));
  StreamCredentials creds = OpenLogStream(BearerMetadata("bob-session"));
  int reach_checks = 0;
  auto reaches_group_1 = [&](const Access& access) {
    ++reach_checks;
    return access.CheckGroup(1);
  };
  absl::Status refusal;
  EXPECT_EQ(FirstRefusal(creds, kStart + 20'000, &refusal, reaches_group_1), 0);
  EXPECT_EQ(reach_checks, 0);

  absl::StatusOr<store::StoredUser> bob = store_->GetUser("bob");
  ASSERT_TRUE(bob.ok()) << bob.status();
  bob->user.mutable_grants()->clear_group_ids();
  bob->user.mutable_grants()->add_group_ids(1);  // Still reaches group 1.
  ASSERT_TRUE(store_->UpdateUser(bob->user, std::nullopt, clock_.NowMillis()).ok());
  EXPECT_EQ(FirstRefusal(creds, clock_.NowMillis() + 20'000, &refusal, reaches_group_1), 0);
  EXPECT_EQ(reach_checks, 1);  // Once, when the access changed.

  bob->user.mutable_grants()->clear_group_ids();
  bob->user.mutable_grants()->add_group_ids(2);
  const int64_t changed = clock_.NowMillis();
  ASSERT_TRUE(store_->UpdateUser(bob->user, std::nullopt, changed).ok());
  EXPECT_LE(FirstRefusal(creds, changed + 20'000, &refusal, reaches_group_1), changed + 6'000);
  EXPECT_THAT(refusal, StatusIs(absl::StatusCode::kPermissionDenied));
}

// A store that cannot answer refuses nothing (a store restart must not cut
// every console's live log); the refusal comes once it answers again.
TEST_F(StreamCredentialsTest, AStoreOutageEndsNoStream) {
  StreamCredentials creds = OpenLogStream(BearerMetadata("ops-token"));
  ASSERT_TRUE(store_->RevokeAdminToken("ops", kStart).ok());
  hook_.Set([](std::string_view, CallPhase phase) {
    return phase == CallPhase::kBefore ? absl::UnavailableError("store down") : absl::OkStatus();
  });
  absl::Status refusal;
  EXPECT_EQ(FirstRefusal(creds, kStart + 30'000, &refusal), 0);
  hook_.Set(nullptr);
  EXPECT_LE(FirstRefusal(creds, clock_.NowMillis() + 20'000, &refusal), kStart + 31'100);
  EXPECT_EQ(refusal, Refusal());
}

// An executor's session after a rotation: its old token works until the
// grace period's last millisecond (the executor is told until when), and
// not at all once its group is deleted.
TEST_F(StreamCredentialsTest, ASessionOnARotatedOutTokenEndsWithItsGracePeriod) {
  absl::StatusOr<v1::Group> group = store_.AddGroup("billing", "old-token", kStart);
  ASSERT_TRUE(group.ok()) << group.status();
  StreamCredentials old = Open(AppMetadata("billing", "old-token"),
                               v1::Registry::service_full_name(), "Session", kGroupRecheck);
  const int64_t grace_ends = kStart + 60'000;
  group->set_access_token("new-token");
  group->set_previous_access_token("old-token");
  group->mutable_previous_token_expire_time()->set_seconds(grace_ends / 1000);
  ASSERT_TRUE(store_->UpdateGroup(*group, kStart).ok());

  At(grace_ends - 1);
  ASSERT_THAT(old.Check(), IsOk());
  EXPECT_EQ(old.caller().token_expires_ms, grace_ends);
  StreamCredentials current = Open(AppMetadata("billing", "new-token"),
                                   v1::Registry::service_full_name(), "Session", kGroupRecheck);
  At(grace_ends - 1 + 10'000);
  EXPECT_EQ(old.Check(), Refusal());
  ASSERT_THAT(current.Check(), IsOk());
  EXPECT_FALSE(current.caller().token_expires_ms.has_value());

  ASSERT_TRUE(store_->DeleteGroup(group->id()).ok());
  At(grace_ends - 1 + 20'000);
  EXPECT_EQ(current.Check(), Refusal());
}

}  // namespace
}  // namespace gnomon
