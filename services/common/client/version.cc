#include "services/common/client/version.h"

namespace gnomon {

const char* Version() { return GNOMON_VERSION; }

}  // namespace gnomon
