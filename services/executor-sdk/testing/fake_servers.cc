#include "services/executor-sdk/testing/fake_servers.h"

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

DispatchClient::DispatchClient(const std::string& address, const std::string& token)
    : stub_(
          v1::Executor::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))) {
  context_.AddMetadata(std::string(kAccessTokenKey), token);
  stream_ = stub_->Dispatch(&context_);
}

DispatchClient::~DispatchClient() {
  if (!finished_) {
    context_.TryCancel();
    stream_->Finish();
  }
}

std::optional<v1::RunAnswer> DispatchClient::Send(const v1::RunRequest& run) {
  std::optional<v1::DispatchResponse> response = SendBatch({run});
  if (!response.has_value() || response->answers_size() != 1) return std::nullopt;
  return response->answers(0);
}

std::optional<v1::DispatchResponse> DispatchClient::SendBatch(
    const std::vector<v1::RunRequest>& runs) {
  v1::DispatchRequest request;
  for (const v1::RunRequest& run : runs) *request.add_runs() = run;
  v1::DispatchResponse response;
  if (!stream_->Write(request) || !stream_->Read(&response)) return std::nullopt;
  return response;
}

grpc::Status DispatchClient::Finish() {
  finished_ = true;
  stream_->WritesDone();
  return stream_->Finish();
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
