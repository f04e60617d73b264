// SPDX-License-Identifier: Apache-2.0
// simbactl's command-line handling; not installed.
#pragma once

#include "qsimba.h"
#include "qsimbaconfig.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QStringList>

#include <chrono>
#include <memory>
#include <optional>

/*
 * The command line of one simbactl command: its own options plus the common ones
 * (--backend URL, --lease DURATION, --help), and the COMMAND after "--" for lock and elect.
 * Accessors that read a value throw QSimbaInvalidArgumentError naming the option and the
 * value (simbactl exits with ExitCode::Usage). Use it from the main thread.
 */
class CommandLine
{
public:
    enum class Trailing { None, Command };

    //! \a synopsis: e.g. "lock NAME [--timeout D] -- COMMAND…".
    CommandLine(const QString &command, const QString &synopsis, const QString &description,
                Trailing trailing = Trailing::None);

    void addOption(const QCommandLineOption &option);
    void addPositional(const QString &name, const QString &description, const QString &syntax = {});
    //! Parses \a args (without the command word). Answers an exit code when simbactl should
    //! stop at once (--help: 0 after printing help; a parse error: ExitCode::Usage after
    //! printing it), nothing when the command should run.
    std::optional<int> parse(const QStringList &args);

    const QCommandLineParser &parser() const { return m_parser; }
    QStringList positional() const { return m_parser.positionalArguments(); }
    //! The words after "--".
    QStringList command() const { return m_command; }

    //! --backend, else $SIMBA_BACKEND, else the default SQLite file.
    QString backendUrl() const;
    //! The config with --lease applied.
    QSimbaConfig config() const;
    //! The duration of \a option ("500ms", "10s", "1m"), nothing when not given.
    std::optional<std::chrono::nanoseconds> duration(const QString &option) const;
    //! A client on backendUrl() and config(), its session tagged with host, pid and command;
    //! with --http, serving its operator endpoint (a child of the client).
    std::unique_ptr<QSimba> buildClient(QSimba::EventListener listener = {}) const;
    //! The one positional NAME, validated as a lease name.
    QString singleName() const;
    //! --kill-after (default 5 s).
    std::chrono::milliseconds killAfter() const;

    //! The --kill-after option of lock and elect.
    static QCommandLineOption killAfterOption();
    //! The --http [HOST:]PORT option of elect, lock and watch: serve the operator endpoint.
    static QCommandLineOption httpOption();
    //! An event listener that reports backend trouble (SessionSuspended, AcquireFailed) on stderr.
    static void reportTrouble(const QSimbaEvent &event);

    //! Parses "500ms", "10s", "1m" (also us, ns, h); throws naming \a what.
    static std::chrono::nanoseconds parseDuration(const QString &what, const QString &text);
    //! The table of exit codes, as --help shows it.
    static QString exitCodes();
    //! The top-level help (simbactl --help).
    static QString usage();

private:
    QString m_name;
    QCommandLineParser m_parser;
    Trailing m_trailing;
    QStringList m_command;
};
