// SPDX-License-Identifier: Apache-2.0
// Runs the QML tests of the module QSimba: every tst_*.qml of this directory. The store
// (QSIMBA_TEST_STORE: memory or sqlite) is handed to the QML as simbaTestBackend, one URL that
// both clients of a test share. The default client is configured as an application would:
// through SIMBA_* environment variables, one of them with a ${VAR:default} placeholder.
#include <qsimbapartitionassignment.h>

#include <QtCore/QTemporaryDir>
#include <QtQml/QQmlContext>
#include <QtQml/QQmlEngine>
#include <QtQuickTest/quicktest.h>

#include <vector>

// What rendezvous hashing assigns, for the QML tests' checks (simbaTestHashing).
class Hashing : public QObject
{
    Q_OBJECT
public:
    //! The partitions of [0, partitions) that \a member owns among \a members (session ids).
    Q_INVOKABLE QList<int> partitionsOf(const QString &member, int partitions, const QStringList &members) const
    {
        QList<QSimbaSessionId> ids;
        for (const auto &m : members)
            ids.append(QSimbaSessionId::of(m));
        const auto owned = QSimbaPartitionAssignment::partitionsOf(QSimbaSessionId::of(member), partitions, ids);
        QList<int> out(owned.cbegin(), owned.cend());
        std::sort(out.begin(), out.end());
        return out;
    }
};

class Setup : public QObject
{
    Q_OBJECT
public:
    Setup()
    {
        const QByteArray store = qgetenv("QSIMBA_TEST_STORE");
        if (store == "sqlite")
            m_backend = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("qml.db"));
        else
            m_backend = QStringLiteral("memory://qml-tests");
        // The default client: a backend of its own, a short lease from a placeholder, and
        // scheduling switched off as simba/scheduling/enabled=false would.
        qputenv("SIMBA_BACKEND", (m_backend + QStringLiteral("-default")).toUtf8());
        if (store == "sqlite")
            qputenv("SIMBA_BACKEND", (QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("default.db"))).toUtf8());
        qunsetenv("QSIMBA_TEST_LEASE");
        qputenv("SIMBA_LEASE_DURATION", "${QSIMBA_TEST_LEASE:3s}");
        qputenv("SIMBA_SCHEDULING_ENABLED", "false");
    }

public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine *engine)
    {
        engine->rootContext()->setContextProperty(QStringLiteral("simbaTestBackend"), m_backend);
        engine->rootContext()->setContextProperty(QStringLiteral("simbaTestStore"),
                                                  QString::fromUtf8(qgetenv("QSIMBA_TEST_STORE")));
        engine->rootContext()->setContextProperty(QStringLiteral("simbaTestHashing"), &m_hashing);
    }

private:
    Hashing m_hashing;
    QTemporaryDir m_dir;
    QString m_backend;
};

// QUICK_TEST_MAIN_WITH_SETUP, plus the build's QML directory as an import path (-import).
int main(int argc, char **argv)
{
    QTEST_SET_MAIN_SOURCE_PATH
    std::vector<char *> args(argv, argv + argc);
    char importOption[] = "-import";
    char importDir[] = QSIMBA_QML_IMPORT_DIR;
    args.insert(args.begin() + 1, {importOption, importDir});
    Setup setup;
    return quick_test_main_with_setup(int(args.size()), args.data(), "qsimba", QUICK_TEST_SOURCE_DIR, &setup);
}

#include "tst_qml.moc"
