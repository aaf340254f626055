// RegistryCore and the store it shares with the other registry replicas: an
// executor that leaves is removed from the store (the others stop routing to
// it), except when this registry is shutting down and ended the session
// itself — then the executor is moving to another replica, and removing its
// row would show the others an empty group until they next read the store.
// An executor held by another replica that restarted between two reads is
// announced with its new instance (its old instance's runs are lost).
#include "services/registry/registry_core.h"

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/store.h"

namespace gnomon::registry {
namespace {

using google::protobuf::util::TimeUtil;

class RegistryCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           absl::StrCat("registry-core-", ::testing::UnitTest::GetInstance()->random_seed(), "-",
                        ::getpid());
    std::filesystem::create_directories(dir_);
    absl::StatusOr<std::unique_ptr<store::Store>> s =
        store::OpenStore("sqlite:" + (dir_ / "gnomon.db").string(), {});
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = *std::move(s);
    RegistryOptions options;
    options.remote_refresh = absl::ZeroDuration();
    core_ = std::make_unique<RegistryCore>(store_.get(), &clock_, options);
  }
  // What another registry replica writes for an executor it holds.
  void UpsertRemote(const std::string& instance) {
    v1::ExecutorInfo info;
    info.set_app_name("billing");
    info.set_address("10.0.0.8:9999");
    info.set_instance_id(instance);
    *info.mutable_register_time() = TimeUtil::MillisecondsToTimestamp(clock_.NowMillis());
    ASSERT_TRUE(store_->UpsertExecutor(info, clock_.NowMillis(), /*registration_id=*/77).ok());
  }
  void TearDown() override {
    core_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  uint64_t Join(bool* cancelled) {
    v1::Register reg;
    reg.set_app_name("billing");
    reg.set_address("10.0.0.7:9999");
    reg.add_handlers("noop");
    absl::StatusOr<uint64_t> session = core_->Join(reg, [cancelled] { *cancelled = true; });
    EXPECT_TRUE(session.ok()) << session.status();
    return session.value_or(0);
  }
  size_t Rows() {
    absl::StatusOr<std::vector<v1::ExecutorInfo>> rows = store_->ListExecutors();
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.ok() ? rows->size() : 0;
  }

  SimulatedClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  std::filesystem::path dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<RegistryCore> core_;
};

TEST_F(RegistryCoreTest, RegistrationsPastTheAppsCapAreRefusedAndAReconnectIsNot) {
  RegistryOptions options;
  options.remote_refresh = absl::ZeroDuration();
  options.max_executors_per_app = 2;
  RegistryCore core(store_.get(), &clock_, options);
  auto reg = [](const std::string& app, const std::string& address) {
    v1::Register r;
    r.set_app_name(app);
    r.set_address(address);
    r.add_handlers("noop");
    return r;
  };
  ASSERT_TRUE(core.Join(reg("billing", "10.0.0.1:9999"), [] {}).ok());
  ASSERT_TRUE(core.Join(reg("billing", "10.0.0.2:9999"), [] {}).ok());
  absl::StatusOr<uint64_t> third = core.Join(reg("billing", "10.0.0.3:9999"), [] {});
  ASSERT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted) << third.status();
  EXPECT_TRUE(absl::StartsWith(third.status().message(), "app_name: ")) << third.status();
  EXPECT_TRUE(core.Join(reg("billing", "10.0.0.2:9999"), [] {}).ok());  // Reconnects.
  EXPECT_TRUE(core.Join(reg("orders", "10.0.0.3:9999"), [] {}).ok());   // Another app.
  core.Stop();
}

TEST_F(RegistryCoreTest, AnExecutorThatLeavesIsRemovedFromTheStore) {
  bool cancelled = false;
  const uint64_t session = Join(&cancelled);
  ASSERT_EQ(Rows(), 1u);
  core_->Leave(session, "deregistered: shutdown");
  EXPECT_EQ(Rows(), 0u);
}

TEST_F(RegistryCoreTest,
       AnExecutorDisconnectedByTheRegistrysShutdownKeepsItsRowForTheOtherReplicas) {
  bool cancelled = false;
  const uint64_t session = Join(&cancelled);
  core_->Stop();
  ASSERT_TRUE(cancelled);  // Its stream is ended, so the service calls Leave.
  core_->Leave(session, "stream cancelled");
  EXPECT_EQ(Rows(), 1u);
}

TEST_F(RegistryCoreTest, AnExecutorOfAnotherReplicaThatRestartedIsAnnouncedWithItsNewInstance) {
  RegistryOptions options;
  options.remote_refresh = absl::Seconds(1);
  RegistryCore core(store_.get(), &clock_, options);
  UpsertRemote("instance-a");
  core.StartExpiry();  // Reads the others' executors at once.
  std::shared_ptr<Watcher> watch = core.Watch({"billing"});
  std::optional<v1::WatchExecutorsResponse> snapshot = watch->Next(absl::Seconds(10));
  ASSERT_TRUE(snapshot && snapshot->snapshot().executors_size() == 1);
  EXPECT_EQ(snapshot->snapshot().executors(0).instance_id(), "instance-a");

  UpsertRemote("instance-b");  // Restarted and registered again elsewhere.
  clock_.BlockUntilWaiters(1);
  clock_.Advance(absl::Seconds(1));  // The next read of the store.
  std::optional<v1::WatchExecutorsResponse> change = watch->Next(absl::Seconds(10));
  core.Stop();
  ASSERT_TRUE(change && change->has_change());
  EXPECT_EQ(change->change().kind(), v1::EXECUTOR_CHANGE_KIND_UPDATED);
  EXPECT_EQ(change->change().executor().instance_id(), "instance-b");
}

}  // namespace
}  // namespace gnomon::registry
