// SPDX-License-Identifier: Apache-2.0
// How fast one client runs the SQL backend's calls, on SQLite and on the PostgreSQL and
// MariaDB servers of the test fixtures (loopback, temporary data directories):
//   qsimba_sqlbench [CALLS]          (default 300 calls per measurement)
// For each database it prints the mean time of keepAlive and of a lock cycle (acquire of one
// name, then its release) and, on MariaDB, the statements each takes (the server's
// Questions counter). Every call of every client of a prefix holds one row lock for its
// statements, so the time per call bounds the prefix's call rate across all clients.
#include "mariadbserver.h"
#include "postgresserver.h"
#include "qsimbaerror.h"
#include "qsimbasqlleasebackend.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QTemporaryDir>

#include <cstdio>
#include <functional>

using namespace std::chrono_literals;
using Backend = QSimbaSqlLeaseBackend;

namespace {
struct Figure
{
    double meanUs;
    double statements; // per call; < 0: not measured
};

// Runs \a call \a n times after a warm-up; \a counter (may be empty) reads a statement counter.
Figure measure(int n, const std::function<void()> &call, const std::function<qint64()> &counter)
{
    for (int i = 0; i < 20; ++i)
        call();
    const qint64 before = counter ? counter() : 0;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < n; ++i)
        call();
    const double us = double(timer.nsecsElapsed()) / 1e3 / n;
    // The counter's own query counts once.
    const double statements = counter ? double(counter() - before - 1) / n : -1;
    return {us, statements};
}

void run(const char *database, const QUrl &url, int n, const std::function<qint64()> &counter = {})
{
    const auto b = Backend::fromUrl(url);
    const auto s = b->openSession(60s).id;
    const auto x = QSimbaLeaseName::of(QStringLiteral("bench"));
    const Figure keepAlive = measure(n, [&] { b->keepAlive(s, 60s, {}); }, counter);
    const Figure cycle = measure(n, [&] { b->release(s, {{x, b->acquire(s, {x}).value(x).token}}); }, counter);
    b->closeSession(s);
    std::printf("%-10s keepAlive %7.0f us (%5.0f/s)", database, keepAlive.meanUs, 1e6 / keepAlive.meanUs);
    if (keepAlive.statements >= 0)
        std::printf(" %4.1f statements", keepAlive.statements);
    std::printf("   lock cycle (acquire+release) %7.0f us (%5.0f/s)", cycle.meanUs, 1e6 / cycle.meanUs);
    if (cycle.statements >= 0)
        std::printf(" %4.1f statements", cycle.statements);
    std::printf("\n");
    std::fflush(stdout);
}
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int n = argc > 1 ? std::max(1, QByteArray(argv[1]).toInt()) : 300;
    std::printf("%d calls per figure, one client, loopback\n", n);
    try {
        QTemporaryDir dir;
        run("sqlite", QUrl(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("bench.db"))), n);
        PostgresServer postgres;
        if (!postgres.start()) {
            std::fprintf(stderr, "PostgreSQL did not start: %s\n", qPrintable(postgres.errorString()));
            return 1;
        }
        run("postgresql", postgres.url(), n);
        postgres.stop();
        MariaDbServer mariadb;
        if (!mariadb.start()) {
            std::fprintf(stderr, "MariaDB did not start: %s\n", qPrintable(mariadb.errorString()));
            return 1;
        }
        run("mariadb", mariadb.url(), n, [&] {
            QString output;
            mariadb.sql(QStringLiteral("SHOW GLOBAL STATUS LIKE 'Questions'"), &output);
            return output.section(QLatin1Char('\t'), 1).trimmed().toLongLong();
        });
    } catch (const QSimbaError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
