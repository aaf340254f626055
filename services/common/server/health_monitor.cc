#include "services/common/server/health_monitor.h"

#include "services/common/client/log.h"

namespace gnomon {

void HealthMonitor::CheckNow() {
  bool all = true;
  for (Entry& e : checks_) {
    const absl::Status s = e.check();
    if (e.gates) all = all && s.ok();
    if (e.gates && s.ok() != e.serving) {
      if (s.ok()) {
        GNOMON_LOG(INFO) << "health: " << e.service << " SERVING again";
      } else {
        GNOMON_LOG(WARNING) << "health: " << e.service << " NOT_SERVING: " << s.message();
      }
    }
    e.serving = s.ok();
    health_->SetServingStatus(e.service, e.serving);
  }
  health_->SetServingStatus("", all);
  health_->SetServingStatus(kLivenessService, true);
}

}  // namespace gnomon
