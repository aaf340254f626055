#include "services/common/server/concurrency_cap.h"

#include <optional>
#include <vector>

#include "gtest/gtest.h"

namespace gnomon {
namespace {

TEST(ConcurrencyCap, LimitsEachKeyAndEveryoneAndReleasesOnDestruction) {
  ConcurrencyCap cap(/*per_key=*/2, /*total=*/3);
  std::vector<ConcurrencyCap::Permit> held;
  for (int i = 0; i < 2; ++i) {
    std::optional<ConcurrencyCap::Permit> p = cap.TryAcquire("viewer:a");
    ASSERT_TRUE(p.has_value());
    held.push_back(*std::move(p));
  }
  EXPECT_FALSE(cap.TryAcquire("viewer:a").has_value());  // Its own limit.
  std::optional<ConcurrencyCap::Permit> b = cap.TryAcquire("viewer:b");
  ASSERT_TRUE(b.has_value());
  EXPECT_FALSE(cap.TryAcquire("viewer:c").has_value());  // Everyone's limit.
  held.pop_back();
  EXPECT_TRUE(cap.TryAcquire("viewer:c").has_value());  // Released again at once.
  std::optional<ConcurrencyCap::Permit> a = cap.TryAcquire("viewer:a");
  EXPECT_TRUE(a.has_value());
}

TEST(ConcurrencyCap, ZeroIsNoLimit) {
  ConcurrencyCap cap(0, 0);
  std::vector<ConcurrencyCap::Permit> held;
  for (int i = 0; i < 1000; ++i) {
    std::optional<ConcurrencyCap::Permit> p = cap.TryAcquire("k");
    ASSERT_TRUE(p.has_value());
    held.push_back(*std::move(p));
  }
}

}  // namespace
}  // namespace gnomon
