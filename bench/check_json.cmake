# Runs one micro-benchmark and checks that it printed one valid JSON object
# with the fields every report has. Speed is never checked.
#
#   cmake -DCOMMAND=<exe|arg|...> -P check_json.cmake
# COMMAND is the full command line with "|" between arguments.
string(REPLACE "|" ";" cmd "${COMMAND}")
execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit status ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(STRIP "${out}" out)
if(out STREQUAL "")
  message(FATAL_ERROR "printed nothing on stdout\nstderr:\n${err}")
endif()
foreach(field bench procs unit reps rounds median min max ratio target_ratio meets_target baseline extra)
  string(JSON value ERROR_VARIABLE json_error GET "${out}" ${field})
  if(json_error)
    message(FATAL_ERROR "output is not valid JSON or lacks \"${field}\": ${json_error}\nstdout:\n${out}")
  endif()
endforeach()
string(JSON name GET "${out}" bench)
string(JSON median GET "${out}" median)
message(STATUS "${name}: median ${median}")
