// SPDX-License-Identifier: Apache-2.0
// Lock cycles back to back on Redis, as an application's loop runs them (and as libraries
// are compared: N acquire + release in a row), next to hiredis PINGs back to back, in
// alternating blocks of the same run so that a busy machine weighs on both alike. Unlike
// qsimba_bench_cycle and the suite, which put a raw round trip between two cycles, the next
// acquire here follows the release at once: what the client and the server still do after
// a release (a hint published to the releasing client's own subscriber, say) delays it.
// Also prints the Released hints the client received per cycle, and a PING timed right
// after a release (the disturbance a release leaves behind).
//
//   qsimba_bench_redis_loop [--cycles N] [--rounds R]
//
// The server is started with the tests' fixture (loopback, free port, temporary directory);
// locks have a 10 s lease (maxLease=10s: the recovery guard's wait, 10 s, comes once).
#include "qsimba.h"
#include "qsimbabackendmetrics.h"
#include "qsimbalock.h"
#include "qsimbalockterm.h"
#include "qsimbaredisleasebackend.h"

#include "redisserver.h"

#include <hiredis/hiredis.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>

#include <algorithm>
#include <cstdio>

using namespace std::chrono_literals;

namespace {

double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    return values.at(std::min<qsizetype>(values.size() - 1, qsizetype(p * double(values.size()))));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Redis lock cycles back to back, against hiredis PING."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("cycles"), QStringLiteral("Cycles (and PINGs) per block (default 200)."),
                      QStringLiteral("n"), QStringLiteral("200")});
    parser.addOption({QStringLiteral("rounds"), QStringLiteral("Blocks of each (default 10)."), QStringLiteral("n"),
                      QStringLiteral("10")});
    parser.process(app);
    const int cycles = std::max(10, parser.value(QStringLiteral("cycles")).toInt());
    const int rounds = std::max(1, parser.value(QStringLiteral("rounds")).toInt());

    RedisServer server;
    if (!server.start()) {
        std::fprintf(stderr, "redis-server did not start: %s\n", qPrintable(server.errorString()));
        return 69;
    }
    redisContext *raw = redisConnect("127.0.0.1", server.port());
    if (!raw || raw->err) {
        std::fprintf(stderr, "hiredis could not connect\n");
        return 69;
    }
    const auto ping = [raw] {
        auto *reply = static_cast<redisReply *>(redisCommand(raw, "PING"));
        const bool ok = reply && reply->type == REDIS_REPLY_STATUS;
        freeReplyObject(reply);
        return ok;
    };
    QUrl url = server.url();
    url.setQuery(QStringLiteral("maxLease=10s"));
    const QSimbaConfig config = QSimbaConfig::builder().leaseDuration(10s).build();
    auto simba = QSimba::builder().backend(QSimbaRedisLeaseBackend::fromUrl(url)).config(config).build();
    QSimbaLock *lock = simba->lock(QStringLiteral("bench.loop"));
    lock->acquire(60s).close(); // past the recovery guard of a new server
    for (int i = 0; i < cycles; ++i) // warm-up
        lock->acquire(5s).close();

    QList<double> cycle, pings, pingAfter;
    QElapsedTimer t;
    const quint64 hintsBefore = simba->backendMetrics()->releasedHints();
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < cycles; ++i) {
            t.start();
            lock->acquire(5s).close();
            cycle.append(double(t.nsecsElapsed()) / 1000.0);
        }
        for (int i = 0; i < cycles; ++i) {
            t.start();
            if (!ping()) {
                std::fprintf(stderr, "PING failed\n");
                return 69;
            }
            pings.append(double(t.nsecsElapsed()) / 1000.0);
        }
        for (int i = 0; i < cycles / 4; ++i) {
            lock->acquire(5s).close();
            t.start();
            if (!ping()) {
                std::fprintf(stderr, "PING failed\n");
                return 69;
            }
            pingAfter.append(double(t.nsecsElapsed()) / 1000.0);
        }
        QCoreApplication::processEvents();
    }
    const double allCycles = double(rounds) * (cycles + cycles / 4);
    const double hints = double(simba->backendMetrics()->releasedHints() - hintsBefore) / allCycles;
    std::printf("redis (%s), %d rounds of %d cycles back to back and %d PINGs back to back\n",
                qPrintable(simba->backendMetrics()->backend()), rounds, cycles, cycles);
    std::printf("  %-22s %10s %10s %10s\n", "", "median us", "p99 us", "x PING");
    const double base = std::max(0.001, percentile(pings, 0.5));
    const auto row = [&](const char *what, const QList<double> &values) {
        std::printf("  %-22s %10.1f %10.1f %10.2f\n", what, percentile(values, 0.5), percentile(values, 0.99),
                    percentile(values, 0.5) / base);
    };
    row("loop cycle", cycle);
    row("loop PING", pings);
    row("PING after a cycle", pingAfter);
    std::printf("  Released hints received per cycle: %.2f\n", hints);
    simba->close();
    redisFree(raw);
    return 0;
}
