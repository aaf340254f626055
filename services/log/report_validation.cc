#include "services/log/report_validation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "services/common/client/report_limits.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::logsvc {
namespace {

using checks::CheckExecutorName;
using checks::CheckRange;
using checks::CheckTimestamp;
using checks::FirstError;
using checks::Invalid;

absl::Status CheckRunId(const std::string& item, int64_t run_id, const char* kind) {
  return CheckRange(absl::StrCat(item, ".", kind, ".run_id"), run_id, 1, INT64_MAX);
}

absl::Status CheckLength(const std::string& field, const std::string& value, size_t max) {
  return checks::CheckString(field, value, max, checks::Charset::kBytes);
}

absl::Status CheckLines(const std::string& item, const v1::RunLogLines& log) {
  const std::string lines = absl::StrCat(item, ".log.lines");
  RETURN_IF_ERROR(FirstError({CheckRunId(item, log.run_id(), "log"),
                              checks::CheckCount(lines, log.lines_size(), kMaxReportLines)}));
  for (int i = 0; i < log.lines_size(); ++i) {
    const v1::LogLine& l = log.lines(i);
    const std::string line = checks::Indexed(lines, i);
    // Process output may hold any byte (colour escapes, carriage returns): length only.
    RETURN_IF_ERROR(FirstError({CheckRange(line + ".line_number", l.line_number(), 1, INT64_MAX),
                                CheckTimestamp(line + ".time", l.time()),
                                CheckLength(line + ".text", l.text(), kMaxLogLineBytes)}));
  }
  return absl::OkStatus();
}

absl::Status CheckItem(const std::string& item, const v1::ReportItem& r) {
  switch (r.item_case()) {
    case v1::ReportItem::kStarted:
      return FirstError(
          {CheckRunId(item, r.started().run_id(), "started"),
           CheckTimestamp(item + ".started.start_time", r.started().start_time()),
           r.started().executor_address().empty()
               ? absl::OkStatus()
               : CheckExecutorName(item + ".started.executor_address",
                                   r.started().executor_address()),
           CheckLength(item + ".started.receipt", r.started().receipt(), kMaxReceiptBytes)});
    case v1::ReportItem::kLog:
      return CheckLines(item, r.log());
    case v1::ReportItem::kResult:
      return FirstError({CheckRunId(item, r.result().run_id(), "result"),
                         CheckLength(item + ".result.handle_message", r.result().handle_message(),
                                     kMaxHandleMessageBytes),
                         CheckLength(item + ".result.output", r.result().output(), kMaxOutputBytes),
                         CheckTimestamp(item + ".result.start_time", r.result().start_time()),
                         CheckTimestamp(item + ".result.end_time", r.result().end_time())});
    default:
      return Invalid(item, "no item set");
  }
}

}  // namespace

absl::Status ValidateReportRequest(const v1::ReportResultsRequest& request) {
  RETURN_IF_ERROR(checks::CheckCount("items", request.items_size(), kMaxReportItems));
  for (int i = 0; i < request.items_size(); ++i) {
    RETURN_IF_ERROR(CheckItem(checks::Indexed("items", i), request.items(i)));
  }
  return absl::OkStatus();
}

absl::Status ValidateStreamRunLogRequest(const v1::StreamRunLogRequest& request) {
  return FirstError({CheckRange("run_id", request.run_id(), 1, INT64_MAX),
                     CheckRange("from_line", request.from_line(), 0, INT64_MAX)});
}

absl::Status ValidateGetStatsRequest(const v1::GetStatsRequest& request) {
  if (!request.has_start_time()) return Invalid("start_time", "required");
  if (!request.has_end_time()) return Invalid("end_time", "required");
  return FirstError({CheckTimestamp("start_time", request.start_time()),
                     CheckTimestamp("end_time", request.end_time()),
                     CheckRange("job_id", request.job_id(), 0, INT64_MAX)});
}

}  // namespace gnomon::logsvc
