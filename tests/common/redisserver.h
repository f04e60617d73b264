// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include "testserver.h"

#include <QtCore/QUrl>

/*
 * A redis-server for tests: in the foreground under QProcess, on 127.0.0.1 on a free port,
 * in a temporary directory, without persistence (--save '' --appendonly no).
 */
class RedisServer : public TestServer
{
public:
    RedisServer();
    ~RedisServer() override;

    //! More redis-server arguments for the next start(), e.g. {"--requirepass", "x"}.
    void setExtraArguments(const QStringList &args) { m_extra = args; }
    bool start() override;
    void stop() override;
    //! Stops the server and starts it again on the same port: every key is lost.
    bool restart();
    //! Freezes the server (SIGSTOP): it accepts connections but answers nothing.
    bool pause();
    bool resume();
    //! Runs redis-cli against the server (as the default user); its exit code, with the
    //! output in \a output.
    int cli(const QStringList &args, QString *output = nullptr) const;
    //! "redis://127.0.0.1:<port>/0".
    QUrl url() const;

private:
    QStringList m_extra;
    bool m_paused = false;
};
