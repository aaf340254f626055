#include "absl/status/status.h"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_macros.h"
#include "services/common/status/status_matchers.h"

namespace gnomon {
namespace {

using ::testing::DescribeMatcher;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Matcher;
using ::testing::Not;

// Counts its calls, so a test sees an expression evaluated exactly once.
struct Source {
  int calls = 0;
  absl::Status Status(absl::Status s) {
    ++calls;
    return s;
  }
  absl::StatusOr<std::vector<int>> Values(absl::StatusOr<std::vector<int>> v) {
    ++calls;
    return v;
  }
};

absl::Status CheckBoth(Source& src, absl::Status first, absl::Status second, int* reached) {
  RETURN_IF_ERROR(src.Status(first));
  *reached = 1;
  RETURN_IF_ERROR(src.Status(second));
  *reached = 2;
  return absl::OkStatus();
}

TEST(ReturnIfError, ReturnsTheFirstErrorAndEvaluatesEachExpressionOnce) {
  Source src;
  int reached = 0;
  EXPECT_TRUE(CheckBoth(src, absl::OkStatus(), absl::OkStatus(), &reached).ok());
  EXPECT_EQ(reached, 2);
  EXPECT_EQ(src.calls, 2);

  src = {};
  reached = 0;
  EXPECT_EQ(CheckBoth(src, absl::NotFoundError("first"), absl::OkStatus(), &reached),
            absl::NotFoundError("first"));
  EXPECT_EQ(reached, 0);
  EXPECT_EQ(src.calls, 1);

  src = {};
  EXPECT_EQ(CheckBoth(src, absl::OkStatus(), absl::AbortedError("second"), &reached),
            absl::AbortedError("second"));
  EXPECT_EQ(reached, 1);
  EXPECT_EQ(src.calls, 2);
}

absl::StatusOr<int> FirstValue(Source& src, absl::StatusOr<std::vector<int>> v) {
  RETURN_IF_ERROR(src.Values(std::move(v)));  // A StatusOr's status; the value is dropped.
  return 1;
}

TEST(ReturnIfError, TakesAStatusOrAndAnLvalue) {
  Source src;
  EXPECT_EQ(FirstValue(src, std::vector<int>{7}).value(), 1);
  EXPECT_EQ(FirstValue(src, absl::InternalError("x")).status(), absl::InternalError("x"));
  EXPECT_EQ(src.calls, 2);

  const absl::StatusOr<int> kept = absl::UnavailableError("down");
  auto check = [&]() -> absl::Status {
    RETURN_IF_ERROR(kept);
    return absl::OkStatus();
  };
  EXPECT_EQ(check(), absl::UnavailableError("down"));
  EXPECT_EQ(kept.status(), absl::UnavailableError("down"));  // Copied, not moved from.
}

absl::StatusOr<int> Sum(Source& src, absl::StatusOr<std::vector<int>> a,
                        absl::StatusOr<std::vector<int>> b) {
  // Two declarations in one scope need distinct temporaries.
  ASSIGN_OR_RETURN(std::vector<int> first, src.Values(std::move(a)));
  ASSIGN_OR_RETURN(auto second, src.Values(std::move(b)));
  int sum = 0;
  for (int v : first) sum += v;
  for (int v : second) sum += v;
  return sum;
}

TEST(AssignOrReturn, DeclaresTheValueOrReturnsTheStatus) {
  Source src;
  EXPECT_EQ(Sum(src, std::vector<int>{1, 2}, std::vector<int>{3}).value(), 6);
  EXPECT_EQ(src.calls, 2);

  src = {};
  EXPECT_EQ(Sum(src, absl::NotFoundError("a"), std::vector<int>{3}).status(),
            absl::NotFoundError("a"));
  EXPECT_EQ(src.calls, 1);

  src = {};
  EXPECT_EQ(Sum(src, std::vector<int>{1}, absl::DataLossError("b")).status(),
            absl::DataLossError("b"));
  EXPECT_EQ(src.calls, 2);
}

// A use inside a lambda in another's expression (as with a store transaction).
absl::Status Nested(std::function<absl::Status()> body, absl::Status inner, int* reached) {
  RETURN_IF_ERROR(body ? body() : [&]() -> absl::Status {
    RETURN_IF_ERROR(inner);
    ASSIGN_OR_RETURN(int v, absl::StatusOr<int>(7));
    *reached = v;
    return absl::OkStatus();
  }());
  return absl::OkStatus();
}

TEST(ReturnIfError, NestsInsideALambda) {
  int reached = 0;
  EXPECT_TRUE(Nested(nullptr, absl::OkStatus(), &reached).ok());
  EXPECT_EQ(reached, 7);
  reached = 0;
  EXPECT_EQ(Nested(nullptr, absl::AbortedError("inner"), &reached), absl::AbortedError("inner"));
  EXPECT_EQ(reached, 0);
}

absl::Status Fill(absl::StatusOr<std::unique_ptr<std::string>> in,
                  std::unique_ptr<std::string>& out, std::vector<std::string>& log) {
  ASSIGN_OR_RETURN(out, std::move(in));  // An existing variable; a move-only value.
  log.push_back(*out);
  return absl::OkStatus();
}

TEST(AssignOrReturn, AssignsAnExistingVariableByMoving) {
  std::unique_ptr<std::string> out;
  std::vector<std::string> log;
  EXPECT_TRUE(Fill(std::make_unique<std::string>("v"), out, log).ok());
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(*out, "v");

  out.reset();
  EXPECT_EQ(Fill(absl::CancelledError("c"), out, log), absl::CancelledError("c"));
  EXPECT_EQ(out, nullptr);  // Left untouched on error.
  EXPECT_THAT(log, ElementsAre("v"));
}

// The explanation a matcher gives for `value`, and whether it matched.
template <typename T, typename M>
std::pair<bool, std::string> Explain(const M& matcher, const T& value) {
  ::testing::StringMatchResultListener listener;
  const bool matched = Matcher<const T&>(matcher).MatchAndExplain(value, &listener);
  return {matched, listener.str()};
}

TEST(StatusMatchers, IsOkOnStatusAndStatusOr) {
  EXPECT_THAT(absl::OkStatus(), IsOk());
  EXPECT_THAT(absl::StatusOr<int>(3), IsOk());
  EXPECT_THAT(absl::NotFoundError("gone"), Not(IsOk()));
  EXPECT_EQ(Explain(IsOk(), absl::NotFoundError("gone")), std::make_pair(false, std::string()));
  EXPECT_EQ(Explain(IsOk(), absl::StatusOr<int>(absl::AbortedError("busy"))),
            std::make_pair(false, std::string()));
  EXPECT_EQ(DescribeMatcher<absl::Status>(IsOk()), "is OK");
  EXPECT_EQ(DescribeMatcher<absl::Status>(IsOk(), /*negation=*/true), "is not OK");
}

TEST(StatusMatchers, StatusIsComparesTheCodeAndOptionallyTheMessage) {
  const absl::Status refused = absl::InvalidArgumentError("job.name: empty");
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(absl::StatusOr<int>(refused), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument, "job.name: empty"));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job.name")));
  EXPECT_THAT(absl::StatusOr<int>(5), StatusIs(absl::StatusCode::kOk));
  EXPECT_THAT(refused, Not(StatusIs(absl::StatusCode::kNotFound)));
  EXPECT_THAT(refused, Not(StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job.id"))));

  EXPECT_EQ(Explain(StatusIs(absl::StatusCode::kNotFound), refused),
            std::make_pair(false, std::string("whose status code is wrong")));
  EXPECT_EQ(
      Explain(StatusIs(absl::StatusCode::kInvalidArgument, "other"), absl::StatusOr<int>(refused)),
      std::make_pair(false, std::string("whose message is wrong")));
  EXPECT_EQ(
      Explain(StatusIs(absl::StatusCode::kInvalidArgument, ::testing::SizeIs(3)), refused),
      std::make_pair(false, std::string("whose message is wrong, whose size 15 doesn't match")));
  EXPECT_EQ(Explain(StatusIs(absl::StatusCode::kNotFound), absl::StatusOr<int>(1)),
            std::make_pair(false, std::string("whose status code is wrong")));
  EXPECT_EQ(DescribeMatcher<absl::Status>(StatusIs(absl::StatusCode::kNotFound)),
            "has status code NOT_FOUND");
  EXPECT_EQ(DescribeMatcher<absl::Status>(StatusIs(absl::StatusCode::kNotFound, HasSubstr("x"))),
            "has status code NOT_FOUND and a message that has substring \"x\"");
  EXPECT_EQ(
      DescribeMatcher<absl::Status>(StatusIs(absl::StatusCode::kNotFound, "x"), /*negation=*/true),
      "does not have status code NOT_FOUND or has a message that isn't equal to \"x\"");
}

TEST(StatusMatchers, IsOkAndHoldsMatchesTheValue) {
  EXPECT_THAT(absl::StatusOr<int>(3), IsOkAndHolds(3));
  EXPECT_THAT(absl::StatusOr<std::vector<int>>(std::vector<int>{1, 2}),
              IsOkAndHolds(ElementsAre(1, 2)));
  EXPECT_THAT(absl::StatusOr<int>(3), Not(IsOkAndHolds(4)));
  EXPECT_THAT(absl::StatusOr<int>(absl::NotFoundError("x")), Not(IsOkAndHolds(::testing::_)));

  EXPECT_EQ(Explain(IsOkAndHolds(4), absl::StatusOr<int>(3)),
            std::make_pair(false, std::string("whose value doesn't match")));
  EXPECT_EQ(Explain(IsOkAndHolds(ElementsAre(1)),
                    absl::StatusOr<std::vector<int>>(std::vector<int>{1, 2})),
            std::make_pair(false, std::string("whose value doesn't match, which has 2 elements")));
  EXPECT_EQ(Explain(IsOkAndHolds(3), absl::StatusOr<int>(absl::NotFoundError("job 7"))),
            std::make_pair(false, std::string("which is not OK")));
  EXPECT_EQ(DescribeMatcher<absl::StatusOr<int>>(IsOkAndHolds(3)),
            "is OK and holds a value that is equal to 3");
}

// What a failure shows on its "Actual:" line.
TEST(StatusMatchers, PrintsAStatusOrAsItsStatusOrValue) {
  EXPECT_EQ(::testing::PrintToString(absl::StatusOr<int>(3)), "OK: 3");
  EXPECT_EQ(::testing::PrintToString(absl::StatusOr<int>(absl::NotFoundError("x"))),
            "NOT_FOUND: x");
}

}  // namespace
}  // namespace gnomon
