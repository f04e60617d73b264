// SPDX-License-Identifier: Apache-2.0
// The worker processes of the multi-process figures: the suite re-executed with
// --worker KIND. A worker takes one command a line on stdin and reports one line each on
// stdout, with times on CLOCK_MONOTONIC (shared by the processes of the machine):
//   contend   READY; GO → N lock cycles (fewer when --deadline-ns passes), each checked
//             against the shared record file under the lock → CYCLE acquireStart acquired
//             releaseStart released token bad …, DONE <cycles>. With --no-lock the same
//             steps without the lock (the check must then find overlaps).
//   waiter    ACQUIRE → WAITING, then ACQUIRED <t> <token> once the blocking acquire returns;
//             RELEASE → RELEASED
//   candidate START → STARTED, ELECTED <t> <token> when elected; STOP → STOPPED
//   holder    an election, started at once: ELECTED <t> <token>; LEASE <sent> <remaining ms>
//             for every answered openSession and keepAlive (the lease ends at sent +
//             remaining); waits to be killed
// Every worker answers QUIT (or the end of stdin) by closing its client and exiting.
#include "suite.h"

#include "qsimba.h"
#include "qsimbabackendfactory.h"
#include "qsimbaleasebackend.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QFile>
#include <QtCore/QMutex>

#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

using namespace std::chrono_literals;

namespace Bench {
namespace {

QMutex outputMutex;

void report(const QString &line)
{
    QMutexLocker lock(&outputMutex);
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

QString command()
{
    std::string line;
    if (!std::getline(std::cin, line))
        return QStringLiteral("QUIT");
    return QString::fromStdString(line).trimmed();
}

// Reports the lease of every answered openSession and keepAlive: the time the call was sent
// and the remaining the server granted.
class LeaseReportingBackend : public QSimbaLeaseBackend
{
public:
    explicit LeaseReportingBackend(std::unique_ptr<QSimbaLeaseBackend> inner) : m_inner(std::move(inner)) {}
    Capabilities capabilities() const override { return m_inner->capabilities(); }
    QString describe() const override { return m_inner->describe(); }
    SessionGrant openSession(Millis lease, const QMap<QString, QString> &metadata) override
    {
        const qint64 sent = monoNs();
        auto grant = m_inner->openSession(lease, metadata);
        report(QStringLiteral("LEASE %1 %2").arg(sent).arg(grant.remaining.count()));
        return grant;
    }
    KeepAliveResult keepAlive(const QSimbaSessionId &session, Millis lease, const QSet<QSimbaLeaseName> &held) override
    {
        const qint64 sent = monoNs();
        auto result = m_inner->keepAlive(session, lease, held);
        if (result.isLive)
            report(QStringLiteral("LEASE %1 %2").arg(sent).arg(result.remaining.count()));
        return result;
    }
    QHash<QSimbaLeaseName, AcquireResult> acquire(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names) override
    {
        return m_inner->acquire(session, names);
    }
    void release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases) override
    {
        m_inner->release(session, leases);
    }
    void closeSession(const QSimbaSessionId &session) override { m_inner->closeSession(session); }
    void join(const QSimbaSessionId &session, const QString &group) override { m_inner->join(session, group); }
    void leave(const QSimbaSessionId &session, const QString &group) override { m_inner->leave(session, group); }
    QList<QSimbaSessionId> members(const QString &group) override { return m_inner->members(group); }
    std::unique_ptr<Subscription> subscribe(HintListener listener) override { return m_inner->subscribe(std::move(listener)); }
    Inspection inspect() override { return m_inner->inspect(); }

private:
    std::unique_ptr<QSimbaLeaseBackend> m_inner;
};

std::unique_ptr<QSimba> client(std::unique_ptr<QSimbaLeaseBackend> backend, int leaseMs)
{
    return QSimba::builder()
        .backend(std::move(backend))
        .config(QSimbaConfig::builder().leaseDuration(std::chrono::milliseconds(leaseMs)).build())
        .callbackExecutor(QSimba::CallbackExecutor::DedicatedThread)
        .build();
}

// The shared record: the last token and whether a holder is inside. Checked and written by
// every holder under the lock; a failed check is an overlap (two holders at once, or a token
// that did not increase).
struct Record
{
    qint64 token = 0;
    qint64 busy = 0;
};

bool readRecord(int fd, Record *r)
{
    return ::pread(fd, r, sizeof *r, 0) == qint64(sizeof *r);
}

bool writeRecord(int fd, const Record &r)
{
    return ::pwrite(fd, &r, sizeof r, 0) == qint64(sizeof r);
}

int contend(QSimba &simba, const QString &name, int cycles, const QString &recordFile, qint64 deadline, bool noLock)
{
    const int fd = ::open(QFile::encodeName(recordFile).constData(), O_RDWR);
    if (fd < 0) {
        report(QStringLiteral("ERROR cannot open the record file"));
        return 1;
    }
    QSimbaLock *lock = simba.lock(name);
    report(QStringLiteral("READY"));
    if (command() != QLatin1String("GO"))
        return 0;
    struct Cycle { qint64 t0, t1, t2, t3, token; int bad; };
    QList<Cycle> done;
    done.reserve(cycles);
    for (int i = 0; i < cycles && (i < 2 || monoNs() < deadline); ++i) {
        Cycle c{};
        c.t0 = monoNs();
        QSimbaLockTerm term;
        if (!noLock)
            term = lock->acquire(60s);
        c.t1 = monoNs();
        c.token = noLock ? c.t1 : term.token();
        Record r;
        if (!readRecord(fd, &r) || r.busy != 0 || r.token >= c.token)
            ++c.bad;
        if (!writeRecord(fd, {c.token, 1}))
            ++c.bad;
        if (noLock) // the others run meanwhile
            std::this_thread::sleep_for(1ms);
        if (!noLock && !term.isValid())
            ++c.bad;
        if (!readRecord(fd, &r) || r.token != c.token || r.busy != 1)
            ++c.bad;
        if (!writeRecord(fd, {c.token, 0}))
            ++c.bad;
        c.t2 = monoNs();
        if (!noLock)
            term.close();
        c.t3 = monoNs();
        done.append(c);
    }
    ::close(fd);
    for (const Cycle &c : done)
        report(QStringLiteral("CYCLE %1 %2 %3 %4 %5 %6").arg(c.t0).arg(c.t1).arg(c.t2).arg(c.t3).arg(c.token).arg(c.bad));
    report(QStringLiteral("DONE %1").arg(done.size()));
    command(); // QUIT
    return 0;
}

int waiter(QSimba &simba, const QString &name)
{
    QSimbaLock *lock = simba.lock(name);
    QSimbaLockTerm term;
    report(QStringLiteral("READY"));
    for (;;) {
        const QString c = command();
        if (c == QLatin1String("ACQUIRE")) {
            report(QStringLiteral("WAITING %1").arg(monoNs()));
            term = lock->acquire(60s);
            report(QStringLiteral("ACQUIRED %1 %2").arg(monoNs()).arg(term.token()));
        } else if (c == QLatin1String("RELEASE")) {
            term.close();
            term = QSimbaLockTerm();
            report(QStringLiteral("RELEASED"));
        } else {
            return 0;
        }
    }
}

// Reports every term of \a election. The elected signal, connected before start() and called
// on the emitting thread: a listener given to start() can miss a term won before start()
// stored it.
void reportElected(QSimbaElection *election)
{
    QObject::connect(election, &QSimbaElection::elected,
                     [](const QSimbaTerm &term) { report(QStringLiteral("ELECTED %1 %2").arg(monoNs()).arg(term.token())); });
}

int candidate(QSimba &simba, const QString &name)
{
    QSimbaElection *election = simba.election(name);
    reportElected(election);
    report(QStringLiteral("READY"));
    for (;;) {
        const QString c = command();
        if (c == QLatin1String("START")) {
            election->start();
            report(QStringLiteral("STARTED"));
        } else if (c == QLatin1String("STOP")) {
            election->stop().waitForFinished();
            report(QStringLiteral("STOPPED"));
        } else {
            return 0;
        }
    }
}

int holder(QSimba &simba, const QString &name)
{
    QSimbaElection *election = simba.election(name);
    reportElected(election);
    election->start();
    while (command() != QLatin1String("QUIT")) {
    }
    return 0;
}

} // namespace

int runWorker(const QString &kind, const QString &url, const QStringList &args)
{
    QCommandLineParser p;
    p.addOptions({{QStringLiteral("name"), {}, QStringLiteral("name"), QStringLiteral("bench.lock")},
                  {QStringLiteral("lease-ms"), {}, QStringLiteral("ms"), QStringLiteral("10000")},
                  {QStringLiteral("cycles"), {}, QStringLiteral("n"), QStringLiteral("100")},
                  {QStringLiteral("record"), {}, QStringLiteral("file")},
                  {QStringLiteral("deadline-ns"), {}, QStringLiteral("t"), QString::number(std::numeric_limits<qint64>::max())},
                  QCommandLineOption(QStringLiteral("no-lock"))});
    if (!p.parse(QStringList{QStringLiteral("worker")} + args)) {
        report(QStringLiteral("ERROR %1").arg(p.errorText()));
        return 64;
    }
    try {
        auto backend = QSimbaBackendFactory::create(url);
        if (kind == QLatin1String("holder"))
            backend = std::make_unique<LeaseReportingBackend>(std::move(backend));
        auto simba = client(std::move(backend), p.value(QStringLiteral("lease-ms")).toInt());
        const QString name = p.value(QStringLiteral("name"));
        int rc = 64;
        if (kind == QLatin1String("contend"))
            rc = contend(*simba, name, p.value(QStringLiteral("cycles")).toInt(), p.value(QStringLiteral("record")),
                         p.value(QStringLiteral("deadline-ns")).toLongLong(), p.isSet(QStringLiteral("no-lock")));
        else if (kind == QLatin1String("waiter"))
            rc = waiter(*simba, name);
        else if (kind == QLatin1String("candidate"))
            rc = candidate(*simba, name);
        else if (kind == QLatin1String("holder"))
            rc = holder(*simba, name);
        else
            report(QStringLiteral("ERROR unknown worker %1").arg(kind));
        simba->close();
        return rc;
    } catch (const std::exception &e) {
        report(QStringLiteral("ERROR %1").arg(QString::fromUtf8(e.what()).simplified()));
        return 69;
    }
}

} // namespace Bench
