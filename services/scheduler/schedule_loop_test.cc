#include "services/scheduler/schedule_loop.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/scheduler/next_fire.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/testing/ownership.h"
#include "services/scheduler/testing/recording_sink.h"
#include "services/scheduler/testing/runs.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

// Records fires instead of dispatching them; can be told to fail.
class FakeSink final : public FireSink {
 public:
  struct Seen {
    int64_t job_id;
    int64_t scheduled_ms;
    v1::TriggerType type;
    int64_t fired_at_ms;
  };
  explicit FakeSink(SimulatedClock* clock) : clock_(clock) {}
  absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) override {
    if (fail) return absl::UnavailableError("store down");
    if (during_fire) during_fire();
    if (!fired.HasBeenNotified()) fired.Notify();
    // A store that takes this long per run to record (simulated time).
    clock_->Advance(record_cost * static_cast<int64_t>(fires.size()));
    std::vector<FireOutcome> out(fires.size());
    for (size_t i = 0; i < fires.size(); ++i) {
      seen.push_back(
          {fires[i].job->id(), fires[i].scheduled_ms, fires[i].type, clock_->NowMillis()});
      out[i].run_ids.push_back(static_cast<int64_t>(seen.size()));
    }
    return out;
  }
  bool fail = false;
  std::function<void()> during_fire;  // Runs inside Fire (another thread's call).
  absl::Notification fired;           // Notified at the first Fire.
  absl::Duration record_cost = absl::ZeroDuration();
  std::vector<Seen> seen;

 private:
  SimulatedClock* clock_;
};

class ScheduleLoopTest : public ::testing::Test {
 protected:
  static constexpr int64_t kStart = 1'800'000'000'000;  // 2027-01-15, a whole second.

  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("gnomon-loop-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
    std::filesystem::remove(path_);
    auto s = store::OpenStore("sqlite:" + path_.string(), store::StoreOptions{});
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
    v1::Group g;
    g.set_app_name("loop-test");
    g.set_access_token("t");
    auto created = store_->CreateGroup(g, kStart);
    ASSERT_TRUE(created.ok()) << created.status();
    group_id_ = created->id();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove(path_);
    std::filesystem::remove(path_.string() + "-wal");
    std::filesystem::remove(path_.string() + "-shm");
  }

  v1::Job RateJob(int64_t period_ms) {
    v1::Job j;
    j.set_group_id(group_id_);
    j.mutable_bean()->set_handler("h");
    *j.mutable_schedule()->mutable_fix_rate() = TimeUtil::MillisecondsToDuration(period_ms);
    return j;
  }
  int64_t Create(const v1::Job& j, int64_t next_fire_ms) {
    auto created = store_->CreateJob(j, v1::JOB_STATE_RUNNING, next_fire_ms, kStart);
    EXPECT_TRUE(created.ok()) << created.status();
    return created->id();
  }
  int64_t Cursor(int64_t job_id) {
    auto j = store_->GetJob(job_id);
    EXPECT_TRUE(j.ok());
    return j->has_next_fire_time() ? TimeUtil::TimestampToMilliseconds(j->next_fire_time())
                                   : store::kNever;
  }

  std::filesystem::path path_;
  std::unique_ptr<store::Store> store_;
  int64_t group_id_ = 0;
  SimulatedClock clock_{absl::FromUnixMillis(kStart)};
  FakeSink sink_{&clock_};
};

TEST_F(ScheduleLoopTest, TwentyThousandCronJobsDueOnOneInstantAllFireAtIt) {
  // Distinct jobs whose cron instants coincide (as "0 0 * * * ?" makes every
  // hour): one pass arms all of them, and every one fires at its instant.
  constexpr int kJobs = 20000;
  const int64_t slot = kStart + 1000;  // a whole second: on the cron's grid
  v1::Job j;
  j.set_group_id(group_id_);
  j.mutable_bean()->set_handler("h");
  j.mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
  for (int i = 0; i < kJobs; ++i) Create(j, slot);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  EXPECT_EQ(loop.Tick(), absl::FromUnixMillis(slot));
  clock_.AdvanceTo(absl::FromUnixMillis(slot));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), static_cast<size_t>(kJobs));
  absl::flat_hash_set<int64_t> jobs;
  for (const auto& f : sink_.seen) {
    EXPECT_EQ(f.scheduled_ms, slot);
    EXPECT_EQ(f.fired_at_ms, slot);
    EXPECT_EQ(f.type, v1::TRIGGER_TYPE_CRON);
    jobs.insert(f.job_id);
  }
  EXPECT_EQ(jobs.size(), static_cast<size_t>(kJobs));
  // The next second fires all of them again, from the compiled crons.
  clock_.AdvanceTo(absl::FromUnixMillis(slot + 1000));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), static_cast<size_t>(2 * kJobs));
  EXPECT_EQ(sink_.seen.back().scheduled_ms, slot + 1000);
}

TEST_F(ScheduleLoopTest, AJobIsHeldInMemoryOnlyWhileItsNextSlotIsWithinThePreReadWindow) {
  // A million daily jobs that have each fired once must not all stay armed
  // until tomorrow: a fired job whose next slot lies beyond the window is
  // left to the pre-read that finds it due.
  const int64_t minutely = Create(RateJob(60'000), kStart + 1000);
  Create(RateJob(100), kStart + 100);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  loop.Tick();
  EXPECT_EQ(loop.ArmedJobs(), 2u);
  for (int64_t t = kStart + 100; t <= kStart + 61'000; t += 100) {
    clock_.AdvanceTo(absl::FromUnixMillis(t));
    loop.Tick();
    if (t == kStart + 1000) {
      EXPECT_EQ(loop.ArmedJobs(), 1u) << "the minutely job is held after firing";
    }
  }
  std::vector<int64_t> slots;
  for (const auto& f : sink_.seen) {
    if (f.job_id == minutely) slots.push_back(f.scheduled_ms);
  }
  EXPECT_THAT(slots, ::testing::ElementsAre(kStart + 1000, kStart + 61'000));
}

TEST_F(ScheduleLoopTest, AnInvalidatedJobIsReReadAloneAndArmed) {
  const int64_t slot = kStart + 1000;
  v1::Job j = RateJob(1000);
  auto stopped = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kStart);
  ASSERT_TRUE(stopped.ok());
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  loop.Tick();  // the first pre-read: nothing due
  // Started through the admin API: the loop re-reads that job, not every due job.
  ASSERT_TRUE(store_->SetJobState(stopped->id(), v1::JOB_STATE_RUNNING, slot, kStart).ok());
  loop.Invalidate(stopped->id());
  EXPECT_EQ(loop.Tick(), absl::FromUnixMillis(slot));
  clock_.AdvanceTo(absl::FromUnixMillis(slot));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 1u);
  EXPECT_EQ(sink_.seen[0].job_id, stopped->id());
  // Stopped again: disarmed without waiting for the next pre-read.
  ASSERT_TRUE(
      store_->SetJobState(stopped->id(), v1::JOB_STATE_STOPPED, store::kNever, kStart).ok());
  loop.Invalidate(stopped->id());
  loop.Tick();
  clock_.AdvanceTo(absl::FromUnixMillis(slot + 1000));
  loop.Tick();
  EXPECT_EQ(sink_.seen.size(), 1u);
}

// A FIX_DELAY job waits with no cursor (kNever) until its run's end; the
// follow-up's next fire is a message to the loop, the only cursor writer.
TEST_F(ScheduleLoopTest, AFixDelayJobsNextFireIsWrittenByTheLoopAndFires) {
  v1::Job j = RateJob(100);
  *j.mutable_schedule()->mutable_fix_delay() = TimeUtil::MillisecondsToDuration(300);
  const int64_t id = Create(j, kStart + 100);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 1u);
  EXPECT_EQ(sink_.seen[0].type, v1::TRIGGER_TYPE_FIX_DELAY);
  EXPECT_EQ(Cursor(id), store::kNever) << "written at once: it waits for the run's end";
  // The run ended at +150: the next fire is 300 ms later.
  store::JobAdvance next{.job_id = id,
                         .expected_next_fire_ms = store::kNever,
                         .next_fire_ms = kStart + 450,
                         .last_fire_ms = kStart + 100};
  ASSERT_TRUE(loop.Reschedule({next}).ok());  // No Run() thread: written by this call.
  EXPECT_EQ(Cursor(id), kStart + 450);
  // The same follow-up redone (its completion was lost) changes nothing: a
  // compare-and-set from kNever.
  store::JobAdvance again = next;
  again.next_fire_ms = kStart + 9000;
  ASSERT_TRUE(loop.Reschedule({again}).ok());
  EXPECT_EQ(Cursor(id), kStart + 450);
  EXPECT_EQ(loop.Tick(), absl::FromUnixMillis(kStart + 450));  // re-read and armed
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 450));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 2u);
  EXPECT_EQ(sink_.seen[1].scheduled_ms, kStart + 450);
  EXPECT_EQ(Cursor(id), store::kNever);  // waiting for that run's end
}

TEST_F(ScheduleLoopTest, RescheduleReturnsOnceTheRunningLoopHasWrittenTheCursor) {
  v1::Job j = RateJob(100);
  *j.mutable_schedule()->mutable_fix_delay() = TimeUtil::MillisecondsToDuration(300);
  const int64_t id = Create(j, store::kNever);  // between runs
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  std::thread owner([&] { loop.Run(); });
  const absl::Status written = loop.Reschedule({{.job_id = id,
                                                 .expected_next_fire_ms = store::kNever,
                                                 .next_fire_ms = kStart + 60'000,
                                                 .last_fire_ms = kStart}});
  EXPECT_TRUE(written.ok()) << written;
  EXPECT_EQ(Cursor(id), kStart + 60'000);
  loop.Stop();
  owner.join();
}

TEST_F(ScheduleLoopTest, ABurstStartsRecordingEarlierByItsLearntRecordingTime) {
  constexpr int kJobs = 2000;
  const int64_t slot = kStart + 1000;
  v1::Job j;
  j.set_group_id(group_id_);
  j.mutable_bean()->set_handler("h");
  j.mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
  for (int i = 0; i < kJobs; ++i) Create(j, slot);
  ScheduleLoopOptions o;
  o.record_ahead = absl::Milliseconds(50);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, o);
  // Before anything was learnt: 20 us a run, half again: 60 ms more lead.
  EXPECT_EQ(loop.Tick(), absl::FromUnixMillis(slot - 50 - 60));
  clock_.AdvanceTo(absl::FromUnixMillis(slot - 110));
  sink_.record_cost = absl::Microseconds(100);  // the store is slower than assumed
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), static_cast<size_t>(kJobs));
  EXPECT_EQ(sink_.seen.front().scheduled_ms, slot);
  // Recording took 200 ms: the average moves to 0.7 * 20 + 0.3 * 100 = 44 us,
  // so the next second's burst starts 50 + 1.5 * 2000 * 44 us = 182 ms ahead.
  clock_.AdvanceTo(absl::FromUnixMillis(slot + 100));
  EXPECT_EQ(loop.Tick(), absl::FromUnixMillis(slot + 1000 - 182));
}

TEST_F(ScheduleLoopTest, FixRateFiresEachSlotAtItsMillisecond) {
  const int64_t id = Create(RateJob(100), kStart + 100);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  EXPECT_EQ(loop.Tick(), absl::FromUnixMillis(kStart + 100));
  EXPECT_TRUE(sink_.seen.empty());
  for (int k = 1; k <= 20; ++k) {
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100 * k - 1));
    loop.Tick();
    ASSERT_EQ(sink_.seen.size(), static_cast<size_t>(k - 1)) << "fired early at slot " << k;
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100 * k));
    loop.Tick();
    ASSERT_EQ(sink_.seen.size(), static_cast<size_t>(k));
    EXPECT_EQ(sink_.seen.back().scheduled_ms, kStart + 100 * k);
    EXPECT_EQ(sink_.seen.back().fired_at_ms, kStart + 100 * k);
    EXPECT_EQ(sink_.seen.back().type, v1::TRIGGER_TYPE_FIX_RATE);
  }
  loop.Stop();  // Writes the batched cursor advances.
  EXPECT_EQ(Cursor(id), kStart + 2100);
}

// max_fires: the schedule fires that many slots from when the job was
// started, then has no next fire; the store counts them down with the
// cursors; starting it again gives it all of them again.
TEST_F(ScheduleLoopTest, AJobWithMaxFiresFiresThatManySlotsThenNoMore) {
  v1::Job j = RateJob(100);
  j.set_max_fires(3);
  const int64_t id = Create(j, kStart + 100);
  ASSERT_EQ(store_->GetJob(id)->fires_left(), 3u);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  for (int k = 1; k <= 10; ++k) {
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100 * k));
    loop.Tick();
  }
  ASSERT_EQ(sink_.seen.size(), 3u);
  EXPECT_EQ(sink_.seen.back().scheduled_ms, kStart + 300);
  loop.Stop();  // Writes the batched cursor advances.
  EXPECT_EQ(Cursor(id), store::kNever);
  absl::StatusOr<v1::Job> spent = store_->GetJob(id);
  ASSERT_TRUE(spent.ok());
  EXPECT_EQ(spent->fires_left(), 0u);
  EXPECT_EQ(spent->state(), v1::JOB_STATE_RUNNING);

  ASSERT_TRUE(store_->SetJobState(id, v1::JOB_STATE_RUNNING, kStart + 2000, kStart).ok());
  EXPECT_EQ(store_->GetJob(id)->fires_left(), 3u);
  // A new max_fires counts afresh; other edits keep the count.
  v1::Job edited = *store_->GetJob(id);
  edited.set_max_fires(5);
  ASSERT_TRUE(store_->UpdateJob(edited, std::nullopt, kStart).ok());
  EXPECT_EQ(store_->GetJob(id)->fires_left(), 5u);
  edited.set_description("renamed");
  edited.set_fires_left(1);  // Output only: ignored.
  ASSERT_TRUE(store_->UpdateJob(edited, std::nullopt, kStart).ok());
  EXPECT_EQ(store_->GetJob(id)->fires_left(), 5u);
  edited.set_max_fires(0);
  ASSERT_TRUE(store_->UpdateJob(edited, std::nullopt, kStart).ok());
  EXPECT_EQ(store_->GetJob(id)->fires_left(), 0u);  // No limit: none counted.
}

// start_time and end_time bound the slots: none before the start, none at
// or after the end.
TEST_F(ScheduleLoopTest, AJobsSlotsStayWithinItsStartAndEndTimes) {
  v1::Job j = RateJob(100);
  *j.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(kStart + 450);
  *j.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kStart + 800);
  EXPECT_EQ(FirstSlot(j, kStart, {}),
            kStart + 500);  // The grid from now, first at or after the start.
  EXPECT_EQ(SlotAfter(j, kStart + 600, {}), kStart + 700);
  EXPECT_EQ(SlotAfter(j, kStart + 700, {}), store::kNever);  // 800 is the end: not fired.
  EXPECT_EQ(FirstSlotAfterNow(j, kStart + 500, kStart + 950, {}), store::kNever);
  v1::Job cron;
  cron.mutable_schedule()->mutable_cron()->set_expression("0 0 9 * * ?");
  *cron.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(kStart + 3 * 86'400'000);
  // 2027-01-15 08:00 UTC now; the first 09:00 on or after the 18th.
  EXPECT_EQ(FirstSlot(cron, kStart, {}), kStart + 3 * 86'400'000 + 3'600'000);

  const int64_t id = Create(j, FirstSlot(j, kStart, {}));
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  for (int k = 1; k <= 12; ++k) {
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100 * k));
    loop.Tick();
  }
  std::vector<int64_t> slots;
  for (const auto& f : sink_.seen) slots.push_back(f.scheduled_ms - kStart);
  EXPECT_EQ(slots, (std::vector<int64_t>{500, 600, 700}));
  loop.Stop();
  EXPECT_EQ(Cursor(id), store::kNever);
}

// A calendar's disallowed slots are skipped (neither run nor misfires); a
// job whose calendar is not found fires nothing, its cursor kept, until it
// is; a cursor the calendar does not allow moves to the next slot it does.
TEST_F(ScheduleLoopTest, ACalendarSkipsTheSlotsItDoesNotAllow) {
  v1::Job j = RateJob(100);
  j.mutable_schedule()->mutable_cron()->set_expression("0 * * * * ?");  // Every minute.
  j.mutable_schedule()->set_calendar("two-minutes");
  const int64_t id = Create(j, kStart + 60'000);  // 08:01 UTC.
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {}, nullptr, store_.get());
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 60'000));
  loop.Tick();
  EXPECT_TRUE(sink_.seen.empty());
  EXPECT_EQ(Cursor(id), kStart + 60'000);  // Kept for when the calendar exists.

  v1::Calendar c;
  c.set_name("two-minutes");
  c.add_windows("08:03-08:05");
  ASSERT_TRUE(store_->CreateCalendar(c, clock_.NowMillis()).ok());
  for (int m = 2; m <= 8; ++m) {
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + m * 60'000));
    loop.Tick();
  }
  std::vector<int64_t> minutes;
  for (const auto& f : sink_.seen) {
    minutes.push_back((f.scheduled_ms - kStart) / 60'000);
    EXPECT_EQ(f.fired_at_ms, f.scheduled_ms);
  }
  EXPECT_EQ(minutes, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(loop.misfires_skipped(), 0);
  loop.Stop();
  EXPECT_EQ(Cursor(id), kStart + 86'400'000 + 3 * 60'000);  // Tomorrow's 08:03.
}

// Jitter runs each fire later than its slot by an amount fixed per job and
// slot (JitterMs: any replica picks the same), spread over the jitter; the
// run keeps its slot.
TEST_F(ScheduleLoopTest, JitterDelaysEachFireByItsOwnStableAmount) {
  constexpr int kJobs = 50;
  const int64_t slot = kStart + 60'000;
  v1::Job j = RateJob(100);
  j.mutable_schedule()->mutable_cron()->set_expression("0 * * * * ?");
  *j.mutable_schedule()->mutable_jitter() = TimeUtil::MillisecondsToDuration(20'000);
  for (int i = 0; i < kJobs; ++i) Create(j, slot);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  const absl::Time end = absl::FromUnixMillis(slot + 30'000);
  while (clock_.Now() < end) clock_.AdvanceTo(std::min(loop.Tick(), end));
  ASSERT_EQ(sink_.seen.size(), static_cast<size_t>(kJobs));
  absl::flat_hash_set<int64_t> delays;
  for (const auto& f : sink_.seen) {
    EXPECT_EQ(f.scheduled_ms, slot);
    absl::StatusOr<v1::Job> job = store_->GetJob(f.job_id);
    ASSERT_TRUE(job.ok());
    const int64_t delay = f.fired_at_ms - slot;
    EXPECT_EQ(delay, JitterMs(*job, slot, slot + 60'000));
    EXPECT_GE(delay, 0);
    EXPECT_LT(delay, 20'000);
    delays.insert(delay);
  }
  EXPECT_GE(delays.size(), 45u);  // Spread, not bunched.
  EXPECT_EQ(loop.misfires_skipped() + loop.misfires_fired(), 0);
}

TEST_F(ScheduleLoopTest, CronJobFiresOnItsSecondsInItsZone) {
  v1::Job j = RateJob(100);
  j.mutable_schedule()->mutable_cron()->set_expression("*/2 * * * * ?");
  j.mutable_schedule()->mutable_cron()->set_time_zone("Europe/Berlin");
  Create(j, kStart + 2000);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  for (int s = 1; s <= 6; ++s) {
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + 1000 * s));
    loop.Tick();
  }
  ASSERT_EQ(sink_.seen.size(), 3u);
  EXPECT_EQ(sink_.seen[0].scheduled_ms, kStart + 2000);
  EXPECT_EQ(sink_.seen[1].scheduled_ms, kStart + 4000);
  EXPECT_EQ(sink_.seen[2].scheduled_ms, kStart + 6000);
  EXPECT_EQ(sink_.seen[2].type, v1::TRIGGER_TYPE_CRON);
}

TEST_F(ScheduleLoopTest, CursorAdvancesAreWrittenInBatches) {
  const int64_t id = Create(RateJob(100), kStart + 100);
  ScheduleLoopOptions o;
  o.advance_flush_interval = absl::Milliseconds(500);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, o);
  loop.Tick();
  for (int k = 1; k <= 4; ++k) {
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100 * k));
    loop.Tick();
  }
  ASSERT_EQ(sink_.seen.size(), 4u);
  EXPECT_EQ(Cursor(id), kStart + 100);  // Not yet written: one batch per interval.
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 500));
  loop.Tick();
  EXPECT_EQ(Cursor(id), kStart + 600);
}

TEST_F(ScheduleLoopTest, ManyJobsDueEverySecondHaveTheirCursorsWrittenOncePerInterval) {
  // More jobs than a write transaction takes: still one write per interval
  // (in transactions of advance_batch), each job's latest cursor only.
  std::vector<int64_t> ids;
  for (int i = 0; i < 25; ++i) ids.push_back(Create(RateJob(1000), kStart + 1000));
  ScheduleLoopOptions o;
  o.advance_flush_interval = absl::Seconds(2);
  o.advance_batch = 10;
  ScheduleLoop loop(store_.get(), &sink_, &clock_, o);
  loop.Tick();
  for (int64_t slot = kStart + 1000; slot <= kStart + 4000; slot += 1000) {
    clock_.AdvanceTo(absl::FromUnixMillis(slot));
    loop.Tick();
    // Written every other fire: at +2 s and +4 s, each job's latest cursor.
    const int64_t written = slot - kStart >= 4000   ? kStart + 5000
                            : slot - kStart >= 2000 ? kStart + 3000
                                                    : kStart + 1000;
    for (int64_t id : ids) EXPECT_EQ(Cursor(id), written) << "job " << id << " at " << slot;
  }
  EXPECT_EQ(sink_.seen.size(), 100u);
}

TEST_F(ScheduleLoopTest, AJobStoppedThroughAnotherReplicaIsDroppedAtThePreRead) {
  const int64_t id = Create(RateJob(1000), kStart + 3000);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  loop.Tick();  // Armed for kStart + 3000.
  // Stopped in the store without telling this loop (another replica's admin call).
  ASSERT_TRUE(store_->SetJobState(id, v1::JOB_STATE_STOPPED, store::kNever, kStart).ok());
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 1000));  // Next pre-read.
  loop.Tick();
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 3000));
  loop.Tick();
  EXPECT_TRUE(sink_.seen.empty());
}

TEST_F(ScheduleLoopTest, AJobStoppedElsewhereWhileItsCursorIsNotWrittenYetStopsAtThePreRead) {
  const int64_t id = Create(RateJob(200), kStart + 200);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  loop.Tick();
  for (int64_t t = kStart + 200; t <= kStart + 600; t += 200) {
    clock_.AdvanceTo(absl::FromUnixMillis(t));
    loop.Tick();  // Fires; the cursor waits for the 2 s write.
  }
  ASSERT_EQ(sink_.seen.size(), 3u);
  ASSERT_TRUE(store_->SetJobState(id, v1::JOB_STATE_STOPPED, store::kNever, kStart).ok());
  for (int64_t t = kStart + 800; t <= kStart + 3000; t += 200) {
    clock_.AdvanceTo(absl::FromUnixMillis(t));
    loop.Tick();
  }
  // The slot at +800 may still fire (before the pre-read at +1 s), none after.
  EXPECT_LE(sink_.seen.size(), 4u);
  EXPECT_EQ(Cursor(id), store::kNever);  // Its late cursor write did not revive it.
}

TEST_F(ScheduleLoopTest, StoppedJobIsNotFiredAndInvalidateForgetsIt) {
  const int64_t id = Create(RateJob(100), kStart + 100);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  loop.Tick();  // Armed in memory.
  ASSERT_TRUE(store_->SetJobState(id, v1::JOB_STATE_STOPPED, store::kNever, kStart).ok());
  loop.Invalidate(id);
  clock_.Advance(absl::Seconds(1));
  loop.Tick();
  EXPECT_TRUE(sink_.seen.empty());
}

TEST_F(ScheduleLoopTest, FailedRecordingKeepsTheCursorSoTheSlotIsNotLost) {
  const int64_t id = Create(RateJob(1000), kStart + 1000);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  sink_.fail = true;
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 1000));
  loop.Tick();
  EXPECT_EQ(Cursor(id), kStart + 1000);  // Not advanced past an unrecorded slot.
  sink_.fail = false;
  clock_.Advance(absl::Milliseconds(10));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 1u);
  EXPECT_EQ(sink_.seen[0].scheduled_ms, kStart + 1000);
  loop.Stop();
  EXPECT_EQ(Cursor(id), kStart + 2000);
}

class MisfireTest : public ScheduleLoopTest {
 protected:
  // A 1 s job whose cursor is a minute behind (the scheduler was down).
  int64_t LateJob(v1::MisfirePolicy policy, uint32_t max_catch_up = 0) {
    v1::Job j = RateJob(1000);
    j.mutable_misfire()->set_policy(policy);
    j.mutable_misfire()->set_max_catch_up(max_catch_up);
    return Create(j, kStart - 60'000);
  }
};

TEST_F(MisfireTest, DoNothingSkipsToTheNextFutureSlot) {
  const int64_t id = LateJob(v1::MISFIRE_POLICY_DO_NOTHING);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  clock_.Advance(absl::Milliseconds(500));
  loop.Tick();
  EXPECT_TRUE(sink_.seen.empty());
  // Every slot from a minute ago to now is accounted for: all skipped.
  EXPECT_EQ(loop.misfires_skipped(), 61);
  EXPECT_EQ(loop.misfires_fired(), 0);
  loop.Stop();
  EXPECT_EQ(Cursor(id), kStart + 1000);
}

TEST_F(MisfireTest, SlotsSkippedPastTheEndOfAScheduleAreCountedToo) {
  // Ten slots, a minute ago, never again (a cron with its date and year).
  const absl::Time first = absl::FromUnixMillis(kStart - 60'000);
  const absl::CivilSecond c = absl::ToCivilSecond(first, absl::UTCTimeZone());
  v1::Job j = RateJob(1000);
  j.mutable_schedule()->mutable_cron()->set_expression(
      absl::StrCat(c.second(), "-", c.second() + 9, " ", c.minute(), " ", c.hour(), " ", c.day(),
                   " ", c.month(), " ? ", c.year()));
  ASSERT_LE(c.second() + 9, 59);
  j.mutable_misfire()->set_policy(v1::MISFIRE_POLICY_DO_NOTHING);
  const int64_t id = Create(j, kStart - 60'000);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  clock_.Advance(absl::Milliseconds(500));
  loop.Tick();
  EXPECT_TRUE(sink_.seen.empty());
  EXPECT_EQ(loop.misfires_skipped(), 10);
  EXPECT_EQ(loop.Behind(), absl::ZeroDuration());  // Nothing is due any more.
  loop.Stop();
  EXPECT_EQ(Cursor(id), store::kNever);
}

TEST_F(MisfireTest, FireOnceNowFiresTheOldestMissedSlotOnceThenResumes) {
  const int64_t id = LateJob(v1::MISFIRE_POLICY_FIRE_ONCE_NOW);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  clock_.Advance(absl::Milliseconds(500));
  loop.Tick();
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 1u);
  EXPECT_EQ(sink_.seen[0].type, v1::TRIGGER_TYPE_MISFIRE);
  EXPECT_EQ(sink_.seen[0].scheduled_ms, kStart - 60'000);
  EXPECT_EQ(loop.misfires_fired(), 1);
  EXPECT_EQ(loop.misfires_skipped(), 60);  // The other slots up to now.
  loop.Stop();
  EXPECT_EQ(Cursor(id), kStart + 1000);
}

TEST_F(MisfireTest, CatchUpFiresMissedSlotsOldestFirstUpToTheLimit) {
  const int64_t id = LateJob(v1::MISFIRE_POLICY_CATCH_UP, 5);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  clock_.Advance(absl::Milliseconds(500));
  for (int i = 0; i < 10; ++i) loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(sink_.seen[i].scheduled_ms, kStart - 60'000 + 1000 * i);
    EXPECT_EQ(sink_.seen[i].type, v1::TRIGGER_TYPE_MISFIRE);
  }
  EXPECT_EQ(loop.misfires_fired(), 5);
  EXPECT_EQ(loop.misfires_skipped(), 56);  // 5 + 56: the 61 slots up to now.
  loop.Stop();
  EXPECT_EQ(Cursor(id), kStart + 1000);
}

TEST_F(MisfireTest, SlotWithinTheThresholdIsNotAMisfire) {
  v1::Job j = RateJob(1000);
  *j.mutable_misfire()->mutable_threshold() = TimeUtil::MillisecondsToDuration(5000);
  Create(j, kStart - 4000);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  loop.Tick();
  ASSERT_FALSE(sink_.seen.empty());
  EXPECT_EQ(sink_.seen[0].type, v1::TRIGGER_TYPE_FIX_RATE);
  EXPECT_EQ(sink_.seen[0].scheduled_ms, kStart - 4000);
}

}  // namespace
}  // namespace gnomon::scheduler

namespace gnomon::scheduler {
namespace {

using testing::Holding;
using testing::PartitionOf;

TEST_F(ScheduleLoopTest, FiresOnlyThePartitionsHeldAndOnlyWhileTheHoldIsValid) {
  const int64_t slot = kStart + 1000;
  const int64_t mine = Create(RateJob(1000), slot);
  const int64_t theirs = Create(RateJob(1000), slot);
  ASSERT_NE(PartitionOf(mine), PartitionOf(theirs));
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  loop.SetOwnership(Holding({PartitionOf(mine)}, slot + 500));
  loop.Tick();
  clock_.AdvanceTo(absl::FromUnixMillis(slot));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 1u);
  EXPECT_EQ(sink_.seen[0].job_id, mine);

  // The hold lapses (renewals failing): the next slot is not fired...
  clock_.AdvanceTo(absl::FromUnixMillis(slot + 1000));
  loop.Tick();
  clock_.AdvanceTo(absl::FromUnixMillis(slot + 2000));
  loop.Tick();
  EXPECT_EQ(sink_.seen.size(), 1u);
  // ...until a renewal succeeds; then the late slot fires.
  loop.SetOwnership(Holding({PartitionOf(mine)}, slot + 10000));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 2u);
  EXPECT_EQ(sink_.seen[1].scheduled_ms, slot + 1000);

  // Given the other partition too: its job is pre-read and fires at once.
  loop.SetOwnership(Holding({PartitionOf(mine), PartitionOf(theirs)}, slot + 10000));
  loop.Tick();
  bool theirs_fired = false;
  for (const auto& f : sink_.seen) theirs_fired |= f.job_id == theirs;
  EXPECT_TRUE(theirs_fired);

  // Giving a partition up disarms its job and writes its cursor first
  // (applied by the owner: here the thread calling Tick).
  loop.SetOwnership(Holding({PartitionOf(theirs)}, slot + 10000));
  loop.Tick();
  EXPECT_GT(Cursor(mine), slot + 1000);
  const size_t before = sink_.seen.size();
  clock_.AdvanceTo(absl::FromUnixMillis(slot + 5000));
  loop.Tick();
  for (size_t i = before; i < sink_.seen.size(); ++i) EXPECT_EQ(sink_.seen[i].job_id, theirs);
}

TEST_F(ScheduleLoopTest, GivingPartitionsUpReturnsOnlyOnceTheOwnerHasWrittenTheirCursors) {
  // Drain, then release: the lease hands a partition over as soon as
  // SetOwnership returns, so its jobs' cursors must be in the store by then.
  const int64_t slot = kStart + 1000;
  const int64_t mine = Create(RateJob(1000), slot);
  ScheduleLoopOptions o;
  o.advance_flush_interval = absl::Hours(1);  // Only a hand-over writes them.
  o.advance_batch = 1'000'000;
  ScheduleLoop loop(store_.get(), &sink_, &clock_, o);
  loop.SetOwnership(Holding({PartitionOf(mine)}, slot + 60'000));
  std::thread owner([&] { loop.Run(); });
  clock_.BlockUntilWaiters(1);  // Armed, waiting for the slot.
  clock_.AdvanceTo(absl::FromUnixMillis(slot));
  sink_.fired.WaitForNotification();
  EXPECT_EQ(Cursor(mine), slot);  // Fired; the advance is still in memory.
  loop.SetOwnership(Holding({}, slot + 60'000));
  EXPECT_EQ(Cursor(mine), slot + 1000);
  loop.Stop();
  owner.join();
}

TEST_F(ScheduleLoopTest, AnInvalidateSentWhileASlotIsBeingRecordedIsAppliedAfterIt) {
  // An admin call stops the job while its slot is being recorded: the
  // owner re-arms it when the fire returns, then applies the message and
  // re-reads the job, so the next slot is not fired.
  const int64_t id = Create(RateJob(100), kStart + 100);
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {});
  sink_.during_fire = [&] {
    ASSERT_TRUE(store_->SetJobState(id, v1::JOB_STATE_STOPPED, store::kNever, kStart).ok());
    loop.Invalidate(id);
    sink_.during_fire = nullptr;
  };
  loop.Tick();
  clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100));
  loop.Tick();
  ASSERT_EQ(sink_.seen.size(), 1u);
  for (int k = 2; k <= 5; ++k) {
    clock_.AdvanceTo(absl::FromUnixMillis(kStart + 100 * k));
    loop.Tick();
  }
  EXPECT_EQ(sink_.seen.size(), 1u);
  EXPECT_EQ(loop.ArmedJobs(), 0u);
}

}  // namespace
}  // namespace gnomon::scheduler

namespace gnomon::scheduler {
namespace {

// A lease lost mid-fire: the holder's hold lapses, and another replica takes
// its partition over, while the holder is still recording a slot. Whoever
// records a slot first has it; the other records nothing, the old holder
// fires nothing more, and its late cursor write cannot move the cursor back.
class LeaseLostMidFireTest : public ScheduleLoopTest {
 protected:
  // A replica: its recorder (its epochs), a sink recording through it, its loop.
  struct Replica {
    Replica(store::Store* store, SimulatedClock* clock)
        : recorder(store, clock), sink(&recorder), loop(store, &sink, clock, Options()) {}
    // Cursors written at ticks 200 ms apart, so each step of the story writes.
    static ScheduleLoopOptions Options() {
      ScheduleLoopOptions o;
      o.advance_flush_interval = absl::Milliseconds(200);
      return o;
    }
    void Hold(int partition, int64_t epoch, int64_t valid_until_ms) {
      auto o = Holding({partition}, valid_until_ms);
      o->epochs[partition] = epoch;
      recorder.set_ownership(o);
      loop.SetOwnership(o);
    }
    RunRecorder recorder;
    testing::RecordingSink sink;
    ScheduleLoop loop;
  };
  void SetUp() override {
    ScheduleLoopTest::SetUp();
    job_ = Create(RateJob(1000), kSlot);
    partition_ = PartitionOf(job_);
    a_ = std::make_unique<Replica>(store_.get(), &clock_);
    b_ = std::make_unique<Replica>(store_.get(), &clock_);
    a_->Hold(partition_, 1, kSlot + 500);  // A holds the partition, for now.
    a_->loop.Tick();
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
    ScheduleLoopTest::TearDown();
  }
  // Slot -> the fencing epochs of the runs recorded for it.
  std::map<int64_t, std::vector<int64_t>> Recorded() {
    std::map<int64_t, std::vector<int64_t>> out;
    for (const v1::Run& r : testing::RunsOf(store_.get(), job_)) {
      out[TimeUtil::TimestampToMilliseconds(r.scheduled_time())].push_back(r.fence_epoch());
    }
    return out;
  }

  static constexpr int64_t kSlot = kStart + 1000;  // The job's first slot; one a second.
  int64_t job_ = 0;
  int partition_ = 0;
  std::unique_ptr<Replica> a_, b_;  // The old holder and the new.
};

using ::testing::ElementsAre;
using ::testing::Pair;

TEST_F(LeaseLostMidFireTest,
       TheNewHolderGetsTheSlotTheOldOneWasRecordingAndTheOldFiresNothingMore) {
  a_->sink.before_record = [&] {
    a_->sink.before_record = nullptr;
    // A's store call is slow: its hold lapses, and B takes the partition over.
    clock_.AdvanceTo(absl::FromUnixMillis(kSlot + 2000));
    b_->Hold(partition_, 2, kSlot + 60'000);
    b_->loop.Tick();  // B fires the slot A is recording...
    clock_.AdvanceTo(absl::FromUnixMillis(kSlot + 2300));
    b_->loop.Tick();  // ...and the next, and writes its cursor.
  };
  clock_.AdvanceTo(absl::FromUnixMillis(kSlot));
  a_->loop.Tick();
  EXPECT_THAT(Recorded(),
              ElementsAre(Pair(kSlot, ElementsAre(2)), Pair(kSlot + 1000, ElementsAre(2))));
  EXPECT_EQ(Cursor(job_), kSlot + 2000);  // A's write (slot -> slot + 1000) was refused.
  a_->loop.Tick();                        // Lapsed: nothing.
  b_->loop.Tick();
  EXPECT_THAT(Recorded(),
              ElementsAre(Pair(kSlot, ElementsAre(2)), Pair(kSlot + 1000, ElementsAre(2)),
                          Pair(kSlot + 2000, ElementsAre(2))));
}

TEST_F(LeaseLostMidFireTest, ASlotTheOldHolderRecordedBeforeItsLeaseWasTakenIsNotRecordedAgain) {
  // Its run keeps the old epoch: an executor that has seen the new one
  // refuses it and the new holder resends it (deliveries_test).
  clock_.AdvanceTo(absl::FromUnixMillis(kSlot));
  a_->loop.Tick();  // Recorded; its cursor not written yet.
  clock_.AdvanceTo(absl::FromUnixMillis(kSlot + 2000));
  b_->Hold(partition_, 2, kSlot + 60'000);
  for (int i = 0; i < 3; ++i) b_->loop.Tick();  // The slot is taken; the next one is B's.
  a_->loop.Tick();                              // Lapsed: nothing.
  a_->loop.SetOwnership(Holding({}, 0));
  a_->loop.Tick();  // Given up: A writes the cursor it had.
  for (int i = 0; i < 3; ++i) b_->loop.Tick();
  clock_.AdvanceTo(absl::FromUnixMillis(kSlot + 3000));
  for (int i = 0; i < 3; ++i) b_->loop.Tick();
  EXPECT_THAT(Recorded(),
              ElementsAre(Pair(kSlot, ElementsAre(1)), Pair(kSlot + 1000, ElementsAre(2)),
                          Pair(kSlot + 2000, ElementsAre(2)), Pair(kSlot + 3000, ElementsAre(2))));
}

}  // namespace
}  // namespace gnomon::scheduler
