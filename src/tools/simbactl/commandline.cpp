// SPDX-License-Identifier: Apache-2.0
#include "commandline.h"

#include "console.h"
#include "exitcode.h"

#include "qsimbabackendfactory.h"
#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaleasename.h"
#include "qsimbasettings.h"
#ifdef QSIMBA_HAVE_HTTP
#include "qsimbahttpendpoint.h"
#endif

#include <QtCore/QCoreApplication>
#include <QtCore/QSysInfo>
#include <QtCore/QSettings>

namespace {
const QString backendOption = QStringLiteral("backend");
const QString leaseOption = QStringLiteral("lease");
} // namespace

/*!
    Sets up the parser of the command \a command: its help names the \a synopsis,
    the \a description and the exit codes. With Trailing::Command, the words after "--" are
    the command to run and must be present.
*/
CommandLine::CommandLine(const QString &command, const QString &synopsis, const QString &description,
                         Trailing trailing)
    : m_name(command), m_trailing(trailing)
{
    m_parser.setApplicationDescription(QStringLiteral("simbactl %1\n\n%2\n\n%3").arg(synopsis, description, exitCodes()));
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    m_parser.addHelpOption();
    m_parser.addOption(QCommandLineOption(
        backendOption,
        QStringLiteral("The backend URL (default: $SIMBA_BACKEND, else %1).")
            .arg(QStringLiteral("sqlite://<data dir>/qsimba/simba.db")),
        QStringLiteral("URL")));
    m_parser.addOption(QCommandLineOption(
        leaseOption, QStringLiteral("The session's lease duration, e.g. 500ms, 10s, 1m (default 15s)."),
        QStringLiteral("DURATION")));
}

/*! Adds a command-specific \a option. */
void CommandLine::addOption(const QCommandLineOption &option)
{
    m_parser.addOption(option);
}

/*! Documents a positional argument \a name. */
void CommandLine::addPositional(const QString &name, const QString &description, const QString &syntax)
{
    m_parser.addPositionalArgument(name, description, syntax);
}

/*!
    Parses \a args. Prints help or the error itself; see the header for the answer.
*/
std::optional<int> CommandLine::parse(const QStringList &args)
{
    QStringList own = args;
    const qsizetype dashes = own.indexOf(QStringLiteral("--"));
    if (dashes >= 0) {
        m_command = own.mid(dashes + 1);
        own.resize(dashes);
    }
    own.prepend(QStringLiteral("simbactl ") + m_name);
    if (!m_parser.parse(own)) {
        Console::error(QStringLiteral("%1: %2 (see simbactl %1 --help)").arg(m_name, m_parser.errorText()));
        return ExitCode::Usage;
    }
    if (m_parser.isSet(QStringLiteral("help"))) {
        Console::print(m_parser.helpText());
        return ExitCode::Ok;
    }
    if (m_trailing == Trailing::Command && m_command.isEmpty()) {
        Console::error(QStringLiteral("%1: no command to run: give it after \"--\" (see simbactl %1 --help)").arg(m_name));
        return ExitCode::Usage;
    }
    if (m_trailing == Trailing::None && dashes >= 0) {
        Console::error(QStringLiteral("%1: takes no command after \"--\"").arg(m_name));
        return ExitCode::Usage;
    }
    return std::nullopt;
}

// Without options, the settings rules of every QSimba application: $SIMBA_BACKEND and the
// other SIMBA_* variables, then the "simba" group of simbactl's settings file.
QString CommandLine::backendUrl() const
{
    if (m_parser.isSet(backendOption))
        return m_parser.value(backendOption);
    const QString url = QSimbaSettings::backendUrl(QSettings());
    if (!url.isEmpty())
        return url;
    return QSimbaBackendFactory::defaultUrl().toString();
}

QSimbaConfig CommandLine::config() const
{
    const QSimbaConfig fromSettings = QSimbaSettings::config(QSettings());
    const auto lease = duration(leaseOption);
    if (!lease)
        return fromSettings;
    try {
        return QSimbaConfig::builder().leaseDuration(*lease).build();
    } catch (const QSimbaInvalidArgumentError &e) {
        throw QSimbaInvalidArgumentError(QStringLiteral("--lease %1: %2").arg(m_parser.value(leaseOption), e.message()));
    }
}

std::optional<std::chrono::nanoseconds> CommandLine::duration(const QString &option) const
{
    if (!m_parser.isSet(option))
        return std::nullopt;
    return parseDuration(QStringLiteral("--") + option, m_parser.value(option));
}

std::chrono::nanoseconds CommandLine::parseDuration(const QString &what, const QString &text)
{
    const auto d = QSimbaDuration::parse(text);
    if (!d)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("%1 \"%2\" is not a duration such as 500ms, 10s or 1m").arg(what, text));
    return *d;
}

std::unique_ptr<QSimba> CommandLine::buildClient(QSimba::EventListener listener) const
{
    const QSimbaConfig cfg = config();
    auto builder = QSimba::builder();
    builder.backend(QSimbaBackendFactory::create(backendUrl()))
        .config(cfg)
        .metadata(QStringLiteral("host"), QSysInfo::machineHostName())
        .metadata(QStringLiteral("pid"), QString::number(QCoreApplication::applicationPid()))
        .metadata(QStringLiteral("command"), QStringLiteral("simbactl ") + m_name);
    if (listener)
        builder.listener(std::move(listener));
    auto simba = builder.build();
    const QString http = httpOption().names().first();
    if (m_parser.optionNames().contains(http)) {
#ifdef QSIMBA_HAVE_HTTP
        // Loopback unless HOST says otherwise; SIMBA_HTTP_TOKEN guards it when set.
        QSimbaHttpEndpoint::Options options;
        options.token = qgetenv("SIMBA_HTTP_TOKEN");
        try {
            options = QSimbaHttpEndpoint::Options::parseListen(m_parser.value(http), options);
        } catch (const QSimbaInvalidArgumentError &e) {
            throw QSimbaInvalidArgumentError(QStringLiteral("%1: --http: %2").arg(m_name, e.message()));
        }
        auto *endpoint = new QSimbaHttpEndpoint(simba.get(), options, simba.get());
        Console::error(QStringLiteral("serving %1").arg(endpoint->url().toString()));
#else
        throw QSimbaInvalidArgumentError(
            QStringLiteral("%1: --http: this simbactl was built without QtHttpServer").arg(m_name));
#endif
    }
    return simba;
}

QCommandLineOption CommandLine::httpOption()
{
    return QCommandLineOption(QStringLiteral("http"),
                              QStringLiteral("Serve the operator endpoint (/simba, /simba/health, /simba/metrics, "
                                             "/simba/events) on [HOST:]PORT; HOST defaults to 127.0.0.1. "
                                             "SIMBA_HTTP_TOKEN, when set, is the bearer token it requires."),
                              QStringLiteral("[HOST:]PORT"));
}

QString CommandLine::singleName() const
{
    if (positional().size() != 1)
        throw QSimbaInvalidArgumentError(QStringLiteral("%1: expected one NAME before \"--\", got %2 arguments")
                                             .arg(m_name)
                                             .arg(positional().size()));
    return QSimbaLeaseName::of(positional().first()).toString();
}

std::chrono::milliseconds CommandLine::killAfter() const
{
    const auto d = duration(killAfterOption().names().first());
    return d ? std::chrono::ceil<std::chrono::milliseconds>(*d) : std::chrono::milliseconds(5000);
}

QCommandLineOption CommandLine::killAfterOption()
{
    return QCommandLineOption(QStringLiteral("kill-after"),
                              QStringLiteral("Grace period between SIGTERM and SIGKILL for COMMAND (default 5s)."),
                              QStringLiteral("DURATION"));
}

void CommandLine::reportTrouble(const QSimbaEvent &event)
{
    if (event.type() == QSimbaEvent::Type::SessionSuspended || event.type() == QSimbaEvent::Type::AcquireFailed)
        Console::error(QStringLiteral("backend trouble: %1").arg(event.error()));
}

QString CommandLine::exitCodes()
{
    return QStringLiteral(
        "Exit codes:\n"
        "  0        success (lock: the command's own status is passed on)\n"
        "  64       bad usage: unknown command or option, malformed duration, URL or name\n"
        "  69       the backend failed (unreachable, refused, no inspection)\n"
        "  70       internal error\n"
        "  75       lock: --timeout passed before the lock was won\n"
        "  79       lock: the lock was lost while the command ran (it got SIGTERM, then SIGKILL)\n"
        "  126      the command could not be executed\n"
        "  127      the command was not found\n"
        "  128+N    the command was killed by signal N; lock interrupted by SIGINT (130) or\n"
        "           SIGTERM (143) after stopping the command and releasing the lock");
}

QString CommandLine::usage()
{
    return QStringLiteral(
               "Usage: simbactl COMMAND [OPTIONS] [ARGS] [-- COMMAND…]\n\n"
               "Locks, elections and their state over a QSimba backend.\n\n"
               "Commands:\n"
               "  lock NAME [--timeout D] -- COMMAND…   run COMMAND while holding the lock NAME\n"
               "  elect NAME -- COMMAND…                run COMMAND in every term this process leads NAME\n"
               "  status [--json]                       sessions, leases and groups on the backend\n"
               "  watch [--json] [NAME…]                follow one client's events (contending for NAMEs)\n"
               "  assign --partitions N MEMBER…         the partition assignment of N partitions\n\n"
               "Common options: --backend URL (or $SIMBA_BACKEND; default sqlite://<data dir>/qsimba/simba.db),\n"
               "--lease DURATION (500ms, 10s, 1m; default 15s). simbactl COMMAND --help tells more.\n\n")
        + exitCodes() + QLatin1Char('\n');
}
