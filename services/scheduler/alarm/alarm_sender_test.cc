#include "services/scheduler/alarm/alarm_sender.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/test_servers.h"
#include "services/scheduler/alarm/webhook_channel.h"

namespace gnomon::scheduler::alarm {
namespace {

using ::testing::EndsWith;
using ::testing::StartsWith;

// Generous real-time bound for waits that should finish promptly; only
// reached when something is broken (never a timing assertion).
constexpr absl::Duration kPatience = absl::Seconds(60);

// Records statuses reported per run.
class StatusLog {
 public:
  AlarmStatusCallback Callback() {
    return [this](int64_t run_id, const std::string& status) {
      absl::MutexLock l(&mu_);
      statuses_[run_id] = status;
    };
  }
  std::map<int64_t, std::string> statuses() const {
    absl::MutexLock l(&mu_);
    return statuses_;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<int64_t, std::string> statuses_ ABSL_GUARDED_BY(mu_);
};

// A channel whose Send answers from a script (then OK), optionally blocking
// until released.
class FakeChannel final : public AlarmChannel {
 public:
  explicit FakeChannel(std::string name, std::deque<absl::Status> script = {})
      : name_(std::move(name)), script_(std::move(script)) {}

  std::string name() const override { return name_; }
  bool Wants(const v1::Job& job) const override { return job.description() != "nobody"; }
  absl::Status Send(const Alarm& alarm) override {
    {
      absl::MutexLock l(&mu_);
      ++entered_;
      sent_run_ids_.push_back(alarm.run.id());
      auto released = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !blocking_; };
      mu_.Await(absl::Condition(&released));
      if (!script_.empty()) {
        absl::Status s = script_.front();
        script_.pop_front();
        return s;
      }
    }
    return absl::OkStatus();
  }

  void Block() {
    absl::MutexLock l(&mu_);
    blocking_ = true;
  }
  void Release() {
    absl::MutexLock l(&mu_);
    blocking_ = false;
  }
  void AwaitEntered(int n) {
    absl::MutexLock l(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return entered_ >= n; };
    mu_.Await(absl::Condition(&enough));
  }
  std::vector<int64_t> sent_run_ids() const {
    absl::MutexLock l(&mu_);
    return sent_run_ids_;
  }

 private:
  const std::string name_;
  mutable absl::Mutex mu_;
  std::deque<absl::Status> script_ ABSL_GUARDED_BY(mu_);
  bool blocking_ ABSL_GUARDED_BY(mu_) = false;
  int entered_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int64_t> sent_run_ids_ ABSL_GUARDED_BY(mu_);
};

Alarm AlarmFor(int64_t run_id, std::vector<std::string> webhook_urls = {}) {
  Alarm a;
  a.job.set_id(1);
  a.job.set_description("job one");
  for (auto& url : webhook_urls) a.job.mutable_alarm()->add_webhook_urls(url);
  a.run.set_id(run_id);
  a.run.set_first_run_id(run_id);
  a.reason = "retries exhausted";
  return a;
}

template <typename... C>
std::vector<std::unique_ptr<AlarmChannel>> Channels(std::unique_ptr<C>... channels) {
  std::vector<std::unique_ptr<AlarmChannel>> v;
  (v.push_back(std::move(channels)), ...);
  return v;
}

bool AwaitFinished(const AlarmSender& sender, int64_t n) {
  return sender.AwaitCounters([n](const AlarmCounters& c) { return c.finished >= n; }, kPatience);
}
bool AwaitRetries(const AlarmSender& sender, int64_t n) {
  return sender.AwaitCounters([n](const AlarmCounters& c) { return c.retries >= n; }, kPatience);
}

TEST(AlarmSenderTest, AWebhookAnswering500IsRetriedOnTheClockThenSucceeds) {
  loopback::HttpServer server;
  server.SetStatuses({500}, 200);
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  StatusLog log;
  AlarmSenderOptions o;
  o.clock = &clock;
  AlarmSender sender(Channels(std::make_unique<WebhookChannel>(WebhookOptions{absl::Seconds(10)})),
                     o, log.Callback());
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmFor(7, {server.Url("/hook")})));
  ASSERT_TRUE(AwaitRetries(sender, 1));
  EXPECT_EQ(server.requests().size(), 1u);  // The retry waits for the clock.
  clock.Advance(o.max_backoff);
  ASSERT_TRUE(AwaitFinished(sender, 1));
  EXPECT_EQ(log.statuses().at(7), "sent: webhook");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].body, AlarmJson(AlarmFor(7, {server.Url("/hook")})));
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.sent, 1);
  EXPECT_EQ(c.failed, 0);
  EXPECT_EQ(c.retries, 1);
  sender.Stop();
}

TEST(AlarmSenderTest, AUrlNobodyListensOnFailsWithAClearStatusAfterTheRetries) {
  std::string url = absl::StrCat("http://127.0.0.1:", loopback::UnusedPort(), "/hook");
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  StatusLog log;
  AlarmSenderOptions o;
  o.clock = &clock;
  o.max_attempts = 5;
  AlarmSender sender(Channels(std::make_unique<WebhookChannel>(WebhookOptions{absl::Seconds(10)})),
                     o, log.Callback());
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmFor(9, {url})));
  for (int retry = 1; retry <= 4; ++retry) {
    ASSERT_TRUE(AwaitRetries(sender, retry));
    clock.Advance(o.max_backoff);
  }
  ASSERT_TRUE(AwaitFinished(sender, 1));
  std::string status = log.statuses().at(9);
  EXPECT_THAT(status, StartsWith("failed: webhook " + url + ": "));
  EXPECT_THAT(status, EndsWith(" after 5 attempts"));
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(c.sent, 0);
  EXPECT_EQ(c.retries, 4);
}

TEST(AlarmSenderTest, AFullQueueDropsAndCountsWithoutBlocking) {
  auto channel = std::make_unique<FakeChannel>("fake");
  FakeChannel* fake = channel.get();
  fake->Block();
  StatusLog log;
  AlarmSenderOptions o;
  o.queue_capacity = 3;
  AlarmSender sender(Channels(std::move(channel)), o, log.Callback());
  sender.Start();
  EXPECT_TRUE(sender.Raise(AlarmFor(1)));
  fake->AwaitEntered(1);  // The worker is stuck in Send with alarm 1.
  EXPECT_TRUE(sender.Raise(AlarmFor(2)));
  EXPECT_TRUE(sender.Raise(AlarmFor(3)));
  EXPECT_FALSE(sender.Raise(AlarmFor(4)));
  EXPECT_FALSE(sender.Raise(AlarmFor(5)));
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.raised, 5);
  EXPECT_EQ(c.dropped, 2);
  fake->Release();
  ASSERT_TRUE(AwaitFinished(sender, 3));
  EXPECT_THAT(fake->sent_run_ids(), ::testing::ElementsAre(1, 2, 3));
  // Room again once delivered.
  EXPECT_TRUE(sender.Raise(AlarmFor(6)));
  ASSERT_TRUE(AwaitFinished(sender, 4));
  EXPECT_EQ(log.statuses().size(), 4u);
}

TEST(AlarmSenderTest, ABlockedChannelDoesNotStopRaiseFromReturning) {
  auto channel = std::make_unique<FakeChannel>("stuck");
  FakeChannel* fake = channel.get();
  fake->Block();
  AlarmSender sender(Channels(std::move(channel)), {}, nullptr);
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmFor(1)));
  fake->AwaitEntered(1);
  // Every Raise returns while the only channel is stuck (a blocking Raise
  // would hang here, caught by the test timeout).
  for (int i = 2; i <= 1000; ++i) ASSERT_TRUE(sender.Raise(AlarmFor(i)));
  EXPECT_EQ(sender.counters().raised, 1000);
  fake->Release();
  ASSERT_TRUE(AwaitFinished(sender, 1000));
  EXPECT_EQ(sender.counters().sent, 1000);
}

TEST(AlarmSenderTest, AWaitingRetryDoesNotHoldUpOtherAlarms) {
  SimulatedClock clock(absl::FromUnixSeconds(0));
  StatusLog log;
  AlarmSenderOptions o;
  o.clock = &clock;
  AlarmSender sender(Channels(std::make_unique<FakeChannel>(
                         "fake", std::deque<absl::Status>{absl::UnavailableError("down")})),
                     o, log.Callback());
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmFor(1)));  // First attempt fails.
  ASSERT_TRUE(sender.Raise(AlarmFor(2)));
  // Alarm 2 is delivered while alarm 1 waits for its retry; time stands still.
  ASSERT_TRUE(AwaitFinished(sender, 1));
  EXPECT_EQ(log.statuses().count(1), 0u);
  EXPECT_EQ(log.statuses().at(2), "sent: fake");
  clock.Advance(o.max_backoff);
  ASSERT_TRUE(AwaitFinished(sender, 2));
  EXPECT_EQ(log.statuses().at(1), "sent: fake");
}

TEST(AlarmSenderTest, StatusNamesEveryChannelAndPermanentErrorsAreNotRetried) {
  StatusLog log;
  AlarmSender sender(Channels(std::make_unique<FakeChannel>("webhook"),
                              std::make_unique<FakeChannel>(
                                  "email", std::deque<absl::Status>{absl::InvalidArgumentError(
                                               "invalid recipient \"x\"")})),
                     {}, log.Callback());
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmFor(3)));
  Alarm nobody = AlarmFor(4);
  nobody.job.set_description("nobody");  // No channel wants it.
  ASSERT_TRUE(sender.Raise(nobody));
  ASSERT_TRUE(AwaitFinished(sender, 2));
  EXPECT_EQ(log.statuses().at(3),
            "sent: webhook; failed: email invalid recipient \"x\" after 1 attempt");
  EXPECT_EQ(log.statuses().at(4), "not sent: no alarm targets");
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.sent, 1);
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(c.retries, 0);
  EXPECT_EQ(c.sent_by_channel, (std::map<std::string, int64_t>{{"webhook", 1}}));
  EXPECT_EQ(c.failed_by_channel, (std::map<std::string, int64_t>{{"email", 1}}));
}

TEST(AlarmSenderTest, StopAbandonsPendingAlarmsAndLaterRaisesAreDropped) {
  SimulatedClock clock(absl::FromUnixSeconds(0));
  StatusLog log;
  AlarmSenderOptions o;
  o.clock = &clock;
  AlarmSender sender(Channels(std::make_unique<FakeChannel>(
                         "fake", std::deque<absl::Status>{absl::UnavailableError("down")})),
                     o, log.Callback());
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmFor(1)));
  ASSERT_TRUE(AwaitRetries(sender, 1));
  sender.Stop();
  EXPECT_FALSE(sender.Raise(AlarmFor(2)));
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.abandoned, 1);
  EXPECT_EQ(c.dropped, 1);
  EXPECT_TRUE(log.statuses().empty());
}

}  // namespace
}  // namespace gnomon::scheduler::alarm
