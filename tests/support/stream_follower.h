// Follower: a gRPC server stream read to its end on a thread of its own,
// for tests of long-lived streams (log follows, executor watches).
//
//   Follower<v1::LogLine> f([&](grpc::ClientContext* ctx) { return stub->StreamRunLog(ctx, req);
//   }); ASSERT_TRUE(f.Opened());            // Its first message arrived.
//   EXPECT_EQ(f.Ended().error_code(), grpc::StatusCode::UNAUTHENTICATED);
//
// Thread safety: one test thread drives it.
#ifndef GNOMON_TESTS_SUPPORT_STREAM_FOLLOWER_H_
#define GNOMON_TESTS_SUPPORT_STREAM_FOLLOWER_H_

#include <memory>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::testing {

// A bound for a broken test, not a pace: an open stream is told within 6 s.
inline constexpr absl::Duration kPatience = absl::Seconds(60);

// A server stream read to its end on a thread of its own: `opened` once its
// first message has arrived, then the status it ended with, and when.
template <typename M>
class Follower {
 public:
  template <typename Open>
  explicit Follower(Open open) {
    ctx_.set_deadline(absl::ToChronoTime(absl::Now() + kPatience));
    thread_ = std::thread([this, open] {
      std::unique_ptr<grpc::ClientReader<M>> reader = open(&ctx_);
      M msg;
      while (reader->Read(&msg)) {
        if (!opened_.HasBeenNotified()) opened_.Notify();
      }
      status_ = reader->Finish();
      ended_at_ = absl::Now();
      ended_.Notify();
    });
  }
  ~Follower() {
    ctx_.TryCancel();
    thread_.join();
  }
  grpc::ClientContext* context() { return &ctx_; }
  bool Opened() { return opened_.WaitForNotificationWithTimeout(kPatience); }
  // The status it ended with (DEADLINE_EXCEEDED if it did not end in time).
  grpc::Status Ended() {
    ended_.WaitForNotification();
    return status_;
  }
  bool HasEnded() const { return ended_.HasBeenNotified(); }
  bool HasOpened() const { return opened_.HasBeenNotified(); }
  absl::Time ended_at() const { return ended_at_; }

 private:
  grpc::ClientContext ctx_;
  absl::Notification opened_, ended_;
  grpc::Status status_;
  absl::Time ended_at_;
  std::thread thread_;
};

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_STREAM_FOLLOWER_H_
