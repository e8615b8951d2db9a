# Writes the man page dctool.1 from the --help text of dctool and of each subcommand.
#   cmake -DDCTOOL=path/to/dctool -DOUT=dctool.1 -DVERSION=0.1.0 -P man_page.cmake
# NAME and SYNOPSIS come from the top-level help's first lines, DESCRIPTION is the top-level help, and
# SUBCOMMANDS has one subsection per subcommand holding its help verbatim (no-fill blocks).
foreach(_v DCTOOL OUT VERSION)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "man_page.cmake: -D${_v}=... is required")
  endif()
endforeach()

function(help_of out)
  execute_process(COMMAND "${DCTOOL}" ${ARGN} --help OUTPUT_VARIABLE _text RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "man_page.cmake: `dctool ${ARGN} --help` failed (${_rc}): ${_err}")
  endif()
  string(REGEX REPLACE "\n+$" "" _text "${_text}")
  set(${out} "${_text}" PARENT_SCOPE)
endfunction()

# Text for a no-fill block: backslashes and hyphens escaped, a leading '.' or '\'' made literal.
function(troff_text out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" text "\n${text}")
  string(SUBSTRING "${text}" 1 -1 text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(top)

# First line "dctool: <what it does>"; then "Usage: dctool [OPTIONS] SUBCOMMAND".
string(REGEX MATCH "^[^\n]*" summary "${top}")
string(REGEX REPLACE "^dctool: *" "" summary "${summary}")
string(REGEX MATCH "\nUsage: [^\n]*" usage "${top}")
string(REGEX REPLACE "^\nUsage: dctool *" "" usage "${usage}")

# Subcommand names: the lines "  name   description" under "Subcommands:".
string(FIND "${top}" "\nSubcommands:" at)
if(at LESS 0)
  message(FATAL_ERROR "man_page.cmake: no Subcommands section in dctool --help")
endif()
string(SUBSTRING "${top}" ${at} -1 listing)
string(REGEX MATCHALL "\n  [a-z0-9][a-z0-9_-]*" names "${listing}")

troff_text(summary_t "${summary}")
troff_text(usage_t "${usage}")
troff_text(top_t "${top}")
set(page ".TH DCTOOL 1 \"\" \"dctool ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\ndctool \\- ${summary_t}\n")
string(APPEND page ".SH SYNOPSIS\n.B dctool\n${usage_t}\n")
string(APPEND page ".SH DESCRIPTION\n.nf\n${top_t}\n.fi\n")
string(APPEND page ".SH SUBCOMMANDS\n")
foreach(n IN LISTS names)
  string(STRIP "${n}" n)
  help_of(sub ${n})
  troff_text(sub_t "${sub}")
  string(APPEND page ".SS ${n}\n.nf\n${sub_t}\n.fi\n")
endforeach()
string(APPEND page ".SH SEE ALSO\nREADME.md in the dctool sources.\n")

file(WRITE "${OUT}.tmp" "${page}")
file(RENAME "${OUT}.tmp" "${OUT}")
