# Every dependency comes from Debian packages; nothing is downloaded at build time.
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(CURL REQUIRED)
find_package(ZLIB REQUIRED)
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

# jemalloc (Debian's libjemalloc-dev) for the programs that serve bursts:
# gnomond and the executors. Profiled under a burst of 10,000 runs on one
# instant, glibc's malloc (_int_malloc, malloc_consolidate, unlink_chunk,
# free) took about a third of gnomond's and of the executors' CPU; with
# jemalloc both needed 25-45% less CPU and the burst's lateness at p99 fell
# from about 190 ms to about 110-150 ms (docs/scheduling.md). Libraries,
# the executor SDK above all, leave the choice to the program that links them.
if(GNOMON_JEMALLOC)
  find_library(GNOMON_JEMALLOC_LIBRARY jemalloc)
  if(NOT GNOMON_JEMALLOC_LIBRARY)
    message(FATAL_ERROR "jemalloc not found: apt-get install libjemalloc-dev "
                        "(or configure with -DGNOMON_JEMALLOC=OFF)")
  endif()
endif()
# Links program `target` with jemalloc when GNOMON_JEMALLOC is on.
function(gnomon_use_jemalloc target)
  if(GNOMON_JEMALLOC)
    target_link_libraries(${target} PRIVATE ${GNOMON_JEMALLOC_LIBRARY})
  endif()
endfunction()

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
