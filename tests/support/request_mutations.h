// RequestMutations: every bad value a request field can be given, found by
// protobuf reflection, with the limits read from docs/operations.md's "Input
// limits" table (limit_table.h). For tests that check each field of each request is
// bounded (tests/integration/input_limits_test.cc).
//
//   absl::StatusOr<LimitTable> table = ReadLimitTable(docs_text);
//   for (Mutation& m : Mutate(baseline, *table, &problems)) {
//     call with *m.request; expect INVALID_ARGUMENT naming m.path
//   }
//
// A field is reached through the fields set in `baseline` and through unset
// singular messages outside oneofs; a oneof member is reached only when the
// baseline sets it (give another baseline for each other member).
//
// Thread safety: pure functions.
#ifndef GNOMON_TESTS_SUPPORT_REQUEST_MUTATIONS_H_
#define GNOMON_TESTS_SUPPORT_REQUEST_MUTATIONS_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "tests/support/limit_table.h"

namespace gnomon::testing {

struct Mutation {
  // Path of the field changed, e.g. "requests[0].job.author".
  std::string path;
  // What was done, e.g. "1025 bytes", "NaN".
  std::string what;
  // The table row that gave the limit ("" for rules of a kind: ids, enums,
  // timestamps).
  std::string row;
  // The message should contain this (e.g. "at most 256 bytes"); may be empty.
  std::string expect_in_message;
  std::unique_ptr<google::protobuf::Message> request;
};

// Bad values for each field reachable from `baseline`. A field with no row
// (and no rule of its kind) is added to `unlisted` (its "[]" path); rows
// used are added to `used`. Fields in `exempt` ("[]" paths) are skipped.
std::vector<Mutation> Mutate(const google::protobuf::Message& baseline, const LimitTable& table,
                             const std::set<std::string>& exempt, std::set<std::string>* unlisted,
                             std::set<std::string>* used);

// "requests[3].job" -> "requests[].job".
std::string ListPath(const std::string& path);
// "requests[3].job" -> "requests.job".
std::string BarePath(const std::string& path);

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_REQUEST_MUTATIONS_H_
