// SPDX-License-Identifier: Apache-2.0
// The README's minimal election, compiled and run by CTest (tst_readme_election) so that the
// README never shows code that does not work. Keep the two in sync.
#include <qsimba.h>
#include <qsimbamemoryleasebackend.h>

#include <QCoreApplication>
#include <QTimer>

using namespace std::chrono_literals;

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    auto simba = QSimba::builder()
                     .backend(std::make_unique<QSimbaMemoryLeaseBackend>())
                     .config(QSimbaConfig::builder().leaseDuration(3s).build())
                     .build();
    QSimbaElection *election = simba->election(QStringLiteral("ingest"));
    QObject::connect(election, &QSimbaElection::elected, [&](const QSimbaTerm &term) {
        qInfo("elected with token %lld", term.token());
        QTimer::singleShot(100ms, [&] { (void)election->stop(); }); // hand over after a while
    });
    QObject::connect(election, &QSimbaElection::revoked, [&](const QSimbaTerm &term, QSimbaTerm::RevokeReason reason) {
        qInfo("term %lld revoked: %s", term.token(), qPrintable(QSimbaTerm::reasonName(reason)));
        app.quit();
    });
    election->start();
    return app.exec();
}
