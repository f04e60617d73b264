// SPDX-License-Identifier: Apache-2.0
#include "sqltestsupport.h"

#include "testserver.h"

#include <QtTest/QTest>

namespace {
class ServerDidNotStart : public QObject
{
    Q_OBJECT
public:
    explicit ServerDidNotStart(const QString &error) : m_error(error) {}

private Q_SLOTS:
    void serverStarts() { QFAIL(qPrintable(m_error)); }

private:
    QString m_error;
};
} // namespace

int SqlTest::runWithServer(TestServer &server, QObject &test, int argc, char **argv)
{
    if (!server.start()) {
        ServerDidNotStart failure(server.errorString());
        return QTest::qExec(&failure, argc, argv);
    }
    return QTest::qExec(&test, argc, argv);
}

int SqlTest::run(QObject &test, int argc, char **argv)
{
    return QTest::qExec(&test, argc, argv);
}

#include "sqltestsupport.moc"
