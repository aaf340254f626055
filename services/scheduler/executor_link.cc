#include "services/scheduler/executor_link.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/server/grpc_server.h"

namespace gnomon::scheduler {

ExecutorLink::ExecutorLink(std::string address, std::string token, Clock* clock,
                           absl::Duration answer_timeout)
    : address_(std::move(address)),
      token_(std::move(token)),
      clock_(clock),
      answer_timeout_(answer_timeout),
      stub_(v1::Executor::NewStub(grpc::CreateCustomChannel(
          address_, grpc::InsecureChannelCredentials(), DefaultChannelArguments()))) {
  writer_ = std::thread([this] { WriterLoop(); });
}

ExecutorLink::~ExecutorLink() {
  Close();
  writer_.join();
}

void ExecutorLink::Send(v1::RunRequest run, DispatchCallback cb) {
  {
    absl::MutexLock l(&mu_);
    if (!closed_) {
      queue_.emplace_back(std::move(run), std::move(cb));
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

void ExecutorLink::Close() {
  absl::MutexLock l(&mu_);
  closed_ = true;
}

ExecutorLink::Stream* ExecutorLink::EnsureStream() {
  if (stream_ != nullptr && !broken_) return stream_.get();
  TearDownStream();
  ctx_ = std::make_unique<grpc::ClientContext>();
  ctx_->AddMetadata(std::string(kAccessTokenKey), token_);
  stream_ = stub_->Dispatch(ctx_.get());
  broken_ = false;
  uint64_t gen = ++generation_;
  Stream* s = stream_.get();
  reader_ = std::thread([this, s, gen] { ReaderLoop(s, gen); });
  return s;
}

void ExecutorLink::TearDownStream() {
  if (stream_ == nullptr) return;
  ctx_->TryCancel();
  std::thread reader = std::move(reader_);
  // The reader takes mu_ on its way out; release it while joining.
  mu_.Unlock();
  reader.join();
  mu_.Lock();
  stream_->Finish().ok();  // Status already reported through the reader.
  stream_.reset();
  ctx_.reset();
}

void ExecutorLink::WriterLoop() {
  absl::MutexLock l(&mu_);
  int64_t next_expiry_scan = 0;
  while (true) {
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closed_ || !queue_.empty(); };
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&ready), clock_->Now() + absl::Seconds(1));
    // Runs an executor never answered are failed, not left pending forever.
    // Scanned a few times per timeout, not per message (pending_ can be large).
    const int64_t now = clock_->NowMillis();
    const int64_t timeout_ms = absl::ToInt64Milliseconds(answer_timeout_);
    if (now >= next_expiry_scan) {
      next_expiry_scan = now + std::max<int64_t>(1, timeout_ms / 10);
      absl::flat_hash_map<int64_t, Pending> expired;
      for (auto it = pending_.begin(); it != pending_.end();) {
        if (now - it->second.sent_ms > timeout_ms) {
          expired.insert(std::move(*it));
          pending_.erase(it++);
        } else {
          ++it;
        }
      }
      if (!expired.empty()) {
        mu_.Unlock();
        FailAll(std::move(expired),
                absl::DeadlineExceededError(absl::StrCat("executor ", address_, " did not answer")));
        mu_.Lock();
      }
    }
    if (closed_) break;
    if (queue_.empty()) continue;
    // Everything queued goes out together: all but the last write carry a
    // buffer hint, so gRPC coalesces them into few frames and syscalls.
    std::vector<v1::DispatchRequest> batch;
    batch.reserve(std::min<size_t>(queue_.size(), kMaxWriteBatch));
    while (!queue_.empty() && batch.size() < kMaxWriteBatch) {
      auto [run, cb] = std::move(queue_.front());
      queue_.pop_front();
      pending_[run.run_id()] = Pending{std::move(cb), now};
      *batch.emplace_back().mutable_run() = std::move(run);
    }
    Stream* s = EnsureStream();
    mu_.Unlock();
    bool ok = true;
    for (size_t k = 0; k < batch.size() && ok; ++k) {
      grpc::WriteOptions options;
      if (k + 1 < batch.size()) options.set_buffer_hint();
      ok = s->Write(batch[k], options);
    }
    mu_.Lock();
    if (!ok) {
      // The reader sees the stream end and fails every pending run.
      broken_ = true;
      ctx_->TryCancel();
    }
  }
  // Closed: fail what is queued or unanswered, then stop the stream.
  std::vector<std::pair<v1::RunRequest, DispatchCallback>> queued(
      std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  TearDownStream();
  auto pending = std::move(pending_);
  pending_.clear();
  mu_.Unlock();
  absl::Status why = absl::UnavailableError(absl::StrCat("link to executor ", address_, " closed"));
  for (auto& [run, cb] : queued) cb(why);
  FailAll(std::move(pending), why);
  mu_.Lock();
}

void ExecutorLink::ReaderLoop(Stream* stream, uint64_t generation) {
  v1::DispatchResponse resp;
  while (stream->Read(&resp)) {
    DispatchCallback cb;
    {
      absl::MutexLock l(&mu_);
      auto it = pending_.find(resp.run_id());
      if (it == pending_.end()) continue;  // Already timed out.
      cb = std::move(it->second.cb);
      pending_.erase(it);
    }
    cb(resp);
  }
  absl::flat_hash_map<int64_t, Pending> pending;
  {
    absl::MutexLock l(&mu_);
    if (generation != generation_) return;
    broken_ = true;
    pending = std::move(pending_);
    pending_.clear();
  }
  FailAll(std::move(pending),
          absl::UnavailableError(absl::StrCat("dispatch stream to executor ", address_, " broke")));
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
    link = std::make_shared<ExecutorLink>(address, token, clock_, answer_timeout_);
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
