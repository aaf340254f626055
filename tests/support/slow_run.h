// StartSlowRun: a group with a sample executor running one run that goes on
// for ten minutes, for tests of what stays open as long as a run does (log
// follows, watches).
//
//   testing::SlowRun slow;
//   ASSERT_TRUE(testing::StartSlowRun(cluster_, "streams-app", &slow));
//   req.set_run_id(slow.run_id);
//
// Thread safety: one test thread.
#ifndef GNOMON_TESTS_SUPPORT_SLOW_RUN_H_
#define GNOMON_TESTS_SUPPORT_SLOW_RUN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "grpcpp/channel.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/stream_follower.h"
#include "tests/support/subprocess.h"

namespace gnomon::testing {

struct SlowRun {
  v1::Group group;
  std::unique_ptr<Subprocess> executor;
  int64_t run_id = 0;
};

// Creates group `app`, starts a sample executor for it, creates a manual job
// of its "slow" handler and triggers it once the executor is registered.
::testing::AssertionResult StartSlowRun(GnomonCluster& cluster, const std::string& app,
                                        SlowRun* out);

// A viewer token named `name` scoped to the slow run's group.
std::string ViewerToken(GnomonCluster& cluster, const SlowRun& slow, const std::string& name);

// LogService.StreamRunLog following `run_id` with `token`, read on a thread
// of its own (channel: one for every stream, alive as long as they are).
std::unique_ptr<Follower<v1::LogLine>> FollowRunLog(std::shared_ptr<grpc::Channel> channel,
                                                    const std::string& token, int64_t run_id);

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_SLOW_RUN_H_
