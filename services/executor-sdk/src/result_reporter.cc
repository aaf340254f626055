#include "services/executor-sdk/src/result_reporter.h"

#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/auth_metadata.h"
#include "services/executor-sdk/src/channels.h"

namespace gnomon::executor::internal {
namespace {

// Items per ReportResults message are capped by size too, well under the
// log service's receive limit (log batches can be large).
constexpr size_t kMaxMessageBytes = 1 << 20;
// Items that make a message worth sending without waiting for the interval.
constexpr size_t kFullMessageItems = 512;

}  // namespace

ResultReporter::ResultReporter(ReporterOptions options, std::unique_ptr<RunSpool> spool,
                               const Logger* logger)
    : options_(std::move(options)),
      endpoints_(LogEndpoints(options_.connection)),
      logger_(logger),
      spool_(std::move(spool)),
      reconnect_({.endpoints = endpoints_.size(),
                  .backoff = {.initial = options_.connection.reconnect_initial,
                              .max = options_.connection.reconnect_max}},
                 &mu_, &stopping_) {
  for (const std::string& endpoint : endpoints_) {
    channels_.push_back(options_.dial(endpoint));
    stubs_.push_back(v1::LogService::NewStub(channels_.back()));
  }
}

ResultReporter::~ResultReporter() { Stop(); }

void ResultReporter::Start() {
  absl::MutexLock lock(&mu_);
  if (started_) return;
  started_ = true;
  reconnect_.Start(
      {.ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !spool_->empty(); },
       .run_stream = [this](size_t index, bool* acked_any) { return RunStream(index, acked_any); },
       .ended = [this](size_t index, const grpc::Status& status, bool, absl::Duration delay)
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { LogEnded(index, status, delay); }});
  flusher_.Start(options_.reporting.log_flush_interval, [this] {
    absl::MutexLock lock(&mu_);
    FlushAllLinesLocked();
  });
}

void ResultReporter::SpoolLocked(const v1::ReportItem& item) {
  absl::Status disk;
  spool_->Append(item, &disk);
  if (!disk.ok()) {
    logger_->Error(
        absl::StrCat("result spool write failed (kept in memory only): ", disk.ToString()));
  }
}

void ResultReporter::FlushLinesLocked(int64_t run_id) {
  auto it = pending_lines_.find(run_id);
  if (it == pending_lines_.end()) return;
  v1::ReportItem item;
  v1::RunLogLines* log = item.mutable_log();
  log->set_run_id(run_id);
  for (v1::LogLine& line : it->second) *log->add_lines() = std::move(line);
  pending_line_count_ -= it->second.size();
  pending_lines_.erase(it);
  SpoolLocked(item);
}

void ResultReporter::FlushAllLinesLocked() {
  std::vector<int64_t> runs;
  for (const auto& [run, lines] : pending_lines_) runs.push_back(run);
  for (int64_t run : runs) FlushLinesLocked(run);
}

void ResultReporter::AddStarted(int64_t run_id, absl::Time start,
                                const std::string& executor_address, const std::string& receipt) {
  v1::ReportItem item;
  v1::RunStarted* started = item.mutable_started();
  started->set_run_id(run_id);
  *started->mutable_start_time() =
      google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(start));
  started->set_executor_address(executor_address);
  started->set_receipt(receipt);
  absl::MutexLock lock(&mu_);
  SpoolLocked(item);
}

void ResultReporter::AddLine(int64_t run_id, const v1::LogLine& line) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::LogLine>& lines = pending_lines_[run_id];
  lines.push_back(line);
  ++pending_line_count_;
  if (static_cast<int>(lines.size()) >= options_.reporting.log_flush_lines)
    FlushLinesLocked(run_id);
}

void ResultReporter::AddResult(const v1::RunResult& result) {
  v1::ReportItem item;
  *item.mutable_result() = result;
  absl::MutexLock lock(&mu_);
  FlushLinesLocked(result.run_id());
  SpoolLocked(item);
}

bool ResultReporter::Drain(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  FlushAllLinesLocked();
  auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return spool_->empty() && pending_line_count_ == 0;
  };
  return mu_.AwaitWithDeadline(absl::Condition(&drained), deadline);
}

void ResultReporter::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    if (active_context_ != nullptr) active_context_->TryCancel();
  }
  reconnect_.Join();
  flusher_.Stop();
  absl::MutexLock lock(&mu_);
  FlushAllLinesLocked();  // into the spool for the next start
}

size_t ResultReporter::pending() const {
  absl::MutexLock lock(&mu_);
  return spool_->size() + pending_line_count_;
}

uint64_t ResultReporter::acked() const {
  absl::MutexLock lock(&mu_);
  return acked_;
}

void ResultReporter::LogEnded(size_t index, const grpc::Status& status, absl::Duration delay) {
  std::string error = absl::StrCat("log service ", endpoints_[index], ": ", StatusText(status));
  if (IsRefusal(status)) {
    logger_->Error(absl::StrCat(
        error, " (", IsCredentialRefusal(status) ? "check the app name and access token; " : "",
        "retrying in ", absl::FormatDuration(delay), ")"));
  } else if (error != last_error_) {
    logger_->Warning(absl::StrCat("results stream ended, ", error, "; ", spool_->size(),
                                  " items waiting, retrying"));
  }
  last_error_ = error;
}

grpc::Status ResultReporter::RunStream(size_t index, bool* acked_any) {
  grpc::ClientContext context;
  context.AddMetadata(std::string(kAccessTokenKey), options_.connection.access_token);
  context.AddMetadata(std::string(kAppNameKey), options_.connection.app_name);
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return grpc::Status(grpc::StatusCode::CANCELLED, "stopping");
    active_context_ = &context;
    stream_broken_ = false;
    cursor_ = 0;
    next_sequence_ = 1;
    in_flight_.clear();
  }
  ReadyForAttempt(channels_[index].get());
  auto stream = stubs_[index]->ReportResults(&context);
  std::thread reader([&] {
    v1::ReportResultsResponse response;
    while (stream->Read(&response)) {
      absl::MutexLock lock(&mu_);
      for (const v1::ReportItemAck& ack : response.acks()) {
        auto it = in_flight_.find(ack.sequence());
        if (it == in_flight_.end()) continue;
        spool_->Remove(it->second);
        in_flight_.erase(it);
        ++acked_;
        *acked_any = true;
      }
      if (*acked_any && !last_error_.empty()) {
        logger_->Info(absl::StrCat("log service ", endpoints_[index], " is reachable again"));
        last_error_.clear();
      }
    }
    absl::MutexLock lock(&mu_);
    stream_broken_ = true;
  });
  bool cancelled = false;
  absl::Time last_send = absl::InfinitePast();
  while (true) {
    v1::ReportResultsRequest request;
    uint64_t sync_through = 0;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || stream_broken_ ||
               (spool_->Next(cursor_) != nullptr &&
                static_cast<int>(in_flight_.size()) < options_.max_in_flight);
      };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) {
        context.TryCancel();
        cancelled = true;
        break;
      }
      if (stream_broken_) break;
      auto full_or_done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || stream_broken_ ||
               spool_->size() >= in_flight_.size() + kFullMessageItems;
      };
      mu_.AwaitWithDeadline(absl::Condition(&full_or_done), last_send + options_.min_send_interval);
      if (stopping_ || stream_broken_) continue;  // Handled at the top.
      last_send = absl::Now();
      // Everything spooled since the last send, up to the in-flight limit,
      // in one message, made durable first (below).
      size_t bytes = 0;
      for (const auto* next = spool_->Next(cursor_);
           next != nullptr && static_cast<int>(in_flight_.size()) < options_.max_in_flight;
           next = spool_->Next(cursor_)) {
        bytes += next->second.ByteSizeLong();
        if (request.items_size() > 0 && bytes > kMaxMessageBytes) break;
        cursor_ = next->first;
        sync_through = next->first;
        v1::ReportItem* item = request.add_items();
        *item = next->second;
        item->set_sequence(next_sequence_++);
        in_flight_[item->sequence()] = next->first;
      }
    }
    // One fdatasync per message, on this thread: items are on disk before
    // they leave, and no worker waits for a sync (a write survives the
    // process dying; the sync covers the machine).
    if (absl::Status s = spool_->SyncThrough(sync_through); !s.ok()) {
      logger_->Error(
          absl::StrCat("result spool sync failed (kept in memory only): ", s.ToString()));
    }
    if (!stream->Write(request)) break;  // the reader sees the end too
  }
  if (!cancelled) stream->WritesDone();
  reader.join();
  grpc::Status status = stream->Finish();
  absl::MutexLock lock(&mu_);
  active_context_ = nullptr;
  in_flight_.clear();
  return status;
}

}  // namespace gnomon::executor::internal
