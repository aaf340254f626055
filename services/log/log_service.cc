#include "services/log/log_service.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/alarm.h"
#include "proto/decoding/request_decoding.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/run_queries.h"
#include "services/common/server/stream_credentials.h"
#include "services/common/status/status_macros.h"
#include "services/log/report_validation.h"

namespace gnomon::logsvc {

using google::protobuf::util::TimeUtil;

namespace {

using ReportReactor = grpc::ServerBidiReactor<v1::ReportResultsRequest, v1::ReportResultsResponse>;

// How long a stream whose reading is over (the executor half-closed, or a
// message was refused) waits for the acks of what it read before it ends: a
// store outage must not hold it forever (unacked items are sent again by the
// executor).
constexpr absl::Duration kDrainTimeout = absl::Seconds(5);

// Ack messages waiting behind the write in flight at most; past it, the next
// message is read once the writes catch up, so an executor that sends without
// reading its acks cannot queue them without bound.
constexpr size_t kMaxQueuedAcks = 8;

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

// Ends a refused call at once.
class Refused final : public ReportReactor {
 public:
  explicit Refused(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

// One executor's ReportResults stream. Reactions: OnReadDone for each
// message, whose items go to the writer; Acked (on the writer's thread) when
// they are durable, which writes their acks, one message per message read;
// OnWriteDone. One read and one write at most are in flight; acks wait in
// queue_ behind the write in flight.
//
// Flow control: the next message is read only once the writer has room
// (ReportWriter::HasRoomOrNotify); until then no read is in flight, the
// executor's stream blocks and its results wait in its spool (durable), while
// acks for what was read keep going out. The writer's thread starts the read
// (OnRoom) when it takes a batch: no thread waits. Nor is it read while
// kMaxQueuedAcks acks wait to be written (OnWriteDone reads on).
//
// The end: when reading is over (the executor half-closed: OK; a message
// refused: its status) the acks of what was read are written first, for up
// to kDrainTimeout; a cancel (the executor gone, the server stopping) or a
// write that fails ends it at once. Finish is called exactly once, through
// End, never under mu_ (its completion may run OnDone at once).
//
// Lifetime: the stream holds itself (self_) until OnDone; the writer's
// callbacks (acks, room) and the drain alarm hold weak_ptrs, so one that
// comes late finds it gone or finishing, and does nothing. The writer (and
// so the service) outlives the stream: the server's Shutdown waits for every
// OnDone.
//
// Each reaction takes mu_ before it touches the stream's state and starts the
// next read or write under it, which also orders (for ThreadSanitizer, which
// does not see inside gRPC) what reactions on different threads touch.
class ReportStream final : public ReportReactor, public std::enable_shared_from_this<ReportStream> {
 public:
  // Starts reading the first message (once the writer has room).
  static ReportReactor* Open(ReportWriter* writer, Authenticator* auth,
                             Authenticator::MetadataLookup metadata, Caller caller) {
    auto s = std::shared_ptr<ReportStream>(
        new ReportStream(writer, auth, std::move(metadata), std::move(caller)));
    absl::MutexLock l(&s->mu_);
    s->self_ = s;
    s->ReadNext();
    return s.get();
  }

  void OnReadDone(bool ok) override {
    {
      absl::MutexLock l(&mu_);
      if (finishing_) return;
    }
    // Not ok: the executor half-closed (or the stream broke, and a cancel
    // follows), or sent a message that did not decode (invalid UTF-8: gRPC
    // reports it the same way), refused naming the field.
    if (!ok) {
      EndReads(in_failure_.Take());
      return;
    }
    // A reporter stays connected for the executor's life: its group's token
    // is checked again as messages come (a rotated-out one is refused; the
    // items of that message stay with the executor, unacknowledged, to be
    // sent again).
    if (absl::Status s = creds_.Check(); !s.ok()) {
      EndReads(ToGrpcStatus(s));
      return;
    }
    // A message with one bad item is refused whole: nothing of it is stored.
    if (absl::Status s = ValidateReportRequest(in_); !s.ok()) {
      EndReads(ToGrpcStatus(s));
      return;
    }
    if (!in_.items().empty()) Submit();
    absl::MutexLock l(&mu_);
    if (finishing_) return;
    ReadNext();
  }

  void OnWriteDone(bool ok) override {
    grpc::Status status;
    {
      absl::MutexLock l(&mu_);
      writing_ = false;
      if (finishing_) return;
      if (ok && !queue_.empty()) {
        out_ = std::move(queue_.front());
        queue_.pop_front();
        writing_ = true;
        StartWrite(&out_);
        if (read_paused_ && queue_.size() < kMaxQueuedAcks) {
          read_paused_ = false;
          ReadNext();
        }
        return;
      }
      if (ok && read_paused_) {
        read_paused_ = false;
        ReadNext();
        return;
      }
      if (ok && (!reads_over_ || outstanding_ > 0)) return;
      // Every ack of what was read is written, or a write failed (the
      // executor is gone: what it did not see acknowledged it sends again).
      status = reads_over_ ? end_status_ : grpc::Status::OK;
    }
    End(std::move(status));
  }

  // The call is cancelled: the executor went away, or the server is
  // stopping (its grace over). Nothing more can be written.
  void OnCancel() override {
    grpc::Status status;
    {
      absl::MutexLock l(&mu_);
      status = reads_over_ ? end_status_ : grpc::Status::OK;
    }
    End(std::move(status));
  }

  void OnDone() override {
    std::shared_ptr<ReportStream> self;
    {
      absl::MutexLock l(&mu_);
      self = std::move(self_);
    }
    // `self` may be the last reference: nothing touches this after it.
  }

 private:
  ReportStream(ReportWriter* writer, Authenticator* auth, Authenticator::MetadataLookup metadata,
               Caller caller)
      : writer_(writer),
        group_id_(caller.group.id()),
        creds_(auth, std::move(metadata), v1::LogService::service_full_name(), "ReportResults",
               std::move(caller), kGroupRecheck) {}

  // Reads the next message if the writer has room and the acks are
  // written; otherwise the writer calls OnRoom when it has room, or
  // OnWriteDone reads on. (No read is in flight, nor one about to be.)
  void ReadNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (queue_.size() >= kMaxQueuedAcks) {
      read_paused_ = true;
      return;
    }
    std::weak_ptr<ReportStream> weak = weak_from_this();
    if (!writer_->HasRoomOrNotify([weak] {
          if (std::shared_ptr<ReportStream> s = weak.lock()) s->OnRoom();
        })) {
      return;
    }
    StartRead(&in_);
  }

  // On the writer's thread (or Stop's): there is room, read on.
  void OnRoom() {
    absl::MutexLock l(&mu_);
    if (finishing_) return;
    if (queue_.size() >= kMaxQueuedAcks) {
      read_paused_ = true;  // Acks came meanwhile: OnWriteDone reads on.
      return;
    }
    StartRead(&in_);
  }

  // Hands the items of the message read to the writer; their acks are
  // written, in one message, when it reports them durable.
  void Submit() {
    {
      absl::MutexLock l(&mu_);
      ++outstanding_;
    }
    PendingReport p;
    p.group_id = group_id_;
    v1::ReportResultsResponse resp;  // Filled in with the acks when stored.
    for (v1::ReportItem& item : *in_.mutable_items()) {
      v1::ReportItemAck* a = resp.add_acks();
      a->set_sequence(item.sequence());
      a->set_run_id(ItemRunId(item));
      p.items.push_back(std::move(item));
    }
    in_.Clear();
    p.done = [weak = weak_from_this(),
              resp = std::move(resp)](std::vector<v1::ReportAck> acks) mutable {
      for (size_t i = 0; i < acks.size(); ++i)
        resp.mutable_acks(static_cast<int>(i))->set_ack(acks[i]);
      if (std::shared_ptr<ReportStream> s = weak.lock()) s->Acked(std::move(resp));
    };
    writer_->Submit(std::move(p));
  }

  // On the writer's thread: the items of a message are durable.
  void Acked(v1::ReportResultsResponse resp) {
    absl::MutexLock l(&mu_);
    --outstanding_;
    if (finishing_) return;
    if (writing_) {
      queue_.push_back(std::move(resp));
      return;
    }
    out_ = std::move(resp);
    writing_ = true;
    StartWrite(&out_);
  }

  // Reading is over (no read is in flight): ends the stream with `status`
  // once the acks of what was read are written, or kDrainTimeout passes.
  void EndReads(grpc::Status status) {
    bool drained;
    {
      absl::MutexLock l(&mu_);
      if (finishing_) return;
      reads_over_ = true;
      end_status_ = status;
      // An ack waits in queue_ only behind one being written.
      drained = !writing_ && outstanding_ == 0;
      if (drained) finishing_ = true;
    }
    if (drained) {
      Finish(std::move(status));
      return;
    }
    // The last ack written ends it (OnWriteDone), or the alarm does. It is
    // set outside mu_: its callback takes mu_.
    auto alarm = std::make_unique<grpc::Alarm>();
    alarm->Set(absl::ToChronoTime(absl::Now() + kDrainTimeout),
               [weak = weak_from_this()](bool fired) {
                 if (!fired) return;  // Cancelled: the stream is gone.
                 if (std::shared_ptr<ReportStream> s = weak.lock()) s->DrainTimedOut();
               });
    absl::MutexLock l(&mu_);
    drain_alarm_ = std::move(alarm);
  }

  void DrainTimedOut() {
    grpc::Status status;
    {
      absl::MutexLock l(&mu_);
      status = end_status_;
    }
    End(std::move(status));
  }

  // Ends the stream with `status`, unless it is ending already. Nothing may
  // touch this after End.
  void End(grpc::Status status) {
    {
      absl::MutexLock l(&mu_);
      if (finishing_) return;
      finishing_ = true;
    }
    Finish(std::move(status));
  }

  ReportWriter* const writer_;
  const int64_t group_id_;
  // Used by the read reactions only (one at a time).
  StreamCredentials creds_;
  v1::ReportResultsRequest in_;               // The message read; only reactions to reads touch it.
  proto::ReadFailureWatch in_failure_{&in_};  // Why a read into in_ failed.

  absl::Mutex mu_;
  std::shared_ptr<ReportStream> self_ ABSL_GUARDED_BY(mu_);  // Until OnDone.
  // Messages handed to the writer whose acks have not come back.
  int outstanding_ ABSL_GUARDED_BY(mu_) = 0;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;  // out_ is being written.
  // No read in flight, for the acks to be written first.
  bool read_paused_ ABSL_GUARDED_BY(mu_) = false;
  // No more reads: the stream ends, with end_status_, once its acks are out.
  bool reads_over_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status end_status_ ABSL_GUARDED_BY(mu_);
  // Set once reading is over, if acks are due (destroyed with the stream:
  // cancelled, if it has not fired).
  std::unique_ptr<grpc::Alarm> drain_alarm_ ABSL_GUARDED_BY(mu_);
  // Finish is called or about to be: nothing more starts, and End does nothing.
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  v1::ReportResultsResponse out_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::ReportResultsResponse> queue_ ABSL_GUARDED_BY(mu_);
};

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

ReportReactor* LogServiceImpl::ReportResults(grpc::CallbackServerContext* context) {
  // The metadata copied, so the credentials can be checked again without
  // the call's context. The group is authenticated from metadata, so
  // nothing is read from an unauthenticated caller.
  Authenticator::MetadataLookup lookup = CopiedMetadata(*context);
  absl::StatusOr<Caller> caller =
      auth_->Authorize(lookup, v1::LogService::service_full_name(), __func__);
  if (!caller.ok()) return new Refused(ToGrpcStatus(caller.status()));
  return ReportStream::Open(writer_, auth_, std::move(lookup), *std::move(caller));
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

absl::StatusOr<Caller> LogServiceImpl::Admit(const grpc::ServerContext& context,
                                             std::string_view method) {
  absl::StatusOr<Caller> caller =
      auth_->Authorize(context, v1::LogService::service_full_name(), method);
  if (caller.ok() && !limiter_.Allow(caller->credential)) return RateLimitedError(limiter_.limit());
  return caller;
}

grpc::Status LogServiceImpl::StreamRunLog(grpc::ServerContext* context,
                                          const v1::StreamRunLogRequest* request,
                                          grpc::ServerWriter<v1::LogLine>* writer) {
  auto caller = Admit(*context, __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // Bad input is named as such before any object is looked up, whoever asks.
  if (absl::Status s = ValidateStreamRunLogRequest(*request); !s.ok()) return ToGrpcStatus(s);
  if (absl::Status s = CheckRunAccess(runs_, caller->access, request->run_id()); !s.ok())
    return ToGrpcStatus(s);
  std::optional<ConcurrencyCap::Permit> permit = follows_.TryAcquire(caller->credential);
  if (!permit) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        absl::StrCat("too many log follows open: at most ", follows_.per_key(),
                                     " per credential and ", follows_.total(),
                                     " in all; close one or retry later"));
  }
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
  auto caller = Admit(*context, __func__);
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
  auto caller = Admit(*context, __func__);
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
  auto caller = Admit(*context, __func__);
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
