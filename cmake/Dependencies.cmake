# Every dependency comes from Debian packages; nothing is downloaded at build time.
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(CURL REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)
# gnomonctl's -o yaml and YAML files (Debian's libyaml-cpp-dev; target yaml-cpp).
find_package(yaml-cpp CONFIG REQUIRED)
if(GNOMON_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(GNOMON_BUILD_BENCH)
  find_package(benchmark CONFIG)
  if(NOT benchmark_FOUND)
    set(GNOMON_BUILD_BENCH OFF)
  endif()
endif()

# MySQL Connector/C++ 1.1 ships no CMake config.
find_path(MYSQLCPPCONN_INCLUDE_DIR mysql_driver.h)
find_library(MYSQLCPPCONN_LIBRARY mysqlcppconn)
if(NOT MYSQLCPPCONN_INCLUDE_DIR OR NOT MYSQLCPPCONN_LIBRARY)
  message(FATAL_ERROR "MySQL Connector/C++ not found: apt-get install libmysqlcppconn-dev")
endif()
add_library(mysqlcppconn::mysqlcppconn UNKNOWN IMPORTED)
set_target_properties(mysqlcppconn::mysqlcppconn PROPERTIES
  IMPORTED_LOCATION "${MYSQLCPPCONN_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${MYSQLCPPCONN_INCLUDE_DIR}")
