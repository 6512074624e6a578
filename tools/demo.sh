#!/usr/bin/env bash
# The main job: builds ScopeDSM and runs the red-black SOR example on 4 local
# processes with the single-machine defaults of `scopedsm run`. The program
# checks its own result against a sequential computation.
#
#   tools/demo.sh [N] [SOR args...]     default: 4 processes, -n 512 -i 50
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build >/dev/null
np="${1:-4}"
shift || true
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(-n 512 -i 50)
exec build/bin/scopedsm run -n "$np" build/apps/sor "${args[@]}"
