# Warnings and sanitizers for gnomon's own targets (applied per target by
# gnomon_target_defaults so generated code and third-party headers stay quiet).
set(GNOMON_WARNINGS -Wall -Wextra -Wno-unused-parameter)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # Lock annotations (ABSL_GUARDED_BY etc.) are checked by clang only.
  list(APPEND GNOMON_WARNINGS -Wthread-safety)
endif()

if(GNOMON_SANITIZE)
  add_compile_options(-fsanitize=${GNOMON_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${GNOMON_SANITIZE})
endif()

if(GNOMON_SANITIZE MATCHES "thread")
  # Debian's Abseil is not TSan-instrumented; this shim makes absl::Mutex
  # visible to TSan (see the file). scripts/test runs TSan tests with it in
  # LD_PRELOAD, so the processes they start get it too.
  add_library(gnomon_tsan_shim SHARED ${PROJECT_SOURCE_DIR}/tests/tsan/absl_tsan_shim.cc)
  target_include_directories(gnomon_tsan_shim PRIVATE $<TARGET_PROPERTY:absl::base,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(gnomon_tsan_shim PRIVATE ${CMAKE_DL_LIBS})
  # Not instrumented itself, so it also loads into processes without TSan.
  set_target_properties(gnomon_tsan_shim PROPERTIES COMPILE_OPTIONS "-fPIC" LINK_OPTIONS "")
endif()

function(gnomon_target_defaults target)
  target_compile_options(${target} PRIVATE ${GNOMON_WARNINGS})
endfunction()
