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

function(gnomon_target_defaults target)
  target_compile_options(${target} PRIVATE ${GNOMON_WARNINGS})
endfunction()
