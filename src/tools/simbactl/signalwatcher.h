// SPDX-License-Identifier: Apache-2.0
// simbactl: Unix signals as Qt signals; not installed.
#pragma once

#include <QtCore/QObject>

#include <memory>

class QSocketNotifier;

/*
 * Turns SIGINT and SIGTERM into the Qt signal received(), on the thread that created the
 * watcher (through a self-pipe: the handler only writes a byte). One instance per process.
 */
class SignalWatcher : public QObject
{
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

Q_SIGNALS:
    void received(int signal);

private:
    void readPipe();
    std::unique_ptr<QSocketNotifier> m_notifier;
};
