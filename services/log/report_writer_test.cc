// ReportWriter: what an executor's spool relies on. An item is acknowledged
// only once its transaction has committed, exactly once, in the order the
// stream sent it — through store outages, lost commit replies and resends —
// and an item not yet written when the writer stops is never acknowledged
// (the executor sends it again). Transactions take whole reports, up to
// max_batch items. The store is a real SQLite file behind a FailingRunStore;
// the retry backoff runs on a SimulatedClock.
#include "services/log/report_writer.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/log/testing/run_fixtures.h"

namespace gnomon::logsvc {
namespace {

using store::testing::CallPhase;
using ::testing::ElementsAre;
using testing::LogLines;
using ::testing::Pair;
using testing::Result;

// A bound for a broken test, not a pace: every wait below ends on an event.
constexpr absl::Duration kPatience = absl::Seconds(60);

ReportWriterOptions Batching(size_t max_batch, absl::Duration min_commit_interval) {
  ReportWriterOptions o;
  o.max_batch = max_batch;
  o.min_commit_interval = min_commit_interval;
  return o;
}

class ReportWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(f_.status().ok()) << f_.status();
    run_ = f_.AddRun(f_.job(), 60'000);
  }
  void TearDown() override { Stop(); }

  void Start(ReportWriterOptions options = {}) {
    writer_ = std::make_unique<ReportWriter>(&runs_, &clock_, options);
    writer_->AddObserver(
        [this](const std::vector<v1::ReportItem>& items, const std::vector<v1::ReportAck>&) {
          absl::MutexLock l(&mu_);
          batches_.push_back(items.size());
        });
    thread_ = std::thread([this] { writer_->Run(); });
  }
  void Stop() {
    if (writer_ != nullptr) writer_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  // A report named `name` of this group; its acks are recorded, in the order
  // reports are acknowledged.
  PendingReport Report(const std::string& name, std::vector<v1::ReportItem> items) {
    PendingReport p;
    p.items = std::move(items);
    p.group_id = f_.group().id();
    p.done = [this, name](std::vector<v1::ReportAck> acks) {
      absl::MutexLock l(&mu_);
      acked_.emplace_back(name, std::move(acks));
    };
    return p;
  }
  bool AwaitAcked(size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return acked_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), kPatience);
  }
  std::vector<std::pair<std::string, std::vector<v1::ReportAck>>> Acked() {
    absl::MutexLock l(&mu_);
    return acked_;
  }
  std::vector<size_t> Batches() {
    absl::MutexLock l(&mu_);
    return batches_;
  }
  // The line numbers stored for the run.
  std::vector<int64_t> StoredLines() {
    absl::StatusOr<std::vector<v1::LogLine>> lines = f_.store()->ReadRunLog(run_, 1, 1000);
    EXPECT_TRUE(lines.ok()) << lines.status();
    std::vector<int64_t> out;
    for (const v1::LogLine& l : lines.value_or(std::vector<v1::LogLine>{}))
      out.push_back(l.line_number());
    return out;
  }
  v1::RunStatus StoredStatus() {
    absl::StatusOr<v1::Run> run = f_.store()->GetRun(run_);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.ok() ? run->status() : v1::RUN_STATUS_UNSPECIFIED;
  }
  // Moves the clock past the writer's retry backoff (at most 2 s) once it waits.
  void PassBackoff() {
    clock_.BlockUntilWaiters(1);
    clock_.Advance(absl::Seconds(2));
  }

  testing::RunFixture f_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingRunStore runs_{f_.store(), &hook_};
  SimulatedClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  int64_t run_ = 0;
  std::unique_ptr<ReportWriter> writer_;
  std::thread thread_;
  absl::Mutex mu_;
  std::vector<std::pair<std::string, std::vector<v1::ReportAck>>> acked_ ABSL_GUARDED_BY(mu_);
  std::vector<size_t> batches_ ABSL_GUARDED_BY(mu_);
};

TEST_F(ReportWriterTest, AnItemIsAcknowledgedOnlyOnceItsTransactionHasCommitted) {
  absl::Notification in_store, release;
  hook_.Set(store::testing::HoldUntil("ApplyReports", &in_store, &release));
  // Written on the writer's thread, read here: under a std::mutex, which
  // TSan sees (Debian's Abseil, under absl::Notification, is not
  // instrumented).
  std::mutex stored_mu;
  std::vector<int64_t> stored_at_ack;
  absl::Notification acked;
  PendingReport p = Report("a", {LogLines(run_, 1, 2)});
  p.done = [&](std::vector<v1::ReportAck> acks) {
    EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED));
    {
      std::lock_guard<std::mutex> l(stored_mu);
      stored_at_ack = StoredLines();  // What a reader sees when the executor hears "stored".
    }
    acked.Notify();
  };
  Start();
  writer_->Submit(std::move(p));
  in_store.WaitForNotification();
  EXPECT_FALSE(acked.HasBeenNotified());  // The transaction has not committed.
  release.Notify();
  ASSERT_TRUE(acked.WaitForNotificationWithTimeout(kPatience));
  std::lock_guard<std::mutex> l(stored_mu);
  EXPECT_THAT(stored_at_ack, ElementsAre(1, 2));
}

TEST_F(ReportWriterTest, AStoreThatFailsThenRecoversKeepsEveryItemAndAcknowledgesEachOnceInOrder) {
  std::atomic<bool> down{true};
  hook_.Set(store::testing::FailWhile(&down, "ApplyReports"));
  Start();
  writer_->Submit(Report("a", {LogLines(run_, 1, 2)}));
  ASSERT_TRUE(hook_.AwaitCalls("ApplyReports", 1, kPatience));
  // More arrive while the first is waiting to be retried.
  writer_->Submit(Report("b", {LogLines(run_, 3, 4)}));
  writer_->Submit(Report("c", {Result(run_, v1::HANDLE_CODE_SUCCESS, 1'800'000'000'000)}));
  PassBackoff();
  ASSERT_TRUE(hook_.AwaitCalls("ApplyReports", 2, kPatience));  // Fails again.
  EXPECT_TRUE(Acked().empty());
  clock_.BlockUntilWaiters(1);
  EXPECT_EQ(writer_->queued_items(), 3u);  // All queued again for the retry, none dropped.
  down = false;
  PassBackoff();
  ASSERT_TRUE(AwaitAcked(3));
  EXPECT_THAT(Acked(), ElementsAre(Pair("a", ElementsAre(v1::REPORT_ACK_APPLIED)),
                                   Pair("b", ElementsAre(v1::REPORT_ACK_APPLIED)),
                                   Pair("c", ElementsAre(v1::REPORT_ACK_APPLIED))));
  EXPECT_THAT(StoredLines(), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(StoredStatus(), v1::RUN_STATUS_SUCCEEDED);
  Stop();
  EXPECT_EQ(Acked().size(), 3u);  // Nothing acknowledged twice.
}

// The commit happened but its reply was lost (a connection dropped at the
// worst moment): the retry stores nothing twice and acknowledges once.
TEST_F(ReportWriterTest, ABatchWhoseCommitReplyIsLostIsRetriedWithoutStoringAnythingTwice) {
  std::atomic<int> lost{1};
  hook_.Set([&](std::string_view call, CallPhase phase) {
    return call == "ApplyReports" && phase == CallPhase::kAfter && lost-- > 0
               ? absl::UnavailableError("connection lost during commit")
               : absl::OkStatus();
  });
  Start();
  writer_->Submit(Report("a", {LogLines(run_, 1, 3), Result(run_, 500, 1'800'000'000'000)}));
  ASSERT_TRUE(hook_.AwaitCalls("ApplyReports", 1, kPatience));
  PassBackoff();
  ASSERT_TRUE(AwaitAcked(1));
  EXPECT_THAT(Acked(), ElementsAre(Pair(
                           "a", ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE))));
  EXPECT_THAT(StoredLines(), ElementsAre(1, 2, 3));
  EXPECT_EQ(StoredStatus(), v1::RUN_STATUS_FAILED);
}

// An executor that reconnects re-sends what it had not heard acknowledged.
TEST_F(ReportWriterTest, AResentReportIsAcknowledgedAsADuplicateAndStoredOnce) {
  Start();
  writer_->Submit(
      Report("first", {LogLines(run_, 1, 2), Result(run_, v1::HANDLE_CODE_SUCCESS, 1)}));
  ASSERT_TRUE(AwaitAcked(1));
  writer_->Submit(Report("again", {LogLines(run_, 1, 2), Result(run_, 500, 2)}));
  writer_->Submit(Report("more", {LogLines(run_, 2, 3)}));  // Overlaps: only line 3 is new.
  ASSERT_TRUE(AwaitAcked(3));
  EXPECT_THAT(
      Acked(),
      ElementsAre(Pair("first", ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED)),
                  Pair("again", ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE)),
                  Pair("more", ElementsAre(v1::REPORT_ACK_APPLIED))));
  EXPECT_THAT(StoredLines(), ElementsAre(1, 2, 3));
  EXPECT_EQ(StoredStatus(), v1::RUN_STATUS_SUCCEEDED);  // The first result stands.
}

// An executor's group token lets it report on its own group's runs only.
TEST_F(ReportWriterTest, AReportOnAnotherGroupsRunIsAcknowledgedAsUnknownAndNotApplied) {
  Start();
  PendingReport p = Report("intruder", {LogLines(run_, 1, 1), Result(run_, 500, 1)});
  p.group_id = f_.group().id() + 1;
  writer_->Submit(std::move(p));
  ASSERT_TRUE(AwaitAcked(1));
  EXPECT_THAT(Acked(), ElementsAre(Pair("intruder", ElementsAre(v1::REPORT_ACK_UNKNOWN_RUN,
                                                                v1::REPORT_ACK_UNKNOWN_RUN))));
  EXPECT_TRUE(StoredLines().empty());
  EXPECT_EQ(StoredStatus(), v1::RUN_STATUS_PENDING);
}

// Between commits (min_commit_interval, here an hour) items wait until
// max_batch of them are in hand, then go in one transaction.
TEST_F(ReportWriterTest,
       ItemsArrivingBetweenCommitsAreWrittenInOneTransactionOnceMaxBatchAreWaiting) {
  Start(Batching(4, absl::Hours(1)));
  writer_->Submit(Report("first", {LogLines(run_, 1, 1)}));  // Nothing written yet: at once.
  ASSERT_TRUE(AwaitAcked(1));
  writer_->Submit(Report("b", {LogLines(run_, 2, 2), LogLines(run_, 3, 3)}));
  writer_->Submit(Report("c", {LogLines(run_, 4, 4), LogLines(run_, 5, 5)}));
  ASSERT_TRUE(AwaitAcked(3));
  Stop();  // Observers hear of a batch after its acks: wait for them.
  EXPECT_THAT(Batches(), ElementsAre(1u, 4u));
  EXPECT_EQ(hook_.calls("ApplyReports"), 2);
}

// A transaction takes whole reports (a message's items are acknowledged
// together) until max_batch items are in hand.
TEST_F(ReportWriterTest, ATransactionTakesWholeReportsUntilMaxBatchItems) {
  ReportWriter writer(&runs_, &clock_, Batching(4, absl::Hours(1)));
  // Queued before the writer runs: three reports of three items each.
  int64_t line = 0;
  for (const char* name : {"a", "b", "c"}) {
    std::vector<v1::ReportItem> items;
    for (int i = 0; i < 3; ++i, ++line) items.push_back(LogLines(run_, line + 1, line + 1));
    writer.Submit(Report(name, std::move(items)));
  }
  writer.AddObserver(
      [this](const std::vector<v1::ReportItem>& items, const std::vector<v1::ReportAck>&) {
        absl::MutexLock l(&mu_);
        batches_.push_back(items.size());
      });
  std::thread t([&] { writer.Run(); });
  ASSERT_TRUE(AwaitAcked(2));            // a and b: 6 items, the first transaction.
  EXPECT_EQ(writer.queued_items(), 3u);  // c waits for a fourth item (or the hour).
  writer.Submit(Report("d", {LogLines(run_, 10, 10)}));
  ASSERT_TRUE(AwaitAcked(4));
  writer.Stop();
  t.join();
  EXPECT_THAT(Batches(), ElementsAre(6u, 4u));
  std::vector<std::string> order;
  for (const auto& [name, acks] : Acked()) order.push_back(name);
  EXPECT_THAT(order, ElementsAre("a", "b", "c", "d"));
}

TEST_F(ReportWriterTest, ThereIsRoomForAnotherMessageOnlyWhileFewerThanMaxQueuedItemsWait) {
  ReportWriterOptions o = Batching(2, absl::ZeroDuration());
  o.max_queued = 4;
  ReportWriter writer(&runs_, &clock_, o);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(writer.AwaitRoom(absl::ZeroDuration())) << i;
    writer.Submit(Report(absl::StrCat("r", i), {LogLines(run_, i + 1, i + 1)}));
  }
  // Four wait and the writer is not running: a stream would stop reading.
  EXPECT_FALSE(writer.AwaitRoom(absl::Milliseconds(10)));
  std::thread t([&] { writer.Run(); });
  EXPECT_TRUE(writer.AwaitRoom(kPatience));  // The store took some.
  ASSERT_TRUE(AwaitAcked(4));
  writer.Stop();
  t.join();
  EXPECT_THAT(StoredLines(), ElementsAre(1, 2, 3, 4));
}

// The same, for a stream that must not wait (a callback reactor): no room,
// and it is called back once the store takes some; at Stop, too.
TEST_F(ReportWriterTest, WithoutRoomAStreamIsCalledBackOnceTheWriterTakesABatchOrStops) {
  ReportWriterOptions o = Batching(2, absl::ZeroDuration());
  o.max_queued = 4;
  ReportWriter writer(&runs_, &clock_, o);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(writer.HasRoomOrNotify([] { ADD_FAILURE() << "called back with room"; })) << i;
    writer.Submit(Report(absl::StrCat("r", i), {LogLines(run_, i + 1, i + 1)}));
  }
  absl::Notification room;
  EXPECT_FALSE(writer.HasRoomOrNotify([&room] { room.Notify(); }));
  EXPECT_FALSE(room.HasBeenNotified());  // The writer is not running.
  std::thread t([&] { writer.Run(); });
  EXPECT_TRUE(room.WaitForNotificationWithTimeout(kPatience));  // Called once (or it crashes).
  ASSERT_TRUE(AwaitAcked(4));
  EXPECT_TRUE(writer.HasRoomOrNotify([] { ADD_FAILURE() << "called back with room"; }));
  writer.Stop();
  t.join();
  EXPECT_THAT(StoredLines(), ElementsAre(1, 2, 3, 4));
}

TEST_F(ReportWriterTest, AStreamWaitingForRoomIsCalledBackAtStop) {
  ReportWriterOptions o = Batching(2, absl::ZeroDuration());
  o.max_queued = 1;
  ReportWriter writer(&runs_, &clock_, o);  // Not running: nothing leaves the queue.
  writer.Submit(Report("r", {LogLines(run_, 1, 1)}));
  absl::Notification room;
  EXPECT_FALSE(writer.HasRoomOrNotify([&room] { room.Notify(); }));
  writer.Stop();
  EXPECT_TRUE(room.HasBeenNotified());
  // Stopped, there is room (as AwaitRoom returns): nothing would wake a stream.
  EXPECT_TRUE(writer.HasRoomOrNotify([] { ADD_FAILURE() << "called back after Stop"; }));
}

// At low rates nothing waits for max_batch: a lone item is written once
// min_commit_interval has passed since the last commit.
TEST_F(ReportWriterTest, ALoneItemIsWrittenWithoutWaitingForMaxBatch) {
  Start(Batching(4096, absl::Milliseconds(10)));
  writer_->Submit(Report("a", {LogLines(run_, 1, 1)}));
  ASSERT_TRUE(AwaitAcked(1));
  writer_->Submit(Report("b", {LogLines(run_, 2, 2)}));
  ASSERT_TRUE(AwaitAcked(2));
  EXPECT_THAT(StoredLines(), ElementsAre(1, 2));
}

// Stopping drops what is still queued — unacknowledged, so the executor
// re-sends it to the next log service — and never acknowledges unwritten items.
TEST_F(ReportWriterTest, ItemsStillQueuedAtStopAreNeitherWrittenNorAcknowledged) {
  Start(Batching(100, absl::Hours(1)));
  writer_->Submit(Report("written", {LogLines(run_, 1, 1)}));
  ASSERT_TRUE(AwaitAcked(1));
  writer_->Submit(Report("queued", {LogLines(run_, 2, 2)}));  // Waits for the hour.
  Stop();
  EXPECT_EQ(writer_->queued_items(), 1u);
  EXPECT_THAT(Acked(), ElementsAre(Pair("written", ElementsAre(v1::REPORT_ACK_APPLIED))));
  EXPECT_THAT(StoredLines(), ElementsAre(1));
}

TEST_F(ReportWriterTest, ItemsWaitingForARetryAtStopAreNotAcknowledged) {
  std::atomic<bool> down{true};
  hook_.Set(store::testing::FailWhile(&down, "ApplyReports"));
  Start();
  writer_->Submit(Report("a", {LogLines(run_, 1, 1)}));
  ASSERT_TRUE(hook_.AwaitCalls("ApplyReports", 1, kPatience));
  clock_.BlockUntilWaiters(1);
  Stop();  // Ends the backoff wait without the clock moving.
  EXPECT_TRUE(Acked().empty());
  EXPECT_EQ(writer_->queued_items(), 1u);
}

// A transaction under way when the writer stops still commits, and what it
// committed is acknowledged.
TEST_F(ReportWriterTest, ABatchCommittingWhenTheWriterStopsIsStillAcknowledged) {
  absl::Notification in_store, release;
  hook_.Set(store::testing::HoldUntil("ApplyReports", &in_store, &release));
  Start();
  writer_->Submit(Report("a", {LogLines(run_, 1, 1)}));
  in_store.WaitForNotification();
  writer_->Stop();
  release.Notify();
  thread_.join();
  EXPECT_THAT(Acked(), ElementsAre(Pair("a", ElementsAre(v1::REPORT_ACK_APPLIED))));
}

}  // namespace
}  // namespace gnomon::logsvc
