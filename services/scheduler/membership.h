// Membership: the scheduler's view of live executors, kept current by a
// Registry.WatchExecutors stream (a snapshot, then changes). Routing reads it;
// nothing polls the registry per trigger.
//
//   Membership m(cluster_token, &RealClock());
//   std::thread t([&] { m.Run("127.0.0.1:7070"); });
//   ExecutorList live = m.Live("orders");  // sorted by address
//   m.Stop(); t.join();
//
// Thread safety: thread-safe; Run() on one thread until Stop().
#ifndef GNOMON_SERVICES_SCHEDULER_MEMBERSHIP_H_
#define GNOMON_SERVICES_SCHEDULER_MEMBERSHIP_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/clock.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::scheduler {

// An immutable snapshot of a group's live executors, sorted by address;
// shared by every fire that routes over it (never copied per fire).
using ExecutorList = std::shared_ptr<const std::vector<v1::ExecutorInfo>>;

class Membership {
 public:
  // Called (without locks) for every executor that leaves, also when a new
  // instance (a restarted process) takes its address over.
  using LeftCallback = std::function<void(const v1::ExecutorInfo&)>;

  // `dial` (null: plaintext) makes the channel to the registry.
  Membership(std::string token, Clock* clock, tls::Dialer dial = nullptr);

  // Never null (empty when no executor of `app` is live).
  ExecutorList Live(const std::string& app) const ABSL_LOCKS_EXCLUDED(mu_);
  // Whether an executor at `address` is live in any group.
  bool HasLive(const std::string& address) const ABSL_LOCKS_EXCLUDED(mu_);
  // Whether the first snapshot has arrived (before it, "no executor" is unknown).
  bool synced() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits (real time) until synced or `timeout` passes; returns synced().
  bool WaitSynced(absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu_);
  void OnLeft(LeftCallback cb) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits (real time) until an executor is live at each of `addresses`, or
  // `timeout` passes, or Stop(); returns the addresses still without one.
  std::vector<std::string> AwaitExecutors(std::vector<std::string> addresses,
                                          absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu_);

  // Watches the registry at `endpoint` (host:port), reconnecting, until Stop().
  void Run(const std::string& endpoint) ABSL_LOCKS_EXCLUDED(mu_);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

  // Applies one watch message (exposed for tests).
  void Apply(const v1::WatchExecutorsResponse& msg) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Rebuild(const std::string& app) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string token_;
  Clock* const clock_;
  const tls::Dialer dial_;
  mutable absl::Mutex mu_;
  // app -> address -> info (std::map keeps addresses sorted for FIRST/LAST).
  absl::flat_hash_map<std::string, std::map<std::string, v1::ExecutorInfo>> apps_
      ABSL_GUARDED_BY(mu_);
  // app -> snapshot of apps_[app], rebuilt when it changes.
  absl::flat_hash_map<std::string, ExecutorList> snapshots_ ABSL_GUARDED_BY(mu_);
  std::vector<LeftCallback> left_callbacks_ ABSL_GUARDED_BY(mu_);
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ClientContext* active_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_MEMBERSHIP_H_
