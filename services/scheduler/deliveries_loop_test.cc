// Deliveries with their loop running: runs recorded ahead wait for their
// instant on the loop's timers, and answers arriving on many threads at once
// each move their own run on (the TSan build runs this).
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/deliveries.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/testing/fake_executors.h"
#include "services/scheduler/trigger.h"

namespace gnomon::scheduler {
namespace {

constexpr int64_t kNow = 1'800'000'000'000;

// An ExecutorClient for many threads: keeps what was sent until answered.
class SharedExecutors final : public testing::SendOnlyExecutors {
 public:
  struct Sent {
    std::string address;
    v1::RunRequest run;
    DispatchCallback cb;
  };
  void Send(const std::string& address, const std::string&, v1::RunRequest run,
            DispatchCallback cb) override {
    absl::MutexLock l(&mu_);
    sent_.push_back({address, std::move(run), std::move(cb)});
    ++total_;
  }
  // Waits until `n` sends in all were made.
  void AwaitSent(int n) {
    absl::MutexLock l(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return total_ >= n; };
    mu_.Await(absl::Condition(&enough));
  }
  // Waits until a send is waiting for its answer, or `all` were made.
  void AwaitWork(int all) {
    absl::MutexLock l(&mu_);
    auto work = [this, all]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !sent_.empty() || total_ >= all; };
    mu_.Await(absl::Condition(&work));
  }
  // Takes the earliest send not yet answered, if any.
  std::optional<Sent> Take() {
    absl::MutexLock l(&mu_);
    if (sent_.empty()) return std::nullopt;
    Sent s = std::move(sent_.front());
    sent_.pop_front();
    return s;
  }
  int total() {
    absl::MutexLock l(&mu_);
    return total_;
  }

 private:
  absl::Mutex mu_;
  std::deque<Sent> sent_ ABSL_GUARDED_BY(mu_);
  int total_ ABSL_GUARDED_BY(mu_) = 0;
};

class DeliveriesLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> group = store_.AddGroup("app", "group-token", kNow);
    ASSERT_TRUE(group.ok()) << group.status();
    group_ = *group;
    membership_.Apply(testing::Snapshot(
        {testing::Registered("app", "a:1", "i-a"), testing::Registered("app", "b:1", "i-b")}));
  }
  std::shared_ptr<const v1::Job> Job() {
    v1::Job j;
    j.set_group_id(group_.id());
    j.mutable_bean()->set_handler("h");
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return std::make_shared<const v1::Job>(*job);
  }
  // A fire of `job`'s slot at `slot_ms`, recorded now and sent at its slot.
  FireSpec Ahead(std::shared_ptr<const v1::Job> job, int64_t slot_ms) {
    FireSpec f;
    f.job = std::move(job);
    f.type = v1::TRIGGER_TYPE_FIX_RATE;
    f.scheduled_ms = slot_ms;
    f.dispatch_at_ms = slot_ms;
    return f;
  }
  int64_t FireOne(FireSpec f) {
    absl::StatusOr<std::vector<FireOutcome>> out = trigger_.Fire({std::move(f)});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() && !(*out)[0].run_ids.empty() ? (*out)[0].run_ids[0] : 0;
  }
  v1::Run Stored(int64_t run_id) {
    absl::StatusOr<v1::Run> r = store_->GetRun(run_id);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::Run();
  }

  store::testing::TempStore store_;
  v1::Group group_;
  Membership membership_{"cluster-token", &RealClock()};
  SharedExecutors executors_;
  DispatchRecorder outcomes_{store_.get(), &RealClock()};
  GroupTargets targets_{store_.get(), &membership_, &RealClock()};
  RunRecorder recorder_{store_.get(), &RealClock()};
  TriggerPools pools_{&RealClock(), {}};
  Deliveries deliveries_{{.executors = &executors_,
                          .outcomes = &outcomes_,
                          .targets = &targets_,
                          .clock = &RealClock(),
                          .partition_count = store_->partition_count(),
                          .pools = &pools_}};
  Trigger trigger_{&recorder_, &targets_, &deliveries_};
};

TEST_F(DeliveriesLoopTest, ARunRecordedAheadWaitsForItsInstantAndFlushSendsItAtOnce) {
  deliveries_.Start();
  const int64_t now = absl::ToUnixMillis(absl::Now());
  std::shared_ptr<const v1::Job> job = Job();
  const int64_t due = FireOne(Ahead(job, now));              // Its instant has come.
  const int64_t later = FireOne(Ahead(job, now + 600'000));  // Ten minutes ahead.
  executors_.AwaitSent(1);
  std::optional<SharedExecutors::Sent> first = executors_.Take();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->run.run_id(), due);
  EXPECT_FALSE(executors_.Take().has_value());  // The later one waits on its timer.
  deliveries_.Flush();  // Stopping: what waits goes now, rather than being lost.
  pools_.Stop();        // Its routing task has run.
  std::optional<SharedExecutors::Sent> second = executors_.Take();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->run.run_id(), later);
  deliveries_.Stop();
}

TEST_F(DeliveriesLoopTest, AnswersFromManyThreadsEachMoveTheirOwnRunOnce) {
  deliveries_.Start();
  std::thread outcomes_thread([this] { outcomes_.Run(); });
  constexpr int kJobs = 40;
  constexpr int kRunsPerJob = 25;
  std::vector<int64_t> ids;
  for (int j = 0; j < kJobs; ++j) {
    std::shared_ptr<const v1::Job> job = Job();
    for (int r = 0; r < kRunsPerJob; ++r) {
      FireSpec f;
      f.job = job;
      ids.push_back(FireOne(std::move(f)));
    }
  }
  // Four executor threads answer at once: a:1 is full (its runs go on to
  // b:1, which takes them), and b:1's first answer for every tenth run is
  // lost (it is asked again and says it already has it).
  int sends = 0;  // Two per run, and one more for each answer lost.
  for (int64_t id : ids) sends += id % 10 == 0 ? 3 : 2;
  std::vector<std::thread> answering;
  for (int t = 0; t < 4; ++t) {
    answering.emplace_back([this, sends] {
      for (;;) {
        std::optional<SharedExecutors::Sent> s = executors_.Take();
        if (!s) {
          if (executors_.total() >= sends) return;
          executors_.AwaitWork(sends);
          continue;
        }
        if (s->address == "a:1") {
          v1::RunAnswer full;
          full.mutable_rejected()->set_kind(v1::REJECT_KIND_QUEUE_FULL);
          full.mutable_rejected()->set_reason("queue full");
          s->cb(full);
        } else if (s->run.run_id() % 10 == 0 &&
                   s->run.receipt().find("asked again") == std::string::npos) {
          s->cb(absl::UnknownError("stream broke before b:1 answered"));
        } else {
          v1::RunAnswer ok;
          ok.mutable_accepted()->set_already_accepted(s->run.receipt().find("asked again") !=
                                                      std::string::npos);
          s->cb(ok);
        }
      }
    });
  }
  for (auto& t : answering) t.join();
  deliveries_.Flush();
  pools_.Stop();
  deliveries_.Stop();
  outcomes_.Stop();
  outcomes_thread.join();
  for (int64_t id : ids) {
    const v1::Run run = Stored(id);
    ASSERT_EQ(run.status(), v1::RUN_STATUS_RUNNING) << id << ": " << run.trigger_message();
    EXPECT_EQ(run.executor_address(), "b:1");
    EXPECT_NE(run.trigger_message().find("(refused by a:1)"), std::string::npos);
  }
}

}  // namespace
}  // namespace gnomon::scheduler
