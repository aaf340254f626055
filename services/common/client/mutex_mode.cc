#include "services/common/client/mutex_mode.h"

#include "absl/synchronization/mutex.h"

namespace gnomon {

void UseReleaseMutexMode() {
#ifdef NDEBUG
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
#endif
}

}  // namespace gnomon
