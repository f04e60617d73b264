// SPDX-License-Identifier: Apache-2.0
// withLock with QCoro: two workers, each a coroutine on its own client (standing for two
// processes) on one SQLite file, take turns holding the lock "invoice-42" without blocking
// the thread. Each section writes with the fencing token; the program checks that no two
// sections overlapped and that tokens only grew.
//
//   coroutine-lock [--sections COUNT] [--database FILE]
#include "qsimbaexample.h"

#include <qsimbacoro.h>
#include <qsimbaerror.h>

#include <QCoro/QCoroTimer>

using namespace std::chrono_literals;
using QSimbaExample::say;

namespace {

// Everything runs on the main thread: the coroutines resume from its event loop.
struct Shared
{
    int inside = 0;       // sections running now
    int sections = 0;
    int overlaps = 0;
    qint64 fence = 0;     // the protected resource keeps the highest token it accepted
    int rejected = 0;
    int workersDone = 0;
    int failures = 0;
};

QCoro::Task<> worker(QString label, QSimbaLock *lock, int sections, Shared *shared)
{
    for (int done = 0; done < sections;) {
        // The block: named, since g++ 12 destroys a lambda temporary in a co_await twice.
        auto section = [&](QSimbaLockTerm &term) -> QCoro::Task<qint64> {
            term.ensureValid(200ms); // do not start a section the term cannot cover
            if (++shared->inside > 1)
                ++shared->overlaps;
            say(QStringLiteral("%1: holds %2 with token %3").arg(label, term.name().toString()).arg(term.token()));
            co_await QCoro::sleepFor(100ms); // the work, suspended: the thread stays free
            if (term.token() >= shared->fence)
                shared->fence = term.token();
            else
                ++shared->rejected;
            --shared->inside;
            co_return term.token();
        };
        try {
            const qint64 token = co_await QSimbaCoro::withLock(lock, 5s, std::move(section));
            ++shared->sections;
            ++done;
            say(QStringLiteral("%1: released token %2").arg(label).arg(token));
        } catch (const QSimbaError &e) {
            say(QStringLiteral("%1: %2").arg(label, e.message()));
            ++shared->failures;
            break;
        }
    }
    ++shared->workersDone;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("withLock with QCoro coroutines"));
    parser.addOption({QStringLiteral("sections"), QStringLiteral("Sections each worker runs."), QStringLiteral("count"),
                      QStringLiteral("3")});
    QTemporaryDir dir;
    const QString path = QSimbaExample::processCommandLine(parser, app, dir, QStringLiteral("coroutine-lock.db"));
    const int sections = parser.value(QStringLiteral("sections")).toInt();

    auto a = QSimbaExample::sqliteClient(path, QStringLiteral("worker-a"));
    auto b = QSimbaExample::sqliteClient(path, QStringLiteral("worker-b"));
    Shared shared;
    worker(QStringLiteral("worker-a"), a->lock(QStringLiteral("invoice-42")), sections, &shared);
    worker(QStringLiteral("worker-b"), b->lock(QStringLiteral("invoice-42")), sections, &shared);
    while (shared.workersDone < 2)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);

    say(QStringLiteral("%1 sections, %2 overlapping, %3 with a stale token; highest token %4")
            .arg(shared.sections)
            .arg(shared.overlaps)
            .arg(shared.rejected)
            .arg(shared.fence));
    return shared.failures == 0 && shared.sections == 2 * sections && shared.overlaps == 0 && shared.rejected == 0 ? 0 : 1;
}
