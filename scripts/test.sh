#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test command: installs what is missing, builds, and runs the whole suite through CTest,
# once in a normal build, once under AddressSanitizer + UndefinedBehaviorSanitizer, and the
# tests labelled tsan once under ThreadSanitizer (QSIMBA_TEST_TSAN=0 leaves that pass out).
# Every server a test needs is started by the test itself on a free loopback port.
# Extra arguments go to every ctest run (e.g. -L redis, -R tst_values).
#
# The sanitizer builds compile, at the lowest CPU priority, while the tests of the previous
# pass run: those mostly wait on servers and timers, so the builds take the CPU time the
# tests leave idle.
#
# Flakiness is reported, never hidden: a test that fails is run once more, and if it passes
# then it is named at the end as FLAKY. The run fails when a test fails twice, or when a test
# was flaky in this run and in the previous run of the same pass (recorded in the build
# directory, flaky-tests-<pass>.txt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cores=$(nproc)
# Most tests wait on servers, leases and timers rather than compute: run several per core.
# (QSIMBA_TEST_JOBS=n sets another number.)
jobs=${QSIMBA_TEST_JOBS:-$((cores * 3))}
tsan=${QSIMBA_TEST_TSAN:-1}
started=$SECONDS
flaky_report=()
failed_report=()

# cpu_seconds: sets cpu to the CPU time (user + system) of the finished child processes so
# far. `times` must run in this shell (not in $(…) or a pipeline) to see its children.
times_file=$(mktemp)
# The tests' temporary directories (every test server's data, the SQLite files) go to memory
# when /dev/shm has room (4 GiB free): the sanitizer builds write gigabytes of objects while
# tests run, and a server's or SQLite's sync queued behind those writes held calls for
# seconds (I/O pressure up to 36 % in a fresh-clone run). QSIMBA_TEST_TMPDIR=disk, or a
# TMPDIR of your own, keeps them where you say. Sticky and world-writable like /tmp: the
# PostgreSQL server runs as the postgres user.
test_tmp=
shm_free=$(df --output=avail -k /dev/shm 2>/dev/null | tail -n 1 | tr -d ' ') || shm_free=0
if [ -z "${TMPDIR:-}" ] && [ "${QSIMBA_TEST_TMPDIR:-}" != disk ] && [ "${shm_free:-0}" -gt $((4 * 1024 * 1024)) ]; then
  test_tmp=$(mktemp -d /dev/shm/qsimba-tests.XXXXXX)
  chmod 1777 "$test_tmp"
  export TMPDIR=$test_tmp
fi
trap 'rm -f "$times_file"; [ -z "$test_tmp" ] || rm -rf "$test_tmp"' EXIT
cpu=0
cpu_seconds() {
  times > "$times_file"
  cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$times_file")
}
phase() {
  cpu_seconds
  echo "== $1 (after $(( SECONDS - started )) s, CPU $cpu s)"
}

# run_pass NAME BUILD_DIR [ctest arguments…]
run_pass() {
  local name=$1 dir=$2
  shift 2
  # One record per pass: the asan build serves two (asan-long, asan).
  local record="$dir/flaky-tests-$name.txt" previous=() flaky=() failing=()
  [ -f "$record" ] && mapfile -t previous < "$record"
  # CTest starts the tests it knows to be longest first; a fresh build has no record of their
  # times yet, so it starts from the times in tests/ctest-costs.txt (CTest's own format,
  # from a run of this command), and keeps its own record from then on.
  local costs="$dir/Testing/Temporary/CTestCostData.txt"
  if [ ! -f "$costs" ]; then
    mkdir -p "$dir/Testing/Temporary"
    cp "$root/tests/ctest-costs.txt" "$costs"
  fi
  phase "$name: ctest in $dir"
  local passed=0
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "$@") && passed=1
  # The simulation's step count, from CTest's log before a rerun replaces it.
  grep -h "^simulation: .* steps" "$dir/Testing/Temporary/LastTest.log" 2>/dev/null || true
  if [ $passed = 1 ]; then
    : > "$record"
    return 0
  fi
  local failed_log="$dir/Testing/Temporary/LastTestsFailed.log" first_failed=()
  mapfile -t first_failed < <(cut -d: -f2 "$failed_log")
  echo "== $name: running the ${#first_failed[@]} failed test(s) once more to tell flaky from failing"
  # The rerun replaces CTest's log: the first run's is kept, to find why a flaky test failed.
  cp "$dir/Testing/Temporary/LastTest.log" "$dir/Testing/Temporary/FirstRun-$name.log" 2>/dev/null || true
  # ctest leaves LastTestsFailed.log as it was when a run has no failure: remove it first, and
  # name the tests to run again rather than --rerun-failed, which reads it.
  rm -f "$failed_log"
  local names
  names=$(IFS='|'; echo "${first_failed[*]}")
  # The names last: CTest keeps the last -R, and the pass's own arguments may hold one.
  (cd "$dir" && ctest --output-on-failure "$@" -R "^(${names})\$") || true
  local still=()
  if [ -f "$failed_log" ]; then
    mapfile -t still < <(cut -d: -f2 "$failed_log")
  fi
  local t
  for t in "${first_failed[@]}"; do
    if printf '%s\n' "${still[@]}" | grep -qxF -- "$t"; then
      failing+=("$t")
    else
      flaky+=("$t")
      if printf '%s\n' "${previous[@]}" | grep -qxF -- "$t"; then
        failing+=("$t (flaky in two consecutive runs)")
      fi
    fi
  done
  printf '%s\n' "${flaky[@]}" > "$record"
  for t in "${flaky[@]}"; do flaky_report+=("$name: $t"); done
  for t in "${failing[@]}"; do failed_report+=("$name: $t"); done
}

# Every build compiles each folder of a library or program as one unity source
# (cmake/QSimbaHelpers.cmake, qsimba_unity_build): about half the CPU time of its sources.
unity=-DQSIMBA_UNITY_BUILD=ON
# Each build.sh checks the packages again; installed once here, before two builds run.
"$root/scripts/bootstrap.sh"

# The AddressSanitizer build compiles in the background, at the lowest priority, from the
# start: beside the normal build it takes only the CPU time that build leaves idle (CMake's
# configure, the serial steps before and after the precompiled header, links), then the time
# the normal pass's tests leave idle while they wait on servers and timers. The
# ThreadSanitizer build then compiles while the asan pass runs.
# The asan pass's longest tests wait on servers, leases and injected faults rather than
# compute: the asan build makes their programs first, and they run (the pass "asan-long")
# while it compiles the rest; the other tests then run in the pass "asan". A test not named
# here (a new one, a renamed one) runs in the pass "asan". Four tests and the fault suite's two
# lanes (tests/fault/CMakeLists.txt): six, as many as CTest runs at a time on two cores (three
# per core), so both lanes start at once. The targets are the test programs that hold them
# (qsimba_add_test's PROGRAM, tests/CMakeLists.txt).
asan_long_targets="tests_sql tests_zookeeper tests_etcd tests_redis qsimba_faultrunner"
asan_long_tests="^(tst_sqlpostgres|tst_zookeeperbackend|tst_etcdconformance|tst_redisbackend|tst_fault_.*)\$"
mkdir -p "$root/build-asan"
background_log="$root/build-asan/sanitizer-builds.log"
# in_background NAME COMMAND…: runs COMMAND at the lowest priority, its output in the log.
in_background() {
  local name=$1
  shift
  (
    renice -n 19 -p "$BASHPID" > /dev/null
    "$@"
    cpu_seconds
    echo "$name build: CPU $cpu s"
  ) >> "$background_log" 2>&1 &
  background=$!
}
# wait_background NAME: fails the run if the background build failed.
wait_background() {
  if ! wait "$background"; then
    tail -n 60 "$background_log"
    echo "== the $1 build failed (whole log: $background_log)"
    exit 1
  fi
  phase "$(tail -n 1 "$background_log")"
}
: > "$background_log"
# The examples are built and run once, in the normal pass: each is a few lines over the
# libraries, which both sanitizer passes cover.
# -g1 (line tables) is all a sanitizer report needs, and builds faster than -g.
# The sanitizer builds compile with Clang (bootstrap.sh installs it), the normal build with
# GCC: with the sanitizers on, Clang compiles these sources in about half the CPU time
# (docs/testing.md), and a second compiler rejects what only one accepts.
sanitizer_compiler=(-DCMAKE_CXX_COMPILER=clang++)
asan_args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DQSIMBA_SANITIZE=ON -DQSIMBA_BUILD_EXAMPLES=OFF
           "${sanitizer_compiler[@]}" "$unity")
asan_long_built="$root/build-asan/long-tests-built"
rm -f "$asan_long_built"
# asan_build: the programs of the asan-long pass first (the file asan_long_built says they are
# ready), then everything else.
asan_build() {
  QSIMBA_TARGETS="$asan_long_targets" "$root/scripts/build.sh" build-asan "${asan_args[@]}"
  touch "$asan_long_built"
  cmake --build "$root/build-asan"
}
in_background asan asan_build

"$root/scripts/build.sh" build "$unity"
phase "normal build done"

run_pass normal "$root/build" "$@"

phase "normal pass done, waiting for the asan build of the longest tests"
while [ ! -e "$asan_long_built" ] && kill -0 "$background" 2> /dev/null; do
  sleep 1
done
[ -e "$asan_long_built" ] || wait_background asan # it failed: says so and stops
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export LSAN_OPTIONS=suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_pass asan-long "$root/build-asan" -LE "install|docs" -R "$asan_long_tests" "$@"
phase "asan-long pass done, waiting for the asan build"
wait_background asan
if [ "$tsan" != 0 ]; then
  # Only the tests labelled tsan and what they link; ThreadSanitizer slows optimized code less.
  # tests_runtime holds tst_client, tst_leadertask, tst_groups and tst_coro.
  QSIMBA_TARGETS="tests_runtime tst_locks" in_background tsan \
    "$root/scripts/build.sh" build-tsan \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DQSIMBA_TSAN=ON \
    -DQSIMBA_BUILD_EXAMPLES=OFF -DQSIMBA_BUILD_QUICK=OFF -DQSIMBA_BUILD_MONITOR=OFF "${sanitizer_compiler[@]}" "$unity"
fi
# The simulation runs its 100 seeds (2,000,000 steps) in the normal pass, and the first 25
# (500,000 steps) here: they include every kind of seed (3 s and 300 ms leases, a backend that
# shortens leases, 200 more names), and at -O0 with the sanitizers the other 75 cost a minute
# of CPU time for the same code paths (docs/testing.md).
QSIMBA_SIM_SEEDS=25 run_pass asan "$root/build-asan" -LE "install|docs" -E "$asan_long_tests" "$@"

if [ "$tsan" != 0 ]; then
  phase "asan pass done, waiting for the tsan build"
  wait_background tsan
  # One at a time: five short tests (about 15 s in all), whose 300 ms leases TSan's slowdown
  # and a loaded machine can make lapse (docs/engine.md, "ThreadSanitizer").
  jobs=1 run_pass tsan "$root/build-tsan" -L tsan "$@"
fi

phase "test.sh finished in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s"
if [ ${#flaky_report[@]} -gt 0 ]; then
  echo "FLAKY (failed, then passed when run again — a bug to find, not noise):"
  printf '  %s\n' "${flaky_report[@]}"
fi
if [ ${#failed_report[@]} -gt 0 ]; then
  echo "FAILED:"
  printf '  %s\n' "${failed_report[@]}"
  exit 1
fi
