// SPDX-License-Identifier: Apache-2.0
#include "signalwatcher.h"

#include <QtCore/QSocketNotifier>

#include <csignal>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {
int pipeFds[2] = {-1, -1};

void handler(int signal)
{
    const char byte = char(signal);
    // Nothing to do when the pipe is full: a signal is already pending.
    [[maybe_unused]] const auto written = ::write(pipeFds[1], &byte, 1);
}
} // namespace

/*!
    Installs handlers for SIGINT and SIGTERM; until destroyed, each such signal emits
    received() from the event loop instead of ending the process.
*/
SignalWatcher::SignalWatcher(QObject *parent) : QObject(parent)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pipeFds) != 0)
        qFatal("simbactl: socketpair failed");
    m_notifier = std::make_unique<QSocketNotifier>(pipeFds[0], QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &SignalWatcher::readPipe);
    struct sigaction action = {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

/*! Restores the default handlers. */
SignalWatcher::~SignalWatcher()
{
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    m_notifier.reset();
    ::close(pipeFds[0]);
    ::close(pipeFds[1]);
    pipeFds[0] = pipeFds[1] = -1;
}

void SignalWatcher::readPipe()
{
    char byte = 0;
    while (::read(pipeFds[0], &byte, 1) == 1)
        Q_EMIT received(int(byte));
}

#include "moc_signalwatcher.cpp"
