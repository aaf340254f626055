// Command-line flag parsing for gnomonctl, and parsers for flag values.
//
// A command declares its flags as FlagSpecs; ParseFlags splits an argument
// vector into flag values and positional arguments:
//
//   std::vector<FlagSpec> specs = {{"title", "", true, "T", "Group title."}};
//   absl::StatusOr<ParsedArgs> parsed = ParseFlags({"app", "--title=x"}, specs);
//   parsed->Get("title");        // "x"
//   parsed->positionals()[0];    // "app"
//
// Accepted shapes: "--name value", "--name=value", "-n value", "-n=value" and
// boolean "--name"; "--" ends flag parsing. A flag given twice keeps every
// value (Get returns the last one, GetAll all of them).
//
// Errors are absl::InvalidArgumentError with a message fit for a user.
// Thread safety: values are immutable after parsing; functions are pure.
#ifndef GNOMON_CLI_FLAGS_H_
#define GNOMON_CLI_FLAGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gnomon::cli {

// One flag a command accepts.
struct FlagSpec {
  // Long name without the dashes, e.g. "title".
  std::string name;
  // One-letter alias without the dash, e.g. "o"; empty for none.
  std::string short_name;
  // Whether the flag takes a value ("--title T") or is a switch ("--start").
  bool takes_value = false;
  // Placeholder shown in help for the value, e.g. "T".
  std::string value_name;
  // One-line description for help.
  std::string help;
};

// The flags and positional arguments of one command line.
class ParsedArgs {
 public:
  // Whether the flag was given at least once.
  bool Has(std::string_view name) const;
  // The last value of a flag; nullopt when absent ("true" for switches).
  std::optional<std::string> Get(std::string_view name) const;
  // Every value of a flag, in order.
  std::vector<std::string> GetAll(std::string_view name) const;
  // Arguments that are not flags, in order.
  const std::vector<std::string>& positionals() const { return positionals_; }
  // Index into the parsed vector where parsing stopped (see ParseFlags).
  size_t consumed() const { return consumed_; }

 private:
  friend absl::StatusOr<ParsedArgs> ParseFlags(const std::vector<std::string>&,
                                               const std::vector<FlagSpec>&, int);
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::vector<std::string> positionals_;
  size_t consumed_ = 0;
};

// Parses `args` against `specs`. When `stop_after_positionals` >= 0, parsing
// stops right after that many positionals have been seen (consumed() tells
// where), so a caller can parse a command's own flags separately.
absl::StatusOr<ParsedArgs> ParseFlags(const std::vector<std::string>& args,
                                      const std::vector<FlagSpec>& specs,
                                      int stop_after_positionals = -1);

// "42" -> 42; ids are positive.
absl::StatusOr<int64_t> ParseId(std::string_view what, std::string_view text);
// A non-negative integer such as a count.
absl::StatusOr<int64_t> ParseCount(std::string_view what, std::string_view text);
// Go-style durations: "2s", "500ms", "1h30m"; must not be negative.
absl::StatusOr<absl::Duration> ParseDurationFlag(std::string_view what, std::string_view text);
// RFC 3339 time such as "2024-05-01T12:00:00Z" or "...+02:00".
absl::StatusOr<absl::Time> ParseTimeFlag(std::string_view what, std::string_view text);
// "a,b,,c" -> {"a","b","c"} over every value given; empty items dropped.
std::vector<std::string> SplitList(const std::vector<std::string>& values);

// Help text listing `specs`, one aligned line per flag.
std::string FlagHelp(const std::vector<FlagSpec>& specs);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_FLAGS_H_
