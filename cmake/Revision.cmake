# Run at every build (cmake -DSOURCE_DIR=... -DOUT=... -P Revision.cmake):
# writes OUT, a header defining GNOMON_REVISION as the source tree's git
# commit ("unknown" outside a git checkout), only when it changed, so only
# version.cc recompiles after a commit.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY "${SOURCE_DIR}"
  OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR revision STREQUAL "")
  set(revision "unknown")
endif()
set(content "#define GNOMON_REVISION \"${revision}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
