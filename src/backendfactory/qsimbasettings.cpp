// SPDX-License-Identifier: Apache-2.0
#include "qsimbasettings.h"

#include "qsimbabackendfactory.h"
#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaplaceholders_p.h"

#include <QtCore/QProcessEnvironment>
#include <QtCore/QSettings>

#include <optional>

/*!
    \class QSimbaSettings
    \brief A client configured like the seeds' Spring Boot starter: from the QSettings group "simba"
    (backend URL, every QSimbaConfig value, the scheduling switch), each value overridable by
    an environment variable (SIMBA_BACKEND, SIMBA_LEASE_DURATION, …, SIMBA_SCHEDULING_ENABLED),
    with ${VAR} and ${VAR:default} placeholders expanded in every value. The QML module's
    default client and simbactl follow the same rules. Static functions; reentrant.
*/

namespace {

const QLatin1String schedulingKey("scheduling/enabled");

QString groupPrefix(const QString &group)
{
    if (group.isEmpty())
        return {};
    return group.endsWith(QLatin1Char('/')) ? group : group + QLatin1Char('/');
}

// One setting as read: where it came from (for messages) and its expanded text.
struct Setting
{
    QString source; // "simba/leaseDuration" or "SIMBA_LEASE_DURATION"
    QString text;
};

// The environment variable of \a key in \a group: none without a group.
QString variableOf(const QString &group, const QString &key)
{
    if (group.isEmpty())
        return {};
    QString base = group;
    if (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    base.replace(QLatin1Char('/'), QLatin1Char('_'));
    if (base.compare(QSimbaSettings::defaultGroup(), Qt::CaseInsensitive) == 0)
        return QSimbaSettings::environmentVariable(key);
    return base.toUpper() + QLatin1Char('_') + QSimbaSettings::environmentVariable(key).mid(6);
}

std::optional<Setting> read(const QSettings &settings, const QString &group, const QString &key)
{
    const QString variable = variableOf(group, key);
    if (!variable.isEmpty()) {
        const auto env = QProcessEnvironment::systemEnvironment();
        if (env.contains(variable))
            return Setting{variable, QSimbaSettings::expandPlaceholders(env.value(variable), variable)};
    }
    const QString name = groupPrefix(group) + key;
    const QVariant value = settings.value(name);
    if (!value.isValid())
        return std::nullopt;
    return Setting{name, QSimbaSettings::expandPlaceholders(value.toString(), name)};
}

std::optional<std::chrono::nanoseconds> readDuration(const QSettings &settings, const QString &group,
                                                     const QString &key)
{
    const auto setting = read(settings, group, key);
    if (!setting)
        return std::nullopt;
    const auto parsed = QSimbaDuration::parse(setting->text);
    if (!parsed)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("setting %1=\"%2\" is not a duration such as 500ms, 15s, 1m or PT1M")
                .arg(setting->source, setting->text));
    return parsed;
}

void checkKnownKeys(const QSettings &settings, const QString &group)
{
    static const QStringList known{QStringLiteral("backend"),      QStringLiteral("leaseDuration"),
                                   QStringLiteral("renewInterval"), QStringLiteral("drift"),
                                   QStringLiteral("margin"),       QStringLiteral("retryJitter"),
                                   QStringLiteral("minBackoff"),   schedulingKey};
    const QString prefix = groupPrefix(group);
    const QStringList keys = settings.allKeys();
    for (const QString &key : keys) {
        if (!key.startsWith(prefix))
            continue;
        const QString local = key.mid(prefix.size());
        // Without a group, other applications' groups share the file: judge top-level keys only.
        const bool ours = !local.contains(QLatin1Char('/')) || local.startsWith(QLatin1String("scheduling/"));
        if (ours && !known.contains(local))
            throw QSimbaInvalidArgumentError(QStringLiteral("unknown setting %1: known settings are %2")
                                                 .arg(key, known.join(QLatin1String(", "))));
    }
}

} // namespace

/*!
    The environment variable overriding the setting \a key of the group "simba": \c SIMBA_
    and the key in upper case with words split at capitals and slashes
    (\c leaseDuration -> \c SIMBA_LEASE_DURATION, \c{scheduling/enabled} ->
    \c SIMBA_SCHEDULING_ENABLED). Another group G uses \c{G_…} instead of \c{SIMBA_…}.
*/
QString QSimbaSettings::environmentVariable(const QString &key)
{
    QString out = QStringLiteral("SIMBA_");
    for (const QChar c : key) {
        if (c == QLatin1Char('/') || c == QLatin1Char('.') || c == QLatin1Char('-'))
            out += QLatin1Char('_');
        else if (c.isUpper())
            out += QLatin1Char('_') + c;
        else
            out += c.toUpper();
    }
    return out;
}

/*!
    Replaces each \c{${VAR}} in \a value by the environment variable VAR and each
    \c{${VAR:default}} by VAR or, when VAR is unset, by \c default. Throws
    QSimbaInvalidArgumentError naming \a key when VAR is unset and has no default, or when a
    placeholder is not closed. Any thread.
*/
QString QSimbaSettings::expandPlaceholders(const QString &value, const QString &key)
{
    return QSimbaPlaceholders::expand(value, key);
}

/*!
    Reads the session timing under \a group of \a settings: \c leaseDuration,
    \c renewInterval, \c margin, \c retryJitter and \c minBackoff as durations ("15s",
    "500ms", "1m", "PT1M") and \c drift as a number; a missing key keeps its default (derived
    values follow the ones set). An environment variable (environmentVariable()) overrides
    each key; placeholders are expanded. Throws QSimbaInvalidArgumentError for a malformed
    value, an unknown key or a config that QSimbaConfig::Builder::build() refuses. Any thread.
*/
QSimbaConfig QSimbaSettings::config(const QSettings &settings, const QString &group)
{
    checkKnownKeys(settings, group);
    auto builder = QSimbaConfig::builder();
    if (const auto d = readDuration(settings, group, QStringLiteral("leaseDuration")))
        builder.leaseDuration(*d);
    if (const auto d = readDuration(settings, group, QStringLiteral("renewInterval")))
        builder.renewInterval(*d);
    if (const auto d = readDuration(settings, group, QStringLiteral("margin")))
        builder.margin(*d);
    if (const auto d = readDuration(settings, group, QStringLiteral("retryJitter")))
        builder.retryJitter(*d);
    if (const auto d = readDuration(settings, group, QStringLiteral("minBackoff")))
        builder.minBackoff(*d);
    if (const auto drift = read(settings, group, QStringLiteral("drift"))) {
        bool ok = false;
        const double value = drift->text.toDouble(&ok);
        if (!ok)
            throw QSimbaInvalidArgumentError(
                QStringLiteral("setting %1=\"%2\" is not a number such as 0.01").arg(drift->source, drift->text));
        builder.drift(value);
    }
    return builder.build();
}

/*!
    The backend URL under \a group: the environment variable (\c SIMBA_BACKEND for "simba")
    or the key \c backend, placeholders expanded; empty when neither is set. Any thread.
*/
QString QSimbaSettings::backendUrl(const QSettings &settings, const QString &group)
{
    const auto setting = read(settings, group, QStringLiteral("backend"));
    return setting ? setting->text.trimmed() : QString();
}

/*!
    Whether declarative leader work (QSimbaScheduler, QML SimbaScheduled and
    SimbaPartitioned on the default client) runs: the key \c{scheduling/enabled} under
    \a group or \c SIMBA_SCHEDULING_ENABLED; true when absent. Accepts true/false, 1/0,
    yes/no, on/off; throws QSimbaInvalidArgumentError naming the key for anything else.
*/
bool QSimbaSettings::schedulingEnabled(const QSettings &settings, const QString &group)
{
    const auto setting = read(settings, group, schedulingKey);
    if (!setting)
        return true;
    const QString text = setting->text.trimmed().toLower();
    if (text == QLatin1String("true") || text == QLatin1String("1") || text == QLatin1String("yes")
        || text == QLatin1String("on"))
        return true;
    if (text == QLatin1String("false") || text == QLatin1String("0") || text == QLatin1String("no")
        || text == QLatin1String("off"))
        return false;
    throw QSimbaInvalidArgumentError(
        QStringLiteral("setting %1=\"%2\" is not a boolean (true or false)").arg(setting->source, setting->text));
}

/*!
    A client builder from \a settings: the backend of backendUrl() (the factory's default
    URL when empty) and config(). Add listeners or metadata, then build(). Throws
    QSimbaInvalidArgumentError as QSimbaBackendFactory::create() and config() do.
*/
QSimba::Builder QSimbaSettings::builder(const QSettings &settings, const QString &group)
{
    const QSimbaConfig cfg = config(settings, group);
    // The scheduling switch is read here too, so that a malformed one fails at startup.
    schedulingEnabled(settings, group);
    QSimba::Builder builder = QSimba::builder();
    builder.backend(QSimbaBackendFactory::create(backendUrl(settings, group))).config(cfg);
    return builder;
}

/*! The same as QSimbaSettings::config(\a settings, \a group). */
QSimbaConfig QSimbaBackendFactory::configFromSettings(const QSettings &settings, const QString &group)
{
    return QSimbaSettings::config(settings, group);
}

/*! The same as QSimbaSettings::builder(\a settings, \a group). */
QSimba::Builder QSimbaBackendFactory::fromSettings(const QSettings &settings, const QString &group)
{
    return QSimbaSettings::builder(settings, group);
}
