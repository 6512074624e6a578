# Writes the build description that the scopedsm tools read: a JSON file
# naming the headers, libraries, helpers, MPI launcher and compiler flags of
# this build (or of its installation).
#
#   scopedsm_tools_write_description(OUTPUT <file> TREE build|install
#       INCLUDE_DIRS ... LIB_DIR d SEQ_LIB_DIR d BIN_DIR d INFO_HELPER f
#       APPS_DIR d BENCH_DIR d [FORTRAN_MODULE_DIRS ... FORTRAN_LIB_DIR d])
#
# The Fortran entries are empty when the build has no Fortran compiler
# (SCOPEDSM_HAVE_FORTRAN off): scopedsm-fc then offers jiaf.h only.
#
# Paths may be generator expressions ($<TARGET_FILE_DIR:scopedsm>): the file
# is written at generate time. Reads SCOPEDSM_TOOLS_PYTHON and
# SCOPEDSM_TOOLS_LEGACY_C_FLAGS from the caller.

function(_scopedsm_json_string out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

function(_scopedsm_json_list out)
  set(items "")
  foreach(v IN LISTS ARGN)
    _scopedsm_json_string(q "${v}")
    list(APPEND items "${q}")
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

function(scopedsm_tools_write_description)
  cmake_parse_arguments(D "" "OUTPUT;TREE;LIB_DIR;SEQ_LIB_DIR;BIN_DIR;INFO_HELPER;APPS_DIR;BENCH_DIR;FORTRAN_LIB_DIR"
                        "INCLUDE_DIRS;FORTRAN_MODULE_DIRS" ${ARGN})
  set(fortran_compiler "")
  if(SCOPEDSM_HAVE_FORTRAN)
    set(fortran_compiler "${CMAKE_Fortran_COMPILER}")
  else()
    set(D_FORTRAN_LIB_DIR "")
    set(D_FORTRAN_MODULE_DIRS "")
  endif()
  separate_arguments(mpi_link_flags UNIX_COMMAND "${MPI_C_LINK_FLAGS}")
  set(prefix "${CMAKE_INSTALL_PREFIX}")
  if(D_TREE STREQUAL "install")
    set(prefix "{prefix}")
  endif()
  foreach(pair
      "VERSION;${PROJECT_VERSION}" "TREE;${D_TREE}" "BUILD_TYPE;${CMAKE_BUILD_TYPE}"
      "SOURCE_DIR;${PROJECT_SOURCE_DIR}" "BUILD_DIR;${PROJECT_BINARY_DIR}"
      "INSTALL_PREFIX;${prefix}" "LIB_DIR;${D_LIB_DIR}" "SEQ_LIB_DIR;${D_SEQ_LIB_DIR}"
      "BIN_DIR;${D_BIN_DIR}" "INFO_HELPER;${D_INFO_HELPER}" "APPS_DIR;${D_APPS_DIR}"
      "BENCH_DIR;${D_BENCH_DIR}" "MPIEXEC;${MPIEXEC_EXECUTABLE}" "NUMPROC_FLAG;${MPIEXEC_NUMPROC_FLAG}"
      "MPI_VENDOR;${SCOPEDSM_MPI_VENDOR}" "C_COMPILER;${CMAKE_C_COMPILER}"
      "CXX_COMPILER;${CMAKE_CXX_COMPILER}" "FORTRAN_COMPILER;${fortran_compiler}"
      "FORTRAN_LIB_DIR;${D_FORTRAN_LIB_DIR}" "PYTHON;${SCOPEDSM_TOOLS_PYTHON}")
    list(GET pair 0 key)
    list(LENGTH pair n)
    set(value "")
    if(n GREATER 1)
      list(GET pair 1 value)
    endif()
    _scopedsm_json_string(J_${key} "${value}")
  endforeach()
  _scopedsm_json_list(J_INCLUDE_DIRS ${D_INCLUDE_DIRS})
  _scopedsm_json_list(J_FORTRAN_MODULE_DIRS ${D_FORTRAN_MODULE_DIRS})
  _scopedsm_json_list(J_LEGACY_FLAGS ${SCOPEDSM_TOOLS_LEGACY_C_FLAGS})
  _scopedsm_json_list(J_MPI_INCLUDE_DIRS ${MPI_C_INCLUDE_DIRS})
  _scopedsm_json_list(J_MPI_COMPILE_OPTIONS ${MPI_C_COMPILE_OPTIONS})
  _scopedsm_json_list(J_MPI_COMPILE_DEFINITIONS ${MPI_C_COMPILE_DEFINITIONS})
  _scopedsm_json_list(J_MPI_LIBRARIES ${MPI_C_LIBRARIES})
  _scopedsm_json_list(J_MPI_LINK_FLAGS ${mpi_link_flags})
  # A sanitized library needs sanitized programs (its runtime must load first).
  set(sanitize "")
  if(SCOPEDSM_SANITIZE)
    set(sanitize -fsanitize=address,undefined -fno-omit-frame-pointer)
  endif()
  _scopedsm_json_list(J_SANITIZE_FLAGS ${sanitize})
  get_filename_component(name "${D_OUTPUT}" NAME)
  set(stage "${CMAKE_CURRENT_BINARY_DIR}/stage/${D_TREE}-${name}")
  configure_file("${CMAKE_CURRENT_FUNCTION_LIST_DIR}/scopedsm-build.json.in" "${stage}" @ONLY)
  file(GENERATE OUTPUT "${D_OUTPUT}" INPUT "${stage}")
endfunction()
