// Internal: the Quartz cron field parser behind CronExpression::Parse.
//
//   absl::StatusOr<CronFields> f = ParseCronFields("0 0 12 L-3 * ?");
//
// Thread safety: a pure function.
#ifndef GNOMON_SERVICES_COMMON_CRON_CRON_PARSE_H_
#define GNOMON_SERVICES_COMMON_CRON_CRON_PARSE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "services/common/cron/cron.h"

namespace gnomon::cron {

// Splits `text` on spaces and tabs and parses the six or seven fields.
// Errors are InvalidArgument and start with the field name.
absl::StatusOr<CronFields> ParseCronFields(std::string_view text);

}  // namespace gnomon::cron

#endif  // GNOMON_SERVICES_COMMON_CRON_CRON_PARSE_H_
