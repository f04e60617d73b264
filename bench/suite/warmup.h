// SPDX-License-Identifier: Apache-2.0
// Warming a server up before it is measured, and reading what ZooKeeper's server reports of
// itself (`mntr`). Header-only: the suite and the cycle bench (bench/cycle) both use it.
//
// A production server is long-running: its JIT has compiled the request paths, its caches
// are full. A benchmark that starts a fresh server and measures at once measures the
// server's warm-up too (ZooKeeper's JVM spent a third of a 3,000-cycle profile compiling).
// So rounds of the measured work — the raw client's request and write and the lock cycle,
// alternated as in the measurement, so that the ratio's baseline is warmed the same way —
// run in blocks of about a second until the medians of the last blocks agree, and each
// block is printed: how long the warm-up took and why it stopped are part of the output.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QHash>
#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>

#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace Bench {

/*!
    The answer of ZooKeeper's four-letter command \a command ("mntr") from the server at
    127.0.0.1:\a port: the server answers and closes the connection, so this reads until the
    end of the stream (at most \a timeoutMs in all). Empty when it cannot.
*/
inline QByteArray fourLetterWord(quint16 port, const char *command, int timeoutMs = 2000)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return {};
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QByteArray answer;
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0
        && ::send(fd, command, std::strlen(command), MSG_NOSIGNAL) == ssize_t(std::strlen(command))) {
        timespec start{};
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
            timespec now{};
            clock_gettime(CLOCK_MONOTONIC, &now);
            const int left = timeoutMs - int((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000);
            pollfd p{fd, POLLIN, 0};
            if (left <= 0 || ::poll(&p, 1, left) <= 0)
                break;
            char buffer[8192];
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                break; // the end of the answer (or an error)
            answer.append(buffer, qsizetype(n));
        }
    }
    ::close(fd);
    return answer;
}

//! The numeric fields of a ZooKeeper `mntr` answer ("zk_avg_latency\t0.5" lines).
inline QHash<QByteArray, double> parseMntr(const QByteArray &answer)
{
    QHash<QByteArray, double> fields;
    for (const QByteArray &line : answer.split('\n')) {
        const auto tab = line.indexOf('\t');
        bool ok = false;
        const double value = tab > 0 ? line.mid(tab + 1).trimmed().toDouble(&ok) : 0;
        if (ok)
            fields.insert(line.left(tab), value);
    }
    return fields;
}

/*!
    The server's own averages between two `mntr` answers \a before and \a after, from its
    summaries' sums and counts (whole ms per request, so averages over many requests): the
    write latency (request received → answered, `updatelatency`), the read latency and the
    transaction log's fsync. Empty when the fields are missing.
*/
inline QString mntrDelta(const QByteArray &before, const QByteArray &after)
{
    const auto b = parseMntr(before), a = parseMntr(after);
    const auto avg = [&](const char *name) {
        const QByteArray sum = QByteArray("zk_sum_") + name, cnt = QByteArray("zk_cnt_") + name;
        const double n = a.value(cnt) - b.value(cnt);
        return std::pair{n > 0 ? (a.value(sum) - b.value(sum)) / n : -1.0, qint64(n)};
    };
    const auto [write, writes] = avg("updatelatency");
    const auto [read, reads] = avg("readlatency");
    const auto [fsync, fsyncs] = avg("fsynctime");
    if (writes < 0 || !a.contains("zk_cnt_updatelatency"))
        return {};
    return QStringLiteral("server: write %1 ms (n=%2), read %3 ms (n=%4), fsync %5 ms (n=%6)")
        .arg(write, 0, 'f', 3)
        .arg(writes)
        .arg(read, 0, 'f', 3)
        .arg(reads)
        .arg(fsync, 0, 'f', 3)
        .arg(fsyncs);
}

struct WarmupResult
{
    int blocks = 0;
    qint64 rounds = 0;
    double seconds = 0;
    bool settled = false; // the medians stopped moving (else: the time ran out)
    QString summary;      // one line, for the report
};

/*!
    Runs \a round (one round of the measured work; it returns the times in ms of its parts,
    in the order of \a names) in blocks of about \a blockS seconds, printing one line per
    block on \a out with the medians of each part and, when \a serverStats is given, what it
    answers after the block (called once before the first block too: e.g. mntrDelta() of the
    server's answers before and after). Stops when, for each part, the median of the
    block medians of the last \a window blocks is within \a tolerance of that of the
    \a window blocks before (after \a minS seconds), or after \a maxS seconds. \a maxS ≤ 0:
    no warm-up.
*/
template<size_t N>
WarmupResult warmUp(const std::array<const char *, N> &names, const std::function<std::array<double, N>()> &round,
                    double minS, double maxS, FILE *out, const std::function<QString()> &serverStats = {},
                    double blockS = 1.0, int window = 3, double tolerance = 0.10)
{
    WarmupResult result;
    if (maxS <= 0) {
        result.summary = QStringLiteral("no warm-up");
        return result;
    }
    const auto nowS = [] {
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
    };
    const auto median = [](QList<double> v) {
        std::sort(v.begin(), v.end());
        return v.isEmpty() ? 0.0 : v.at(v.size() / 2);
    };
    const double started = nowS();
    QList<std::array<double, N>> medians; // per block
    std::fprintf(out, "warm-up: blocks of %.1f s until the medians of the last %d blocks agree with those of the "
                      "%d before within %.0f %% (at least %.0f s, at most %.0f s)\n",
                 blockS, window, window, tolerance * 100, minS, maxS);
    if (serverStats)
        serverStats();
    for (;;) {
        std::array<QList<double>, N> times;
        const double blockStart = nowS();
        qint64 n = 0;
        while (nowS() - blockStart < blockS) {
            const auto t = round();
            for (size_t i = 0; i < N; ++i)
                times[i].append(t[i]);
            ++n;
        }
        result.rounds += n;
        ++result.blocks;
        std::array<double, N> m{};
        QStringList parts;
        for (size_t i = 0; i < N; ++i) {
            m[i] = median(times[i]);
            parts.append(QStringLiteral("%1 %2 ms").arg(QLatin1String(names[i])).arg(m[i], 0, 'f', 3));
        }
        medians.append(m);
        const QString server = serverStats ? serverStats() : QString();
        result.seconds = nowS() - started;
        std::fprintf(out, "  warm-up block %d (%.1f s, %lld rounds): %s%s%s\n", result.blocks, result.seconds,
                     qint64(n), qPrintable(parts.join(QStringLiteral(", "))), server.isEmpty() ? "" : "; ",
                     qPrintable(server));
        std::fflush(out);
        if (medians.size() >= 2 * window && result.seconds >= minS) {
            // The median of the last window's block medians against that of the window
            // before (medians of medians: a block that a busy machine slowed weighs little).
            bool settled = true;
            for (size_t i = 0; i < N; ++i) {
                QList<double> last, before;
                for (qsizetype b = medians.size() - 2 * window; b < medians.size(); ++b)
                    (b < medians.size() - window ? before : last).append(medians[b][i]);
                const double a = median(last), b = median(before);
                settled = settled && std::max(a, b) <= std::min(a, b) * (1 + tolerance);
            }
            if (settled) {
                result.settled = true;
                break;
            }
        }
        if (result.seconds >= maxS)
            break;
    }
    result.summary = QStringLiteral("warm-up %1 s, %2 rounds in %3 blocks, %4")
                         .arg(result.seconds, 0, 'f', 1)
                         .arg(result.rounds)
                         .arg(result.blocks)
                         .arg(result.settled ? QStringLiteral("settled") : QStringLiteral("stopped at the limit"));
    std::fprintf(out, "%s\n", qPrintable(result.summary));
    std::fflush(out);
    return result;
}

} // namespace Bench
