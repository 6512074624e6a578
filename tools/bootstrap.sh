#!/usr/bin/env bash
# Installs what building and testing ScopeDSM needs, on Debian or Ubuntu, if
# it is missing: a C/C++ compiler, gfortran (the Fortran module and tests),
# CMake, Ninja, Open MPI, GoogleTest, nlohmann-json, Python 3 with matplotlib
# (reports), clang (fuzzing), make and pkg-config (the external-project
# test), iproute2 and util-linux's unshare (scopedsm run --hosts and its
# tests), Slurm and munge (the slurm tests' one-machine cluster). Safe to
# re-run.
set -euo pipefail

need=()
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v gfortran >/dev/null 2>&1 || need+=(gfortran)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v mpicc >/dev/null 2>&1 || need+=(openmpi-bin libopenmpi-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev googletest)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# (checked with dpkg: a python3 earlier on PATH may not see Debian's modules)
python3 -c 'import matplotlib' >/dev/null 2>&1 || dpkg -s python3-matplotlib >/dev/null 2>&1 || need+=(python3-matplotlib)
command -v clang >/dev/null 2>&1 || need+=(clang libclang-rt-14-dev)
command -v git >/dev/null 2>&1 || need+=(git)
# (the external-project test builds with make and pkg-config against an installation)
command -v make >/dev/null 2>&1 || need+=(make)
command -v pkg-config >/dev/null 2>&1 || need+=(pkgconf)
# (namespaced hosts: ip netns, veth and bridge links; unshare for a hostname per host)
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || need+=(iproute2)
command -v unshare >/dev/null 2>&1 || need+=(util-linux)
# (Slurm: the slurm tests start a one-machine cluster of their own, tools/slurm_cluster.sh)
command -v srun >/dev/null 2>&1 || need+=(slurm-client)
[ -x /usr/sbin/slurmctld ] || need+=(slurmctld)
[ -x /usr/sbin/slurmd ] || need+=(slurmd)
[ -x /usr/sbin/munged ] || need+=(munge)


if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "bootstrap: installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# OpenMP programs' flush: ScopeDSM's GCC plugin builds against the plugin
# headers of the installed GCC (known only once GCC is there).
if command -v gcc >/dev/null 2>&1 && [ ! -f "$(gcc -print-file-name=plugin)/include/gcc-plugin.h" ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  gcc_major=$(gcc -dumpversion | cut -d. -f1)
  echo "bootstrap: installing gcc-${gcc_major}-plugin-dev" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "gcc-${gcc_major}-plugin-dev" >/dev/null ||
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "gcc-${gcc_major}-plugin-dev" >/dev/null; }
fi
