# Helpers for tests that run under an MPI launcher.
#
#   scopedsm_add_mpi_test(NAME <name> NP <n> COMMAND <exe> [args...]
#                         [ENV VAR=value ...] [TIMEOUT <s>] [WILL_FAIL] [PASS_REGEX <re>])
#
# Runs COMMAND on NP processes through MPIEXEC_EXECUTABLE, oversubscribed
# (the CI machine has 2 cores and tests use up to 4 processes) and allowed to
# run as root (CI runs as root).

execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _scopedsm_mpiexec_version
                ERROR_VARIABLE _scopedsm_mpiexec_version)
if(_scopedsm_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(SCOPEDSM_MPIEXEC_FLAGS --oversubscribe --bind-to none)
  set(SCOPEDSM_MPI_VENDOR "Open MPI")
else()
  set(SCOPEDSM_MPIEXEC_FLAGS "")
  set(SCOPEDSM_MPI_VENDOR "MPICH-compatible")
endif()

set(SCOPEDSM_TEST_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1
  SCOPEDSM_SUMMARY=off SCOPEDSM_TIMEOUT=60)

function(scopedsm_add_mpi_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;NP;TIMEOUT;PASS_REGEX" "COMMAND;ENV;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP} ${SCOPEDSM_MPIEXEC_FLAGS} ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${SCOPEDSM_TEST_ENV};${T_ENV}"
                       PROCESSORS 2)
  if(T_WILL_FAIL)
    set_tests_properties(${T_NAME} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_PASS_REGEX)
    set_tests_properties(${T_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
  endif()
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()

# The same test at 1, 2 and 4 processes: <name>.np1, .np2, .np4.
function(scopedsm_add_mpi_test_matrix)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND;ENV;LABELS" ${ARGN})
  foreach(np 1 2 4)
    scopedsm_add_mpi_test(NAME ${T_NAME}.np${np} NP ${np} COMMAND ${T_COMMAND} ENV ${T_ENV} TIMEOUT ${T_TIMEOUT}
                          LABELS ${T_LABELS})
  endforeach()
endfunction()

# A test run by tools/tests/check_command.py (status, output and files):
#   scopedsm_add_check_test(NAME <name> LABELS <label> CHECK <options> -- <command...>
#                           [TIMEOUT s] [ENV VAR=value...] [SETUP fixture] [REQUIRES fixture...]
#                           [PROCESSORS n])
# tools/tests (label tools) and tests/compat (label compat) use it.
function(scopedsm_add_check_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT;SETUP;PROCESSORS" "LABELS;ENV;REQUIRES;CHECK" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  add_test(NAME ${T_NAME} COMMAND "${SCOPEDSM_TOOLS_PYTHON}" "${PROJECT_SOURCE_DIR}/tools/tests/check_command.py"
                                  ${T_CHECK})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} SKIP_RETURN_CODE 77
                       ENVIRONMENT "${SCOPEDSM_TEST_ENV};PYTHONDONTWRITEBYTECODE=1;${T_ENV}")
  if(T_SETUP)
    set_tests_properties(${T_NAME} PROPERTIES FIXTURES_SETUP ${T_SETUP})
  endif()
  if(T_REQUIRES)
    set_tests_properties(${T_NAME} PROPERTIES FIXTURES_REQUIRED "${T_REQUIRES}")
  endif()
  if(T_PROCESSORS)
    set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_PROCESSORS})
  endif()
endfunction()

# Slurm (label slurm; docs/CLUSTER.md): where Debian's Slurm is installed
# (slurmctld, slurmd, munged, srun, sbatch), tests start a one-machine
# cluster of their own (tools/slurm_cluster.sh, fixture `slurm`: test
# slurm.cluster starts it, slurm.cluster_stop stops it) and run through
# `srun --mpi=<plugin>`: pmix for Open MPI, pmi2 for MPICH. Each MPI build
# has its own port, so that both builds' clusters can run at once.
#
#   scopedsm_add_slurm_test(NAME <name> NP <n> COMMAND <exe> [args...]
#                           [ENV VAR=value ...] [TIMEOUT <s>] [PASS_REGEX <re>])
find_program(SCOPEDSM_SRUN srun)
find_program(SCOPEDSM_SBATCH sbatch)
find_program(SCOPEDSM_SLURMCTLD slurmctld PATHS /usr/sbin /sbin)
find_program(SCOPEDSM_SLURMD slurmd PATHS /usr/sbin /sbin)
find_program(SCOPEDSM_MUNGED munged PATHS /usr/sbin /sbin)
if(SCOPEDSM_SRUN AND SCOPEDSM_SBATCH AND SCOPEDSM_SLURMCTLD AND SCOPEDSM_SLURMD AND SCOPEDSM_MUNGED)
  set(SCOPEDSM_SLURM ON)
else()
  set(SCOPEDSM_SLURM OFF)
  message(STATUS "Slurm not found (slurmctld, slurmd, munge, srun): no slurm tests (tools/bootstrap.sh installs it)")
endif()
if(SCOPEDSM_MPI_VENDOR STREQUAL "Open MPI")
  set(SCOPEDSM_SRUN_MPI pmix)
  set(SCOPEDSM_SLURM_PORT 6817)
else()
  set(SCOPEDSM_SRUN_MPI pmi2)
  set(SCOPEDSM_SLURM_PORT 6827)
endif()
set(SCOPEDSM_SLURM_DIR /tmp/scopedsm-slurm-${SCOPEDSM_SLURM_PORT})
set(SCOPEDSM_SLURM_ENV SLURM_CONF=${SCOPEDSM_SLURM_DIR}/slurm.conf)

function(scopedsm_add_slurm_test)
  cmake_parse_arguments(T "" "NAME;NP;TIMEOUT;PASS_REGEX" "COMMAND;ENV" ${ARGN})
  if(NOT SCOPEDSM_SLURM)
    return()
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${SCOPEDSM_SRUN} --mpi=${SCOPEDSM_SRUN_MPI} -n ${T_NP} --kill-on-bad-exit=1 ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS slurm FIXTURES_REQUIRED slurm PROCESSORS 2
                       ENVIRONMENT "${SCOPEDSM_TEST_ENV};${SCOPEDSM_SLURM_ENV};${T_ENV}")
  if(T_PASS_REGEX)
    set_tests_properties(${T_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
  endif()
endfunction()
