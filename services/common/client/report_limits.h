// Limits of LogService.ReportResults messages, shared by the executor SDK
// (which keeps what it sends within them: it splits longer log lines and
// cuts longer result messages) and the log service (which refuses a message
// beyond them whole). Documented in docs/operations.md, "Input limits".
//
// Thread safety: constants.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_REPORT_LIMITS_H_
#define GNOMON_SERVICES_COMMON_CLIENT_REPORT_LIMITS_H_

#include <cstddef>

namespace gnomon {

// Items in one ReportResultsRequest.
inline constexpr int kMaxReportItems = 10000;
// Lines in one RunLogLines item.
inline constexpr int kMaxReportLines = 10000;
// Bytes of one LogLine.text.
inline constexpr size_t kMaxLogLineBytes = 64 * 1024;
// Bytes of RunResult.handle_message.
inline constexpr size_t kMaxHandleMessageBytes = 64 * 1024;
// Bytes of RunResult.output (a workflow node's output: its children's
// input). The SDKs refuse a longer one when the handler sets it.
inline constexpr size_t kMaxOutputBytes = 4 * 1024;
// Bytes of RunStarted.receipt (the scheduler issues none longer).
inline constexpr size_t kMaxReceiptBytes = 1024;

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_REPORT_LIMITS_H_
