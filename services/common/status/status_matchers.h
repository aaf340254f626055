// gMock matchers for absl::Status and absl::StatusOr<T>, which Debian's Abseil
// does not ship. Each works on both types; a failure prints the status seen
// ("Actual: NOT_FOUND: job 7") and says which part was wrong.
//
//   EXPECT_THAT(store.DeleteJob(7), IsOk());
//   EXPECT_THAT(store.GetJob(7), StatusIs(absl::StatusCode::kNotFound));
//   EXPECT_THAT(ValidateJob(job), StatusIs(absl::StatusCode::kInvalidArgument,
//                                          HasSubstr("job.name")));
//   EXPECT_THAT(store.CountJobs(), IsOkAndHolds(3));
//
// StatusIs's second argument is a string or a matcher of std::string.
// Tests only (the gnomon_status_matchers target links gMock).
#ifndef GNOMON_SERVICES_COMMON_STATUS_STATUS_MATCHERS_H_
#define GNOMON_SERVICES_COMMON_STATUS_STATUS_MATCHERS_H_

#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/base/config.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

// Gives gtest a readable StatusOr ("OK: <value>" or the status) instead of its
// bytes. Abseil releases after 20220623 print StatusOr themselves.
#if defined(ABSL_LTS_RELEASE_VERSION) && ABSL_LTS_RELEASE_VERSION <= 20220623
namespace absl {
ABSL_NAMESPACE_BEGIN
template <typename T>
void PrintTo(const StatusOr<T>& v, std::ostream* os) {
  if (v.ok()) {
    *os << "OK: " << ::testing::PrintToString(*v);
  } else {
    *os << v.status();
  }
}
ABSL_NAMESPACE_END
}  // namespace absl
#endif

namespace gnomon {
namespace status_matchers_internal {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

class IsOkMatcher {
 public:
  template <typename StatusType>
  bool MatchAndExplain(const StatusType& value,
                       ::testing::MatchResultListener* /*listener*/) const {
    return GetStatus(value).ok();  // gtest prints the status itself.
  }
  void DescribeTo(std::ostream* os) const { *os << "is OK"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "is not OK"; }
};

class StatusIsMatcher {
 public:
  StatusIsMatcher(absl::StatusCode code,
                  std::optional<::testing::Matcher<const std::string&>> message)
      : code_(code), message_(std::move(message)) {}

  template <typename StatusType>
  bool MatchAndExplain(const StatusType& value, ::testing::MatchResultListener* listener) const {
    const absl::Status& s = GetStatus(value);
    if (s.code() != code_) {
      *listener << "whose status code is wrong";
      return false;
    }
    if (!message_) return true;
    ::testing::StringMatchResultListener inner;
    if (message_->MatchAndExplain(std::string(s.message()), &inner)) return true;
    *listener << "whose message is wrong";
    if (!inner.str().empty()) *listener << ", " << inner.str();
    return false;
  }
  void DescribeTo(std::ostream* os) const {
    *os << "has status code " << absl::StatusCodeToString(code_);
    if (message_) {
      *os << " and a message that ";
      message_->DescribeTo(os);
    }
  }
  void DescribeNegationTo(std::ostream* os) const {
    *os << "does not have status code " << absl::StatusCodeToString(code_);
    if (message_) {
      *os << " or has a message that ";
      message_->DescribeNegationTo(os);
    }
  }

 private:
  absl::StatusCode code_;
  std::optional<::testing::Matcher<const std::string&>> message_;
};

// The value matcher is cast to T only once the StatusOr<T> is known, hence the
// conversion operator instead of a polymorphic MatchAndExplain.
template <typename InnerMatcher>
class IsOkAndHoldsMatcher {
 public:
  explicit IsOkAndHoldsMatcher(InnerMatcher inner) : inner_(std::move(inner)) {}

  template <typename StatusOrType>
  operator ::testing::Matcher<StatusOrType>() const {  // NOLINT(google-explicit-constructor)
    using Value = typename std::decay_t<StatusOrType>::value_type;
    return ::testing::Matcher<StatusOrType>(
        new Impl<StatusOrType, Value>(::testing::SafeMatcherCast<const Value&>(inner_)));
  }

 private:
  template <typename StatusOrType, typename Value>
  class Impl : public ::testing::MatcherInterface<StatusOrType> {
   public:
    explicit Impl(::testing::Matcher<const Value&> inner) : inner_(std::move(inner)) {}

    bool MatchAndExplain(StatusOrType value,
                         ::testing::MatchResultListener* listener) const override {
      if (!value.ok()) {
        *listener << "which is not OK";
        return false;
      }
      ::testing::StringMatchResultListener inner;
      const bool matched = inner_.MatchAndExplain(*value, &inner);
      *listener << "whose value " << (matched ? "matches" : "doesn't match");
      if (!inner.str().empty()) *listener << ", " << inner.str();
      return matched;
    }
    void DescribeTo(std::ostream* os) const override {
      *os << "is OK and holds a value that ";
      inner_.DescribeTo(os);
    }
    void DescribeNegationTo(std::ostream* os) const override {
      *os << "is not OK or holds a value that ";
      inner_.DescribeNegationTo(os);
    }

   private:
    ::testing::Matcher<const Value&> inner_;
  };

  InnerMatcher inner_;
};

}  // namespace status_matchers_internal

// Matches an OK absl::Status or absl::StatusOr<T>.
inline ::testing::PolymorphicMatcher<status_matchers_internal::IsOkMatcher> IsOk() {
  return ::testing::MakePolymorphicMatcher(status_matchers_internal::IsOkMatcher());
}

// Matches a status (or a StatusOr's status) with this code.
inline ::testing::PolymorphicMatcher<status_matchers_internal::StatusIsMatcher> StatusIs(
    absl::StatusCode code) {
  return ::testing::MakePolymorphicMatcher(
      status_matchers_internal::StatusIsMatcher(code, std::nullopt));
}

// Matches a status with this code and a message matching `message` (a string
// or a matcher of std::string such as HasSubstr).
inline ::testing::PolymorphicMatcher<status_matchers_internal::StatusIsMatcher> StatusIs(
    absl::StatusCode code, ::testing::Matcher<const std::string&> message) {
  return ::testing::MakePolymorphicMatcher(
      status_matchers_internal::StatusIsMatcher(code, std::move(message)));
}

// Matches an OK absl::StatusOr<T> whose value matches `matcher` (a value or a
// matcher of T).
template <typename InnerMatcher>
status_matchers_internal::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>> IsOkAndHolds(
    InnerMatcher&& matcher) {
  return status_matchers_internal::IsOkAndHoldsMatcher<std::decay_t<InnerMatcher>>(
      std::forward<InnerMatcher>(matcher));
}

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_STATUS_STATUS_MATCHERS_H_
