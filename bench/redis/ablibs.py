#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two builds of the Redis backend side by side, under the same benchmark binaries.

    bench/redis/ablibs.py [--rounds N] [--build DIR] [--cycles N] [--handoffs N] OLD_LIBS NEW_LIBS

OLD_LIBS and NEW_LIBS are directories holding a libQSimbaRedis.so.0 (and, if the change
touched the engine, a libQSimbaCore.so.0): copies of build/src/backends/redis/ (and
build/src/simbacore/) taken before and after a change. Each round runs, once with each
directory first on LD_LIBRARY_PATH (the order alternating from round to round, so a busy
machine weighs on both alike):

    qsimba_bench_cycle --cycles N --handoff N redis
    qsimba_bench_suite --backend redis --quick --only handoff,graceful
    qsimba_bench_redis_loop --rounds 5       (lock cycles back to back)

and the script prints, per figure, the median of the rounds' medians for each build, their
range, and the ratio new / old. Every run starts its own redis-server (the tests' fixture);
each program's first grant waits for the recovery guard (10 s), so a round takes about 80 s.
Each figure is named after its program: "cycle:", "suite:", "loop:".
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CYCLE_ROWS = ['cycle', 'acquire', 'release', 'raw PING', 'raw SET', 'handoff']
SUITE_ROWS = ['read', 'cycle', 'acquire', 'release', 'handoff', 'handover']
LOOP_ROWS = ['loop cycle', 'loop PING', 'PING after a cycle']


def run(binary, args, libs):
    env = dict(os.environ)
    env['LD_LIBRARY_PATH'] = libs + (':' + env['LD_LIBRARY_PATH'] if env.get('LD_LIBRARY_PATH') else '')
    done = subprocess.run(['nice', '-n', '19', binary] + args, env=env, capture_output=True, text=True,
                          timeout=600)
    if done.returncode != 0:
        sys.exit(f'{binary} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}')
    return done.stdout


def table_figures(text, label, rows):
    """The first number after each row's name in a program's text table (its median)."""
    out = {}
    for row in rows:
        m = re.search(r'^\s+' + re.escape(row) + r'\s+([\d.]+)\s', text, re.M)
        if m:
            out[f'{label}: {row}'] = float(m.group(1))
    return out


def cycle_figures(text):
    """Medians in µs from qsimba_bench_cycle's table (and the scripts' server time)."""
    out = table_figures(text, 'cycle', CYCLE_ROWS)
    m = re.search(r'acquire script (\d+) / \d+ .*release script (\d+) /', text)
    if m:
        out['cycle: acquire script (server)'] = float(m.group(1))
        out['cycle: release script (server)'] = float(m.group(2))
    return out


def suite_figures(text):
    """Medians in µs from qsimba_bench_suite's Markdown table (printed in ms)."""
    out = {}
    for row in SUITE_ROWS:
        m = re.search(r'^\| ' + re.escape(row) + r' \| \d+ \| ([\d.]+) \|', text, re.M)
        if m:
            out['suite: ' + row] = float(m.group(1)) * 1000
    return out


def loop_figures(text):
    """Medians in µs from qsimba_bench_redis_loop, and the hints received per cycle."""
    out = table_figures(text, 'loop', LOOP_ROWS)
    m = re.search(r'Released hints received per cycle: ([\d.]+)', text)
    if m:
        out['loop: hints per cycle (count)'] = float(m.group(1))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--build', default=os.path.join(ROOT, 'build'))
    parser.add_argument('--cycles', type=int, default=1500)
    parser.add_argument('--handoffs', type=int, default=20)
    parser.add_argument('old')
    parser.add_argument('new')
    a = parser.parse_args()
    cycle = os.path.join(a.build, 'bench/cycle/qsimba_bench_cycle')
    suite = os.path.join(a.build, 'bench/suite/qsimba_bench_suite')
    loop = os.path.join(a.build, 'bench/redis/qsimba_bench_redis_loop')
    figures = {'old': {}, 'new': {}}
    for r in range(a.rounds):
        order = ['old', 'new'] if r % 2 == 0 else ['new', 'old']
        for which in order:
            libs = os.path.abspath(getattr(a, which))
            got = cycle_figures(run(cycle, ['--cycles', str(a.cycles), '--handoff', str(a.handoffs), 'redis'], libs))
            got.update(suite_figures(run(suite, ['--backend', 'redis', '--quick', '--only', 'handoff,graceful'],
                                         libs)))
            got.update(loop_figures(run(loop, ['--rounds', '5'], libs)))
            # Ratios within one run: this VM's round trip moves by 3x from minute to minute
            # (15 us while the other core is busy, 40-60 us while both idle), the scripts' time
            # much less, so medians of times mix the two states; these do less.
            if got.get('cycle: raw SET'):
                got['cycle: cycle / raw SET (ratio)'] = got['cycle: cycle'] / got['cycle: raw SET']
            if got.get('loop: loop PING'):
                got['loop: cycle / loop PING (ratio)'] = got['loop: loop cycle'] / got['loop: loop PING']
            for k, v in got.items():
                figures[which].setdefault(k, []).append(v)
            print(f'round {r + 1} {which}: ' + ', '.join(f'{k} {v:.2f}' for k, v in got.items()), flush=True)
    print(f'\nmedians of {a.rounds} rounds, µs (range); new / old')
    print(f'{"figure":34} {"old":>24} {"new":>24} {"new/old":>8}')
    for k in figures['old']:
        o, n = figures['old'][k], figures['new'].get(k, [])
        if not n:
            continue
        mo, mn = statistics.median(o), statistics.median(n)
        ratio = f'{mn / mo:8.2f}' if mo else '       -'
        print(f'{k:34} {mo:8.2f} ({min(o):6.1f}-{max(o):6.1f}) {mn:8.2f} ({min(n):6.1f}-{max(n):6.1f}) {ratio}')


if __name__ == '__main__':
    main()
