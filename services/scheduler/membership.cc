#include "services/scheduler/membership.h"

#include <utility>

#include "services/common/client/auth_metadata.h"
#include "services/common/client/backoff.h"
#include "services/common/client/log.h"
#include "services/common/server/grpc_server.h"

namespace gnomon::scheduler {

Membership::Membership(std::string token, Clock* clock, tls::Dialer dial)
    : token_(std::move(token)),
      clock_(clock),
      dial_(dial != nullptr ? std::move(dial) : *DefaultDialer()) {}

ExecutorList Membership::Live(const std::string& app) const {
  static const auto* const kNone =
      new ExecutorList(std::make_shared<std::vector<v1::ExecutorInfo>>());
  absl::MutexLock l(&mu_);
  auto it = snapshots_.find(app);
  return it == snapshots_.end() ? *kNone : it->second;
}

void Membership::Rebuild(const std::string& app) {
  auto it = apps_.find(app);
  if (it == apps_.end() || it->second.empty()) {
    snapshots_.erase(app);
    return;
  }
  auto list = std::make_shared<std::vector<v1::ExecutorInfo>>();
  list->reserve(it->second.size());
  for (const auto& [addr, info] : it->second) list->push_back(info);
  snapshots_[app] = std::move(list);
}

bool Membership::HasLive(const std::string& address) const {
  absl::MutexLock l(&mu_);
  for (const auto& [app, executors] : apps_) {
    if (executors.count(address) > 0) return true;
  }
  return false;
}

bool Membership::WaitSynced(absl::Duration timeout) const {
  absl::MutexLock l(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return synced_ || stopped_; };
  mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  return synced_;
}

bool Membership::synced() const {
  absl::MutexLock l(&mu_);
  return synced_;
}

std::vector<std::string> Membership::AwaitExecutors(std::vector<std::string> addresses,
                                                    absl::Duration timeout) const {
  absl::MutexLock l(&mu_);
  auto missing = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<std::string> out;
    for (const std::string& address : addresses) {
      bool live = false;
      for (const auto& [app, members] : apps_) live = live || members.count(address) > 0;
      if (!live) out.push_back(address);
    }
    return out;
  };
  auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || missing().empty(); };
  mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  return missing();
}

void Membership::OnLeft(LeftCallback cb) {
  absl::MutexLock l(&mu_);
  left_callbacks_.push_back(std::move(cb));
}

void Membership::Apply(const v1::WatchExecutorsResponse& msg) {
  std::vector<v1::ExecutorInfo> left;
  std::vector<LeftCallback> callbacks;
  {
    absl::MutexLock l(&mu_);
    if (msg.has_snapshot()) {
      auto old = std::move(apps_);
      apps_.clear();
      for (const auto& e : msg.snapshot().executors()) apps_[e.app_name()][e.address()] = e;
      for (const auto& [app, members] : old) {
        for (const auto& [addr, info] : members) {
          auto it = apps_.find(app);
          auto now = it == apps_.end() ? nullptr : &it->second;
          if (now == nullptr || now->count(addr) == 0 ||
              now->at(addr).instance_id() != info.instance_id()) {
            left.push_back(info);  // Gone, or restarted (another instance there).
          }
        }
      }
      snapshots_.clear();
      for (const auto& [app, members] : apps_) Rebuild(app);
      synced_ = true;
    } else if (msg.has_change()) {
      const v1::ExecutorInfo& e = msg.change().executor();
      if (msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_LEFT) {
        auto it = apps_.find(e.app_name());
        if (it != apps_.end() && it->second.erase(e.address()) > 0) left.push_back(e);
      } else {
        auto [it, added] = apps_[e.app_name()].try_emplace(e.address(), e);
        if (!added) {
          // The same address registered by a new process: the old one left.
          if (it->second.instance_id() != e.instance_id()) left.push_back(it->second);
          it->second = e;
        }
      }
      Rebuild(e.app_name());
    }
    if (!left.empty()) callbacks = left_callbacks_;
  }
  for (const auto& info : left) {
    for (const auto& cb : callbacks) cb(info);
  }
}

void Membership::Run(const std::string& endpoint) {
  auto stub = v1::Registry::NewStub(dial_(endpoint));
  Backoff backoff({absl::Milliseconds(100), absl::Seconds(2), 2.0});
  while (true) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(token_));
    {
      absl::MutexLock l(&mu_);
      if (stopped_) return;
      active_ = &ctx;
    }
    v1::WatchExecutorsRequest req;
    auto reader = stub->WatchExecutors(&ctx, req);
    v1::WatchExecutorsResponse msg;
    bool got_any = false;
    while (reader->Read(&msg)) {
      got_any = true;
      Apply(msg);
    }
    grpc::Status status = reader->Finish();
    absl::MutexLock l(&mu_);
    active_ = nullptr;
    if (stopped_) return;
    if (got_any) backoff.Reset();
    GNOMON_LOG(WARNING) << "scheduler: membership watch ended (" << status.error_code() << " "
                        << status.error_message() << "); reconnecting";
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&stopped_), clock_->Now() + backoff.Next());
  }
}

void Membership::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
  if (active_ != nullptr) active_->TryCancel();
}

}  // namespace gnomon::scheduler
