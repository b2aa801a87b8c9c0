# Fails unless include/logz/logz.hpp includes every public header of the core (all of
# include/logz but config/, services/, training_app/, persistence/, report/ and the umbrella
# itself). Run: cmake -DINCLUDE_DIR=... -P this.
file(READ ${INCLUDE_DIR}/logz/logz.hpp umbrella)
file(GLOB_RECURSE headers RELATIVE ${INCLUDE_DIR} ${INCLUDE_DIR}/logz/*.hpp)
set(missing "")
foreach(header ${headers})
  if(header MATCHES "^logz/(config|services|training_app|persistence|report)/" OR header STREQUAL "logz/logz.hpp")
    continue()
  endif()
  string(FIND "${umbrella}" "#include \"${header}\"" at)
  if(at EQUAL -1)
    list(APPEND missing ${header})
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " lines)
  message(FATAL_ERROR "logz/logz.hpp does not include:\n  ${lines}")
endif()
