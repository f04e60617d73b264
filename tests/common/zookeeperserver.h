// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include "testserver.h"

/*
 * A standalone ZooKeeper 3.8 server (Debian's `zookeeper` package) on 127.0.0.1, with its
 * own zoo.cfg, dataDir and log in the temporary directory. Ready when `srvr` answers
 * "Mode: standalone". restart() stops it and starts it again on the same port and data.
 */
class ZookeeperServer : public TestServer
{
public:
    ZookeeperServer();

    //! The address the client port listens on (default 127.0.0.1; "::1" for IPv6), before start().
    void setAddress(const QString &address) { m_address = address; }
    //! Whether the server syncs its transaction log to disk before it answers a write
    //! (forceSync), before start(). Off by default, as the tests' PostgreSQL runs with
    //! fsync off: the tests need the data to outlive a restart of the process, not of the
    //! machine, and a sync behind a build's writes to the same disk took seconds. The
    //! benchmarks turn it on: a write's cost there is the real one.
    void setDurable(bool durable) { m_durable = durable; }
    bool start() override;
    //! Stops the server and starts it again with the same port and data directory.
    bool restart();
    //! Freezes the server process (SIGSTOP): a hung server. resume() thaws it (SIGCONT);
    //! sessions whose timeout passed meanwhile expire then.
    bool pause();
    bool resume();
    //! "127.0.0.1:<port>" ("[::1]:<port>" for an IPv6 address)
    QString hostPort() const;
    //! Sends a four-letter-word command and returns the answer (empty when unreachable).
    QByteArray fourLetterWord(const QByteArray &command) const;

private:
    bool writeConfig();

    QString m_address = QStringLiteral("127.0.0.1");
    bool m_durable = false;
};
