// SPDX-License-Identifier: Apache-2.0
// Test support: real QSimba clients for the monitor to watch. Not installed.
#pragma once

#include "qsimba.h"
#include "qsimbabackendfactory.h"
#include "qsimbaconfig.h"
#include "qsimbaelection.h"
#include "qsimbagrouptask.h"
#include "qsimbapartitiongroup.h"
#include "qsimbaterm.h"

#include <QtCore/QFuture>

#include <chrono>
#include <memory>
#include <vector>

/*
 * One worker process's client, in the test process: a session with host/pid metadata, an
 * election, and a member of a partition group. Closing it releases everything.
 */
struct MonitorTestWorker
{
    MonitorTestWorker(const QString &url, const QString &host, int pid, const QStringList &elections,
                      const QString &group = {}, int partitions = 0,
                      std::chrono::milliseconds lease = std::chrono::milliseconds(3000))
    {
        simba = QSimba::builder()
                    .backend(QSimbaBackendFactory::create(url))
                    .config(QSimbaConfig::builder().leaseDuration(lease).build())
                    .metadata(QStringLiteral("host"), host)
                    .metadata(QStringLiteral("pid"), QString::number(pid))
                    .metadata(QStringLiteral("command"), QStringLiteral("tst_monitor worker"))
                    .build();
        for (const QString &name : elections)
            simba->election(name)->start();
        if (!group.isEmpty())
            task = simba->group(group, partitions)->runWhileLeader([](const QSimbaTerm &term, int) {
                term.revoked().waitForFinished();
            });
    }
    ~MonitorTestWorker() { close(); }
    void close()
    {
        task.reset();
        if (simba)
            simba->close();
        simba.reset();
    }

    std::unique_ptr<QSimba> simba;
    std::unique_ptr<QSimbaGroupTask> task;
};
