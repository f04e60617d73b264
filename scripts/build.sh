#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, then configures and builds QSimba.
#   scripts/build.sh [BUILD_DIR] [extra cmake arguments…]   (default BUILD_DIR: build)
# QSIMBA_TARGETS="t1 t2" builds only those targets (and what they need).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}
shift || true
"$root/scripts/bootstrap.sh"
# ccache (installed by bootstrap) makes a rebuild, or a second checkout of the same sources, cheap.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  # The precompiled headers (cmake/QSimbaHelpers.cmake) are cacheable only with these.
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# lld links the tests and libraries in a fraction of the time of the default linker.
linker=()
if command -v ld.lld >/dev/null; then
  linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld
          -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld)
fi
# Release (-O2, no debug information): what users ship, and a third faster to build than
# RelWithDebInfo; pass -DCMAKE_BUILD_TYPE=RelWithDebInfo to debug.
cmake -S "$root" -B "$root/$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  "${launcher[@]}" "${linker[@]}" "$@"
targets=()
for t in ${QSIMBA_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$root/$dir" "${targets[@]}"
