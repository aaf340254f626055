#include "services/scheduler/partition_assignment.h"

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store.h"

namespace gnomon::scheduler {
namespace {

std::vector<std::string> Replicas(int n) {
  std::vector<std::string> r;
  for (int i = 0; i < n; ++i) r.push_back("gnomond-" + std::to_string(i) + ":7070");
  return r;
}

constexpr int kCount = store::kDefaultPartitions;

TEST(PartitionAssignmentTest, ALoneReplicaHoldsEveryPartition) {
  for (int count : {1, kCount, store::kMaxPartitions}) {
    std::vector<int> all(count);
    for (int p = 0; p < count; ++p) all[p] = p;
    EXPECT_EQ(PartitionsFor("a:1", {"a:1"}, count), all);
    EXPECT_EQ(PartitionsFor("a:1", {}, count), all);
  }
}

TEST(PartitionAssignmentTest, EveryPartitionHasExactlyOneHolderAndSharesAreNearEven) {
  for (int count : {7, kCount, 1024}) {
    for (int n : {2, 3, 5}) {
      const std::vector<std::string> replicas = Replicas(n);
      std::vector<int> holders(count, 0);
      for (const std::string& r : replicas) {
        const std::vector<int> mine = PartitionsFor(r, replicas, count);
        // Fair within a wide margin (hashing, not dealing): no replica idles.
        EXPECT_GE(mine.size(), static_cast<size_t>(count / n / 3))
            << r << " of " << n << ", " << count << " partitions";
        for (int p : mine) ++holders[p];
      }
      for (int p = 0; p < count; ++p)
        EXPECT_EQ(holders[p], 1) << "partition " << p << " of " << count;
    }
  }
}

TEST(PartitionAssignmentTest, AReplicaLeavingMovesOnlyItsOwnPartitions) {
  const std::vector<std::string> three = Replicas(3);
  const std::vector<std::string> two = {three[0], three[1]};
  for (const std::string& r : two) {
    const std::vector<int> before = PartitionsFor(r, three, kCount);
    const std::vector<int> after = PartitionsFor(r, two, kCount);
    // A survivor keeps all it had and only gains.
    EXPECT_TRUE(std::includes(after.begin(), after.end(), before.begin(), before.end())) << r;
  }
}

TEST(PartitionAssignmentTest, OrderAndDuplicatesOfTheReplicaListDoNotMatter) {
  EXPECT_EQ(PartitionsFor("b:1", {"a:1", "b:1", "c:1"}, kCount),
            PartitionsFor("b:1", {"c:1", "b:1", "a:1", "a:1"}, kCount));
}

}  // namespace
}  // namespace gnomon::scheduler
