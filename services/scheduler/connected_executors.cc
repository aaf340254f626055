#include "services/scheduler/connected_executors.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "proto/decoding/request_decoding.h"
#include "services/common/client/log.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/stream_credentials.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {

namespace {

// Under every receive limit.
constexpr size_t kMaxBatchBytes = 1 << 20;
// A link with nothing to do, unconnected this long, is forgotten.
constexpr int64_t kForgetAfterMs = 60'000;

using Reactor = grpc::ServerBidiReactor<v1::ConnectRequest, v1::ConnectResponse>;

// Ends a refused stream at once.
class Refused final : public Reactor {
 public:
  explicit Refused(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

absl::Status ValidateHello(const v1::ConnectRequest& in, const std::string& app) {
  if (!in.has_hello()) return checks::Invalid("hello", "must be the first message");
  const v1::Hello& h = in.hello();
  RETURN_IF_ERROR(checks::FirstError(
      {checks::CheckString("hello.app_name", h.app_name(), 64, checks::Charset::kName, 1),
       checks::CheckExecutorName("hello.executor", h.executor()),
       checks::CheckString("hello.instance_id", h.instance_id(), 64, checks::Charset::kToken)}));
  if (h.app_name() != app) {
    return checks::Invalid("hello.app_name", "must equal the x-gnomon-app metadata");
  }
  return absl::OkStatus();
}

}  // namespace

// One executor's stream. Its fields are guarded by the owner's mutex; gRPC
// runs its reactions one at a time, and OnDone last.
class ConnectedExecutors::Stream final : public Reactor {
 public:
  Stream(ConnectedExecutors* owner, uint64_t id, std::string app,
         std::shared_ptr<StreamCredentials> creds)
      : owner_(owner), id(id), app(std::move(app)), creds(std::move(creds)) {
    out.mutable_welcome()->set_replica_id(owner_->options_.replica_id);
    writing = true;
    StartWrite(&out);
    StartRead(&in);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The executor closed its stream, or sent a message that did not
      // decode (invalid UTF-8: gRPC reports it the same way), refused
      // naming the field.
      owner_->Close(this, in_failure.Take());
      return;
    }
    if (key.empty()) {
      if (absl::Status s = ValidateHello(in, app); !s.ok()) {
        owner_->Close(this, ToGrpcStatus(s));
        return;
      }
      owner_->Attach(this, Key(app, in.hello().executor()));
    } else if (in.has_answers()) {
      owner_->Answered(this, in.answers());
    } else if (in.has_reply()) {
      owner_->Replied(this, in.reply());
    } else {
      owner_->Close(this, ToGrpcStatus(checks::Invalid("hello", "sent twice")));
      return;
    }
    owner_->ReadNext(this);
  }
  void OnWriteDone(bool ok) override { owner_->WriteDone(this, ok); }
  void OnDone() override {
    owner_->Ended(this);
    delete this;
  }

 private:
  ConnectedExecutors* const owner_;

 public:
  // Written once, before the stream is shared.
  const uint64_t id;
  const std::string app;  // The app its credentials are for.
  const std::shared_ptr<StreamCredentials> creds;
  // Guarded by owner_->mu_ (not annotated: the analysis cannot name it here).
  std::string key;         // App and executor, once Hello came.
  std::string executor;    // For messages.
  bool writing = false;    // A write is in flight.
  bool finishing = false;  // Finish is called or about to be: nothing more starts.
  struct Pending {
    DispatchCallback cb;
    int64_t sent_ms = 0;
  };
  // Runs written and not answered, by run id (a resent run may be there twice).
  absl::flat_hash_map<int64_t, absl::InlinedVector<Pending, 1>> pending;
  size_t pending_count = 0;
  v1::ConnectRequest in;
  proto::ReadFailureWatch in_failure{&in};  // Why a read into `in` failed.
  v1::ConnectResponse out;
};

class ConnectedExecutors::Service final : public v1::Dispatch::CallbackService {
 public:
  explicit Service(ConnectedExecutors* owner) : owner_(owner) {}
  Reactor* Connect(grpc::CallbackServerContext* context) override { return owner_->Open(context); }

 private:
  ConnectedExecutors* const owner_;
};

ConnectedExecutors::ConnectedExecutors(Authenticator* auth, ConnectedExecutorsOptions options,
                                       Clock* clock)
    : auth_(auth),
      options_(std::move(options)),
      clock_(clock),
      service_(std::make_unique<Service>(this)),
      sweeper_(clock) {}

ConnectedExecutors::~ConnectedExecutors() { CloseAll(); }

grpc::Service* ConnectedExecutors::service() { return service_.get(); }

void ConnectedExecutors::Start() {
  sweeper_.Start(absl::Milliseconds(100), [this] { Sweep(); });
}

std::string ConnectedExecutors::Key(const std::string& app, const std::string& address) {
  return absl::StrCat(app, "\n", address);
}

Reactor* ConnectedExecutors::Open(grpc::CallbackServerContext* context) {
  // Copied, so the credentials can be checked again after the call's
  // context is gone (the sweeper holds them).
  Authenticator::MetadataLookup lookup = CopiedMetadata(*context);
  absl::StatusOr<Caller> caller =
      auth_->Authorize(lookup, v1::Dispatch::service_full_name(), "Connect");
  if (!caller.ok()) return new Refused(ToGrpcStatus(caller.status()));
  const std::string app = caller->group.app_name();
  auto creds =
      std::make_shared<StreamCredentials>(auth_, lookup, v1::Dispatch::service_full_name(),
                                          "Connect", *std::move(caller), kGroupRecheck, clock_);
  absl::MutexLock l(&mu_);
  if (closed_) {
    return new Refused(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                    "this gnomond replica is stopping; connect to another"));
  }
  auto* s = new Stream(this, ++next_stream_id_, app, std::move(creds));
  streams_[s->id] = s;
  ++reactors_;
  return s;
}

void ConnectedExecutors::Attach(Stream* s, const std::string& key) {
  Failures failures;
  Stream* replaced = nullptr;
  {
    absl::MutexLock l(&mu_);
    if (s->finishing) return;
    s->key = key;
    s->executor = key.substr(key.find('\n') + 1);
    Link& link = links_[key];
    Stream* old = link.stream;  // BeginFinish detaches it.
    if (old != nullptr && BeginFinish(old, failures)) replaced = old;
    link.stream = s;
    GNOMON_LOG(INFO) << "scheduler: executor " << s->executor << " of app \"" << s->app
                     << "\" connected" << (replaced != nullptr ? " (replacing its stream)" : "");
    Pump(link);
  }
  if (replaced != nullptr) {
    replaced->Finish(grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                                  "replaced by a newer stream of the same executor"));
  }
  Report(std::move(failures));
}

void ConnectedExecutors::ReadNext(Stream* s) {
  absl::MutexLock l(&mu_);
  if (!s->finishing) s->StartRead(&s->in);
}

void ConnectedExecutors::Close(Stream* s, grpc::Status status) {
  Failures failures;
  bool finish = false;
  {
    absl::MutexLock l(&mu_);
    finish = BeginFinish(s, failures);
  }
  if (finish) s->Finish(std::move(status));
  Report(std::move(failures));
}

void ConnectedExecutors::Answered(Stream* s, const v1::DispatchResponse& answers) {
  std::vector<std::pair<DispatchCallback, v1::RunAnswer>> done;
  {
    absl::MutexLock l(&mu_);
    for (const v1::RunAnswer& a : answers.answers()) {
      auto it = s->pending.find(a.run_id());
      if (it == s->pending.end()) continue;  // Failed already (timed out, dropped).
      done.emplace_back(std::move(it->second.front().cb), a);
      it->second.erase(it->second.begin());
      if (it->second.empty()) s->pending.erase(it);
      --s->pending_count;
    }
    auto link = links_.find(s->key);
    if (link != links_.end() && link->second.stream == s) Pump(link->second);
  }
  for (auto& [cb, answer] : done) cb(std::move(answer));
}

void ConnectedExecutors::Replied(Stream* s, const v1::CallReply& reply) {
  absl::MutexLock l(&mu_);
  auto link = links_.find(s->key);
  if (link == links_.end()) return;
  auto it = link->second.waiting.find(reply.id());
  if (it == link->second.waiting.end()) return;  // Its caller gave up.
  it->second->reply = reply;
  it->second->done = true;
  link->second.waiting.erase(it);
}

void ConnectedExecutors::WriteDone(Stream* s, bool ok) {
  Failures failures;
  bool finish = false;
  {
    absl::MutexLock l(&mu_);
    s->writing = false;
    if (!ok) {
      finish = BeginFinish(s, failures);
    } else if (!s->finishing) {
      auto link = links_.find(s->key);
      if (link != links_.end() && link->second.stream == s) Pump(link->second);
    }
  }
  if (finish) s->Finish(grpc::Status::OK);
  Report(std::move(failures));
}

bool ConnectedExecutors::BeginFinish(Stream* s, Failures& failures) {
  if (s->finishing) return false;
  s->finishing = true;
  streams_.erase(s->id);
  auto link = links_.find(s->key);
  if (link != links_.end() && link->second.stream == s) {
    link->second.stream = nullptr;
    link->second.unconnected_since_ms = clock_->NowMillis();
    // Calls written on it get no reply; their callers stop waiting.
    for (auto& [id, slot] : link->second.waiting) slot->done = true;
    link->second.waiting.clear();
    GNOMON_LOG(INFO) << "scheduler: executor " << s->executor << " of app \"" << s->app
                     << "\" disconnected";
  }
  for (auto& [run_id, sent] : s->pending) {
    for (Stream::Pending& p : sent) {
      failures.push_back(
          {std::move(p.cb), absl::UnknownError(absl::StrCat(
                                "the stream of executor ", s->executor, " ended after run ", run_id,
                                " was sent; the executor may have accepted it"))});
    }
  }
  s->pending.clear();
  s->pending_count = 0;
  return true;
}

void ConnectedExecutors::Ended(Stream* s) {
  Failures failures;
  {
    absl::MutexLock l(&mu_);
    BeginFinish(s, failures);  // Normally done already.
    --reactors_;
  }
  Report(std::move(failures));
}

void ConnectedExecutors::Pump(Link& link) {
  Stream* s = link.stream;
  if (s == nullptr || s->writing || s->finishing) return;
  s->out.Clear();
  if (!link.calls.empty()) {
    *s->out.mutable_call() = std::move(link.calls.front());
    link.calls.pop_front();
  } else {
    if (link.queue.empty() || s->pending_count >= kMaxInFlight) return;
    v1::DispatchRequest* batch = s->out.mutable_runs();
    const int64_t now = clock_->NowMillis();
    size_t bytes = 0;
    while (!link.queue.empty() && batch->runs_size() < kMaxBatch &&
           s->pending_count < kMaxInFlight) {
      Queued& q = link.queue.front();
      const size_t size = q.run.ByteSizeLong();
      if (batch->runs_size() > 0 && bytes + size > kMaxBatchBytes) break;
      bytes += size;
      s->pending[q.run.run_id()].push_back({std::move(q.cb), now});
      ++s->pending_count;
      *batch->add_runs() = std::move(q.run);
      link.queue.pop_front();
    }
  }
  s->writing = true;
  // Safe under the lock: gRPC never runs OnWriteDone inside StartWrite.
  s->StartWrite(&s->out);
}

void ConnectedExecutors::Send(const std::string& address, const std::string& app,
                              v1::RunRequest run, DispatchCallback cb) {
  {
    absl::MutexLock l(&mu_);
    if (!closed_) {
      auto [it, added] = links_.try_emplace(Key(app, address));
      if (added) it->second.unconnected_since_ms = clock_->NowMillis();
      it->second.queue.push_back({std::move(run), std::move(cb), clock_->NowMillis()});
      Pump(it->second);
      return;
    }
  }
  cb(absl::UnavailableError("this gnomond replica is stopping"));
}

std::optional<v1::CallReply> ConnectedExecutors::Ask(const std::string& address,
                                                     const std::string& app, v1::Call call,
                                                     absl::Duration timeout) {
  const std::string key = Key(app, address);
  auto slot = std::make_shared<CallSlot>();
  absl::MutexLock l(&mu_);
  if (closed_) return std::nullopt;
  const uint64_t id = ++next_call_id_;
  call.set_id(id);
  {
    auto [it, added] = links_.try_emplace(key);
    if (added) it->second.unconnected_since_ms = clock_->NowMillis();
    it->second.calls.push_back(std::move(call));
    it->second.waiting[id] = slot;
    Pump(it->second);
  }
  clock_->AwaitWithDeadline(&mu_, absl::Condition(&slot->done), clock_->Now() + timeout);
  if (auto it = links_.find(key); it != links_.end()) {
    it->second.waiting.erase(id);
    auto& calls = it->second.calls;
    calls.erase(std::remove_if(calls.begin(), calls.end(),
                               [id](const v1::Call& c) { return c.id() == id; }),
                calls.end());
  }
  return slot->reply;
}

bool ConnectedExecutors::Beat(const std::string& address, const std::string& app,
                              absl::Duration timeout) {
  v1::Call call;
  call.mutable_beat();
  std::optional<v1::CallReply> r = Ask(address, app, std::move(call), timeout);
  return r.has_value() && r->has_beat();
}

bool ConnectedExecutors::Idle(const std::string& address, const std::string& app, int64_t job_id,
                              absl::Duration timeout) {
  v1::Call call;
  call.mutable_idle_beat()->set_job_id(job_id);
  std::optional<v1::CallReply> r = Ask(address, app, std::move(call), timeout);
  return r.has_value() && r->has_idle_beat() && r->idle_beat().idle();
}

absl::StatusOr<v1::KillResponse> ConnectedExecutors::Kill(const std::string& address,
                                                          const std::string& app,
                                                          const v1::KillRequest& request,
                                                          absl::Duration timeout) {
  v1::Call call;
  *call.mutable_kill() = request;
  std::optional<v1::CallReply> r = Ask(address, app, std::move(call), timeout);
  if (!r.has_value() || !r->has_kill()) {
    return absl::UnavailableError(absl::StrCat("executor ", address, " did not answer within ",
                                               absl::FormatDuration(timeout)));
  }
  return r->kill();
}

size_t ConnectedExecutors::connected() const {
  absl::MutexLock l(&mu_);
  size_t n = 0;
  for (const auto& [key, link] : links_) n += link.stream != nullptr ? 1 : 0;
  return n;
}

bool ConnectedExecutors::Connected(const std::string& address, const std::string& app) const {
  absl::MutexLock l(&mu_);
  auto it = links_.find(Key(app, address));
  return it != links_.end() && it->second.stream != nullptr;
}

std::vector<std::string> ConnectedExecutors::AwaitConnected(
    const std::vector<v1::ExecutorInfo>& executors, absl::Time deadline) const {
  auto missing = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<std::string> out;
    for (const v1::ExecutorInfo& e : executors) {
      auto it = links_.find(Key(e.app_name(), e.address()));
      if (it == links_.end() || it->second.stream == nullptr) out.push_back(e.address());
    }
    return out;
  };
  absl::MutexLock l(&mu_);
  auto all = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closed_ || missing().empty(); };
  mu_.AwaitWithDeadline(absl::Condition(&all), deadline);
  return missing();
}

void ConnectedExecutors::Drop(const std::string& address) {
  Failures failures;
  {
    absl::MutexLock l(&mu_);
    for (auto& [key, link] : links_) {
      if (key.substr(key.find('\n') + 1) != address) continue;
      for (Queued& q : link.queue) {
        failures.push_back(
            {std::move(q.cb), absl::UnavailableError(absl::StrCat("executor ", address, " left"))});
      }
      link.queue.clear();
      if (link.stream == nullptr) continue;
      for (auto& [run_id, sent] : link.stream->pending) {
        for (Stream::Pending& p : sent) {
          failures.push_back({std::move(p.cb), absl::UnknownError(absl::StrCat(
                                                   "executor ", address, " left after run ", run_id,
                                                   " was sent; it may have accepted it"))});
        }
      }
      link.stream->pending.clear();
      link.stream->pending_count = 0;
    }
  }
  Report(std::move(failures));
}

bool ConnectedExecutors::AwaitAnswered(absl::Duration limit) {
  absl::MutexLock l(&mu_);
  auto answered = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) return true;
    for (const auto& [key, link] : links_) {
      if (!link.queue.empty()) return false;
    }
    for (const auto& [id, s] : streams_) {
      if (s->pending_count > 0) return false;
    }
    return true;
  };
  return clock_->AwaitWithDeadline(&mu_, absl::Condition(&answered), clock_->Now() + limit);
}

void ConnectedExecutors::CloseAll() {
  sweeper_.Stop();
  Failures failures;
  std::vector<Stream*> finish;
  {
    absl::MutexLock l(&mu_);
    closed_ = true;
    for (auto& [key, link] : links_) {
      for (Queued& q : link.queue) {
        failures.push_back(
            {std::move(q.cb), absl::UnavailableError("this gnomond replica is stopping")});
      }
      link.queue.clear();
      link.calls.clear();
    }
    std::vector<Stream*> open;
    for (auto& [id, s] : streams_) open.push_back(s);
    for (Stream* s : open) {
      if (BeginFinish(s, failures)) finish.push_back(s);
    }
  }
  for (Stream* s : finish) {
    s->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                           "this gnomond replica is stopping; connect to another"));
  }
  Report(std::move(failures));
  // The reactors call back into this object until their OnDone.
  absl::MutexLock l(&mu_);
  auto gone = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return reactors_ == 0; };
  if (!mu_.AwaitWithTimeout(absl::Condition(&gone), absl::Seconds(10))) {
    GNOMON_LOG(WARNING) << "scheduler: " << reactors_ << " executor streams still open";
  }
}

void ConnectedExecutors::Sweep() {
  Failures failures;
  std::vector<std::pair<uint64_t, std::shared_ptr<StreamCredentials>>> creds;
  {
    absl::MutexLock l(&mu_);
    const int64_t now = clock_->NowMillis();
    const int64_t answer_ms = absl::ToInt64Milliseconds(options_.answer_timeout);
    const int64_t connect_ms = absl::ToInt64Milliseconds(options_.connect_wait);
    for (auto it = links_.begin(); it != links_.end();) {
      Link& link = it->second;
      const std::string executor = it->first.substr(it->first.find('\n') + 1);
      while (!link.queue.empty()) {
        Queued& q = link.queue.front();
        if (link.stream != nullptr && now - q.queued_ms >= answer_ms) {
          failures.push_back(
              {std::move(q.cb), absl::ResourceExhaustedError(absl::StrCat(
                                    "run ", q.run.run_id(), " waited ",
                                    absl::FormatDuration(options_.answer_timeout),
                                    " behind the runs in flight to executor ", executor))});
        } else if (link.stream == nullptr &&
                   now - std::max(q.queued_ms, link.unconnected_since_ms) >= connect_ms) {
          failures.push_back(
              {std::move(q.cb),
               absl::UnavailableError(absl::StrCat(
                   "executor ", executor, " is not connected to replica ", options_.replica_id))});
        } else {
          break;
        }
        link.queue.pop_front();
      }
      const bool idle = link.stream == nullptr && link.queue.empty() && link.calls.empty() &&
                        link.waiting.empty() && now - link.unconnected_since_ms > kForgetAfterMs;
      if (idle) {
        links_.erase(it++);
      } else {
        ++it;
      }
    }
    for (auto& [id, s] : streams_) {
      creds.emplace_back(id, s->creds);
      if (s->pending_count == 0) continue;
      for (auto it = s->pending.begin(); it != s->pending.end();) {
        auto& sent = it->second;
        for (auto p = sent.begin(); p != sent.end();) {
          if (now - p->sent_ms < answer_ms) {
            ++p;
            continue;
          }
          failures.push_back(
              {std::move(p->cb), absl::UnknownError(absl::StrCat(
                                     "executor ", s->executor, " did not answer run ", it->first,
                                     " within ", absl::FormatDuration(options_.answer_timeout)))});
          p = sent.erase(p);
          --s->pending_count;
        }
        if (sent.empty()) {
          s->pending.erase(it++);
        } else {
          ++it;
        }
      }
    }
  }
  Report(std::move(failures));
  // A group token rotated out (or the group deleted) ends its streams.
  for (auto& [id, c] : creds) {
    absl::Status s = c->Check();
    if (s.ok()) continue;
    Stream* stream = nullptr;
    Failures ended;
    {
      absl::MutexLock l(&mu_);
      auto it = streams_.find(id);
      Stream* found = it == streams_.end() ? nullptr : it->second;  // BeginFinish erases it.
      if (found != nullptr && BeginFinish(found, ended)) stream = found;
    }
    if (stream != nullptr) stream->Finish(ToGrpcStatus(s));
    Report(std::move(ended));
  }
}

void ConnectedExecutors::Report(Failures failures) {
  for (Failure& f : failures) f.cb(std::move(f.why));
}

}  // namespace gnomon::scheduler
