// The gnomon version every program reports (--version, gnomon_build_info,
// the OpenAPI document): the project version CMake sets.
//
//   std::cout << "gnomond " << gnomon::Version() << "\n";
//
// Thread safety: a constant.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_VERSION_H_
#define GNOMON_SERVICES_COMMON_CLIENT_VERSION_H_

namespace gnomon {

const char* Version();

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_VERSION_H_
