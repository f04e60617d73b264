#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The QSimba demo: installs what is missing, builds, then runs the failover demo on the
# embedded SQLite backend (a temporary file): worker processes contend for one election
# and one partition group; the leader is SIGKILLed, the next one stopped gracefully; each
# failover is measured. Exits 0 only if every check held.
#   scripts/demo.sh [BUILD_DIR] [failover-demo options…]   (default BUILD_DIR: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-build}
shift || true
"$root/scripts/build.sh" "$dir"
exec "$root/$dir/examples/failover-demo/failover-demo" \
    --simbactl "$root/$dir/src/tools/simbactl/simbactl" "$@"
