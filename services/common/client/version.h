// The gnomon version every program reports (--version, gnomon_build_info,
// the OpenAPI document): the project version CMake sets, and the commit.
//
//   std::cout << "gnomond " << gnomon::Version() << "\n";
//
// Thread safety: a constant.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_VERSION_H_
#define GNOMON_SERVICES_COMMON_CLIENT_VERSION_H_

namespace gnomon {

const char* Version();
// The git commit it was built from (12 hex digits), "unknown" outside a
// git checkout.
const char* Revision();

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_VERSION_H_
