#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The long profile of the fault suite: every fault on every backend, over and over, for
# DURATION seconds per backend (default 600), then the same table as the short profile.
#   scripts/soak.sh [DURATION] [more qsimba_faultrunner options, e.g. --seed N --backends redis]
# Builds the runner and its worker in BUILD_DIR (default build) first. A violation prints the
# seed and the command that replays it; the exit code is the runner's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
duration=${1:-600}
shift || true
case $duration in
  ''|*[!0-9]*) echo "soak.sh: DURATION \"$duration\" must be a whole number of seconds" >&2; exit 2 ;;
esac
dir=${BUILD_DIR:-build}
if [ ! -f "$root/$dir/build.ninja" ]; then
  "$root/scripts/build.sh" "$dir"
fi
cmake --build "$root/$dir" -j2 --target qsimba_faultrunner qsimba_faultworker
exec "$root/$dir/tests/fault/qsimba_faultrunner" --duration "$duration" "$@"
