// BatchedWriter with a recording flush function and simulated clocks: when
// flushes happen, what each one holds, retries and stopping.
#include "services/common/server/batched_writer.h"

#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/client/clock.h"

namespace gnomon {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Records each flush; fails those whose number (from 0) is in `fail`.
class Sink {
 public:
  explicit Sink(std::vector<size_t> fail = {}) : fail_(std::move(fail)) {}

  std::vector<int> Flush(std::vector<int> batch) {
    absl::MutexLock l(&mu_);
    const size_t n = flushes_.size();
    flushes_.push_back(batch);
    for (size_t f : fail_) {
      if (f == n) return batch;
    }
    return {};
  }
  // Waits until `n` flushes have happened; returns them all.
  std::vector<std::vector<int>> AwaitFlushes(size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return flushes_.size() >= n; };
    mu_.Await(absl::Condition(&enough));
    return flushes_;
  }
  std::vector<std::vector<int>> flushes() {
    absl::MutexLock l(&mu_);
    return flushes_;
  }

 private:
  const std::vector<size_t> fail_;
  absl::Mutex mu_;
  std::vector<std::vector<int>> flushes_ ABSL_GUARDED_BY(mu_);
};

class BatchedWriterTest : public ::testing::Test {
 protected:
  BatchedWriter<int>::Options Options() {
    return {.flush_at = 3,
            .min_interval = absl::Milliseconds(10),
            .retry = {.initial = absl::Milliseconds(50), .max = absl::Milliseconds(50)},
            .clock = &retry_clock_,
            .pacing_clock = &pacing_clock_};
  }
  BatchedWriter<int>::Flush To(Sink* sink) {
    return [sink](std::vector<int> batch) { return sink->Flush(std::move(batch)); };
  }

  // Runs `writer` on `run`; once it flushed a first item alone, adds `next`
  // and returns when the writer waits out min_interval before the next flush.
  void StartAndQueueBehindAFlush(BatchedWriter<int>& writer, Sink& sink, std::thread& run,
                                 std::vector<int> next) {
    run = std::thread([&writer] { writer.Run(); });
    writer.Add(1);
    sink.AwaitFlushes(1);
    for (int i : next) writer.Add(i);
    pacing_clock_.BlockUntilWaiters(1);
  }

  SimulatedClock retry_clock_{absl::UnixEpoch()};
  SimulatedClock pacing_clock_{absl::UnixEpoch()};
};

TEST_F(BatchedWriterTest, FirstItemsGoAtOnceThenWaitForTheInterval) {
  Sink sink;
  BatchedWriter<int> writer(Options(), To(&sink));
  std::thread run;
  StartAndQueueBehindAFlush(writer, sink, run, {2, 3});  // Two items: under flush_at.
  EXPECT_EQ(sink.flushes().size(), 1u);
  EXPECT_EQ(writer.queued(), 2u);
  pacing_clock_.Advance(absl::Milliseconds(10));
  EXPECT_THAT(sink.AwaitFlushes(2), ElementsAre(ElementsAre(1), ElementsAre(2, 3)));
  writer.Stop();
  run.join();
}

TEST_F(BatchedWriterTest, FlushAtItemsGoWithoutWaitingForTheInterval) {
  Sink sink;
  BatchedWriter<int> writer(Options(), To(&sink));
  std::thread run([&] { writer.Run(); });
  writer.Add(1);
  sink.AwaitFlushes(1);
  writer.Add(2);
  writer.Add(3);
  writer.Add(4);
  // The pacing clock never moves: only the size can start this flush.
  EXPECT_THAT(sink.AwaitFlushes(2), ElementsAre(ElementsAre(1), ElementsAre(2, 3, 4)));
  writer.Stop();
  run.join();
}

TEST_F(BatchedWriterTest, AFlushTakesAtMostMaxBatchByWeight) {
  Sink sink;
  BatchedWriter<int>::Options options = Options();
  options.flush_at = 5;
  options.max_batch = 5;
  options.weight = [](const int& i) { return static_cast<size_t>(i); };
  BatchedWriter<int> writer(options, To(&sink));
  for (int i : {2, 2, 2, 4, 1}) writer.Add(i);
  EXPECT_EQ(writer.queued(), 11u);
  std::thread run([&] { writer.Run(); });
  // Whole items until the weight reaches 5: 2+2+2, then 4+1.
  EXPECT_THAT(sink.AwaitFlushes(2), ElementsAre(ElementsAre(2, 2, 2), ElementsAre(4, 1)));
  EXPECT_EQ(writer.queued(), 0u);
  writer.Stop();
  run.join();
}

TEST_F(BatchedWriterTest, ItemsAddedDuringAFlushGoInTheNextOne) {
  absl::Notification flushing;
  absl::Notification release;
  Sink sink;
  BatchedWriter<int> writer(Options(), [&](std::vector<int> batch) {
    if (!flushing.HasBeenNotified()) {
      flushing.Notify();
      release.WaitForNotification();
    }
    return sink.Flush(std::move(batch));
  });
  std::thread run([&] { writer.Run(); });
  writer.Add(1);
  flushing.WaitForNotification();
  for (int i : {2, 3, 4}) writer.Add(i);
  release.Notify();
  EXPECT_THAT(sink.AwaitFlushes(2), ElementsAre(ElementsAre(1), ElementsAre(2, 3, 4)));
  writer.Stop();
  run.join();
}

TEST_F(BatchedWriterTest, FailedItemsAreRetriedFirstAfterTheBackoff) {
  Sink sink({0});
  BatchedWriter<int> writer(Options(), To(&sink));
  writer.Add(1);
  writer.Add(2);
  std::thread run([&] { writer.Run(); });
  sink.AwaitFlushes(1);
  retry_clock_.BlockUntilWaiters(1);  // The backoff after the failure.
  writer.Add(3);
  EXPECT_EQ(writer.queued(), 3u);
  retry_clock_.Advance(absl::Milliseconds(50));
  pacing_clock_.Advance(absl::Milliseconds(10));
  EXPECT_THAT(sink.AwaitFlushes(2), ElementsAre(ElementsAre(1, 2), ElementsAre(1, 2, 3)));
  writer.Stop();
  run.join();
}

TEST_F(BatchedWriterTest, StopFlushesWhatIsQueued) {
  Sink sink;
  BatchedWriter<int> writer(Options(), To(&sink));
  std::thread run;
  StartAndQueueBehindAFlush(writer, sink, run, {2});
  writer.Stop();  // Ends the interval's wait at once; the clock never moves.
  run.join();
  EXPECT_THAT(sink.flushes(), ElementsAre(ElementsAre(1), ElementsAre(2)));
  EXPECT_EQ(writer.queued(), 0u);
}

TEST_F(BatchedWriterTest, StopWithoutFlushOnStopLeavesTheQueue) {
  Sink sink;
  BatchedWriter<int>::Options options = Options();
  options.flush_on_stop = false;
  BatchedWriter<int> writer(options, To(&sink));
  std::thread run;
  StartAndQueueBehindAFlush(writer, sink, run, {2});
  writer.Stop();
  run.join();
  EXPECT_THAT(sink.flushes(), ElementsAre(ElementsAre(1)));
  EXPECT_EQ(writer.queued(), 1u);
}

TEST_F(BatchedWriterTest, StopDuringTheBackoffKeepsTheFailedItems) {
  Sink sink({0, 1});
  BatchedWriter<int> writer(Options(), To(&sink));
  writer.Add(1);
  std::thread run([&] { writer.Run(); });
  sink.AwaitFlushes(1);
  retry_clock_.BlockUntilWaiters(1);
  writer.Stop();  // Ends the backoff at once; one more try, which fails too.
  run.join();
  EXPECT_THAT(sink.flushes(), ElementsAre(ElementsAre(1), ElementsAre(1)));
  EXPECT_EQ(writer.queued(), 1u);
}

TEST_F(BatchedWriterTest, EveryItemFromManyThreadsIsFlushedExactlyOnce) {
  Sink sink;
  BatchedWriter<int>::Options options = Options();
  options.min_interval = absl::ZeroDuration();
  BatchedWriter<int> writer(options, To(&sink));
  std::thread run([&] { writer.Run(); });
  constexpr int kThreads = 4;
  constexpr int kEach = 500;
  std::vector<std::thread> adders;
  for (int t = 0; t < kThreads; ++t) {
    adders.emplace_back([&writer, t] {
      for (int i = 0; i < kEach; ++i) writer.Add(t * kEach + i);
    });
  }
  for (std::thread& t : adders) t.join();
  writer.Stop();
  run.join();
  std::vector<int> seen(kThreads * kEach, 0);
  for (const std::vector<int>& batch : sink.flushes()) {
    for (int i : batch) ++seen[i];
  }
  for (int i = 0; i < kThreads * kEach; ++i) EXPECT_EQ(seen[i], 1) << "item " << i;
  EXPECT_EQ(writer.queued(), 0u);
}

TEST_F(BatchedWriterTest, StopWithNothingQueuedReturns) {
  Sink sink;
  BatchedWriter<int> writer(Options(), To(&sink));
  std::thread run([&] { writer.Run(); });
  writer.Stop();
  run.join();
  EXPECT_THAT(sink.flushes(), IsEmpty());
}

}  // namespace
}  // namespace gnomon
