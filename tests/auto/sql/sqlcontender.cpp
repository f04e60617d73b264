// SPDX-License-Identifier: Apache-2.0
// A contending process for tst_sqlcontention (not a test by itself):
//   qsimba_sqlcontender URL NAME RUN_MS LEASE_MS SEED [MIN_TERMS]
// Contends for lease NAME through the SPI for RUN_MS — and on, for up to 20 s more, until it
// has held MIN_TERMS terms (0 by default), so that a starved machine still sees contention —
// timing its session as the engine does,
// and prints each term it held as "HELD <start> <end> <token>" in CLOCK_MONOTONIC
// nanoseconds (one clock for every process of the host). A term starts when the Granted
// answer arrives and ends at its release or at the session's local deadline
// t_send + remaining × (1 − 0.01) − 50 ms, whichever is first. Now and then it "crashes":
// abandons its session without releasing, and holds its term until that deadline.
//   qsimba_sqlcontender hold URL NAME LEASE_MS
// Takes NAME, prints "HELD <token>" and keeps its session alive until it is killed.
#include "qsimbaerror.h"
#include "qsimbasqlleasebackend.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QEventLoop>
#include <QtCore/QTextStream>
#include <QtCore/QTimer>

#include <random>
#include <time.h>

using namespace std::chrono;
using namespace std::chrono_literals;

namespace {
qint64 monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

qint64 localDeadline(qint64 sent, milliseconds remaining)
{
    return sent + qint64(double(duration_cast<nanoseconds>(remaining).count()) * (1 - 0.01)) - 50'000'000;
}

// Lets real time pass on the event loop until \a at.
void waitUntil(qint64 at)
{
    const qint64 ms = (at - monotonicNs()) / 1'000'000;
    if (ms <= 0)
        return;
    QEventLoop loop;
    QTimer::singleShot(int(ms), Qt::PreciseTimer, &loop, &QEventLoop::quit);
    loop.exec();
}

struct Term
{
    qint64 start;
    qint64 token;
    qint64 releaseAt;
};
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() == 5 && args.at(1) == QLatin1String("hold")) {
        // qsimba_sqlcontender hold URL NAME LEASE_MS: takes NAME, prints "HELD <token>", keeps
        // the session alive until killed.
        const auto backend = QSimbaSqlLeaseBackend::fromUrl(QUrl(args.at(2)));
        const auto name = QSimbaLeaseName::of(args.at(3));
        const milliseconds lease(args.at(4).toLongLong());
        try {
            const auto session = backend->openSession(lease).id;
            const auto r = backend->acquire(session, {name}).value(name);
            if (!r.isGranted) {
                QTextStream(stderr) << "hold: " << args.at(3) << " is held by " << r.holder.toString() << '\n';
                return 1;
            }
            QTextStream(stdout) << "HELD " << r.token << Qt::endl;
            for (;;) {
                QEventLoop loop;
                QTimer::singleShot(lease / 3, Qt::PreciseTimer, &loop, &QEventLoop::quit);
                loop.exec();
                backend->keepAlive(session, lease, {name});
            }
        } catch (const QSimbaError &e) {
            QTextStream(stderr) << "hold: " << e.message() << '\n';
            return 1;
        }
    }
    if (args.size() != 6 && args.size() != 7) {
        QTextStream(stderr) << "usage: qsimba_sqlcontender URL NAME RUN_MS LEASE_MS SEED [MIN_TERMS]\n";
        return 2;
    }
    const auto backend = QSimbaSqlLeaseBackend::fromUrl(QUrl(args.at(1)));
    const auto name = QSimbaLeaseName::of(args.at(2));
    const qint64 end = monotonicNs() + args.at(3).toLongLong() * 1'000'000;
    const qint64 hardEnd = end + 20'000'000'000;
    const int minTerms = args.size() == 7 ? args.at(6).toInt() : 0;
    int held = 0;
    const milliseconds lease(args.at(4).toLongLong());
    std::mt19937 random(args.at(5).toUInt());
    const auto between = [&](int lowMs, int highMs) {
        return qint64(std::uniform_int_distribution<int>(lowMs, highMs)(random)) * 1'000'000;
    };
    const qint64 renew = duration_cast<nanoseconds>(lease).count() / 3;

    QTextStream out(stdout);
    QTextStream err(stderr);
    std::optional<QSimbaSessionId> session;
    std::optional<Term> term;
    qint64 deadline = 0, nextKeepAlive = 0, nextTry = 0;
    int errors = 0;
    const auto endTerm = [&](qint64 at) {
        if (term && std::min(at, deadline) > term->start) {
            out << "HELD " << term->start << ' ' << std::min(at, deadline) << ' ' << term->token << '\n';
            ++held;
        }
        term.reset();
    };

    while (monotonicNs() < end || (held < minTerms && monotonicNs() < hardEnd)) {
        try {
            if (!session) {
                const qint64 sent = monotonicNs();
                const auto grant = backend->openSession(lease);
                session = grant.id;
                deadline = localDeadline(sent, grant.remaining);
                nextKeepAlive = sent + renew;
            }
            if (term && monotonicNs() >= deadline)
                endTerm(deadline);
            if (monotonicNs() >= nextKeepAlive) {
                const qint64 sent = monotonicNs();
                const auto k = backend->keepAlive(*session, lease, term ? QSet<QSimbaLeaseName>{name} : QSet<QSimbaLeaseName>{});
                if (!k.isLive) {
                    endTerm(monotonicNs());
                    session.reset();
                    continue;
                }
                deadline = localDeadline(sent, k.remaining);
                nextKeepAlive = sent + renew;
                if (term && !k.owned.contains(name)) {
                    out << "TAKEN_OVER " << term->token << '\n';
                    endTerm(monotonicNs());
                }
            }
            if (term && monotonicNs() >= term->releaseAt) {
                if (random() % 4 == 0) {
                    endTerm(deadline); // a crash: the lease stays until the session expires
                    session.reset();
                    continue;
                }
                const qint64 token = term->token;
                endTerm(monotonicNs());
                backend->release(*session, {{name, token}});
            }
            if (!term && monotonicNs() >= nextTry) {
                const auto r = backend->acquire(*session, {name}).value(name);
                const qint64 answered = monotonicNs();
                if (r.isGranted && answered < deadline)
                    term = Term{answered, r.token, answered + between(20, 80)};
                else if (r.isGranted)
                    backend->release(*session, {{name, r.token}});
                nextTry = answered + between(5, 25);
            }
        } catch (const QSimbaSessionExpiredError &) {
            endTerm(monotonicNs());
            session.reset();
        } catch (const QSimbaBackendError &e) {
            // A failed call changes nothing locally: the term lasts until the deadline at most.
            ++errors;
            err << "backend error: " << e.message() << '\n';
            nextTry = monotonicNs() + between(5, 25);
        }
        waitUntil(std::min({nextKeepAlive, term ? std::min(term->releaseAt, deadline) : nextTry}));
    }
    try {
        if (term) {
            const qint64 token = term->token;
            endTerm(monotonicNs());
            backend->release(*session, {{name, token}});
        }
        if (session)
            backend->closeSession(*session);
    } catch (const QSimbaError &e) {
        err << "closing: " << e.message() << '\n';
    }
    out << "ERRORS " << errors << '\n';
    return 0;
}
