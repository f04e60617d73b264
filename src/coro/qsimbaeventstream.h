// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacoro_export.h"

#include <qsimba.h>
#include <qsimbaevent.h>

#include <QCoro/QCoroTask>

#include <QtCore/QObject>

#include <memory>
#include <stop_token>

class QSimbaEventStreamPrivate;

/*
 * The seeds' SimbaEventFlow: a client's events, in order, for a coroutine to consume with
 * co_await next(). Register listener() with QSimba::Builder::listener(), or connect
 * QSimba::event to push(). Holds at most bufferCapacity() events: a consumer that falls
 * behind loses the oldest ones (counted by dropped()). Thread-affine (next() resumes on the
 * stream's thread); push() and the listener are thread-safe.
 */
class QSIMBACORO_EXPORT QSimbaEventStream : public QObject
{
    Q_OBJECT
    Q_PROPERTY(int bufferCapacity READ bufferCapacity CONSTANT)

public:
    static constexpr int DefaultBufferCapacity = 1024;

    explicit QSimbaEventStream(QObject *parent = nullptr);
    explicit QSimbaEventStream(int bufferCapacity, QObject *parent = nullptr);
    ~QSimbaEventStream() override;

    int bufferCapacity() const;
    //! Events dropped so far because the buffer was full.
    qint64 dropped() const;
    //! Events buffered now.
    qsizetype size() const;

    //! A listener for QSimba::Builder::listener(); it may outlive the stream (then it drops).
    QSimba::EventListener listener() const;

    //! The oldest buffered event, suspending until one arrives.
    [[nodiscard]] QCoro::Task<QSimbaEvent> next(std::stop_token stop = {});

public Q_SLOTS:
    //! Appends \a event; drops the oldest when the buffer is full. Any thread.
    void push(const QSimbaEvent &event);

private:
    Q_DECLARE_PRIVATE(QSimbaEventStream)
    std::unique_ptr<QSimbaEventStreamPrivate> const d_ptr;
};
