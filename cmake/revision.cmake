# Run at every build (target dctool_revision): writes OUT, a header defining DCTOOL_GIT_REVISION as
# `git describe --always --dirty` of SRC ("unknown" outside a git checkout), and rewrites it only when that changes,
# so that `dctool --version` names the tree the binary was built from without recompiling anything otherwise.
set(rev "unknown")
if(GIT AND EXISTS "${SRC}/.git")
  execute_process(COMMAND "${GIT}" describe --always --dirty WORKING_DIRECTORY "${SRC}"
                  OUTPUT_VARIABLE out RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND NOT out STREQUAL "")
    set(rev "${out}")
  endif()
endif()
set(text "#define DCTOOL_GIT_REVISION \"${rev}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
