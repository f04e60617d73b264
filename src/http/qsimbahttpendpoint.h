// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbahttp_export.h"

#include <QtCore/QByteArray>
#include <QtCore/QObject>
#include <QtCore/QUrl>
#include <QtNetwork/QHostAddress>

#include <chrono>
#include <memory>

class QSettings;
class QSimba;
class QSimbaHttpEndpointPrivate;

class QSIMBAHTTP_EXPORT QSimbaHttpEndpoint : public QObject
{
    Q_OBJECT

public:
    struct Options
    {
        QHostAddress address{QHostAddress::LocalHost};     //!< loopback by default
        quint16 port = 0;                                   //!< 0: any free port
        QByteArray token;                                   //!< empty: no authentication
        int eventBufferSize = 1024;                         //!< events kept for Last-Event-ID
        std::chrono::milliseconds keepAliveInterval{15000}; //!< ": keep-alive" on event streams
        int maxReaders = 128;                               //!< concurrent event streams
        qint64 maxPendingBytes = 256 * 1024;                //!< queued for one reader before it is dropped
        int maxNameSeries = 1000;                           //!< per-name metric series
        int maxHeaderBytes = 16 * 1024;                     //!< request line + headers (431 beyond)
        int maxConnections = 512;                           //!< open connections (503 beyond)

        //! The QSettings group "simba/http" (address, port, token) over the defaults; the
        //! environment variable SIMBA_HTTP_TOKEN overrides the token. Throws
        //! QSimbaInvalidArgumentError for a bad address or port.
        static Options fromSettings(QSettings &settings);
        //! "[HOST:]PORT" (e.g. "9464", "0.0.0.0:9464", "[::1]:9464") over \a base. Throws
        //! QSimbaInvalidArgumentError naming the text and the rule.
        static Options parseListen(const QString &text, const Options &base);
    };

    //! Serves \a simba on 127.0.0.1:\a port (0: any free port), the other options at their
    //! defaults. Throws like the other constructor.
    explicit QSimbaHttpEndpoint(QSimba *simba, quint16 port = 0, QObject *parent = nullptr);
    //! Serves \a simba as \a options say; listens at once. Throws QSimbaInvalidArgumentError
    //! for bad options, QSimbaIllegalStateError (naming the address, port and the socket's
    //! error) when it cannot listen.
    QSimbaHttpEndpoint(QSimba *simba, const Options &options, QObject *parent = nullptr);
    ~QSimbaHttpEndpoint() override;

    Options options() const;
    QHostAddress address() const;
    quint16 port() const;
    //! "http://127.0.0.1:<port>/simba".
    QUrl url() const;
    //! Open event streams.
    int readerCount() const;
    //! The id of the last event published on /simba/events (0 before the first).
    qint64 lastEventId() const;

Q_SIGNALS:
    //! The number of open event streams changed.
    void readerCountChanged(int readers);
    //! An event stream was closed because its reader fell more than maxPendingBytes behind.
    void readerDropped();

private:
    Q_DECLARE_PRIVATE(QSimbaHttpEndpoint)
    std::unique_ptr<QSimbaHttpEndpointPrivate> const d_ptr;
};
