#include "services/scheduler/scheduler_role.h"


namespace gnomon::scheduler {

SchedulerRole::SchedulerRole(store::Store* store, Authenticator* auth, SchedulerOptions options,
                             Clock* clock)
    : options_(options),
      membership_(auth->cluster_token(), clock),
      links_(clock),
      recorder_(store, clock),
      trigger_(store, &membership_, &links_, &recorder_, clock),
      loop_(store, &trigger_, clock, options.loop),
      core_(store, &trigger_, &loop_, &links_, clock, options.limits),
      service_(&core_, auth, store) {
  // An executor that left gets no new runs; its link (and unanswered
  // dispatches) are failed at once.
  membership_.OnLeft([this](const v1::ExecutorInfo& e) { links_.Drop(e.address()); });
}

SchedulerRole::~SchedulerRole() { Stop(); }

void SchedulerRole::Start(const std::string& registry_endpoint) {
  threads_.emplace_back([this, registry_endpoint] { membership_.Run(registry_endpoint); });
  threads_.emplace_back([this] { recorder_.Run(); });
  threads_.emplace_back([this] { loop_.Run(); });
}

void SchedulerRole::Stop() {
  if (threads_.empty()) return;
  loop_.Stop();
  membership_.Stop();
  links_.CloseAll();
  recorder_.Stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace gnomon::scheduler
