#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, then configures and builds QSimba.
#   scripts/build.sh [BUILD_DIR] [extra cmake arguments…]   (default BUILD_DIR: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}
shift || true
"$root/scripts/bootstrap.sh"
# ccache (installed by bootstrap) makes a rebuild, or a second checkout of the same sources, cheap.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Release (-O2, no debug information): what users ship, and a third faster to build than
# RelWithDebInfo; pass -DCMAKE_BUILD_TYPE=RelWithDebInfo to debug.
cmake -S "$root" -B "$root/$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  "${launcher[@]}" "$@"
# QSIMBA_BUILD_TARGETS (e.g. "qsimba_bench_suite"): build only these.
cmake --build "$root/$dir" ${QSIMBA_BUILD_TARGETS:+--target $QSIMBA_BUILD_TARGETS}
