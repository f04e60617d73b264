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
