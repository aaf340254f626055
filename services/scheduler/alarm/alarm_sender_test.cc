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
#include "services/scheduler/alarm/testing/test_servers.h"
#include "services/scheduler/alarm/webhook_channel.h"

namespace gnomon::scheduler::alarm {
namespace {

// The test's webhook servers are on 127.0.0.1, which the default refuses.
WebhookOptions LoopbackWebhooks() {
  WebhookOptions o;
  o.allow = *WebhookAllowList("127.0.0.1");
  return o;
}

using ::testing::EndsWith;
using ::testing::HasSubstr;
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
      sent_.push_back(alarm);
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
  // Every alarm Send was called with, in order (retries included).
  std::vector<Alarm> sent() const {
    absl::MutexLock l(&mu_);
    return sent_;
  }

 private:
  const std::string name_;
  mutable absl::Mutex mu_;
  std::deque<absl::Status> script_ ABSL_GUARDED_BY(mu_);
  bool blocking_ ABSL_GUARDED_BY(mu_) = false;
  int entered_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<int64_t> sent_run_ids_ ABSL_GUARDED_BY(mu_);
  std::vector<Alarm> sent_ ABSL_GUARDED_BY(mu_);
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

// An alarm of job `job_id` for run `run_id`, which ended at `end_s` (Unix
// seconds; 0: no end time).
Alarm AlarmOf(int64_t job_id, int64_t run_id, int64_t end_s = 0) {
  Alarm a = AlarmFor(run_id);
  a.job.set_id(job_id);
  a.job.set_description(absl::StrCat("job ", job_id));
  if (end_s != 0) a.run.mutable_end_time()->set_seconds(end_s);
  a.reason = absl::StrCat("run ", run_id, " failed");
  return a;
}

template <typename... C>
std::vector<std::unique_ptr<AlarmChannel>> Channels(std::unique_ptr<C>... channels) {
  std::vector<std::unique_ptr<AlarmChannel>> v;
  (v.push_back(std::move(channels)), ...);
  return v;
}

// A started sender on a simulated clock over one FakeChannel ("fake")
// whose first Sends answer `script` (then OK).
struct OverFake {
  explicit OverFake(std::deque<absl::Status> script)
      : fake(new FakeChannel("fake", std::move(script))),
        sender(Channels(std::unique_ptr<FakeChannel>(fake)), Options(&clock), log.Callback()) {
    sender.Start();
  }
  static AlarmSenderOptions Options(Clock* clock) {
    AlarmSenderOptions o;
    o.clock = clock;
    return o;
  }

  SimulatedClock clock{absl::FromUnixSeconds(1000)};
  StatusLog log;
  FakeChannel* fake;  // Owned by the sender.
  AlarmSender sender;
};

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
  AlarmSender sender(Channels(std::make_unique<WebhookChannel>(LoopbackWebhooks())), o,
                     log.Callback());
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
  AlarmSender sender(Channels(std::make_unique<WebhookChannel>(LoopbackWebhooks())), o,
                     log.Callback());
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmFor(9, {url})));
  for (int retry = 1; retry <= 4; ++retry) {
    ASSERT_TRUE(AwaitRetries(sender, retry));
    clock.Advance(o.max_backoff);
  }
  ASSERT_TRUE(AwaitFinished(sender, 1));
  std::string status = log.statuses().at(9);
  EXPECT_THAT(status, StartsWith("failed: webhook " + curl::UrlOrigin(url) + ": "));
  EXPECT_THAT(status, EndsWith(" after 5 attempts"));
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.failed, 1);
  EXPECT_EQ(c.sent, 0);
  EXPECT_EQ(c.retries, 4);
}

TEST(AlarmSenderTest, AFullQueueFoldsAlarmsIntoSummariesWithoutBlockingOrDropping) {
  auto channel = std::make_unique<FakeChannel>("fake");
  FakeChannel* fake = channel.get();
  fake->Block();
  StatusLog log;
  AlarmSenderOptions o;
  o.queue_capacity = 3;
  AlarmSender sender(Channels(std::move(channel)), o, log.Callback());
  sender.Start();
  EXPECT_TRUE(sender.Raise(AlarmOf(1, 1)));
  fake->AwaitEntered(1);  // The worker is stuck in Send with job 1's alarm.
  EXPECT_TRUE(sender.Raise(AlarmOf(2, 2)));
  EXPECT_TRUE(sender.Raise(AlarmOf(3, 3)));
  // The queue is full: jobs 4 and 5 wait as summaries, accepted all the same.
  EXPECT_TRUE(sender.Raise(AlarmOf(4, 4)));
  EXPECT_TRUE(sender.Raise(AlarmOf(5, 5)));
  EXPECT_TRUE(sender.Raise(AlarmOf(4, 6)));
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.raised, 6);
  EXPECT_EQ(c.aggregated, 3);
  EXPECT_EQ(c.dropped, 0);
  AlarmBacklog b = sender.backlog();
  EXPECT_EQ(b.queued, 3u);
  EXPECT_EQ(b.summaries, 2u);
  EXPECT_EQ(b.summarized_runs, 3);
  fake->Release();
  ASSERT_TRUE(AwaitFinished(sender, 5));
  // Each summary goes out once there is room, oldest first, as one alarm for
  // its latest run.
  EXPECT_THAT(fake->sent_run_ids(), ::testing::ElementsAre(1, 2, 3, 6, 5));
  std::vector<Alarm> sent = fake->sent();
  EXPECT_EQ(sent[3].failed_runs, 2);
  EXPECT_EQ(sent[3].reason, "run 6 failed");
  EXPECT_EQ(sent[4].failed_runs, 1);
  std::map<int64_t, std::string> statuses = log.statuses();
  EXPECT_EQ(statuses.at(6), "sent: fake (for 2 runs)");
  EXPECT_EQ(statuses.at(5), "sent: fake");
  EXPECT_EQ(statuses.count(4), 0u);  // Folded into run 6's summary.
  // Room again once delivered.
  EXPECT_TRUE(sender.Raise(AlarmOf(7, 7)));
  ASSERT_TRUE(AwaitFinished(sender, 6));
  EXPECT_EQ(sender.counters().aggregated, 3);
  EXPECT_EQ(log.statuses().size(), 6u);
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
  // One job each, so none is folded into another's summary.
  for (int i = 2; i <= 1000; ++i) ASSERT_TRUE(sender.Raise(AlarmOf(i, i)));
  EXPECT_EQ(sender.counters().raised, 1000);
  fake->Release();
  ASSERT_TRUE(AwaitFinished(sender, 1000));
  EXPECT_EQ(sender.counters().sent, 1000);
  EXPECT_EQ(sender.counters().aggregated, 0);
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
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 1)));  // First attempt fails.
  ASSERT_TRUE(sender.Raise(AlarmOf(2, 2)));
  // Job 2's alarm is delivered while job 1's waits for its retry; time stands
  // still.
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
  Alarm nobody = AlarmOf(2, 4);
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

TEST(AlarmSenderTest, AlarmsOfAJobWhoseAlarmWaitsForARetryGoOutAsOneSummaryAfterIt) {
  OverFake f({absl::UnavailableError("down")});
  auto& [clock, log, fake, sender] = f;
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 1, 900)));  // First attempt fails.
  ASSERT_TRUE(AwaitRetries(sender, 1));
  // Runs ending out of order: the summary says since the earliest.
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 2, 903)));
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 3, 902)));
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 4, 904)));
  ASSERT_TRUE(sender.Raise(AlarmOf(2, 5, 905)));  // Another job is not held back.
  ASSERT_TRUE(AwaitFinished(sender, 1));
  EXPECT_EQ(log.statuses().at(5), "sent: fake");
  EXPECT_EQ(sender.backlog().summarized_runs, 3);
  clock.Advance(AlarmSenderOptions().max_backoff);
  ASSERT_TRUE(AwaitFinished(sender, 3));
  std::map<int64_t, std::string> statuses = log.statuses();
  EXPECT_EQ(statuses.at(1), "sent: fake");
  EXPECT_EQ(statuses.at(4), "sent: fake (for 3 runs)");
  EXPECT_EQ(statuses.count(2), 0u);
  EXPECT_EQ(statuses.count(3), 0u);
  Alarm summary = fake->sent().back();
  EXPECT_EQ(summary.run.id(), 4);
  EXPECT_EQ(summary.reason, "run 4 failed");
  EXPECT_EQ(summary.failed_runs, 3);
  EXPECT_EQ(summary.failed_since.seconds(), 902);
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.aggregated, 3);
  EXPECT_EQ(c.summaries, 1);
  EXPECT_EQ(c.sent, 3);
}

// A missed deadline is its own alarm: raised while a failure alarm of the
// same job waits for a retry, it is neither folded into the failures'
// summary nor counted as a failed run, and its own summary says what it is.
TEST(AlarmSenderTest, DeadlineAlarmsFoldOnlyWithDeadlineAlarms) {
  OverFake f({absl::UnavailableError("down")});
  auto& [clock, log, fake, sender] = f;
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 1, 900)));  // A failure; its first attempt fails.
  ASSERT_TRUE(AwaitRetries(sender, 1));
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 2, 901)));  // Folded with the failure.
  for (int64_t run : {3, 4}) {
    Alarm late = AlarmOf(1, run, 900 + run);
    late.kind = AlarmKind::kDeadlineMissed;
    late.reason = "not done by its deadline";
    ASSERT_TRUE(sender.Raise(late));  // The first goes out now, the second after it.
  }
  ASSERT_TRUE(AwaitFinished(sender, 2));  // The deadline alarm, and its summary of one.
  clock.Advance(AlarmSenderOptions().max_backoff);
  ASSERT_TRUE(AwaitFinished(sender, 4));
  // What the channel was given (a failed attempt included), by kind.
  std::vector<int64_t> deadline_runs, failure_runs;
  for (const Alarm& a : fake->sent()) {
    if (a.kind == AlarmKind::kDeadlineMissed) {
      deadline_runs.push_back(a.run.id());
      EXPECT_EQ(a.reason, "not done by its deadline");
      EXPECT_EQ(a.failed_runs, 1);
    } else {
      failure_runs.push_back(a.run.id());
      EXPECT_THAT(a.reason, HasSubstr("failed"));
      EXPECT_EQ(a.failed_runs, 1);
    }
  }
  EXPECT_EQ(deadline_runs, (std::vector<int64_t>{3, 4}));
  // Run 1 twice (its first attempt failed), then the summary of run 2 alone.
  EXPECT_EQ(failure_runs, (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(log.statuses().at(2), "sent: fake");
  EXPECT_THAT(AlarmJson(fake->sent().front()), HasSubstr("\"kind\":"));
}

// A job's alarm.silence: after its alarm goes out, its alarms of the next
// ten minutes wait and go out as one summary when the silence ends, which
// starts the next; other jobs are not held back.
TEST(AlarmSenderTest, AJobsSilenceFoldsItsAlarmsUntilItEnds) {
  OverFake f({});
  auto& [clock, log, fake, sender] = f;
  auto quiet = [](int64_t run) {
    Alarm a = AlarmOf(1, run, 1000 + run);
    a.job.mutable_alarm()->mutable_silence()->set_seconds(600);
    return a;
  };
  ASSERT_TRUE(sender.Raise(quiet(1)));
  ASSERT_TRUE(AwaitFinished(sender, 1));
  for (int64_t run = 2; run <= 4; ++run) ASSERT_TRUE(sender.Raise(quiet(run)));
  ASSERT_TRUE(sender.Raise(AlarmOf(2, 5, 1005)));  // Another job: at once.
  ASSERT_TRUE(AwaitFinished(sender, 2));
  EXPECT_EQ(fake->sent().size(), 2u);
  EXPECT_EQ(sender.backlog().summarized_runs, 3);
  clock.Advance(absl::Minutes(9));
  EXPECT_FALSE(sender.AwaitCounters([](const AlarmCounters& c) { return c.finished >= 3; },
                                    absl::Milliseconds(200)));
  clock.Advance(absl::Minutes(1));  // The silence ends: one summary of runs 2-4.
  ASSERT_TRUE(AwaitFinished(sender, 3));
  const Alarm summary = fake->sent().back();
  EXPECT_EQ(summary.run.id(), 4);
  EXPECT_EQ(summary.failed_runs, 3);
  EXPECT_EQ(log.statuses().at(4), "sent: fake (for 3 runs)");
  // And the summary started the next silence.
  ASSERT_TRUE(sender.Raise(quiet(6)));
  EXPECT_FALSE(sender.AwaitCounters([](const AlarmCounters& c) { return c.finished >= 4; },
                                    absl::Milliseconds(200)));
  clock.Advance(absl::Minutes(10));
  ASSERT_TRUE(AwaitFinished(sender, 4));
  EXPECT_EQ(fake->sent().back().run.id(), 6);
}

TEST(AlarmSenderTest, AFloodOfFiftyThousandAlarmsIsOneSummaryPerJobAndNothingIsDropped) {
  auto channel = std::make_unique<FakeChannel>("fake");
  FakeChannel* fake = channel.get();
  fake->Block();
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  StatusLog log;
  AlarmSenderOptions o;
  o.queue_capacity = 100;
  o.clock = &clock;
  AlarmSender sender(Channels(std::move(channel)), o, log.Callback());
  sender.Start();
  constexpr int kAlarms = 50000;
  const std::vector<int64_t> jobs = {11, 12, 13};
  std::map<int64_t, int64_t> raised;      // By job.
  std::map<int64_t, int64_t> latest_run;  // By job.
  for (int i = 0; i < kAlarms; ++i) {
    const int64_t job = jobs[i % jobs.size()];
    ASSERT_TRUE(sender.Raise(AlarmOf(job, i + 1, 2000 + i)));
    if (i == 0) fake->AwaitEntered(1);  // The channel is stuck on job 11's first alarm.
    ++raised[job];
    latest_run[job] = i + 1;
  }
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.raised, kAlarms);
  EXPECT_EQ(c.dropped, 0);
  EXPECT_EQ(c.aggregated, kAlarms - 3);
  // Held in memory: one alarm queued and one summary per job, however many
  // runs failed.
  AlarmBacklog b = sender.backlog();
  EXPECT_EQ(b.queued, 3u);
  EXPECT_EQ(b.summaries, 3u);
  EXPECT_EQ(b.summarized_runs, kAlarms - 3);

  fake->Release();
  ASSERT_TRUE(AwaitFinished(sender, 6));
  // Each job: its first alarm, then one summary; together they stand for
  // every alarm raised for the job.
  std::vector<Alarm> sent = fake->sent();
  ASSERT_EQ(sent.size(), 6u);
  std::map<int64_t, int64_t> delivered;  // Runs, by job.
  std::map<int64_t, int> summaries;      // By job.
  for (const Alarm& a : sent) {
    delivered[a.job.id()] += a.failed_runs;
    if (a.failed_runs == 1) continue;
    ++summaries[a.job.id()];
    EXPECT_EQ(a.run.id(), latest_run[a.job.id()]);
    // Since the second alarm of the job (index 3, 4 or 5), the first folded.
    EXPECT_EQ(a.failed_since.seconds(), 2003 + (a.job.id() - 11));
  }
  EXPECT_EQ(delivered, raised);
  EXPECT_EQ(summaries, (std::map<int64_t, int>{{11, 1}, {12, 1}, {13, 1}}));
  // One status per alarm sent, none per folded run.
  std::map<int64_t, std::string> statuses = log.statuses();
  EXPECT_EQ(statuses.size(), 6u);
  for (int64_t job : jobs) {
    EXPECT_EQ(statuses.at(latest_run[job]),
              absl::StrCat("sent: fake (for ", raised[job] - 1, " runs)"));
  }
  c = sender.counters();
  EXPECT_EQ(c.summaries, 3);
  EXPECT_EQ(c.sent, 6);
  EXPECT_EQ(c.dropped, 0);
  b = sender.backlog();
  EXPECT_EQ(b.queued, 0u);
  EXPECT_EQ(b.summaries, 0u);
}

TEST(AlarmSenderTest, JobsBeyondTheQueueCapacityWaitAsOneSummaryEachAndGoOutOldestFirst) {
  auto channel = std::make_unique<FakeChannel>("fake");
  FakeChannel* fake = channel.get();
  fake->Block();
  AlarmSenderOptions o;
  o.queue_capacity = 100;
  AlarmSender sender(Channels(std::move(channel)), o, nullptr);
  sender.Start();
  constexpr int kJobs = 1000;
  constexpr int kRounds = 20;
  for (int r = 0; r < kRounds; ++r) {
    for (int j = 1; j <= kJobs; ++j) {
      ASSERT_TRUE(sender.Raise(AlarmOf(j, r * kJobs + j)));
      if (r == 0 && j == 1) fake->AwaitEntered(1);
    }
  }
  AlarmBacklog b = sender.backlog();
  EXPECT_EQ(b.queued, 100u);  // The capacity.
  EXPECT_EQ(b.summaries, static_cast<size_t>(kJobs));
  EXPECT_EQ(b.summarized_runs, kJobs * kRounds - 100);
  EXPECT_EQ(sender.counters().dropped, 0);
  fake->Release();
  // Jobs 1-100: their alarm and a summary; jobs 101-1000: a summary.
  ASSERT_TRUE(AwaitFinished(sender, kJobs + 100));
  std::vector<Alarm> sent = fake->sent();
  ASSERT_EQ(sent.size(), static_cast<size_t>(kJobs + 100));
  std::vector<int64_t> order;
  std::map<int64_t, int64_t> delivered;
  for (const Alarm& a : sent) {
    order.push_back(a.job.id());
    delivered[a.job.id()] += a.failed_runs;
  }
  // The queued alarms, then the summaries that waited for room, in the order
  // they began waiting, then those that waited behind their job's alarm.
  std::vector<int64_t> expected;
  for (int j = 1; j <= kJobs; ++j) expected.push_back(j);
  for (int j = 1; j <= 100; ++j) expected.push_back(j);
  EXPECT_EQ(order, expected);
  for (int j = 1; j <= kJobs; ++j) EXPECT_EQ(delivered[j], kRounds) << "job " << j;
  EXPECT_EQ(sender.backlog().summaries, 0u);
}

TEST(AlarmSenderTest, StopAbandonsQueuedAlarmsAndSummariesAndLaterRaisesAreDropped) {
  SimulatedClock clock(absl::FromUnixSeconds(0));
  StatusLog log;
  AlarmSenderOptions o;
  o.clock = &clock;
  o.queue_capacity = 1;
  AlarmSender sender(Channels(std::make_unique<FakeChannel>(
                         "fake", std::deque<absl::Status>{absl::UnavailableError("down")})),
                     o, log.Callback());
  sender.Start();
  ASSERT_TRUE(sender.Raise(AlarmOf(1, 1)));
  ASSERT_TRUE(AwaitRetries(sender, 1));
  for (int run = 2; run <= 11; ++run) ASSERT_TRUE(sender.Raise(AlarmOf(1, run)));
  ASSERT_TRUE(sender.Raise(AlarmOf(2, 12)));  // The queue is full.
  AlarmBacklog b = sender.backlog();
  EXPECT_EQ(b.queued, 1u);
  EXPECT_EQ(b.summaries, 2u);
  sender.Stop();
  EXPECT_FALSE(sender.Raise(AlarmOf(1, 13)));
  AlarmCounters c = sender.counters();
  EXPECT_EQ(c.aggregated, 11);
  EXPECT_EQ(c.abandoned, 12);  // Run 1's alarm and the 11 runs in summaries.
  EXPECT_EQ(c.dropped, 1);
  EXPECT_EQ(c.summaries, 0);
  EXPECT_TRUE(log.statuses().empty());
  b = sender.backlog();
  EXPECT_EQ(b.queued, 0u);
  EXPECT_EQ(b.summaries, 0u);
}

}  // namespace
}  // namespace gnomon::scheduler::alarm
