// Field checks of LogService requests: what ReportResults messages and the
// queries may carry. Errors are InvalidArgument "<field>: <problem>" naming
// the field by its path in the request ("items[3].log.lines[0].text").
//
//   if (absl::Status s = ValidateReportRequest(request); !s.ok()) return ToGrpcStatus(s);
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_LOG_REPORT_VALIDATION_H_
#define GNOMON_SERVICES_LOG_REPORT_VALIDATION_H_

#include "absl/status/status.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::logsvc {

// A whole ReportResults message: one bad item refuses it all.
absl::Status ValidateReportRequest(const v1::ReportResultsRequest& request);
absl::Status ValidateStreamRunLogRequest(const v1::StreamRunLogRequest& request);
absl::Status ValidateGetStatsRequest(const v1::GetStatsRequest& request);

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_REPORT_VALIDATION_H_
