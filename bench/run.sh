#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# QSimba's benchmark suite: per backend, the lock cycle, the contended lock, the handoff to
# a blocked waiter, the graceful handover, the crash failover and the machine's noise, each
# as median and p99 and as a ratio to the raw client's round trip measured in the same run.
#
#   bench/run.sh [--quick] [--backends memory,sqlite,postgres,mariadb,redis,zookeeper,etcd]
#                [--build-dir DIR] [--only first-words]
#
# Builds qsimba_bench_suite (scripts/build.sh DIR -DQSIMBA_BUILD_BENCH=ON, that target only;
# DIR relative to the source tree, default "build"), then runs one backend at a time, each
# with its own server started the way the tests start them (loopback, a free port, a
# temporary directory; stopped afterwards). Prints each backend's figures as it goes, then
# one Markdown table. Runtime on a 2-core machine: --quick about 2–3 minutes, the full
# profile about 5 minutes (most of it the crash failovers, 3 s leases each, and the warm-up
# of the ZooKeeper server: 10–60 s, until its rates settle).
# --only (development) runs only the figures named by their first words (4, handoff, graceful,
# crash) besides the lock cycle. Exit code: 0 when every figure of every backend was
# measured, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=()
only=()
backends=memory,sqlite,postgres,mariadb,redis,zookeeper,etcd
dir=build
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --backends) backends=${2:?--backends needs a list, e.g. redis,zookeeper}; shift ;;
    --backends=*) backends=${1#--backends=} ;;
    --build-dir) dir=${2:?--build-dir needs a directory}; shift ;;
    --only) only=(--only "${2:?--only needs a list, e.g. crash,graceful}"); shift ;;
    -h|--help) sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/run.sh: unknown argument '$1' (try --help)" >&2; exit 64 ;;
  esac
  shift
done
for b in ${backends//,/ }; do
  case "$b" in
    memory|sqlite|postgres|mariadb|redis|zookeeper|etcd) ;;
    *) echo "bench/run.sh: unknown backend '$b' in --backends (known: memory, sqlite, postgres, mariadb, redis, zookeeper, etcd)" >&2; exit 64 ;;
  esac
done

# Two compile jobs at most: the machine is shared. The suite starts its servers with the
# tests' fixtures, hence QSIMBA_BUILD_TESTS (only the suite's target is built).
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} QSIMBA_TARGETS=qsimba_bench_suite \
  "$root/scripts/build.sh" "$dir" -DQSIMBA_BUILD_BENCH=ON -DQSIMBA_BUILD_TESTS=ON >&2
bin="$root/$dir/bench/suite/qsimba_bench_suite"
[ -x "$bin" ] || { echo "bench/run.sh: $bin was not built" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows="$work/rows.tsv"
: >"$rows"
profile=full
[ ${#quick[@]} -eq 0 ] || profile=quick
started=$(date +%s)
status=0
echo "# QSimba benchmark suite, $profile profile"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
  "commit $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
for b in ${backends//,/ }; do
  rc=0
  "$bin" --backend "$b" "${quick[@]}" "${only[@]}" --out "$rows" || rc=$?
  if [ "$rc" -ne 0 ]; then
    status=1
    # A crash writes no row: say so in the table.
    grep -q "^$b	" "$rows" || printf '%s\tfailed\t0\t0\t0\t-1\t-1\tthe program exited with code %s\n' "$b" "$rc" >>"$rows"
  fi
done
echo
echo "## Summary ($profile profile, $(( $(date +%s) - started )) s)"
echo
cat <<'EOF'
Each cell: median / p99 in ms · the median in R, the raw client's cheapest request (SELECT 1,
PING, exists, get: the round trip), and in W, its cheapest durable write (autocommit UPDATE,
SET, set, put), both measured in the same run, alternating with the lock cycles. SQLite has no
server: its R is an in-process call and its W a synced commit, so read its W ratios. memory
is the engine alone (one process). Locks: lease 10 s; elections: lease 3 s. The other
processes are the suite re-executed as workers; times on CLOCK_MONOTONIC, shared by them.
EOF
echo
"$bin" --table "$rows"
exit "$status"
