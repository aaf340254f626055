#include "services/scheduler/executor_link.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/client/log.h"
#include "services/common/server/grpc_server.h"
#include "services/common/server/grpc_status.h"

namespace gnomon::scheduler {

ExecutorLink::ExecutorLink(std::string address, std::string token, Clock* clock,
                           absl::Duration answer_timeout, const tls::Dialer& dial)
    : address_(std::move(address)),
      token_(std::move(token)),
      clock_(clock),
      answer_timeout_(answer_timeout),
      stub_(v1::Executor::NewStub(dial(address_))) {
  writer_ = std::thread([this] { WriterLoop(); });
}

ExecutorLinks::ExecutorLinks(Clock* clock, absl::Duration answer_timeout, tls::Dialer dial)
    : clock_(clock),
      answer_timeout_(answer_timeout),
      dial_(dial != nullptr ? std::move(dial) : *DefaultDialer()) {}

ExecutorLink::~ExecutorLink() {
  Close();
  writer_.join();
}

void ExecutorLink::Send(v1::RunRequest run, DispatchCallback cb) {
  {
    absl::MutexLock l(&mu_);
    if (!closed_) {
      queue_.push_back(Queued{std::move(run), std::move(cb), clock_->NowMillis()});
      return;
    }
  }
  cb(absl::UnavailableError(absl::StrCat("link to executor ", address_, " is closed")));
}

std::unique_ptr<grpc::ClientContext> ExecutorLink::CallContext(absl::Duration timeout) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->AddMetadata(std::string(kAccessTokenKey), token_);
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  return ctx;
}

bool ExecutorLink::Beat(absl::Duration timeout) {
  v1::BeatResponse resp;
  return stub_->Beat(CallContext(timeout).get(), v1::BeatRequest(), &resp).ok();
}

bool ExecutorLink::Idle(int64_t job_id, absl::Duration timeout) {
  v1::IdleBeatRequest req;
  req.set_job_id(job_id);
  v1::IdleBeatResponse resp;
  return stub_->IdleBeat(CallContext(timeout).get(), req, &resp).ok() && resp.idle();
}

absl::StatusOr<v1::KillResponse> ExecutorLink::Kill(const v1::KillRequest& request,
                                                    absl::Duration timeout) {
  v1::KillResponse resp;
  grpc::Status s = stub_->Kill(CallContext(timeout).get(), request, &resp);
  if (!s.ok()) {
    return absl::UnavailableError(absl::StrCat("executor ", address_, ": ", s.error_message()));
  }
  return resp;
}

bool ExecutorLink::AwaitAnswered(absl::Time deadline) {
  absl::MutexLock l(&mu_);
  auto answered = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return closed_ || (queue_.empty() && pending_.empty());
  };
  return clock_->AwaitWithDeadline(&mu_, absl::Condition(&answered), deadline);
}

void ExecutorLink::Close() {
  absl::MutexLock l(&mu_);
  closed_ = true;
}

ExecutorLink::Stream* ExecutorLink::EnsureStream() {
  if (stream_ != nullptr && !broken_) return stream_.get();
  TearDownStream().ok();  // A broken stream's runs were failed by FailBrokenStream.
  ctx_ = std::make_unique<grpc::ClientContext>();
  ctx_->AddMetadata(std::string(kAccessTokenKey), token_);
  stream_ = stub_->Dispatch(ctx_.get());
  broken_ = false;
  uint64_t gen = ++generation_;
  Stream* s = stream_.get();
  reader_ = std::thread([this, s, gen] { ReaderLoop(s, gen); });
  return s;
}

grpc::Status ExecutorLink::TearDownStream() {
  if (stream_ == nullptr) return grpc::Status::OK;
  // A stream whose reader saw the end is not cancelled: Finish then
  // returns the status the executor ended it with.
  if (!broken_) ctx_->TryCancel();
  std::thread reader = std::move(reader_);
  // The reader takes mu_ on its way out; release it while joining.
  mu_.Unlock();
  reader.join();
  mu_.Lock();
  grpc::Status status = stream_->Finish();
  stream_.reset();
  ctx_.reset();
  return status;
}

void ExecutorLink::FailBrokenStream() {
  const grpc::Status status = TearDownStream();
  broken_ = false;  // No stream now; the next batch opens one.
  auto pending = std::move(pending_);
  pending_.clear();
  mu_.Unlock();
  if (!pending.empty() || !status.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: dispatch stream to executor " << address_ << " ended ("
                        << FromGrpcStatus(status) << ") with " << pending.size()
                        << " runs unanswered";
  }
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
    // Refused before it read a run: nothing was accepted.
    FailAll(std::move(pending),
            absl::UnauthenticatedError(absl::StrCat(
                "executor ", address_, " refused the group's access token (",
                status.error_message(), "); restart it with the group's current token")));
  } else {
    FailAll(std::move(pending),
            absl::UnknownError(absl::StrCat("dispatch stream to executor ", address_,
                                            " broke before it answered")));
  }
  mu_.Lock();
}

void ExecutorLink::WriterLoop() {
  absl::MutexLock l(&mu_);
  int64_t next_expiry_scan = 0;
  absl::Time last_write = absl::InfinitePast();
  while (true) {
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return closed_ || broken_ || (!queue_.empty() && pending_.size() < kMaxInFlight);
    };
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&ready), clock_->Now() + absl::Seconds(1));
    const int64_t now = clock_->NowMillis();
    if (now >= next_expiry_scan) {
      // A few times per timeout, not per message (pending_ can be large).
      next_expiry_scan =
          now + std::max<int64_t>(1, absl::ToInt64Milliseconds(answer_timeout_) / 10);
      FailExpired(now);
    }
    if (closed_) break;
    if (broken_) FailBrokenStream();
    if (queue_.empty() || pending_.size() >= kMaxInFlight) continue;
    // Writes at least kMinWriteInterval apart (real time: this paces I/O,
    // it is not scheduling) unless a full batch is waiting: under load a
    // message carries many runs; a lone run after a quiet spell goes at once.
    auto full_or_closed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return closed_ || queue_.size() >= static_cast<size_t>(kMaxBatch);
    };
    mu_.AwaitWithDeadline(absl::Condition(&full_or_closed), last_write + kMinWriteInterval);
    if (closed_) break;
    // Runs already sent on a stream that ended meanwhile fail now, before
    // this batch joins them in pending_.
    if (broken_) FailBrokenStream();
    last_write = absl::Now();
    // Everything queued goes out in one message, up to the batch and
    // in-flight limits: one write and one answer for many runs.
    v1::DispatchRequest batch;
    size_t bytes = 0;
    while (!queue_.empty() && batch.runs_size() < kMaxBatch && pending_.size() < kMaxInFlight) {
      bytes += queue_.front().run.ByteSizeLong();
      if (batch.runs_size() > 0 && bytes > kMaxBatchBytes) break;
      Queued q = std::move(queue_.front());
      queue_.pop_front();
      pending_[q.run.run_id()] = Pending{std::move(q.cb), now};
      *batch.add_runs() = std::move(q.run);
    }
    Stream* s = EnsureStream();
    mu_.Unlock();
    // A failed write means the call has ended: the reader sees the end
    // (not cancelled here, which could hide the executor's status) and the
    // runs sent on it are failed by FailBrokenStream.
    s->Write(batch);
    mu_.Lock();
  }
  // Closed: fail what is queued or unanswered, then stop the stream.
  std::deque<Queued> queued = std::move(queue_);
  queue_.clear();
  TearDownStream().ok();  // Whatever it ended with, the link is closing.
  auto pending = std::move(pending_);
  pending_.clear();
  mu_.Unlock();
  absl::Status why = absl::UnavailableError(absl::StrCat("link to executor ", address_, " closed"));
  for (Queued& q : queued) q.cb(why);
  // Sent runs: the executor may have accepted them (kUnknown, see header).
  FailAll(std::move(pending), absl::UnknownError(absl::StrCat("link to executor ", address_,
                                                              " closed before it answered")));
  mu_.Lock();
}

void ExecutorLink::FailExpired(int64_t now) {
  const int64_t timeout_ms = absl::ToInt64Milliseconds(answer_timeout_);
  // Runs the executor never answered are failed, not left pending forever;
  // so are runs that waited the whole timeout behind the in-flight limit.
  absl::flat_hash_map<int64_t, Pending> expired;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now - it->second.sent_ms > timeout_ms) {
      expired.insert(std::move(*it));
      pending_.erase(it++);
    } else {
      ++it;
    }
  }
  std::vector<Queued> stale;
  while (!queue_.empty() && now - queue_.front().queued_ms > timeout_ms) {
    stale.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  if (expired.empty() && stale.empty()) return;
  const absl::Status backlog = absl::ResourceExhaustedError(absl::StrCat(
      "not sent to executor ", address_, " within ", absl::FormatDuration(answer_timeout_), " (",
      pending_.size() + expired.size(), " runs unanswered, limit ", kMaxInFlight, ")"));
  mu_.Unlock();
  FailAll(std::move(expired),
          absl::UnknownError(absl::StrCat("executor ", address_, " did not answer within ",
                                          absl::FormatDuration(answer_timeout_))));
  for (Queued& q : stale) q.cb(backlog);
  mu_.Lock();
}

void ExecutorLink::ReaderLoop(Stream* stream, uint64_t generation) {
  v1::DispatchResponse resp;
  std::vector<std::pair<DispatchCallback, int>> answered;
  while (stream->Read(&resp)) {
    answered.clear();
    {
      absl::MutexLock l(&mu_);
      for (int i = 0; i < resp.answers_size(); ++i) {
        auto it = pending_.find(resp.answers(i).run_id());
        if (it == pending_.end()) continue;  // Already timed out.
        answered.emplace_back(std::move(it->second.cb), i);
        pending_.erase(it);
      }
    }
    for (auto& [cb, i] : answered) cb(std::move(*resp.mutable_answers(i)));
  }
  // The writer tears the stream down and fails what was sent on it
  // (FailBrokenStream), with the status only Finish can read.
  absl::MutexLock l(&mu_);
  if (generation == generation_) broken_ = true;
}

void ExecutorLink::FailAll(absl::flat_hash_map<int64_t, Pending> pending, const absl::Status& why) {
  for (auto& [id, p] : pending) p.cb(why);
}

std::shared_ptr<ExecutorLink> ExecutorLinks::Get(const std::string& address,
                                                 const std::string& token) {
  absl::MutexLock l(&mu_);
  auto& link = links_[address];
  if (link == nullptr || link->token() != token) {
    if (link != nullptr) link->Close();
    link = std::make_shared<ExecutorLink>(address, token, clock_, answer_timeout_, dial_);
  }
  return link;
}

void ExecutorLinks::Drop(const std::string& address) {
  std::shared_ptr<ExecutorLink> link;
  {
    absl::MutexLock l(&mu_);
    auto it = links_.find(address);
    if (it == links_.end()) return;
    link = std::move(it->second);
    links_.erase(it);
  }
  link->Close();
}

bool ExecutorLinks::AwaitAnswered(absl::Duration limit) {
  std::vector<std::shared_ptr<ExecutorLink>> links;
  {
    absl::MutexLock l(&mu_);
    for (auto& [a, link] : links_) links.push_back(link);
  }
  const absl::Time deadline = clock_->Now() + limit;
  bool answered = true;
  for (auto& link : links) answered &= link->AwaitAnswered(deadline);
  return answered;
}

void ExecutorLinks::CloseAll() {
  absl::flat_hash_map<std::string, std::shared_ptr<ExecutorLink>> links;
  {
    absl::MutexLock l(&mu_);
    links = std::move(links_);
    links_.clear();
  }
  for (auto& [a, link] : links) link->Close();
}

}  // namespace gnomon::scheduler
