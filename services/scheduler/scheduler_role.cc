#include "services/scheduler/scheduler_role.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "services/common/server/tokens.h"


namespace gnomon::scheduler {

std::string DefaultReplicaId();

SchedulerRole::SchedulerRole(store::Store* store, Authenticator* auth, SchedulerOptions options,
                             Clock* clock)
    : options_(options),
      membership_(auth->cluster_token(), clock),
      links_(clock),
      recorder_(store, clock),
      pools_(clock, options.pools),
      prober_(store, &links_, clock, absl::Seconds(2)),
      trigger_(store, &membership_, &links_, &recorder_, clock, &pools_, &prober_),
      loop_(store, &trigger_, clock, options.loop),
      followups_(store, &trigger_, &loop_, clock, options.followups),
      reaper_(store, &membership_, clock, options.reaper),
      lease_(store, options.replica_id.empty() ? DefaultReplicaId() : options.replica_id, clock,
             options.lease,
             [this](bool leader, int64_t epoch) {
               // Only the lease holder fires; its runs carry its epoch.
               trigger_.set_fence_epoch(epoch);
               loop_.SetActive(leader);
               followups_.SetActive(leader);
               reaper_.SetActive(leader);
             }),
      core_(store, &trigger_, &loop_, &links_, clock, options.limits),
      service_(&core_, auth, store) {
  // An executor that left gets no new runs; its link (and unanswered
  // dispatches) are failed at once.
  membership_.OnLeft([this](const v1::ExecutorInfo& e) {
    links_.Drop(e.address());
    reaper_.ExecutorLeft(e);
  });
  // Nothing fires until the lease is held.
  loop_.SetActive(false);
  followups_.SetActive(false);
  reaper_.SetActive(false);
}

std::string DefaultReplicaId() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, ":", ::getpid(), ":", NewToken().substr(0, 6));
}

SchedulerRole::~SchedulerRole() { Stop(); }

void SchedulerRole::Start(const std::string& registry_endpoint) {
  threads_.emplace_back([this, registry_endpoint] { membership_.Run(registry_endpoint); });
  threads_.emplace_back([this] { recorder_.Run(); });
  threads_.emplace_back([this] { loop_.Run(); });
  threads_.emplace_back([this] { followups_.Run(); });
  threads_.emplace_back([this] { reaper_.Run(); });
  threads_.emplace_back([this] { lease_.Run(); });
  threads_.emplace_back([this] { prober_.Run(); });
}

void SchedulerRole::Stop() {
  if (threads_.empty()) return;
  lease_.Stop();
  prober_.Stop();
  loop_.Stop();
  followups_.Stop();
  reaper_.Stop();
  membership_.Stop();
  pools_.Stop();
  links_.CloseAll();
  recorder_.Stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace gnomon::scheduler
