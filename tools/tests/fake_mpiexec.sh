#!/bin/sh
# A stand-in for MPICH's Hydra mpiexec: answers --version as Hydra does and
# otherwise prints the arguments it was given. The tools tests point
# SCOPEDSM_MPIEXEC at it to check the command `scopedsm run` builds for MPICH.
if [ "$1" = "--version" ]; then
  echo "HYDRA build details:"
  echo "    Version:                                 4.1.2"
  exit 0
fi
echo "fake-mpiexec: $*"
