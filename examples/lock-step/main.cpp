// SPDX-License-Identifier: Apache-2.0
// A lock around one step (up to 10 steps), as in the seeds' "Locks": acquire(5s), ensureValid(2s), a write
// that carries the token, and the release at the end of the scope. A second client on the
// same SQLite file stands for another process: while the step runs its tryAcquire() finds
// the lock held; after the release it wins it with a higher token.
//
//   lock-step [--duration SECONDS] [--database FILE]
#include "qsimbaexample.h"

#include <qsimbaerror.h>
#include <qsimbalock.h>
#include <qsimbalockterm.h>

#include <QtCore/QDeadlineTimer>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

using namespace std::chrono_literals;
using QSimbaExample::say;

namespace {

//! The protected resource: an invoice row that keeps the highest token that wrote it.
bool writeInvoice(QSqlDatabase db, int step, qint64 token)
{
    QSqlQuery q(db);
    q.prepare(QStringLiteral("UPDATE invoices SET amount = :amount, fence = :token "
                             "WHERE id = 'invoice-42' AND fence <= :token"));
    q.bindValue(QStringLiteral(":amount"), 100 * step);
    q.bindValue(QStringLiteral(":token"), token);
    if (!q.exec())
        qFatal("write failed: %s", qPrintable(q.lastError().text()));
    return q.numRowsAffected() == 1;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A distributed lock around a step"));
    parser.addOption(QSimbaExample::durationOption(QStringLiteral("2")));
    QTemporaryDir dir;
    const QString path = QSimbaExample::processCommandLine(parser, app, dir, QStringLiteral("lock-step.db"));
    const auto duration = QSimbaExample::duration(parser);
    auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"));
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=2000"));
    if (!db.open())
        qFatal("cannot open %s", qPrintable(path));
    QSqlQuery(db).exec(QStringLiteral("CREATE TABLE IF NOT EXISTS invoices (id TEXT PRIMARY KEY, "
                                      "amount INTEGER NOT NULL, fence INTEGER NOT NULL)"));
    QSqlQuery(db).exec(QStringLiteral("INSERT OR IGNORE INTO invoices VALUES ('invoice-42', 0, 0)"));

    auto simba = QSimbaExample::sqliteClient(path, QStringLiteral("worker"));
    auto other = QSimbaExample::sqliteClient(path, QStringLiteral("other-process"));
    QSimbaLock *lock = simba->lock(QStringLiteral("invoice-42"));
    QSimbaLock *otherLock = other->lock(QStringLiteral("invoice-42"));

    int failures = 0;
    int step = 0;
    QDeadlineTimer deadline(duration);
    do {
        ++step;
        try {
            // The step: the term is the credential, released when it leaves the scope.
            QSimbaLockTerm term = lock->acquire(5s);
            term.ensureValid(200ms); // do not start a step the term cannot cover
            const bool written = writeInvoice(db, step, term.token());
            say(QStringLiteral("step %1: token %2, invoice-42 %3")
                    .arg(step)
                    .arg(term.token())
                    .arg(written ? QStringLiteral("written") : QStringLiteral("REJECTED")));
            failures += !written;
            const bool heldElsewhere = !otherLock->tryAcquire().has_value();
            say(QStringLiteral("step %1: the other process's tryAcquire: %2")
                    .arg(step)
                    .arg(heldElsewhere ? QStringLiteral("held elsewhere") : QStringLiteral("WON (two holders)")));
            failures += !heldElsewhere;
        } catch (const QSimbaLockTimeoutError &e) {
            say(QStringLiteral("step %1: %2").arg(step).arg(e.message()));
            ++failures;
        } catch (const QSimbaTermExpiredError &e) {
            say(QStringLiteral("step %1: skipped, %2").arg(step).arg(e.message()));
        }
        // Released: the other process wins the lock with a higher token.
        if (auto taken = otherLock->tryAcquire()) {
            say(QStringLiteral("step %1: released; the other process took it with token %2")
                    .arg(step)
                    .arg(taken->token()));
        } else {
            say(QStringLiteral("step %1: the other process could not take the released lock").arg(step));
            ++failures;
        }
    } while (!deadline.hasExpired() && step < 10);

    QSqlQuery q(db);
    q.exec(QStringLiteral("SELECT amount, fence FROM invoices WHERE id = 'invoice-42'"));
    q.next();
    say(QStringLiteral("%1 steps; invoice-42: amount %2, fence %3, %4 failures")
            .arg(step)
            .arg(q.value(0).toLongLong())
            .arg(q.value(1).toLongLong())
            .arg(failures));
    return failures == 0 ? 0 : 1;
}
