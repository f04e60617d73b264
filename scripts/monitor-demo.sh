#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Starts a few QSimba workers on one SQLite file and opens simba-monitor on them:
#   - three `simbactl elect scheduler` workers (one leads; the leader is restarted every 30 s,
#     so leadership moves and the timeline and chart show it),
#   - two loops of `simbactl lock nightly-report` passing a lock back and forth,
#   - the partitioned-job example (two nodes sharing the group "billing" of 8 partitions).
# When simbactl serves the operator endpoint (--http), each elect worker gets one and the
# monitor watches those endpoints too. Everything stops when the monitor window closes.
# Like scripts/demo.sh it installs what is missing and builds first.
#   scripts/monitor-demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" "${1:-build}"
build=$(cd "$root/${1:-build}" && pwd)
simbactl=$build/src/tools/simbactl/simbactl
monitor=$build/src/monitor/simba-monitor
job=$build/examples/partitioned-job/partitioned-job
for tool in "$simbactl" "$monitor"; do
  [ -x "$tool" ] || { echo "monitor-demo: $tool is missing: cmake --build $build -j2 --target simba-monitor simbactl" >&2; exit 1; }
done

dir=$(mktemp -d -t simba-demo.XXXXXX)
export SIMBA_BACKEND="sqlite://$dir/demo.db"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT INT TERM

http=0
if "$simbactl" elect --help 2>&1 | grep -q -- '--http'; then http=1; fi
# A loopback port nothing listens on (bash's /dev/tcp: no other tool needed).
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}

# Each worker runs in a loop of its own that stops its child when stopped.
supervise() { # $1: seconds between restarts (0: never), then the command
  local every=$1; shift
  local child=
  trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 0' TERM INT
  while true; do
    "$@" &
    child=$!
    if [ "$every" -gt 0 ]; then
      sleep "$every" & wait $! || true
      kill -TERM "$child" 2>/dev/null || true
    fi
    wait "$child" || true
    sleep 1 & wait $!
  done
}

endpoints=()
for i in 1 2 3; do
  args=(elect scheduler --lease 6s)
  if [ "$http" = 1 ]; then
    port=$(free_port)
    args+=(--http "127.0.0.1:$port")
    endpoints+=("http://127.0.0.1:$port")
  fi
  # Leadership moves: worker 1 is stopped cleanly and started again every 30 s.
  every=0; [ "$i" = 1 ] && every=30
  supervise "$every" "$simbactl" "${args[@]}" -- sleep infinity >"$dir/elect-$i.log" 2>&1 &
  pids+=($!)
done
# The lock passes between two loops: each holds it 12 s, then lets the other have it.
for i in 1 2; do
  supervise 0 "$simbactl" lock nightly-report --lease 6s -- sleep 12 >"$dir/lock-$i.log" 2>&1 &
  pids+=($!)
done
if [ -x "$job" ]; then
  supervise 0 "$job" --duration 86400 --database "$dir/demo.db" >"$dir/job.log" 2>&1 &
  pids+=($!)
fi

urls=("$SIMBA_BACKEND")
for e in "${endpoints[@]+"${endpoints[@]}"}"; do urls+=("$e"); done
echo "monitor-demo: workers on $SIMBA_BACKEND (logs in $dir); close the monitor window to stop them"
# A settings file of its own: the demo's connections are not remembered in the user's.
# In the background, so a TERM or INT to this script stops everything at once.
"$monitor" --settings "$dir/monitor.ini" "${urls[@]}" &
pids+=($!)
wait $!
