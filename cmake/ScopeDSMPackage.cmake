# The installed package: what `cmake --install` puts beside the libraries so
# that other projects can use ScopeDSM without its sources.
#
#   <prefix>/lib/cmake/ScopeDSM/ScopeDSMConfig.cmake         find_package(ScopeDSM)
#   <prefix>/lib/cmake/ScopeDSM/ScopeDSMConfigVersion.cmake  version check
#   <prefix>/lib/cmake/ScopeDSM/ScopeDSMTargets*.cmake       ScopeDSM::scopedsm, ScopeDSM::scopedsm_seq,
#                                                            ScopeDSM::scopedsm_fortran (with Fortran)
#   <prefix>/lib/pkgconfig/scopedsm.pc, scopedsm-seq.pc      pkg-config
#   <prefix>/lib/pkgconfig/scopedsm-fortran.pc               pkg-config, the Fortran module (with Fortran)
#   <prefix>/share/doc/scopedsm/                             README.md and docs/*.md
#   <prefix>/share/man/man1, man3                            scopedsm(1), scopedsm-cc(1), scopedsm(3), ...
#
# tests/external builds and runs programs against such an installation.

include(CMakePackageConfigHelpers)

set(SCOPEDSM_INSTALL_CMAKEDIR lib/cmake/ScopeDSM)

install(EXPORT ScopeDSMTargets NAMESPACE ScopeDSM:: DESTINATION ${SCOPEDSM_INSTALL_CMAKEDIR})

# The MPI the library was built with: the package's config looks for the same
# one (a program linking two MPI libraries fails at run time, not build time).
set(SCOPEDSM_PACKAGE_MPI_C_COMPILER "${MPI_C_COMPILER}")
set(SCOPEDSM_PACKAGE_MPI_LIB_NAMES "${MPI_C_LIB_NAMES}")
if(NOT SCOPEDSM_PACKAGE_MPI_LIB_NAMES)
  foreach(lib IN LISTS MPI_C_LIBRARIES)
    get_filename_component(name "${lib}" NAME_WE)
    string(REGEX REPLACE "^lib" "" name "${name}")
    list(APPEND SCOPEDSM_PACKAGE_MPI_LIB_NAMES "${name}")
  endforeach()
endif()
# The compiler that wrote the Fortran module, which only it can read.
set(SCOPEDSM_PACKAGE_FORTRAN_ID "")
set(SCOPEDSM_PACKAGE_FORTRAN_VERSION "")
if(SCOPEDSM_HAVE_FORTRAN)
  set(SCOPEDSM_PACKAGE_FORTRAN_ID "${CMAKE_Fortran_COMPILER_ID}")
  set(SCOPEDSM_PACKAGE_FORTRAN_VERSION "${CMAKE_Fortran_COMPILER_VERSION}")
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ScopeDSMConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/package/ScopeDSMConfig.cmake
  INSTALL_DESTINATION ${SCOPEDSM_INSTALL_CMAKEDIR})
# 0.x releases may change the API between minor versions.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/package/ScopeDSMConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/ScopeDSMConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/package/ScopeDSMConfigVersion.cmake
        DESTINATION ${SCOPEDSM_INSTALL_CMAKEDIR})

# pkg-config. The MPI flags come from the MPI library's own .pc file when one
# describes the library we linked (Open MPI's ompi-c, MPICH's mpich): it is
# then a Requires, and pkg-config expands it. Otherwise the flags FindMPI
# found are written out literally.
set(SCOPEDSM_PC_REQUIRES "")
set(SCOPEDSM_PC_MPI_CFLAGS "")
set(SCOPEDSM_PC_MPI_LIBS "")
find_program(SCOPEDSM_PKG_CONFIG NAMES pkg-config pkgconf)
list(GET MPI_C_LIBRARIES 0 _scopedsm_mpi_lib)
get_filename_component(_scopedsm_mpi_libdir "${_scopedsm_mpi_lib}" DIRECTORY)
get_filename_component(_scopedsm_mpi_libdir "${_scopedsm_mpi_libdir}" REALPATH)
if(SCOPEDSM_PKG_CONFIG)
  foreach(module ompi-c mpich mpi-c mpi)
    execute_process(COMMAND ${SCOPEDSM_PKG_CONFIG} --variable=libdir ${module}
                    OUTPUT_VARIABLE _dir RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_rc EQUAL 0 AND _dir)
      get_filename_component(_dir "${_dir}" REALPATH)
      if(_dir STREQUAL _scopedsm_mpi_libdir)
        set(SCOPEDSM_PC_REQUIRES "${module}")
        break()
      endif()
    endif()
  endforeach()
endif()
if(NOT SCOPEDSM_PC_REQUIRES)
  foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND SCOPEDSM_PC_MPI_CFLAGS " -I${dir}")
  endforeach()
  foreach(lib IN LISTS MPI_C_LIBRARIES)
    string(APPEND SCOPEDSM_PC_MPI_LIBS " ${lib}")
  endforeach()
endif()
if(SCOPEDSM_PC_REQUIRES)
  message(STATUS "scopedsm.pc: MPI flags from pkg-config module ${SCOPEDSM_PC_REQUIRES}")
else()
  message(STATUS "scopedsm.pc: no pkg-config module describes ${_scopedsm_mpi_lib}; MPI flags written out")
endif()
# A sanitized library needs sanitized programs (its runtime must load first).
set(SCOPEDSM_PC_SANITIZE "")
if(SCOPEDSM_SANITIZE)
  set(SCOPEDSM_PC_SANITIZE " -fsanitize=address,undefined")
endif()
# scopedsm.pc, scopedsm-seq.pc for the sequential build (no MPI), and
# scopedsm-fortran.pc for the Fortran module (its library and scopedsm.mod,
# which is in includedir; the rest from scopedsm.pc).
set(_scopedsm_pc_variants scopedsm scopedsm-seq)
if(SCOPEDSM_HAVE_FORTRAN)
  list(APPEND _scopedsm_pc_variants scopedsm-fortran)
endif()
foreach(variant IN LISTS _scopedsm_pc_variants)
  if(variant STREQUAL "scopedsm")
    set(PC_NAME "ScopeDSM")
    set(PC_DESCRIPTION "Software distributed shared memory over MPI (scope consistency)")
    set(PC_LIB scopedsm)
    set(PC_REQUIRES "${SCOPEDSM_PC_REQUIRES}")
    set(PC_CFLAGS "${SCOPEDSM_PC_MPI_CFLAGS}")
    set(PC_LIBS "${SCOPEDSM_PC_MPI_LIBS}${SCOPEDSM_PC_SANITIZE}")
  elseif(variant STREQUAL "scopedsm-fortran")
    set(PC_NAME "ScopeDSM Fortran")
    set(PC_DESCRIPTION "The Fortran module scopedsm (use scopedsm) of ScopeDSM")
    set(PC_LIB scopedsm_fortran)
    set(PC_REQUIRES "scopedsm")
    set(PC_CFLAGS "")
    set(PC_LIBS "")
  else()
    set(PC_NAME "ScopeDSM sequential")
    set(PC_DESCRIPTION "The ScopeDSM API on one process without MPI: the sequential baseline")
    set(PC_LIB scopedsm_seq)
    set(PC_REQUIRES "")
    set(PC_CFLAGS "")
    set(PC_LIBS "${SCOPEDSM_PC_SANITIZE}")
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/scopedsm.pc.in ${CMAKE_CURRENT_BINARY_DIR}/package/${variant}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/package/${variant}.pc DESTINATION lib/pkgconfig)
endforeach()

# The documents error messages point at (common/doc_path.h finds them
# beside the library) and the man pages.
file(GLOB _scopedsm_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${_scopedsm_docs} DESTINATION share/doc/scopedsm)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/man/ DESTINATION share/man FILES_MATCHING PATTERN "*.[13]")
