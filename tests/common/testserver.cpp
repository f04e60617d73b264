// SPDX-License-Identifier: Apache-2.0
#include "testserver.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QThread>
#include <QtNetwork/QTcpServer>

#include <csignal>
#include <exception>
#include <mutex>
#include <set>
#include <sys/prctl.h>
#include <unistd.h>


namespace {
// The servers alive in this process: an exception that leaves a test function ends the
// program in std::terminate, before any fixture's stop() could report its server's log.
std::mutex liveMutex;
std::set<const TestServer *> &liveServers()
{
    static std::set<const TestServer *> servers;
    return servers;
}
std::terminate_handler previousTerminate = nullptr;
std::once_flag terminateInstalled;

[[noreturn]] void reportAndTerminate()
{
    {
        std::lock_guard lock(liveMutex);
        for (const TestServer *server : liveServers())
            server->reportOnAbort();
    }
    if (previousTerminate)
        previousTerminate();
    std::abort();
}
} // namespace

TestServer::TestServer(const QString &name)
    : m_name(name), m_dir(QDir::tempPath() + QStringLiteral("/qsimba-") + name + QStringLiteral("-XXXXXX")),
      m_port(freePort())
{
    std::call_once(terminateInstalled, [] { previousTerminate = std::set_terminate(reportAndTerminate); });
    std::lock_guard lock(liveMutex);
    liveServers().insert(this);
}

TestServer::~TestServer()
{
    {
        std::lock_guard lock(liveMutex);
        liveServers().erase(this);
    }
    stop();
}

quint16 TestServer::freePort(const QList<quint16> &except)
{
    for (int attempt = 0; attempt < 64; ++attempt) {
        QTcpServer server;
        if (!server.listen(QHostAddress::LocalHost, 0))
            return 0;
        if (!except.contains(server.serverPort()))
            return server.serverPort();
    }
    return 0;
}

int TestServer::run(const QString &program, const QStringList &args, QString *output,
                    std::chrono::milliseconds timeout)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForStarted(int(timeout.count()))) {
        if (output)
            *output = p.errorString();
        return -1;
    }
    if (!p.waitForFinished(int(timeout.count()))) {
        p.kill();
        p.waitForFinished();
        if (output)
            *output = QStringLiteral("timed out: ") + QString::fromLocal8Bit(p.readAll());
        return -1;
    }
    if (output)
        *output = QString::fromLocal8Bit(p.readAll());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

bool TestServer::isRunning() const
{
    return m_process && m_process->state() == QProcess::Running;
}

bool TestServer::fail(const QString &message)
{
    m_error = m_name + QStringLiteral(": ") + message;
    const QString tail = logTail();
    if (!tail.isEmpty())
        m_error += QStringLiteral("\n--- log tail ---\n") + tail;
    return false;
}

QString TestServer::logPath() const
{
    return dir() + QLatin1Char('/') + m_name + QStringLiteral(".log");
}

QString TestServer::logTail(qsizetype bytes) const
{
    QFile log(logPath());
    if (!log.open(QIODevice::ReadOnly))
        return {};
    const QByteArray all = log.readAll();
    return QString::fromLocal8Bit(all.right(bytes));
}

bool TestServer::waitStopped(qint64 pid, std::chrono::milliseconds timeout)
{
    const QString tasks = QStringLiteral("/proc/%1/task").arg(pid);
    const auto allStopped = [&] {
        for (const auto &task : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            QFile stat(tasks + QLatin1Char('/') + task + QStringLiteral("/stat"));
            if (!stat.open(QIODevice::ReadOnly))
                continue; // a thread that just ended
            const QByteArray line = stat.readAll();
            const qsizetype state = line.lastIndexOf(')') + 2;
            if (state < 2 || state >= line.size() || (line[state] != 'T' && line[state] != 't'))
                return false;
        }
        return true;
    };
    QDeadlineTimer deadline(timeout);
    while (!allStopped()) {
        if (deadline.hasExpired())
            return false;
        QThread::yieldCurrentThread(); // the stop is the kernel's, on the stopped threads' CPUs
    }
    return true;
}

bool TestServer::waitUntil(const std::function<bool()> &ready, std::chrono::milliseconds timeout)
{
    QDeadlineTimer deadline(timeout);
    while (m_process && m_process->state() == QProcess::Running) {
        if (ready())
            return true;
        if (deadline.hasExpired())
            return false;
        // A server starting in another process: nothing to await but its answer, or its
        // exit, which ends the wait at once.
        m_process->waitForFinished(50);
    }
    return false;
}

bool TestServer::launch(const QString &program, const QStringList &args, const std::function<bool()> &ready,
                        std::chrono::milliseconds timeout)
{
    if (!m_dir.isValid())
        return fail(QStringLiteral("cannot create a temporary directory: ") + m_dir.errorString());
    if (m_port == 0)
        return fail(QStringLiteral("no free port on 127.0.0.1"));
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(logPath());
    // The server dies with the test: a test program that crashed or was killed (a timeout)
    // runs no destructor, and its server would stay behind. (The signal comes when the
    // thread that started the server ends: every fixture starts its servers on the test's
    // main thread.)
    const pid_t parent = ::getpid();
    m_process->setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent)
            ::_exit(1); // the test ended before the line above
    });
    m_process->start(program, args);
    if (!m_process->waitForStarted(10000))
        return fail(QStringLiteral("cannot start %1: %2").arg(program, m_process->errorString()));
    if (!waitUntil(ready, timeout)) {
        const bool exited = m_process->state() != QProcess::Running;
        stop();
        return fail(exited ? QStringLiteral("%1 exited during start-up").arg(program)
                           : QStringLiteral("%1 not ready within %2 ms").arg(program).arg(timeout.count()));
    }
    return true;
}

void TestServer::stop()
{
    if (!m_process)
        return;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(10000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }
    m_process.reset();
}
