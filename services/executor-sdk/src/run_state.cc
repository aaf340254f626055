#include "services/executor-sdk/src/run_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/report_limits.h"

namespace gnomon::executor::internal {
namespace {

// The public constant (job_context.h, which cannot include common code) is
// the log service's limit.
static_assert(kMaxOutputBytes == ::gnomon::kMaxOutputBytes);

google::protobuf::Timestamp ToProto(absl::Time t) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

// The longest prefix of `text` of at most `max` bytes that does not split a
// UTF-8 sequence (the log service refuses longer lines and messages).
std::string_view Head(std::string_view text, size_t max) {
  if (text.size() <= max) return text;
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n == 0 ? max : n);
}

std::vector<WorkflowInput> InputsOf(const v1::RunRequest& request) {
  std::vector<WorkflowInput> inputs;
  inputs.reserve(static_cast<size_t>(request.inputs_size()));
  for (const v1::WorkflowInput& in : request.inputs()) inputs.push_back({in.node(), in.output()});
  return inputs;
}

// Whether `text` is well-formed UTF-8 (RunResult.output is a proto3 string:
// a result holding anything else would not decode at the log service, and
// would be sent again and again).
bool IsUtf8(std::string_view text) {
  static constexpr uint32_t kLeast[] = {0, 0x80, 0x800, 0x10000};  // by continuation bytes
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t n;  // Continuation bytes.
    uint32_t cp;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      n = 1, cp = lead & 0x1Fu;
    } else if ((lead & 0xF0) == 0xE0) {
      n = 2, cp = lead & 0x0Fu;
    } else if ((lead & 0xF8) == 0xF0) {
      n = 3, cp = lead & 0x07u;
    } else {
      return false;
    }
    if (text.size() - i < n + 1) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (next & 0x3Fu);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if (cp < kLeast[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace

bool CancelState::Cancel(std::string reason_text) {
  absl::MutexLock lock(&mu);
  if (is_cancelled) return false;
  is_cancelled = true;
  why = std::move(reason_text);
  return true;
}

bool CancelState::cancelled() const {
  absl::MutexLock lock(&mu);
  return is_cancelled;
}

std::string CancelState::reason() const {
  absl::MutexLock lock(&mu);
  return why;
}

bool CancelState::WaitFor(absl::Duration timeout) const {
  absl::MutexLock lock(&mu);
  return mu.AwaitWithTimeout(absl::Condition(&is_cancelled), timeout);
}

RunState::RunState(v1::RunRequest req, RunSink* run_sink, int64_t max_log_bytes)
    : request(std::move(req)),
      inputs(InputsOf(request)),
      cancel(std::make_shared<CancelState>()),
      sink(run_sink),
      max_log_bytes(max_log_bytes) {}

absl::Time RunState::MarkStarted(absl::Time now) {
  absl::MutexLock lock(&mu);
  if (closed) return absl::InfinitePast();
  is_started = true;
  start_time = now;
  if (request.has_timeout()) {
    absl::Duration timeout =
        absl::Seconds(request.timeout().seconds()) + absl::Nanoseconds(request.timeout().nanos());
    if (timeout > absl::ZeroDuration()) deadline = now + timeout;
  }
  sink->Started(request, now);
  return deadline;
}

void RunState::Log(std::string_view text) {
  absl::MutexLock lock(&mu);
  if (closed) return;
  absl::Time now = absl::Now();
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  for (absl::string_view part : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    // A line longer than the log service takes is logged in pieces.
    std::string_view rest(part.data(), part.size());
    do {
      std::string_view piece = Head(rest, kMaxLogLineBytes);
      rest.remove_prefix(piece.size());
      if (log_over_budget) return;
      std::string text(piece);
      if (max_log_bytes > 0 && log_bytes + static_cast<int64_t>(piece.size()) > max_log_bytes) {
        log_over_budget = true;
        text = absl::StrCat("[gnomon] this run's log reached its budget of ", max_log_bytes,
                            " bytes (the executor's --max-log-mib-per-run): later lines are "
                            "not sent");
      }
      log_bytes += static_cast<int64_t>(piece.size());
      v1::LogLine line;
      line.set_line_number(next_line++);
      *line.mutable_time() = ToProto(now);
      line.set_text(std::move(text));
      sink->Line(request.run_id(), line);
    } while (!rest.empty());
  }
}

void RunState::SetResult(int code, std::string_view message) {
  absl::MutexLock lock(&mu);
  result_set = true;
  result_code = code;
  result_message = std::string(Head(message, kMaxHandleMessageBytes));
}

absl::Status RunState::SetOutput(std::string value) {
  if (value.size() > kMaxOutputBytes) {
    return absl::InvalidArgumentError(absl::StrCat("output is ", value.size(),
                                                   " bytes, longer than the limit of ",
                                                   kMaxOutputBytes, " bytes"));
  }
  if (!IsUtf8(value)) return absl::InvalidArgumentError("output is not valid UTF-8");
  absl::MutexLock lock(&mu);
  if (closed) {
    return absl::FailedPreconditionError(
        "output not set: the run was reported already (its handler ignored cancellation)");
  }
  output = std::move(value);
  return absl::OkStatus();
}

bool RunState::Terminate(Termination kind, std::string message) {
  {
    absl::MutexLock lock(&mu);
    if (closed || termination != Termination::kNone) return false;
    termination = kind;
    termination_message = message;
  }
  cancel->Cancel(std::move(message));
  return true;
}

bool RunState::Finish(absl::Time now) {
  absl::MutexLock lock(&mu);
  if (closed) return false;
  v1::RunResult result;
  result.set_run_id(request.run_id());
  switch (termination) {
    case Termination::kTimedOut:
      result.set_handle_code(v1::HANDLE_CODE_TIMEOUT);
      result.set_handle_message(termination_message);
      break;
    case Termination::kKilled:
      result.set_handle_code(v1::HANDLE_CODE_KILLED);
      result.set_handle_message(termination_message);
      break;
    case Termination::kNone:
      result.set_handle_code(result_set ? result_code : 200);
      result.set_handle_message(result_message);
      break;
  }
  result.set_output(output);  // Also with a failure, a timeout or a kill.
  *result.mutable_start_time() = ToProto(is_started ? start_time : now);
  *result.mutable_end_time() = ToProto(now);
  sink->Finished(result);
  closed = true;
  return true;
}

bool RunState::finished() const {
  absl::MutexLock lock(&mu);
  return closed;
}

bool RunState::started() const {
  absl::MutexLock lock(&mu);
  return is_started;
}

}  // namespace gnomon::executor::internal
