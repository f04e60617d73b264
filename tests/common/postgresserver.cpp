// SPDX-License-Identifier: Apache-2.0
#include "postgresserver.h"

#include <QtCore/QDir>
#include <QtCore/QFile>

#include <csignal>
#include <cstdio>

namespace {
// The newest installed PostgreSQL's binaries.
QString postgresBin()
{
    QDir root(QStringLiteral("/usr/lib/postgresql"));
    QStringList versions = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(versions.begin(), versions.end(), [](const QString &a, const QString &b) { return a.toInt() < b.toInt(); });
    return versions.isEmpty() ? QString() : root.filePath(versions.last() + QStringLiteral("/bin"));
}

QStringList asPostgres(const QString &program, const QStringList &args)
{
    // --pdeathsig: a change of user clears the parent-death signal TestServer::launch sets,
    // so setpriv sets it again after the change.
    return QStringList{QStringLiteral("--reuid=postgres"), QStringLiteral("--regid=postgres"),
                       QStringLiteral("--init-groups"), QStringLiteral("--pdeathsig=KILL"), program}
           + args;
}
} // namespace

PostgresServer::PostgresServer() : TestServer(QStringLiteral("postgres")), m_bin(postgresBin()) {}

void PostgresServer::setTls(const QString &cert, const QString &key, const QString &ca)
{
    m_tls = {cert, key, ca};
}

// Copies the TLS files where the postgres user can read them, writes a pg_hba.conf that
// allows TCP only with TLS, and adds the ssl settings to \a args.
bool PostgresServer::installTls(const QString &data, QStringList *args)
{
    const QStringList names{QStringLiteral("server.crt"), QStringLiteral("server.key"), QStringLiteral("ca.crt")};
    for (int i = 0; i < 3; ++i) {
        const QString target = dir() + QLatin1Char('/') + names.at(i);
        QFile::remove(target);
        if (!QFile::copy(m_tls.at(i), target))
            return fail(QStringLiteral("cannot copy %1 to %2").arg(m_tls.at(i), target));
    }
    QFile::setPermissions(dir() + QStringLiteral("/server.key"), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    QFile hba(data + QStringLiteral("/pg_hba.conf"));
    if (!hba.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return fail(QStringLiteral("cannot write ") + hba.fileName());
    hba.write(QStringLiteral("local all all trust\n"
                             "hostssl all %1 127.0.0.1/32 scram-sha-256 clientcert=verify-full\n"
                             "hostssl all all 127.0.0.1/32 scram-sha-256\n")
                  .arg(tlsUser())
                  .toUtf8());
    hba.close();
    QString output;
    if (run(QStringLiteral("chown"), {QStringLiteral("-R"), QStringLiteral("postgres:postgres"), dir()}, &output) != 0)
        return fail(QStringLiteral("chown failed: ") + output);
    *args << QStringLiteral("-c") << QStringLiteral("ssl=on") << QStringLiteral("-c")
          << QStringLiteral("ssl_cert_file=") + dir() + QStringLiteral("/server.crt") << QStringLiteral("-c")
          << QStringLiteral("ssl_key_file=") + dir() + QStringLiteral("/server.key") << QStringLiteral("-c")
          << QStringLiteral("ssl_ca_file=") + dir() + QStringLiteral("/ca.crt");
    return true;
}

PostgresServer::~PostgresServer()
{
    stop(); // the base's destructor would stop it the slow way
}

QUrl PostgresServer::url(const QString &query) const
{
    QUrl u(QStringLiteral("postgresql://%1:%2@127.0.0.1:%3/%4").arg(user(), password()).arg(port()).arg(database()));
    if (!query.isEmpty())
        u.setQuery(query);
    return u;
}

int PostgresServer::psql(const QString &sql, QString *output, const QString &db) const
{
    return run(m_bin + QStringLiteral("/psql"),
               {QStringLiteral("-h"), dir(), QStringLiteral("-p"), QString::number(port()), QStringLiteral("-U"),
                QStringLiteral("postgres"), QStringLiteral("-d"), db.isEmpty() ? database() : db, QStringLiteral("-v"),
                QStringLiteral("ON_ERROR_STOP=1"), QStringLiteral("-qAt"), QStringLiteral("-c"), sql},
               output);
}

bool PostgresServer::start()
{
    if (m_bin.isEmpty())
        return fail(QStringLiteral("no PostgreSQL under /usr/lib/postgresql (install the postgresql package)"));
    if (!m_dir.isValid())
        return fail(QStringLiteral("cannot create a temporary directory: ") + m_dir.errorString());
    QString output;
    if (run(QStringLiteral("chown"), {QStringLiteral("postgres:postgres"), dir()}, &output) != 0)
        return fail(QStringLiteral("chown postgres %1 failed: %2").arg(dir(), output));
    const QString data = dir() + QStringLiteral("/data");
    if (run(QStringLiteral("setpriv"),
            asPostgres(m_bin + QStringLiteral("/initdb"),
                       {QStringLiteral("-D"), data, QStringLiteral("-U"), QStringLiteral("postgres"),
                        QStringLiteral("--auth-local=trust"), QStringLiteral("--auth-host=scram-sha-256"),
                        QStringLiteral("-E"), QStringLiteral("UTF8"), QStringLiteral("--no-sync")}),
            &output)
        != 0)
        return fail(QStringLiteral("initdb failed: ") + output);
    const QString portText = QString::number(port());
    QStringList serverArgs{QStringLiteral("-D"), data, QStringLiteral("-p"), portText, QStringLiteral("-k"), dir(),
                           QStringLiteral("-c"), QStringLiteral("listen_addresses=127.0.0.1"), QStringLiteral("-c"),
                           QStringLiteral("fsync=off"), QStringLiteral("-c"), QStringLiteral("synchronous_commit=off"),
                           QStringLiteral("-c"), QStringLiteral("full_page_writes=off"),
                           // Evidence for a test that fails on a stalled call: the server's
                           // slow statements and lock waits, reported by stop().
                           QStringLiteral("-c"), QStringLiteral("log_min_duration_statement=500"),
                           QStringLiteral("-c"), QStringLiteral("log_lock_waits=on"),
                           QStringLiteral("-c"), QStringLiteral("log_connections=on"),
                           QStringLiteral("-c"), QStringLiteral("log_line_prefix=%m [%p] ")};
    if (!m_tls.isEmpty() && !installTls(data, &serverArgs))
        return false;
    const bool ready = launch(
        QStringLiteral("setpriv"),
        asPostgres(m_bin + QStringLiteral("/postgres"), serverArgs),
        [&] {
            return run(m_bin + QStringLiteral("/pg_isready"),
                       {QStringLiteral("-q"), QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"), portText})
                   == 0;
        });
    if (!ready)
        return false;
    QString setup = QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'").arg(user(), password());
    if (!m_tls.isEmpty())
        setup += QStringLiteral("; CREATE ROLE %1 LOGIN PASSWORD '%2' IN ROLE %3").arg(tlsUser(), password(), user());
    QStringList args{QStringLiteral("-h"), dir(), QStringLiteral("-p"), portText, QStringLiteral("-U"),
                     QStringLiteral("postgres"), QStringLiteral("-d"), QStringLiteral("postgres"),
                     QStringLiteral("-v"), QStringLiteral("ON_ERROR_STOP=1"), QStringLiteral("-q"),
                     QStringLiteral("-c"), setup, QStringLiteral("-c"),
                     QStringLiteral("CREATE DATABASE %1 OWNER %2").arg(database(), user())};
    if (run(m_bin + QStringLiteral("/psql"), args, &output) != 0) {
        stop();
        return fail(QStringLiteral("creating the role and database failed: ") + output);
    }
    return true;
}

void PostgresServer::stop()
{
    reportSlowStatements();
    // SIGINT is PostgreSQL's fast shutdown: it does not wait for clients to disconnect.
    if (m_process && m_process->state() == QProcess::Running) {
        ::kill(pid_t(m_process->processId()), SIGINT);
        m_process->waitForFinished(10000);
    }
    TestServer::stop();
}

void PostgresServer::reportSlowStatements() const
{
    QFile log(logPath());
    if (!isRunning() || !log.open(QIODevice::ReadOnly))
        return;
    int reported = 0;
    while (!log.atEnd() && reported < 40) {
        const QByteArray line = log.readLine().trimmed();
        if (line.contains(" duration: ") || line.contains("still waiting for") || line.contains(" acquired ")
            || line.contains("idle-in-transaction")) {
            qInfo("postgres (port %d): %s", int(port()), line.constData());
            ++reported;
        }
    }
}

void PostgresServer::reportOnAbort() const
{
    // About the last 40 lines (a line of this log is 60-150 bytes).
    const QString tail = logTail(6000);
    fprintf(stderr, "--- the end of the PostgreSQL test server's log (port %d) ---\n%s\n", int(port()),
            qPrintable(tail.size() < 6000 ? tail : tail.mid(tail.indexOf(QLatin1Char('\n')) + 1))); // whole lines
}
