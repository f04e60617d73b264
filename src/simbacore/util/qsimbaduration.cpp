// SPDX-License-Identifier: Apache-2.0
#include "qsimbaduration_p.h"

#include <QtCore/QRegularExpression>

namespace QSimbaDuration {

QString format(std::chrono::nanoseconds d)
{
    using namespace std::chrono;
    const qint64 ns = d.count();
    const auto fmt = [](double v, const char *unit) -> QString {
        return QString::number(v, 'g', 6) + QLatin1String(unit);
    };
    const qint64 abs = ns < 0 ? -ns : ns;
    if (abs >= 60'000'000'000LL && ns % 60'000'000'000LL == 0)
        return fmt(double(ns) / 60e9, "m");
    if (abs >= 1'000'000'000LL)
        return fmt(double(ns) / 1e9, "s");
    if (abs >= 1'000'000LL)
        return fmt(double(ns) / 1e6, "ms");
    if (abs >= 1'000LL)
        return fmt(double(ns) / 1e3, "us");
    return fmt(double(ns), "ns");
}

namespace {
// ISO-8601 durations as Spring Boot and java.time.Duration accept them: PT1M, PT0.5S,
// PT1H30M, P1DT12H (days are 24 hours; years and months are not durations).
std::optional<std::chrono::nanoseconds> parseIso(const QString &text)
{
    static const QRegularExpression re(
        QStringLiteral("^\\s*P(?:(\\d+(?:\\.\\d+)?)D)?(?:T(?:(\\d+(?:\\.\\d+)?)H)?(?:(\\d+(?:\\.\\d+)?)M)?"
                       "(?:(\\d+(?:\\.\\d+)?)S)?)?\\s*$"),
        QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    static constexpr double scales[] = {86400e9, 3600e9, 60e9, 1e9};
    double ns = 0;
    bool any = false;
    for (int i = 0; i < 4; ++i) {
        if (m.capturedLength(i + 1) == 0)
            continue;
        any = true;
        ns += m.captured(i + 1).toDouble() * scales[i];
    }
    // "P" and "PT" alone name no duration.
    if (!any || text.trimmed().endsWith(QLatin1Char('T'), Qt::CaseInsensitive) || ns > 9.2e18)
        return std::nullopt;
    return std::chrono::nanoseconds(qint64(ns));
}
} // namespace

std::optional<std::chrono::nanoseconds> parse(const QString &text)
{
    if (text.trimmed().startsWith(QLatin1Char('P'), Qt::CaseInsensitive))
        return parseIso(text);
    static const QRegularExpression re(
        QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|m|h)\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const double value = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    double scale = 1;
    if (unit == QLatin1String("us"))
        scale = 1e3;
    else if (unit == QLatin1String("ms"))
        scale = 1e6;
    else if (unit == QLatin1String("s"))
        scale = 1e9;
    else if (unit == QLatin1String("m"))
        scale = 60e9;
    else if (unit == QLatin1String("h"))
        scale = 3600e9;
    const double ns = value * scale;
    if (ns > 9.2e18)
        return std::nullopt;
    return std::chrono::nanoseconds(qint64(ns));
}

} // namespace QSimbaDuration
