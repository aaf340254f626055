#include "services/executor-sdk/testing/fake_servers.h"

#include <algorithm>
#include <utility>

#include "services/common/client/auth_metadata.h"

namespace gnomon::executor::testing {
namespace {

std::string Metadata(const grpc::ServerContext& context, std::string_view key) {
  auto it = context.client_metadata().find(grpc::string_ref(key.data(), key.size()));
  if (it == context.client_metadata().end()) return "";
  return std::string(it->second.data(), it->second.size());
}

}  // namespace

grpc::Status FakeRegistry::Session(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::SessionResponse, v1::SessionRequest>* stream) {
  if (Metadata(*context, kAccessTokenKey) != token_) {
    absl::MutexLock lock(&mu_);
    ++refusals_;
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad access token");
  }
  v1::SessionRequest request;
  if (!stream->Read(&request) || !request.has_register_()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "Register must come first");
  }
  {
    absl::MutexLock lock(&mu_);
    registrations_.push_back(request.register_());
    ++active_;
  }
  v1::SessionResponse response;
  absl::Duration interval = beat_interval_;
  response.mutable_registered()->mutable_beat_interval()->set_seconds(
      absl::ToInt64Seconds(interval));
  response.mutable_registered()->mutable_beat_interval()->set_nanos(
      static_cast<int32_t>(absl::ToInt64Nanoseconds(interval % absl::Seconds(1))));
  stream->Write(response);
  while (stream->Read(&request)) {
    if (request.has_beat()) {
      {
        absl::MutexLock lock(&mu_);
        if (!beat_refusal_.ok()) {
          ++refusals_;
          --active_;
          return beat_refusal_;
        }
        beats_.push_back(request.beat());
      }
      v1::SessionResponse ack;
      ack.mutable_beat_ack();
      stream->Write(ack);
    } else if (request.has_deregister()) {
      absl::MutexLock lock(&mu_);
      ++deregistrations_;
      break;
    }
  }
  absl::MutexLock lock(&mu_);
  --active_;
  return grpc::Status::OK;
}

bool FakeRegistry::WaitForRegistrations(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(registrations_.size()) >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeRegistry::WaitForBeats(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(beats_.size()) >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeRegistry::WaitForBeat(const std::function<bool(const v1::Beat&)>& pred,
                               absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const v1::Beat& b : beats_) {
      if (pred(b)) return true;
    }
    return false;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeRegistry::WaitForDeregistrations(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return deregistrations_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeRegistry::WaitForRefusals(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return refusals_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

std::vector<v1::Register> FakeRegistry::registrations() const {
  absl::MutexLock lock(&mu_);
  return registrations_;
}

void FakeRegistry::RefuseBeats(grpc::Status status) {
  absl::MutexLock lock(&mu_);
  beat_refusal_ = std::move(status);
}

int FakeRegistry::active_sessions() const {
  absl::MutexLock lock(&mu_);
  return active_;
}

grpc::Status FakeLogService::ReportResults(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ReportResultsResponse, v1::ReportResultsRequest>* stream) {
  if (Metadata(*context, kAccessTokenKey) != token_ || Metadata(*context, kAppNameKey) != app_) {
    absl::MutexLock lock(&mu_);
    ++refusals_;
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad access token or app");
  }
  v1::ReportResultsRequest request;
  while (stream->Read(&request)) {
    v1::ReportResultsResponse response;
    for (const v1::ReportItem& item : request.items()) {
      v1::ReportItemAck* ack = response.add_acks();
      ack->set_sequence(item.sequence());
      ack->set_ack(v1::REPORT_ACK_APPLIED);
      absl::MutexLock lock(&mu_);
      if (item.has_started()) {
        ack->set_run_id(item.started().run_id());
        started_[item.started().run_id()] = true;
      } else if (item.has_log()) {
        int64_t run = item.log().run_id();
        ack->set_run_id(run);
        ++log_items_[run];
        std::vector<v1::LogLine>& stored = lines_[run];
        for (const v1::LogLine& line : item.log().lines()) {
          // Re-sent batches are idempotent by line number, as in the real service.
          if (line.line_number() > static_cast<int64_t>(stored.size())) stored.push_back(line);
        }
      } else if (item.has_result()) {
        ++result_items_;
        ack->set_run_id(item.result().run_id());
        if (results_.count(item.result().run_id()) != 0) {
          ack->set_ack(v1::REPORT_ACK_DUPLICATE);
        } else {
          results_[item.result().run_id()] = item.result();
        }
      }
    }
    if (!stream->Write(response)) break;
  }
  return grpc::Status::OK;
}

std::optional<v1::RunResult> FakeLogService::WaitForResult(int64_t run_id,
                                                           absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return results_.count(run_id) != 0; };
  if (!mu_.AwaitWithTimeout(absl::Condition(&cond), timeout)) return std::nullopt;
  return results_.at(run_id);
}

bool FakeLogService::WaitForStarted(int64_t run_id, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return started_.count(run_id) != 0; };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeLogService::WaitForLines(int64_t run_id, size_t n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = lines_.find(run_id);
    return it != lines_.end() && it->second.size() >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

std::vector<v1::LogLine> FakeLogService::lines(int64_t run_id) const {
  absl::MutexLock lock(&mu_);
  auto it = lines_.find(run_id);
  return it == lines_.end() ? std::vector<v1::LogLine>() : it->second;
}

int FakeLogService::result_items() const {
  absl::MutexLock lock(&mu_);
  return result_items_;
}

int FakeLogService::log_items(int64_t run_id) const {
  absl::MutexLock lock(&mu_);
  auto it = log_items_.find(run_id);
  return it == log_items_.end() ? 0 : it->second;
}

int FakeLogService::refusals() const {
  absl::MutexLock lock(&mu_);
  return refusals_;
}

bool FakeLogService::WaitForRefusals(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return refusals_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

TestServer::TestServer(std::vector<grpc::Service*> services, int port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:" + std::to_string(port), grpc::InsecureServerCredentials(),
                           &port_);
  for (grpc::Service* s : services) builder.RegisterService(s);
  server_ = builder.BuildAndStart();
}

TestServer::~TestServer() { Stop(); }

void TestServer::Stop() {
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now());
  server_->Wait();
  server_.reset();
}

struct FakeDispatch::Stream {
  Stream(grpc::ServerContext* c,
         grpc::ServerReaderWriter<v1::ConnectResponse, v1::ConnectRequest>* s)
      : context(c), rw(s) {}
  grpc::ServerContext* const context;
  grpc::ServerReaderWriter<v1::ConnectResponse, v1::ConnectRequest>* const rw;
  // Guarded by FakeDispatch::mu_.
  bool open = true;
  std::vector<v1::ConnectRequest> inbox;  // Answers and replies not yet taken.
  // Held by an Exchange while it writes and waits; Connect takes it before
  // returning, so that no Write outlives the call.
  absl::Mutex exchange_mu;
};

grpc::Status FakeDispatch::Connect(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ConnectResponse, v1::ConnectRequest>* rw) {
  {
    absl::MutexLock lock(&mu_);
    if (Metadata(*context, kAccessTokenKey) != token_ || Metadata(*context, kAppNameKey) != app_) {
      ++refusals_;
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad access token or app");
    }
    if (!refusal_.ok()) {
      ++refusals_;
      return refusal_;
    }
  }
  v1::ConnectResponse welcome;
  welcome.mutable_welcome()->set_replica_id(replica_id_);
  if (!rw->Write(welcome)) return grpc::Status::OK;
  v1::ConnectRequest hello;
  if (!rw->Read(&hello)) {
    absl::MutexLock lock(&mu_);
    ++without_hello_;
    return grpc::Status::OK;
  }
  if (!hello.has_hello()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "Hello must come first");
  }
  auto stream = std::make_shared<Stream>(context, rw);
  {
    absl::MutexLock lock(&mu_);
    hellos_.push_back(hello.hello());
    streams_.push_back(stream);
  }
  v1::ConnectRequest message;
  while (rw->Read(&message)) {
    absl::MutexLock lock(&mu_);
    stream->inbox.push_back(message);
  }
  {
    absl::MutexLock lock(&mu_);
    stream->open = false;
    streams_.erase(std::find(streams_.begin(), streams_.end(), stream));
  }
  absl::MutexLock no_exchange(&stream->exchange_mu);
  return grpc::Status::OK;
}

bool FakeDispatch::WaitForConnected(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !streams_.empty(); };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeDispatch::WaitForOpenStreams(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(streams_.size()) == n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeDispatch::WaitForHellos(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(hellos_.size()) >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeDispatch::WaitForStreamsWithoutHello(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return without_hello_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

bool FakeDispatch::WaitForRefusals(int n, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto cond = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return refusals_ >= n; };
  return mu_.AwaitWithTimeout(absl::Condition(&cond), timeout);
}

std::vector<v1::Hello> FakeDispatch::hellos() const {
  absl::MutexLock lock(&mu_);
  return hellos_;
}

int FakeDispatch::open_streams() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(streams_.size());
}

int FakeDispatch::streams_without_hello() const {
  absl::MutexLock lock(&mu_);
  return without_hello_;
}

int FakeDispatch::refusals() const {
  absl::MutexLock lock(&mu_);
  return refusals_;
}

void FakeDispatch::Refuse(grpc::Status status) {
  absl::MutexLock lock(&mu_);
  refusal_ = std::move(status);
}

void FakeDispatch::Break() {
  absl::MutexLock lock(&mu_);
  for (const auto& stream : streams_) stream->context->TryCancel();
}

uint64_t FakeDispatch::NextCallId() {
  absl::MutexLock lock(&mu_);
  return next_call_id_++;
}

std::optional<v1::ConnectRequest> FakeDispatch::Exchange(const v1::ConnectResponse& message,
                                                         absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::shared_ptr<Stream> stream;
  {
    absl::MutexLock lock(&mu_);
    auto open = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !streams_.empty(); };
    if (!mu_.AwaitWithDeadline(absl::Condition(&open), deadline)) return std::nullopt;
    stream = streams_.back();
  }
  absl::MutexLock exchanging(&stream->exchange_mu);
  {
    absl::MutexLock lock(&mu_);
    if (!stream->open) return std::nullopt;
  }
  if (!stream->rw->Write(message)) return std::nullopt;
  // The executor answers runs in order and each call by its id.
  auto answers = [&](const v1::ConnectRequest& r) {
    return message.has_runs() ? r.has_answers()
                              : r.has_reply() && r.reply().id() == message.call().id();
  };
  absl::MutexLock lock(&mu_);
  auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !stream->open || std::any_of(stream->inbox.begin(), stream->inbox.end(), answers);
  };
  mu_.AwaitWithDeadline(absl::Condition(&done), deadline);
  auto it = std::find_if(stream->inbox.begin(), stream->inbox.end(), answers);
  if (it == stream->inbox.end()) return std::nullopt;
  v1::ConnectRequest answer = std::move(*it);
  stream->inbox.erase(it);
  return answer;
}

DispatchClient::DispatchClient(FakeDispatch& dispatch, absl::Duration timeout)
    : dispatch_(dispatch), timeout_(timeout) {
  connected_ = dispatch_.WaitForConnected(timeout);
}

std::optional<v1::RunAnswer> DispatchClient::Send(const v1::RunRequest& run) {
  std::optional<v1::DispatchResponse> response = SendBatch({run});
  if (!response.has_value() || response->answers_size() != 1) return std::nullopt;
  return response->answers(0);
}

std::optional<v1::DispatchResponse> DispatchClient::SendBatch(
    const std::vector<v1::RunRequest>& runs) {
  v1::ConnectResponse message;
  for (const v1::RunRequest& run : runs) *message.mutable_runs()->add_runs() = run;
  std::optional<v1::ConnectRequest> answer = dispatch_.Exchange(message, timeout_);
  if (!answer.has_value()) return std::nullopt;
  return answer->answers();
}

std::optional<v1::CallReply> DispatchClient::Call(v1::Call call) {
  call.set_id(dispatch_.NextCallId());
  v1::ConnectResponse message;
  *message.mutable_call() = std::move(call);
  std::optional<v1::ConnectRequest> reply = dispatch_.Exchange(message, timeout_);
  if (!reply.has_value()) return std::nullopt;
  return reply->reply();
}

std::optional<v1::BeatResponse> DispatchClient::Beat() {
  v1::Call call;
  call.mutable_beat();
  std::optional<v1::CallReply> reply = Call(std::move(call));
  if (!reply.has_value() || !reply->has_beat()) return std::nullopt;
  return reply->beat();
}

std::optional<v1::IdleBeatResponse> DispatchClient::IdleBeat(int64_t job_id) {
  v1::Call call;
  call.mutable_idle_beat()->set_job_id(job_id);
  std::optional<v1::CallReply> reply = Call(std::move(call));
  if (!reply.has_value() || !reply->has_idle_beat()) return std::nullopt;
  return reply->idle_beat();
}

std::optional<v1::KillResponse> DispatchClient::Kill(int64_t run_id, const std::string& reason) {
  v1::Call call;
  call.mutable_kill()->set_run_id(run_id);
  call.mutable_kill()->set_reason(reason);
  std::optional<v1::CallReply> reply = Call(std::move(call));
  if (!reply.has_value() || !reply->has_kill()) return std::nullopt;
  return reply->kill();
}

v1::RunRequest BeanRun(int64_t run_id, int64_t job_id, const std::string& handler,
                       const std::string& params, v1::BlockStrategy strategy,
                       absl::Duration timeout) {
  v1::RunRequest run;
  run.set_run_id(run_id);
  run.set_job_id(job_id);
  run.mutable_bean()->set_handler(handler);
  run.set_params(params);
  run.set_shard_total(1);
  run.set_block_strategy(strategy);
  run.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  if (timeout > absl::ZeroDuration()) {
    run.mutable_timeout()->set_seconds(absl::ToInt64Seconds(timeout));
    run.mutable_timeout()->set_nanos(
        static_cast<int32_t>(absl::ToInt64Nanoseconds(timeout % absl::Seconds(1))));
  }
  return run;
}

}  // namespace gnomon::executor::testing
