// SPDX-License-Identifier: Apache-2.0
#include "zookeeperserver.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtNetwork/QTcpSocket>

#include <csignal>

using namespace std::chrono_literals;

ZookeeperServer::ZookeeperServer() : TestServer(QStringLiteral("zookeeper")) {}

QString ZookeeperServer::hostPort() const
{
    const bool v6 = m_address.contains(QLatin1Char(':'));
    return (v6 ? QLatin1Char('[') + m_address + QLatin1Char(']') : m_address) + QLatin1Char(':') + QString::number(port());
}

QByteArray ZookeeperServer::fourLetterWord(const QByteArray &command) const
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(m_address), port());
    if (!socket.waitForConnected(500))
        return {};
    socket.write(command);
    if (!socket.waitForBytesWritten(500))
        return {};
    QByteArray answer;
    // The server closes the connection after its answer.
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(1000))
        answer += socket.readAll();
    return answer + socket.readAll();
}

bool ZookeeperServer::writeConfig()
{
    const QString data = dir() + QStringLiteral("/data");
    if (!QDir().mkpath(data))
        return fail(QStringLiteral("cannot create ") + data);
    QFile cfg(dir() + QStringLiteral("/zoo.cfg"));
    if (!cfg.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return fail(QStringLiteral("cannot write zoo.cfg: ") + cfg.errorString());
    // tickTime 500: sessions of 1–10 s are allowed (2–20 ticks).
    cfg.write(QStringLiteral("tickTime=500\n"
                             "initLimit=10\n"
                             "syncLimit=5\n"
                             "dataDir=%1\n"
                             "clientPort=%2\n"
                             "clientPortAddress=%3\n"
                             "admin.enableServer=false\n"
                             "4lw.commands.whitelist=*\n"
                             "maxClientCnxns=0\n"
                             "forceSync=%4\n")
                  .arg(data)
                  .arg(port())
                  .arg(m_address)
                  .arg(m_durable ? QStringLiteral("yes") : QStringLiteral("no"))
                  .toUtf8());
    QFile log4j(dir() + QStringLiteral("/log4j.properties"));
    if (!log4j.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return fail(QStringLiteral("cannot write log4j.properties: ") + log4j.errorString());
    log4j.write("log4j.rootLogger=INFO, CONSOLE\n"
                "log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender\n"
                "log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout\n"
                "log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{1}: %m%n\n");
    return true;
}

bool ZookeeperServer::start()
{
    if (isRunning())
        return true;
    if (!QFile::exists(dir() + QStringLiteral("/zoo.cfg")) && !writeConfig())
        return false;
    const QString classpath = dir() + QStringLiteral(":/usr/share/java/zookeeper.jar"
                                                     ":/usr/share/java/slf4j-log4j12.jar"
                                                     ":/usr/share/java/log4j-1.2.jar");
    return launch(QStringLiteral("java"),
                  {QStringLiteral("-Xmx256m"), QStringLiteral("-cp"), classpath,
                   QStringLiteral("org.apache.zookeeper.server.ZooKeeperServerMain"),
                   dir() + QStringLiteral("/zoo.cfg")},
                  [this] { return fourLetterWord("srvr").contains("Mode: standalone"); }, 30s);
}

bool ZookeeperServer::restart()
{
    stop();
    return start();
}

bool ZookeeperServer::pause()
{
    const qint64 pid = isRunning() ? m_process->processId() : 0;
    if (pid <= 0 || ::kill(pid_t(pid), SIGSTOP) != 0)
        return false;
    // SIGSTOP stops the JVM's threads one by one: wait until all of them are stopped.
    return waitStopped(pid);
}

bool ZookeeperServer::resume()
{
    return isRunning() && ::kill(pid_t(m_process->processId()), SIGCONT) == 0;
}
