// FollowRunLog (StreamRunLog's logic): what `gnomonctl run log --follow`
// and the console's live log rely on. A follower gets every line once, in
// order, as the report writer stores it, and ends when the run ends without
// missing the lines stored with its result; it stops when the client goes
// or its credential is refused;
// a store failure ends it with that status (the client resumes from the
// next line), and a bad request names its field. Real SQLite store, real
// ReportWriter and LogTailHub, no server.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/log/log_service.h"
#include "services/log/testing/run_fixtures.h"

namespace gnomon::logsvc {
namespace {

using store::testing::CallPhase;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::LogLines;
using testing::Result;
using ::testing::StartsWith;

constexpr absl::Duration kPatience = absl::Seconds(60);  // Bounds a broken test only.

class FollowRunLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(f_.status().ok()) << f_.status();
    run_ = f_.AddRun(f_.job(), 60'000);
    ConnectTailHub(&writer_, &hub_);
    writer_thread_ = std::thread([this] { writer_.Run(); });
  }
  void TearDown() override {
    Answer(absl::CancelledError("test over"));
    hub_.Notify({run_});
    if (follower_.joinable()) follower_.join();
    writer_.Stop();
    writer_thread_.join();
  }

  // Stores `items` as an executor's report does, and waits until they are.
  void Report(std::vector<v1::ReportItem> items) {
    auto stored = std::make_shared<absl::Notification>();
    writer_.Submit({std::move(items), f_.group().id(),
                    [stored](std::vector<v1::ReportAck>) { stored->Notify(); }});
    ASSERT_TRUE(stored->WaitForNotificationWithTimeout(kPatience));
  }
  // Follows on a thread of its own; the lines go to lines_, the end to result_.
  void StartFollowing(v1::StreamRunLogRequest req) {
    follower_ = std::thread([this, req] {
      absl::Status s = FollowRunLog(
          &runs_, &hub_, req,
          [this] {
            absl::MutexLock lock(&mu_);
            return go_on_;
          },
          [this](const v1::LogLine& l) {
            absl::MutexLock lock(&mu_);
            lines_.push_back(l.line_number());
            return true;
          });
      absl::MutexLock lock(&mu_);
      result_ = s;
      ended_ = true;
    });
  }
  bool AwaitLines(size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return lines_.size() >= n || ended_; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), kPatience) && lines_.size() >= n;
  }
  // Waits for the follow to end; its status.
  absl::Status Ended() {
    follower_.join();
    absl::MutexLock l(&mu_);
    return result_;
  }
  std::vector<int64_t> Lines() {
    absl::MutexLock l(&mu_);
    return lines_;
  }
  // Follows to the end on this thread, collecting the line numbers.
  absl::Status FollowHere(const v1::StreamRunLogRequest& req, std::vector<int64_t>* out) {
    return FollowRunLog(
        &runs_, &hub_, req, [] { return absl::OkStatus(); },
        [out](const v1::LogLine& l) {
          out->push_back(l.line_number());
          return true;
        });
  }
  static v1::StreamRunLogRequest Request(int64_t run_id, bool follow, int64_t from_line = 0) {
    v1::StreamRunLogRequest req;
    req.set_run_id(run_id);
    req.set_follow(follow);
    req.set_from_line(from_line);
    return req;
  }

  testing::RunFixture f_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingRunStore runs_{f_.store(), &hook_};
  ReportWriter writer_{f_.store(), &RealClock(), {}};
  LogTailHub hub_;
  // What the handler's check answers (StreamRunLog's: the client gone, its
  // credential refused).
  void Answer(absl::Status s) {
    absl::MutexLock lock(&mu_);
    go_on_ = s;
  }

  int64_t run_ = 0;
  std::thread writer_thread_, follower_;
  absl::Mutex mu_;
  absl::Status go_on_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> lines_ ABSL_GUARDED_BY(mu_);
  absl::Status result_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

TEST_F(FollowRunLogTest, AFollowerGetsEveryLineOnceAsItArrivesAndEndsWithTheRun) {
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 1, 2)}));
  StartFollowing(Request(run_, /*follow=*/true));
  ASSERT_TRUE(AwaitLines(2));
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 3, 4)}));
  ASSERT_TRUE(AwaitLines(4));
  // The last lines come with the result: none of them may be missed.
  ASSERT_NO_FATAL_FAILURE(
      Report({LogLines(run_, 5, 6), Result(run_, v1::HANDLE_CODE_SUCCESS, 90'000)}));
  EXPECT_TRUE(Ended().ok());
  EXPECT_THAT(Lines(), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST_F(FollowRunLogTest, FollowingARunThatHasEndedReturnsItsWholeLogAtOnce) {
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 1, 3), Result(run_, 500, 90'000)}));
  std::vector<int64_t> lines;
  ASSERT_TRUE(FollowHere(Request(run_, /*follow=*/true), &lines).ok());
  EXPECT_THAT(lines, ElementsAre(1, 2, 3));
}

// Without follow: the lines stored now, from from_line, across pages of the
// store's reads — and no waiting for a run that is still running.
TEST_F(FollowRunLogTest, ReadingWithoutFollowReturnsTheStoredLinesFromTheLineAsked) {
  ASSERT_TRUE(f_.store()->ApplyReports({LogLines(run_, 1, 1200)}, 0).ok());
  std::vector<int64_t> lines;
  ASSERT_TRUE(FollowHere(Request(run_, /*follow=*/false, /*from_line=*/101), &lines).ok());
  ASSERT_EQ(lines.size(), 1100u);
  for (size_t i = 0; i < lines.size(); ++i) ASSERT_EQ(lines[i], static_cast<int64_t>(101 + i));
  lines.clear();
  ASSERT_TRUE(FollowHere(Request(run_, /*follow=*/false, /*from_line=*/0), &lines).ok());
  EXPECT_EQ(lines.size(), 1200u);  // 0 means from the first line.
  EXPECT_EQ(lines.front(), 1);
}

TEST_F(FollowRunLogTest, AFollowEndsWhenTheClientGoes) {
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 1, 1)}));
  StartFollowing(Request(run_, /*follow=*/true));
  ASSERT_TRUE(AwaitLines(1));
  Answer(absl::CancelledError("the client went away"));
  hub_.Notify({run_});  // Whatever wakes it next finds the client gone.
  EXPECT_THAT(Ended(), StatusIs(absl::StatusCode::kCancelled));

  // A client that stops reading (its stream's Write fails) ends it too.
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 2, 5)}));
  int emitted = 0;
  absl::Status s = FollowRunLog(
      &runs_, &hub_, Request(run_, /*follow=*/true), [] { return absl::OkStatus(); },
      [&](const v1::LogLine&) { return ++emitted < 2; });
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(emitted, 2);
}

// A follower whose token is revoked while the run goes on (StreamCredentials
// refuses it) gets that refusal, and no line stored after it.
TEST_F(FollowRunLogTest, AFollowEndsWithTheRefusalItsCredentialGetsAsItGoes) {
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 1, 2)}));
  StartFollowing(Request(run_, /*follow=*/true));
  ASSERT_TRUE(AwaitLines(2));
  Answer(absl::UnauthenticatedError(kRefusedMessage));
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 3, 4)}));
  EXPECT_THAT(Ended(), StatusIs(absl::StatusCode::kUnauthenticated, kRefusedMessage));
  EXPECT_THAT(Lines(), ElementsAre(1, 2));
}

// The client learns the follow broke (and resumes from its next line)
// rather than seeing a clean end of a log that is not complete.
TEST_F(FollowRunLogTest, AStoreFailureDuringAFollowEndsItWithThatStatus) {
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 1, 2)}));
  hook_.Set([this](std::string_view call, CallPhase phase) {
    return call == "ReadRunLog" && phase == CallPhase::kBefore && hook_.calls("ReadRunLog") > 1
               ? absl::UnavailableError("store down")
               : absl::OkStatus();
  });
  StartFollowing(Request(run_, /*follow=*/true));
  ASSERT_TRUE(AwaitLines(2));
  ASSERT_NO_FATAL_FAILURE(Report({LogLines(run_, 3, 3)}));  // Wakes it: the next read fails.
  EXPECT_THAT(Ended(), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(Lines(), ElementsAre(1, 2));
}

TEST_F(FollowRunLogTest, ABadRequestIsRefusedNamingTheField) {
  std::vector<int64_t> lines;
  absl::Status s = FollowHere(Request(0, true), &lines);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("run_id")));
  s = FollowHere(Request(run_, true, /*from_line=*/-1), &lines);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("from_line")));
  s = FollowHere(Request(run_ + 1000, true), &lines);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound,
                          AllOf(StartsWith("run_id"), HasSubstr("does not exist"))));
  EXPECT_TRUE(lines.empty());
}

}  // namespace
}  // namespace gnomon::logsvc
