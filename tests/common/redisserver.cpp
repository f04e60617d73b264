// SPDX-License-Identifier: Apache-2.0
#include "redisserver.h"

#include <csignal>
#include <sys/types.h>

RedisServer::RedisServer()
    : TestServer(QStringLiteral("redis"))
{
}

RedisServer::~RedisServer()
{
    stop(); // resumes a paused server, so that it can end at once
}

int RedisServer::cli(const QStringList &args, QString *output) const
{
    return run(QStringLiteral("redis-cli"),
               QStringList{QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                           QString::number(port()), QStringLiteral("--no-auth-warning")}
                   + args,
               output, std::chrono::seconds(10));
}

bool RedisServer::start()
{
    const QStringList args = QStringList{QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                                         QStringLiteral("--port"), QString::number(port()),
                                         QStringLiteral("--save"), QString(),
                                         QStringLiteral("--appendonly"), QStringLiteral("no"),
                                         QStringLiteral("--dir"), dir()}
        + m_extra;
    // Ready once it answers, even if only to say that it wants a password.
    return launch(QStringLiteral("redis-server"), args, [this] {
        QString out;
        cli({QStringLiteral("ping")}, &out);
        return out.contains(QLatin1String("PONG")) || out.contains(QLatin1String("NOAUTH"));
    });
}

void RedisServer::stop()
{
    resume();
    TestServer::stop();
}

bool RedisServer::restart()
{
    stop();
    return start();
}

bool RedisServer::pause()
{
    if (!isRunning() || ::kill(pid_t(m_process->processId()), SIGSTOP) != 0)
        return false;
    m_paused = true;
    return waitStopped(m_process->processId());
}

bool RedisServer::resume()
{
    if (!m_paused)
        return true;
    m_paused = false;
    return isRunning() && ::kill(pid_t(m_process->processId()), SIGCONT) == 0;
}

QUrl RedisServer::url() const
{
    return QUrl(QStringLiteral("redis://127.0.0.1:%1/0").arg(port()));
}
