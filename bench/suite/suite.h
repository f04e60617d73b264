// SPDX-License-Identifier: Apache-2.0
// The benchmark suite's shared parts: the clock, sample statistics, the raw clients (the
// baselines) and the worker processes.
#pragma once

#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <algorithm>
#include <memory>

#include <time.h>

namespace Bench {

//! CLOCK_MONOTONIC in ns: one clock for every process of the machine, so that the times a
//! worker reports compare with the parent's.
inline qint64 monoNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

//! Samples in ms.
struct Samples
{
    QList<double> ms;
    void add(double v) { ms.append(v); }
    qsizetype size() const { return ms.size(); }
    //! Nearest rank; 0 when empty.
    double percentile(double p) const
    {
        if (ms.isEmpty())
            return 0;
        QList<double> s = ms;
        std::sort(s.begin(), s.end());
        const auto rank = qsizetype(p * double(s.size()) + 0.999999) - 1;
        return s.at(std::clamp<qsizetype>(rank, 0, s.size() - 1));
    }
    double median() const { return percentile(0.5); }
    double p99() const { return percentile(0.99); }
};

//! A raw client of one backend's server: the round trips the figures are divided by.
class RawClient
{
public:
    virtual ~RawClient() = default;
    //! "SELECT 1", "PING", "exists", "get": the cheapest request.
    virtual QString readName() const = 0;
    //! "UPDATE" (autocommit), "SET", "set", "put": the cheapest durable write.
    virtual QString writeName() const = 0;
    //! Each throws std::runtime_error when the server does not answer as expected.
    virtual void read() = 0;
    virtual void write() = 0;
};

//! The raw client for \a backend ("sqlite", "postgres", …) from the server's parameters:
//! host:port (or the SQLite file), user, password, database.
std::unique_ptr<RawClient> makeRawClient(const QString &backend, const QString &where, const QString &user,
                                         const QString &password, const QString &database);

//! Runs a worker (the suite re-executed with --worker KIND): reads commands on stdin, writes
//! reports on stdout; returns the exit code.
int runWorker(const QString &kind, const QString &url, const QStringList &args);

} // namespace Bench
