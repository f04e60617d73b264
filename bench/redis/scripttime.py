#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Redis server's own time for the lock cycle's scripts, two versions side by side.

    bench/redis/scripttime.py [--rounds N] [REV_A] [REV_B]
    bench/redis/scripttime.py --sections [--rounds N]

Takes the acquire and release scripts (the preludes plus each body) from
src/backends/redis/qsimbaredisscripts.cpp at two git revisions (default: HEAD~1 and the
working tree, written "."), starts a redis-server of its own (loopback, a free port, a
temporary directory, no persistence), opens a session, and runs acquire + release of one
name with each version in turn, N rounds (default 800). Every command is logged in SLOWLOG
with the time the server spent on it (no network, no client); prints the median and the
10th and 90th percentiles per script and version. Versions alternate, so a busy machine
weighs on both alike. Needs only python3 and redis-server.

With --sections: what the recovery guard's INFO read costs by itself, in a script and
nothing else: an empty script, INFO server, INFO commandstats and both in one call,
alternating, after the server has run the commands a lock cycle's scripts call (the
commandstats section has a line per distinct command the server has run).
"""
import argparse
import os
import re
import socket
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = 'src/backends/redis/qsimbaredisscripts.cpp'


def scripts(rev):
    if rev == '.':
        with open(os.path.join(ROOT, SOURCE)) as f:
            text = f.read()
    else:
        text = subprocess.run(['git', '-C', ROOT, 'show', f'{rev}:{SOURCE}'], check=True,
                              capture_output=True, text=True).stdout

    def body(name, required=True):
        m = re.search(r'constexpr char ' + name + r'\[\] = R"lua\((.*?)\)lua";', text, re.S)
        if not m and required:
            raise SystemExit(f'{rev}: no {name} in {SOURCE}')
        return m.group(1) if m else ''
    # The recovery guard has a prelude of its own (acquire's, not release's) since it was split
    # from the shared one; older revisions have it in the shared prelude. Since the core
    # prelude was split from the shared one, release has only the core.
    guard = body('guardPrelude', required=False)
    core = body('corePrelude', required=False)
    if core:
        return core + body('prelude') + guard + body('acquireScript'), core + body('releaseScript')
    return body('prelude') + guard + body('acquireScript'), body('prelude') + body('releaseScript')


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.file = self.sock.makefile('rb')

    def __call__(self, *args):
        out = b'*%d\r\n' % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b'$%d\r\n%s\r\n' % (len(a), a)
        self.sock.sendall(out)
        return self.read()

    def read(self):
        line = self.file.readline().rstrip(b'\r\n')
        kind, rest = line[:1], line[1:]
        if kind == b'+':
            return rest
        if kind == b'-':
            raise RuntimeError(rest.decode())
        if kind == b':':
            return int(rest)
        if kind == b'$':
            n = int(rest)
            return None if n < 0 else self.file.read(n + 2)[:-2]
        if kind == b'*':
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise RuntimeError(f'unexpected reply {line!r}')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def start_server(work):
    port = free_port()
    server = subprocess.Popen(['redis-server', '--bind', '127.0.0.1', '--port', str(port), '--save', '',
                               '--appendonly', 'no', '--dir', work], stdout=subprocess.DEVNULL)
    for _ in range(200):
        try:
            r = Redis(port)
            r('PING')
            return server, r
        except (ConnectionRefusedError, RuntimeError):
            time.sleep(0.02)
    server.terminate()
    raise SystemExit('redis-server did not start')


def slowlog_times(r, names):
    times = {}
    for entry in r('SLOWLOG', 'GET', '-1'):
        command = entry[3]
        if command[0].upper() == b'EVALSHA' and command[1] in names:
            times.setdefault(names[command[1]], []).append(entry[2])
    return times


def sections(rounds):
    variants = {
        'empty script': "return 1",
        'INFO server': "redis.call('INFO', 'server') return 1",
        'INFO commandstats': "redis.call('INFO', 'commandstats') return 1",
        'INFO server commandstats': "redis.call('INFO', 'server', 'commandstats') return 1",
    }
    with tempfile.TemporaryDirectory() as work:
        server, r = start_server(work)
        try:
            # The commands the lock cycle's scripts call, so that commandstats has their lines.
            for command in (('TIME',), ('ZADD', 'z', '1', 'm'), ('ZSCORE', 'z', 'm'), ('ZRANGEBYSCORE', 'z', '0', '1'),
                            ('ZREM', 'z', 'm'), ('HSET', 'h', 'f', 'v'), ('HMGET', 'h', 'f'), ('HGET', 'h', 'f'),
                            ('HGETALL', 'h'), ('SET', 'k', 'v'), ('GET', 'k'), ('SADD', 's', 'x'), ('SMEMBERS', 's'),
                            ('SCARD', 's'), ('SREM', 's', 'x'), ('DEL', 'k'), ('PUBLISH', 'c', 'm'), ('INFO', 'server')):
                r(*command)
            sha = {r('SCRIPT', 'LOAD', body): name for name, body in variants.items()}
            r('CONFIG', 'SET', 'slowlog-log-slower-than', '0')
            r('CONFIG', 'SET', 'slowlog-max-len', str(len(variants) * rounds + 1000))
            r('SLOWLOG', 'RESET')
            for _ in range(rounds):
                for digest in sha:
                    r('EVALSHA', digest, 0)
            times = slowlog_times(r, sha)
            lines = r('INFO', 'commandstats').count(b'cmdstat_')
        finally:
            server.terminate()
            server.wait()
    print(f'# server time per script (SLOWLOG), microseconds, {rounds} alternating rounds; '
          f'commandstats has {lines} lines')
    print(f'{"script":26} {"median":>7} {"p10":>5} {"p90":>5}')
    for name in variants:
        t = sorted(times.get(name, [0]))
        print(f'{name:26} {statistics.median(t):7.1f} {t[len(t) // 10]:5d} {t[len(t) * 9 // 10]:5d}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=800)
    parser.add_argument('--sections', action='store_true', help="time the guard's INFO sections")
    parser.add_argument('revs', nargs='*', default=['HEAD~1', '.'])
    args = parser.parse_args()
    if args.sections:
        return sections(args.rounds)
    if len(args.revs) != 2:
        raise SystemExit('give two revisions (or none)')
    versions = {rev: scripts(rev) for rev in args.revs}
    with tempfile.TemporaryDirectory() as work:
        port = free_port()
        server = subprocess.Popen(['redis-server', '--bind', '127.0.0.1', '--port', str(port), '--save', '',
                                   '--appendonly', 'no', '--dir', work], stdout=subprocess.DEVNULL)
        try:
            for _ in range(200):
                try:
                    r = Redis(port)
                    r('PING')
                    break
                except (ConnectionRefusedError, RuntimeError):
                    time.sleep(0.02)
            else:
                raise SystemExit('redis-server did not start')
            r('CONFIG', 'SET', 'slowlog-log-slower-than', '0')
            r('CONFIG', 'SET', 'slowlog-max-len', str(40 * args.rounds + 1000))
            r('ZADD', 'p:sessions', '99999999999999999', 'session')  # a live session
            sha = {}
            for rev, (acquire, release) in versions.items():
                sha[r('SCRIPT', 'LOAD', acquire)] = ('acquire', rev)
                sha[r('SCRIPT', 'LOAD', release)] = ('release', rev)
            by = {v: k for k, v in sha.items()}
            # The recovery guard grants nothing on a prefix it has just met: say its wait is over.
            for rev in versions:
                r('EVALSHA', by[('acquire', rev)], 1, 'p:epoch', 'p:', 10000, 'session', 'warm')
            r('HSET', 'p:epoch', 'quiet', '0')
            r('SLOWLOG', 'RESET')
            for _ in range(args.rounds):
                for rev in versions:
                    got = r('EVALSHA', by[('acquire', rev)], 1, 'p:epoch', 'p:', 10000, 'session', 'lock')
                    if got[1] != 1:
                        raise SystemExit(f'{rev}: acquire was not granted: {got}')
                    r('EVALSHA', by[('release', rev)], 1, 'p:epoch', 'p:', 10000, 'session', 'lock', got[2])
            times = {}
            for entry in r('SLOWLOG', 'GET', '-1'):
                command = entry[3]
                if command[0].upper() == b'EVALSHA' and command[1] in sha:
                    times.setdefault(sha[command[1]], []).append(entry[2])
        finally:
            server.terminate()
            server.wait()
    print(f'# server time per script (SLOWLOG), microseconds, {args.rounds} alternating rounds')
    print(f'{"script":8} {"revision":12} {"median":>7} {"p10":>5} {"p90":>5}')
    for kind in ('acquire', 'release'):
        for rev in versions:
            t = sorted(times.get((kind, rev), [0]))
            print(f'{kind:8} {rev:12} {statistics.median(t):7.1f} {t[len(t) // 10]:5d} {t[len(t) * 9 // 10]:5d}')


if __name__ == '__main__':
    main()
