// SPDX-License-Identifier: Apache-2.0
// Shared by the examples (header only, found through ../common): their command line, their
// output and their clients, whose leases live in one SQLite file.
#pragma once

#include <qsimba.h>
#include <qsimbasqlleasebackend.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QFileInfo>
#include <QtCore/QMutex>
#include <QtCore/QTemporaryDir>
#include <QtCore/QUrl>

#include <chrono>
#include <cstdio>
#include <memory>

namespace QSimbaExample {

//! Prints one line at once, from any thread.
inline void say(const QString &line)
{
    static QMutex mutex;
    QMutexLocker lock(&mutex);
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

inline QCommandLineOption durationOption(const QString &defaultSeconds)
{
    return {QStringLiteral("duration"), QStringLiteral("Run this long."), QStringLiteral("seconds"), defaultSeconds};
}

inline std::chrono::milliseconds duration(const QCommandLineParser &parser)
{
    return std::chrono::milliseconds(qint64(parser.value(QStringLiteral("duration")).toDouble() * 1000));
}

//! Adds --help and --database to \a parser, processes the command line and returns the
//! SQLite file: --database's, or \a fileName in \a dir.
inline QString processCommandLine(QCommandLineParser &parser, const QCoreApplication &app, const QTemporaryDir &dir,
                                  const QString &fileName)
{
    parser.addHelpOption();
    parser.addOption({QStringLiteral("database"), QStringLiteral("SQLite file (default: a temporary one)."),
                      QStringLiteral("file")});
    parser.process(app);
    return parser.isSet(QStringLiteral("database"))
        ? QFileInfo(parser.value(QStringLiteral("database"))).absoluteFilePath()
        : dir.filePath(fileName);
}

//! A client named \a node whose leases live in the SQLite file \a path (1 s leases);
//! \a listener, if set, hears its events (on the client's callback thread).
inline std::unique_ptr<QSimba> sqliteClient(const QString &path, const QString &node,
                                            QSimba::EventListener listener = {})
{
    using namespace std::chrono_literals;
    auto builder = QSimba::builder();
    builder.backend(QSimbaSqlLeaseBackend::fromUrl(QUrl(QString(QStringLiteral("sqlite://") + path))))
        .config(QSimbaConfig::builder().leaseDuration(1s).build())
        .metadata(QStringLiteral("node"), node);
    if (listener)
        builder.listener(std::move(listener));
    return builder.build();
}

} // namespace QSimbaExample
