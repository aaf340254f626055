// JobsE2E: the fixture of end-to-end tests that drive jobs through JobAdmin
// on real processes — gnomond on SQLite (or a fresh MariaDB database when
// scripts/test provides one), a JobAdmin stub, a group and one sample
// executor online.
//
//   class PauseE2E : public testing::JobsE2E {};
//   TEST_F(PauseE2E, ...) {
//     ASSERT_TRUE(StartWithExecutor("pausing"));
//     v1::Job job = Get(id);  std::vector<v1::Run> runs = Runs(id);
//   }
#ifndef GNOMON_TESTS_SUPPORT_JOBS_E2E_H_
#define GNOMON_TESTS_SUPPORT_JOBS_E2E_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gnomon/v1/admin.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon::testing {

class JobsE2E : public ::testing::Test {
 protected:
  // Starts gnomond, the stub, group `app` and one executor of it, online.
  ::testing::AssertionResult StartWithExecutor(const std::string& app);
  std::unique_ptr<grpc::ClientContext> Ctx() const { return cluster_.AdminContext(); }
  v1::Job Get(int64_t job_id);
  // The job's runs, newest first (at most 1,000).
  std::vector<v1::Run> Runs(int64_t job_id);

  GnomonCluster cluster_{[] {
    std::vector<std::string> flags;
    if (auto url = FreshMysqlUrl()) flags.push_back("--store=" + *url);
    return flags;
  }()};
  std::unique_ptr<v1::JobAdmin::Stub> admin_;
  v1::Group group_;
  std::unique_ptr<Subprocess> executor_;
};

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_JOBS_E2E_H_
