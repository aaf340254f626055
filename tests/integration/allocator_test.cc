// gnomond and the executor programs (the sample executor, gnomon-executor)
// run on jemalloc, which cmake/Dependencies.cmake chose from a profile of a
// burst, unless built without it (-DGNOMON_JEMALLOC=OFF; sanitizer builds):
// checked on the running processes' memory maps, not on how they were linked.
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

#ifndef GENERIC_EXECUTOR_PATH
#error "GENERIC_EXECUTOR_PATH must name the gnomon-executor binary"
#endif

namespace gnomon {
namespace {

// Whether process `pid` has jemalloc mapped.
bool MapsJemalloc(pid_t pid) {
  std::ifstream maps(absl::StrCat("/proc/", pid, "/maps"));
  std::stringstream text;
  text << maps.rdbuf();
  return absl::StrContains(text.str(), "/libjemalloc.so");
}

TEST(AllocatorTest, GnomondAndTheExecutorProgramsRunOnJemalloc) {
#ifndef GNOMON_JEMALLOC
  GTEST_SKIP() << "built with -DGNOMON_JEMALLOC=OFF (or with sanitizers): glibc's malloc";
#endif
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "alloc"}, &group));
  auto sample = cluster.StartExecutor("alloc", group.access_token());
  ASSERT_TRUE(sample->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30)))
      << sample->Output();
  testing::Subprocess generic(
      {GENERIC_EXECUTOR_PATH, "--app=alloc", absl::StrCat("--registry=", cluster.addresses()),
       absl::StrCat("--spool-dir=", cluster.dir(), "/spool-generic"),
       absl::StrCat("--log-dir=", cluster.dir(), "/logs-generic")},
      std::map<std::string, std::string>{{"GNOMON_ACCESS_TOKEN", group.access_token()}});
  ASSERT_TRUE(generic.WaitForLine("gnomon-executor started as", absl::Seconds(30)))
      << generic.Output();

  EXPECT_TRUE(MapsJemalloc(cluster.gnomond()->pid())) << "gnomond";
  EXPECT_TRUE(MapsJemalloc(sample->pid())) << "gnomon-sample-executor";
  EXPECT_TRUE(MapsJemalloc(generic.pid())) << "gnomon-executor";
}

}  // namespace
}  // namespace gnomon
