// Shared fixture for SDK tests: a fake registry, log service and Dispatch
// service (gnomond's end of the executor's scheduler stream) on port 0 and
// helpers to start an executor against them.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_TESTS_TEST_ENV_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_TESTS_TEST_ENV_H_

#include <stdlib.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gnomon/executor/executor.h"
#include "gtest/gtest.h"
#include "services/executor-sdk/testing/fake_servers.h"

namespace gnomon::executor {

inline constexpr char kTestToken[] = "test-token-123";
inline constexpr char kTestApp[] = "sdk-test";
inline const absl::Duration kTestWait = absl::Seconds(30);

// A new directory under $TEST_TMPDIR (or /tmp) named `name`-XXXXXX.
inline std::string TempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/" + name + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  EXPECT_NE(::mkdtemp(buf.data()), nullptr);
  return buf.data();
}

class SdkTest : public ::testing::Test {
 protected:
  SdkTest()
      : registry_(kTestToken, absl::Milliseconds(200)),
        logs_(kTestToken, kTestApp),
        dispatch_(kTestToken, kTestApp),
        server_({&registry_, &logs_, &dispatch_}) {}

  ExecutorOptions Options() {
    ExecutorOptions options;
    options.app_name = kTestApp;
    options.registry_endpoints = {server_.address()};
    options.access_token = kTestToken;
    options.cancel_grace = absl::Milliseconds(300);
    options.reconnect_max = absl::Milliseconds(300);
    return options;
  }

  std::unique_ptr<Executor> StartExecutor(ExecutorOptions options,
                                          const std::function<void(Executor&)>& handlers) {
    auto executor = Executor::Create(std::move(options));
    EXPECT_TRUE(executor.ok()) << executor.status();
    if (!executor.ok()) return nullptr;
    handlers(**executor);
    absl::Status started = (*executor)->Start();
    EXPECT_TRUE(started.ok()) << started;
    return std::move(*executor);
  }

  testing::FakeRegistry registry_;
  testing::FakeLogService logs_;
  testing::FakeDispatch dispatch_;
  testing::TestServer server_;
};

}  // namespace gnomon::executor

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_TESTS_TEST_ENV_H_
