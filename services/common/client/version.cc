#include "services/common/client/version.h"

#include "gnomon_revision.h"  // Generated at build time (cmake/Revision.cmake).

namespace gnomon {

const char* Version() { return GNOMON_VERSION; }

const char* Revision() { return GNOMON_REVISION; }

}  // namespace gnomon
