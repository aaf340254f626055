// FakeExecutors: an ExecutorClient for tests. It keeps every run sent until
// the test answers it (in order), and answers Beat/IdleBeat probes from
// fixed sets of addresses, noting each probe. Registered() and Snapshot()
// make the registry's view of executors for a Membership.
//
//   FakeExecutors executors;
//   Deliveries deliveries({.executors = &executors, ...});
//   ... executors.sent[0].address == "a:1" ...
//   executors.Answer(Accepted());   // runs the sender's callback here
//
// Thread safety: none; one test thread (deliveries not started call back on it).
#ifndef GNOMON_SERVICES_SCHEDULER_TESTING_FAKE_EXECUTORS_H_
#define GNOMON_SERVICES_SCHEDULER_TESTING_FAKE_EXECUTORS_H_

#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gnomon/v1/registry.pb.h"
#include "services/scheduler/executor_client.h"

namespace gnomon::scheduler::testing {

// A base for fakes that care only about Send: every probe answers alive and
// idle, and a kill finds nothing.
class SendOnlyExecutors : public ExecutorClient {
 public:
  bool Beat(const std::string&, const std::string&, absl::Duration) override { return true; }
  bool Idle(const std::string&, const std::string&, int64_t, absl::Duration) override {
    return true;
  }
  absl::StatusOr<v1::KillResponse> Kill(const std::string&, const std::string&,
                                        const v1::KillRequest&, absl::Duration) override {
    return v1::KillResponse();
  }
};

class FakeExecutors final : public ExecutorClient {
 public:
  struct Sent {
    std::string address;
    std::string app;
    v1::RunRequest run;
    DispatchCallback cb;
  };
  void Send(const std::string& address, const std::string& app, v1::RunRequest run,
            DispatchCallback cb) override {
    sent.push_back({address, app, std::move(run), std::move(cb)});
  }
  bool Beat(const std::string& address, const std::string& app, absl::Duration) override {
    beats.push_back(address + " " + app);
    return alive.count(address) > 0;
  }
  bool Idle(const std::string& address, const std::string&, int64_t, absl::Duration) override {
    return idle.count(address) > 0;
  }
  absl::StatusOr<v1::KillResponse> Kill(const std::string& address, const std::string&,
                                        const v1::KillRequest& request, absl::Duration) override {
    kills.push_back(address + " " + std::to_string(request.run_id()));
    v1::KillResponse r;
    r.set_found(true);
    return r;
  }
  // Answers the earliest unanswered run (which may send it on elsewhere).
  void Answer(absl::StatusOr<v1::RunAnswer> answer) {
    Sent s = std::move(sent.front());
    sent.pop_front();
    s.cb(std::move(answer));
  }
  std::vector<std::string> Addresses() const {
    std::vector<std::string> out;
    for (const Sent& s : sent) out.push_back(s.address);
    return out;
  }

  std::deque<Sent> sent;
  std::vector<std::string> beats;  // "address app"
  std::vector<std::string> kills;  // "address run_id"
  std::set<std::string> alive, idle;
};

// A registered executor of `app` at `address`, process `instance`.
inline v1::ExecutorInfo Registered(const std::string& app, const std::string& address,
                                   const std::string& instance = "") {
  v1::ExecutorInfo e;
  e.set_app_name(app);
  e.set_address(address);
  e.set_instance_id(instance);
  return e;
}

// The registry's snapshot saying these (and only these) executors are live,
// for Membership::Apply.
inline v1::WatchExecutorsResponse Snapshot(const std::vector<v1::ExecutorInfo>& executors) {
  v1::WatchExecutorsResponse msg;
  msg.mutable_snapshot();
  for (const v1::ExecutorInfo& e : executors) *msg.mutable_snapshot()->add_executors() = e;
  return msg;
}

// An executor's acceptance of a run.
inline v1::RunAnswer Accepted() {
  v1::RunAnswer a;
  a.mutable_accepted();
  return a;
}

// An executor's refusal of a run: of `kind`, with code REJECTED.
inline v1::RunAnswer Rejected(v1::RejectKind kind, const std::string& reason) {
  v1::RunAnswer a;
  a.mutable_rejected()->set_kind(kind);
  a.mutable_rejected()->set_code(v1::HANDLE_CODE_REJECTED);
  a.mutable_rejected()->set_reason(reason);
  return a;
}

}  // namespace gnomon::scheduler::testing

#endif  // GNOMON_SERVICES_SCHEDULER_TESTING_FAKE_EXECUTORS_H_
