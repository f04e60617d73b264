// SPDX-License-Identifier: Apache-2.0
// An outside program built against the installed package: CamelCase headers, a client on the
// URL factory's in-memory backend, one election won and stopped through its signals.
#include <QSimba/QSimba>
#include <QSimba/QSimbaBackendFactory>
#include <QSimba/QSimbaConfig>
#include <QSimba/QSimbaElection>

#include <QtCore/QCoreApplication>
#include <QtCore/QTimer>

#include <cstdio>

int main(int argc, char **argv)
{
    using namespace std::chrono_literals;
    QCoreApplication app(argc, argv);
    auto simba = QSimba::builder()
                     .backend(QSimbaBackendFactory::create(QStringLiteral("memory://consumer")))
                     .config(QSimbaConfig::builder().leaseDuration(3s).build())
                     .build();
    QSimbaElection *election = simba->election(QStringLiteral("consumer"));
    QObject::connect(election, &QSimbaElection::elected, &app, [&](const QSimbaTerm &term) {
        std::printf("consumer: granted token %lld\n", term.token());
        (void)election->stop();
    });
    QObject::connect(election, &QSimbaElection::revoked, &app,
                     [&](const QSimbaTerm &, QSimbaTerm::RevokeReason reason) {
                         std::printf("consumer: revoked %s\n", qPrintable(QSimbaTerm::reasonName(reason)));
                         app.quit();
                     });
    QTimer::singleShot(10s, &app, [&] { app.exit(1); });
    election->start();
    return app.exec();
}
