// RETURN_IF_ERROR and ASSIGN_OR_RETURN: early returns on a non-OK absl::Status
// or absl::StatusOr<T>, which Debian's Abseil does not ship.
//
//   absl::StatusOr<Job> LoadJob(Store& store, int64_t id) {
//     RETURN_IF_ERROR(ValidateId(id));                // absl::Status
//     RETURN_IF_ERROR(store.CheckReachable());        // or absl::StatusOr<T>
//     ASSIGN_OR_RETURN(auto row, store.GetJob(id));   // declares `row`
//     ASSIGN_OR_RETURN(row.owner, LookUpOwner(row));  // assigns an existing lvalue
//     return row;
//   }
//
// Each evaluates its expression once and returns its status unchanged (no
// added context); a function that annotates or converts the status, or does
// anything else before returning, spells out its `if (!s.ok())` instead.
//
// ASSIGN_OR_RETURN expands to several statements: it cannot be the unbraced
// body of an `if`, and its left-hand side must not contain a bare comma (use
// `auto` or an alias for `std::pair<A, B>`). The value is moved out of the
// StatusOr.
//
// Only gnomon's own .cc files use these: no public header of the executor SDK
// includes this file, so the macros never reach an embedding application.
#ifndef GNOMON_SERVICES_COMMON_STATUS_STATUS_MACROS_H_
#define GNOMON_SERVICES_COMMON_STATUS_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gnomon::status_internal {

// The status of an absl::Status or absl::StatusOr<T>, moved out of an rvalue.
inline const absl::Status& StatusOf(const absl::Status& s) { return s; }
inline absl::Status StatusOf(absl::Status&& s) { return std::move(s); }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}
template <typename T>
absl::Status StatusOf(absl::StatusOr<T>&& s) {
  return std::move(s).status();
}

}  // namespace gnomon::status_internal

#define RETURN_IF_ERROR(expr)            \
  GNOMON_STATUS_MACROS_RETURN_IF_ERROR_( \
      GNOMON_STATUS_MACROS_CONCAT_(gnomon_status_macros_status_, __COUNTER__), expr)

#define ASSIGN_OR_RETURN(lhs, rexpr)      \
  GNOMON_STATUS_MACROS_ASSIGN_OR_RETURN_( \
      GNOMON_STATUS_MACROS_CONCAT_(gnomon_status_macros_value_, __COUNTER__), lhs, rexpr)

// Implementation details. Temporaries are named by __COUNTER__ (the extra
// level of CONCAT expands it) so that uses in one scope, or one inside a
// lambda in another's expression, never collide or shadow.
#define GNOMON_STATUS_MACROS_RETURN_IF_ERROR_(tmp, expr)            \
  do {                                                              \
    ::absl::Status tmp = ::gnomon::status_internal::StatusOf(expr); \
    if (!tmp.ok()) return tmp;                                      \
  } while (false)
#define GNOMON_STATUS_MACROS_ASSIGN_OR_RETURN_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                           \
  if (!tmp.ok()) return std::move(tmp).status();                \
  lhs = *std::move(tmp)
#define GNOMON_STATUS_MACROS_CONCAT_(a, b) GNOMON_STATUS_MACROS_CONCAT_INNER_(a, b)
#define GNOMON_STATUS_MACROS_CONCAT_INNER_(a, b) a##b

#endif  // GNOMON_SERVICES_COMMON_STATUS_STATUS_MACROS_H_
