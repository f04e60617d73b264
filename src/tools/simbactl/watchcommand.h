// SPDX-License-Identifier: Apache-2.0
// simbactl watch; not installed.
#pragma once

#include "signalwatcher.h"

#include "qsimba.h"
#include "qsimbagrouptask.h"

#include <QtCore/QObject>

#include <memory>

class CommandLine;

/*
 * `simbactl watch [--json] [--group G --partitions N] [NAME…]`: one client that contends for
 * every NAME and, with --group, for its share of the partition group G (or only keeps its
 * session), and prints each of its events as a line, or as a JSON line
 * (QSimbaEvent::toJson). SIGINT/SIGTERM close the client (its last events are printed) and
 * exit 0. Runs on the main thread's event loop.
 */
class WatchCommand : public QObject
{
    Q_OBJECT
public:
    static int run(const QStringList &args);

    //! "06:10:00.123 Elected kind=ELECTION name=demo token=4 …".
    static QString toText(const QSimbaEvent &event);

private:
    WatchCommand(const CommandLine &line, bool json);

    std::unique_ptr<QSimba> m_simba;
    std::unique_ptr<QSimbaGroupTask> m_group;
    SignalWatcher m_signals;
    bool m_closing = false;
};
