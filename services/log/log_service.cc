#include "services/log/log_service.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/run_queries.h"
#include "services/common/server/stream_credentials.h"
#include "services/common/status/status_macros.h"
#include "services/log/report_validation.h"

namespace gnomon::logsvc {

using google::protobuf::util::TimeUtil;

namespace {

// Shared by a ReportResults handler and the ack callbacks it hands out; the
// handler waits for outstanding acks before returning so the stream outlives them.
struct AckChannel {
  absl::Mutex mu;
  grpc::ServerReaderWriter<v1::ReportResultsResponse, v1::ReportResultsRequest>* stream
      ABSL_GUARDED_BY(mu);
  int outstanding ABSL_GUARDED_BY(mu) = 0;
};

int64_t ItemRunId(const v1::ReportItem& r) {
  switch (r.item_case()) {
    case v1::ReportItem::kStarted:
      return r.started().run_id();
    case v1::ReportItem::kLog:
      return r.log().run_id();
    case v1::ReportItem::kResult:
      return r.result().run_id();
    default:
      return 0;
  }
}

}  // namespace

void ConnectTailHub(ReportWriter* writer, LogTailHub* hub) {
  writer->AddObserver(
      [hub](const std::vector<v1::ReportItem>& items, const std::vector<v1::ReportAck>&) {
        std::vector<int64_t> ids;
        ids.reserve(items.size());
        for (const auto& i : items) ids.push_back(ItemRunId(i));
        hub->Notify(ids);
      });
}

grpc::Status LogServiceImpl::ReportResults(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ReportResultsResponse, v1::ReportResultsRequest>* stream) {
  absl::StatusOr<Caller> caller =
      auth_->Authorize(*context, v1::LogService::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  const v1::Group& group = caller->group;

  auto channel = std::make_shared<AckChannel>();
  {
    absl::MutexLock l(&channel->mu);
    channel->stream = stream;
  }
  // A reporter stays connected for the executor's life: its group's token is
  // checked again as messages come (a rotated-out one is refused; the items
  // of that message stay with the executor, unacknowledged, to be sent again).
  StreamCredentials creds(auth_, *context, v1::LogService::service_full_name(), __func__, *caller,
                          kGroupRecheck);
  grpc::Status status = grpc::Status::OK;
  v1::ReportResultsRequest req;
  while (true) {
    // Flow control: the next message is read only once the store has caught
    // up enough; meanwhile the executor's stream blocks and its results wait
    // in its spool (durable), while acks for what was read keep going out.
    bool cancelled = false;
    while (!writer_->AwaitRoom(absl::Seconds(1))) {
      if (context->IsCancelled()) {
        cancelled = true;
        break;
      }
    }
    if (cancelled || !stream->Read(&req)) break;
    if (absl::Status s = creds.Check(); !s.ok()) {
      status = ToGrpcStatus(s);
      break;
    }
    // A message with one bad item is refused whole: nothing of it is stored.
    if (absl::Status s = ValidateReportRequest(req); !s.ok()) {
      status = ToGrpcStatus(s);
      break;
    }
    if (req.items().empty()) continue;
    {
      absl::MutexLock l(&channel->mu);
      ++channel->outstanding;
    }
    PendingReport p;
    p.group_id = group.id();
    v1::ReportResultsResponse resp;  // Filled in with the acks when stored.
    for (v1::ReportItem& item : *req.mutable_items()) {
      v1::ReportItemAck* a = resp.add_acks();
      a->set_sequence(item.sequence());
      a->set_run_id(ItemRunId(item));
      p.items.push_back(std::move(item));
    }
    p.done = [channel, resp = std::move(resp)](std::vector<v1::ReportAck> acks) mutable {
      for (size_t i = 0; i < acks.size(); ++i)
        resp.mutable_acks(static_cast<int>(i))->set_ack(acks[i]);
      absl::MutexLock l(&channel->mu);
      --channel->outstanding;
      if (channel->stream != nullptr) channel->stream->Write(resp);
    };
    writer_->Submit(std::move(p));
    req.Clear();
  }
  // Let acks for items already read go out (bounded: a store outage must not
  // pin this thread forever; unacked items are re-sent by the executor).
  absl::MutexLock l(&channel->mu);
  auto drained = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(channel->mu) {
    return channel->outstanding == 0;
  };
  channel->mu.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(5));
  channel->stream = nullptr;
  return status;
}

absl::Status FollowRunLog(store::RunStore* runs, LogTailHub* hub,
                          const v1::StreamRunLogRequest& req,
                          const std::function<absl::Status()>& go_on,
                          const std::function<bool(const v1::LogLine&)>& emit) {
  RETURN_IF_ERROR(ValidateStreamRunLogRequest(req));
  RETURN_IF_ERROR(GetRun(runs, req.run_id()));
  int64_t next = req.from_line() == 0 ? 1 : req.from_line();
  int64_t version = hub->Watch(req.run_id());
  absl::Status result = absl::OkStatus();
  constexpr int kPage = 500;
  while (true) {
    result = go_on();
    if (!result.ok()) break;
    // Check whether the run has ended before reading, so no line stored
    // before its result can be missed.
    bool ended = !req.follow();
    if (req.follow()) {
      absl::StatusOr<v1::Run> now = runs->GetRun(req.run_id());
      if (!now.ok()) {
        result = now.status();
        break;
      }
      ended = IsTerminal(now->status());
    }
    absl::StatusOr<std::vector<v1::LogLine>> lines = runs->ReadRunLog(req.run_id(), next, kPage);
    if (!lines.ok()) {
      result = lines.status();
      break;
    }
    bool stop = false;
    for (const v1::LogLine& l : *lines) {
      if (!emit(l)) {
        stop = true;
        break;
      }
      next = l.line_number() + 1;
    }
    if (stop) break;
    if (static_cast<int>(lines->size()) == kPage) continue;
    if (ended) break;
    version = hub->WaitChange(req.run_id(), version, absl::Seconds(1));
  }
  hub->Unwatch(req.run_id());
  return result;
}

grpc::Status LogServiceImpl::StreamRunLog(grpc::ServerContext* context,
                                          const v1::StreamRunLogRequest* request,
                                          grpc::ServerWriter<v1::LogLine>* writer) {
  auto caller = auth_->Authorize(*context, v1::LogService::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // Bad input is named as such before any object is looked up, whoever asks.
  if (absl::Status s = ValidateStreamRunLogRequest(*request); !s.ok()) return ToGrpcStatus(s);
  if (absl::Status s = CheckRunAccess(runs_, caller->access, request->run_id()); !s.ok())
    return ToGrpcStatus(s);
  // A follow can last as long as the run: its credential is checked again as it goes.
  StreamCredentials creds(auth_, *context, v1::LogService::service_full_name(), __func__,
                          *std::move(caller), kBearerRecheck);
  auto go_on = [&]() -> absl::Status {
    if (context->IsCancelled()) return absl::CancelledError("the client went away");
    return creds.Check(
        [&](const Access& access) { return CheckRunAccess(runs_, access, request->run_id()); });
  };
  return ToGrpcStatus(FollowRunLog(runs_, hub_, *request, go_on,
                                   [writer](const v1::LogLine& l) { return writer->Write(l); }));
}

grpc::Status LogServiceImpl::GetRun(grpc::ServerContext* context, const v1::GetRunRequest* request,
                                    v1::Run* response) {
  auto caller = auth_->Authorize(*context, v1::LogService::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (absl::Status s = ValidateGetRunRequest(*request); !s.ok()) return ToGrpcStatus(s);
  if (absl::Status s = CheckRunAccess(runs_, caller->access, request->run_id()); !s.ok())
    return ToGrpcStatus(s);
  absl::StatusOr<v1::Run> run = gnomon::GetRun(runs_, request->run_id());
  if (!run.ok()) return ToGrpcStatus(run.status());
  *response = std::move(*run);
  return grpc::Status::OK;
}

grpc::Status LogServiceImpl::ListRuns(grpc::ServerContext* context,
                                      const v1::ListRunsRequest* request,
                                      v1::ListRunsResponse* response) {
  auto caller = auth_->Authorize(*context, v1::LogService::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<v1::ListRunsResponse> page =
      gnomon::ListRuns(jobs_, runs_, caller->access, *request);
  if (!page.ok()) return ToGrpcStatus(page.status());
  *response = std::move(*page);
  return grpc::Status::OK;
}

grpc::Status LogServiceImpl::GetStats(grpc::ServerContext* context,
                                      const v1::GetStatsRequest* request,
                                      v1::GetStatsResponse* response) {
  auto caller = auth_->Authorize(*context, v1::LogService::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  constexpr int64_t kDay = 86'400'000;
  if (absl::Status s = ValidateGetStatsRequest(*request); !s.ok()) return ToGrpcStatus(s);
  // Whole UTC days: the start day included, through the day before end.
  const int64_t from = TimeUtil::TimestampToMilliseconds(request->start_time()) / kDay * kDay;
  const int64_t to =
      (TimeUtil::TimestampToMilliseconds(request->end_time()) + kDay - 1) / kDay * kDay;
  if (to <= from)
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "end_time: must be after start_time");
  if ((to - from) / kDay > 366) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "end_time: at most 366 days per report");
  }
  // Totals count every group's runs: only for callers that reach them all.
  if (request->job_id() == 0 && !caller->access.AllGroups()) {
    return grpc::Status(
        grpc::StatusCode::PERMISSION_DENIED,
        "job_id: totals span every group; name a job of a group this credential is granted");
  }
  if (absl::Status s = CheckJobAccess(jobs_, caller->access, request->job_id()); !s.ok())
    return ToGrpcStatus(s);
  absl::StatusOr<std::vector<v1::StatsRow>> rows = stats_->GetStats(from, to, request->job_id());
  if (!rows.ok()) return ToGrpcStatus(rows.status());
  for (auto& r : *rows) *response->add_rows() = std::move(r);
  return grpc::Status::OK;
}

}  // namespace gnomon::logsvc
