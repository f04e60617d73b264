// SPDX-License-Identifier: Apache-2.0
// Several processes contend for one lease through the SPI, on one SQLite file, one
// PostgreSQL and one MariaDB database: no two processes' terms overlap in time, and tokens
// strictly increase in time order.
#include "mariadbserver.h"
#include "postgresserver.h"

#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QTemporaryDir>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

class tst_SqlContention : public QObject
{
    Q_OBJECT

    PostgresServer m_postgres;
    MariaDbServer m_mariadb;
    QTemporaryDir m_dir;

    struct Term
    {
        qint64 start, end, token;
        int process;
    };

    void contend(const QUrl &url)
    {
        constexpr int processes = 4;
        // Each process runs 3 s, and on until it held 3 terms (20 s more at most): a starved
        // machine must not make the run too short to show contention.
        constexpr int runMs = 3000, leaseMs = 300, minTerms = 3;
        std::vector<std::unique_ptr<QProcess>> running;
        for (int i = 0; i < processes; ++i) {
            auto p = std::make_unique<QProcess>();
            p->start(QStringLiteral(QSIMBA_SQL_CONTENDER),
                     {url.toString(), QStringLiteral("contended"), QString::number(runMs), QString::number(leaseMs),
                      QString::number(QRandomGenerator::global()->generate()), QString::number(minTerms)});
            running.push_back(std::move(p));
        }
        QList<Term> terms;
        int errors = 0;
        for (int i = 0; i < processes; ++i) {
            QProcess &p = *running[i];
            QVERIFY2(p.waitForFinished(runMs + 20000 + 30000), "a contender did not finish");
            const QString stderrText = QString::fromLocal8Bit(p.readAllStandardError());
            QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(stderrText));
            const auto lines = QString::fromLocal8Bit(p.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            for (const QString &line : lines) {
                const auto f = line.split(QLatin1Char(' '));
                QVERIFY2(f.first() != QLatin1String("TAKEN_OVER"), qPrintable(QStringLiteral("process %1: %2").arg(i).arg(line)));
                if (f.first() == QLatin1String("HELD"))
                    terms.append({f.at(1).toLongLong(), f.at(2).toLongLong(), f.at(3).toLongLong(), i});
                else if (f.first() == QLatin1String("ERRORS"))
                    errors += f.at(1).toInt();
            }
        }
        std::sort(terms.begin(), terms.end(), [](const Term &a, const Term &b) { return a.start < b.start; });
        QSet<int> holders;
        Term latest{0, 0, 0, -1}; // the term that ends last among those seen
        for (qsizetype i = 0; i < terms.size(); ++i) {
            const Term &t = terms.at(i);
            holders.insert(t.process);
            if (i > 0) {
                QVERIFY2(t.start >= latest.end,
                         qPrintable(QStringLiteral("process %1's term (token %2) starts %3 µs before process %4's "
                                                   "term (token %5) ends")
                                        .arg(t.process).arg(t.token).arg((latest.end - t.start) / 1000)
                                        .arg(latest.process).arg(latest.token)));
                // A holder whose keepAlive came after its local deadline ends its term there
                // while the server still counts its lease; its next acquire is granted the
                // same token again (its own lease, never another's): equal only then.
                const Term &before = terms.at(i - 1);
                QVERIFY2(t.token > before.token || (t.token == before.token && t.process == before.process),
                         qPrintable(QStringLiteral("process %1's token %2 after process %3's token %4")
                                        .arg(t.process).arg(t.token).arg(before.process).arg(before.token)));
            }
            if (t.end > latest.end)
                latest = t;
        }
        qInfo("%lld terms held by %lld of %d processes, %d failed calls", qlonglong(terms.size()),
              qlonglong(holders.size()), processes, errors);
        QVERIFY2(terms.size() >= processes * minTerms, "too little contention to show anything");
        QCOMPARE(holders.size(), processes);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_dir.isValid(), qPrintable(m_dir.errorString()));
        QVERIFY2(m_postgres.start(), qPrintable(m_postgres.errorString()));
        QVERIFY2(m_mariadb.start(), qPrintable(m_mariadb.errorString()));
    }

    void sqliteFile() { contend(QUrl(QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("contention.db")))); }
    void postgres() { contend(m_postgres.url()); }
    void mariadb() { contend(m_mariadb.url()); }
};

QSIMBA_TEST_GUILESS_MAIN(tst_SqlContention)
#include "tst_sqlcontention.moc"
