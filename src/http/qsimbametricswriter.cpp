// SPDX-License-Identifier: Apache-2.0
#include "qsimbametricswriter_p.h"

#include "qsimbaeventhub_p.h"

#include <QtCore/QLocale>
#include <QtCore/QMetaEnum>

#include <algorithm>

namespace {

using Kind = QSimbaElection::Kind;
using Status = QSimbaElection::Status;
using Reason = QSimbaTerm::RevokeReason;

template<typename E>
QList<E> allValues()
{
    const QMetaEnum meta = QMetaEnum::fromType<E>();
    QList<E> values;
    for (int i = 0; i < meta.keyCount(); ++i)
        values.append(E(meta.value(i)));
    return values;
}

class Text
{
public:
    void family(const char *name, const char *type, const char *help)
    {
        m_out += QByteArray("# HELP ") + name + ' ' + help + "\n# TYPE " + name + ' ' + type + '\n';
    }
    void sample(const QByteArray &name, const QByteArray &labels, const QByteArray &value)
    {
        m_out += name;
        if (!labels.isEmpty())
            m_out += '{' + labels + '}';
        m_out += ' ' + value + '\n';
    }
    QByteArray take() { return std::move(m_out); }

private:
    QByteArray m_out;
};

QByteArray label(const char *key, const QString &value)
{
    return QByteArray(key) + "=\"" + QSimbaMetricsWriter::escapeLabel(value) + '"';
}

QByteArray number(double v)
{
    return QByteArray::number(v, 'g', QLocale::FloatingPointShortest);
}

//! A bucket bound as Prometheus clients write it ("0.0005", not "5e-04"): le is a label,
//! compared as text by selectors.
QByteArray bound(double v)
{
    QByteArray text = QByteArray::number(v, 'f', 6);
    while (text.endsWith('0'))
        text.chop(1);
    if (text.endsWith('.'))
        text.chop(1);
    return text;
}

QByteArray seconds(std::chrono::nanoseconds d)
{
    return number(std::chrono::duration<double>(d).count());
}

} // namespace

QSimbaEventCounters::QSimbaEventCounters()
{
    for (Kind kind : allValues<Kind>()) {
        elected.insert(QSimbaElection::kindName(kind), 0);
        for (Reason reason : allValues<Reason>())
            revoked.insert(QSimbaElection::kindName(kind) + u'\t' + QSimbaTerm::reasonName(reason), 0);
    }
    sessionLosses.insert(QSimbaTerm::reasonName(Reason::DeadlinePassed), 0);
    sessionLosses.insert(QSimbaTerm::reasonName(Reason::SessionExpired), 0);
    for (auto type : allValues<QSimbaEvent::Type>())
        events.insert(QSimbaEventHub::eventName(type), 0);
}

void QSimbaEventCounters::count(const QSimbaEvent &event)
{
    ++events[QSimbaEventHub::eventName(event.type())];
    switch (event.type()) {
    case QSimbaEvent::Type::Elected:
        ++elected[QSimbaElection::kindName(event.kind())];
        break;
    case QSimbaEvent::Type::Revoked:
        ++revoked[QSimbaElection::kindName(event.kind()) + u'\t' + QSimbaTerm::reasonName(event.reason())];
        break;
    case QSimbaEvent::Type::SessionExpired:
        ++sessionLosses[QSimbaTerm::reasonName(event.reason())];
        break;
    case QSimbaEvent::Type::SessionSuspended:
        ++suspensions;
        break;
    case QSimbaEvent::Type::AcquireFailed:
        ++acquireFailures;
        break;
    default:
        break;
    }
}

QByteArray QSimbaMetricsWriter::escapeLabel(const QString &value)
{
    QByteArray out;
    for (char c : value.toUtf8()) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray QSimbaMetricsWriter::write(const Input &in)
{
    Text t;
    const QSimbaSnapshot &snap = in.snapshot;

    // Per-name series: elections and locks only, leaders first, then by name, capped.
    QList<QSimbaElectionSnapshot> named;
    for (const auto &e : snap.elections) {
        if (e.kind != Kind::Group)
            named.append(e);
    }
    const auto leads = [](const QSimbaElectionSnapshot &e) {
        return e.status == Status::Leader && e.remaining.count() > 0;
    };
    std::stable_partition(named.begin(), named.end(), leads);
    const qsizetype cap = std::max(0, in.maxNameSeries);
    const qsizetype omitted = std::max<qsizetype>(0, named.size() - cap);
    named.resize(std::min(named.size(), cap));
    std::sort(named.begin(), named.end(),
              [](const auto &a, const auto &b) { return a.name.toString() < b.name.toString(); });

    t.family("simba_leader", "gauge", "Whether this client holds a valid term of the name (1) or not (0).");
    for (const auto &e : named)
        t.sample("simba_leader", label("name", e.name.toString()), leads(e) ? "1" : "0");
    t.family("simba_term_token", "gauge", "Token of the current term of the name (absent without one).");
    for (const auto &e : named) {
        if (e.token > 0 && (e.status == Status::Leader || e.status == Status::Handover))
            t.sample("simba_term_token", label("name", e.name.toString()), QByteArray::number(e.token));
    }
    t.family("simba_name_series_omitted", "gauge",
             "Started names left out of simba_leader and simba_term_token by the series cap.");
    t.sample("simba_name_series_omitted", {}, QByteArray::number(omitted));

    t.family("simba_names", "gauge", "Started names, by kind and status (never capped).");
    QMap<std::pair<QString, QString>, int> byKindStatus;
    for (Kind kind : allValues<Kind>()) {
        for (Status status : allValues<Status>()) {
            if (status != Status::Idle)
                byKindStatus.insert({QSimbaElection::kindName(kind), QSimbaElection::statusName(status)}, 0);
        }
    }
    for (const auto &e : snap.elections)
        ++byKindStatus[{QSimbaElection::kindName(e.kind), QSimbaElection::statusName(e.status)}];
    for (auto it = byKindStatus.cbegin(); it != byKindStatus.cend(); ++it)
        t.sample("simba_names", label("kind", it.key().first) + ',' + label("status", it.key().second),
                 QByteArray::number(it.value()));

    t.family("simba_session_healthy", "gauge", "Whether the client's session is live (1) or not (0).");
    t.sample("simba_session_healthy", {}, snap.healthy ? "1" : "0");
    t.family("simba_session_valid_seconds", "gauge", "Time left before the session's local deadline.");
    t.sample("simba_session_valid_seconds", {}, seconds(snap.session.validFor));

    const auto groups = snap.groups.mid(0, cap);
    t.family("simba_group_partitions", "gauge", "Partitions of the group.");
    for (const auto &g : groups)
        t.sample("simba_group_partitions", label("group", g.name), QByteArray::number(g.partitions));
    t.family("simba_group_members", "gauge", "Live members of the group, as last read.");
    for (const auto &g : groups)
        t.sample("simba_group_members", label("group", g.name), QByteArray::number(g.members.size()));
    t.family("simba_group_partitions_owned", "gauge", "Partitions of the group assigned to this client.");
    for (const auto &g : groups)
        t.sample("simba_group_partitions_owned", label("group", g.name), QByteArray::number(g.owned.size()));

    if (const QSimbaEventCounters *ev = in.events) {
        t.family("simba_elected_total", "counter", "Terms begun, by kind.");
        for (auto it = ev->elected.cbegin(); it != ev->elected.cend(); ++it)
            t.sample("simba_elected_total", label("kind", it.key()), QByteArray::number(it.value()));
        t.family("simba_revoked_total", "counter", "Terms ended, by kind and reason.");
        for (auto it = ev->revoked.cbegin(); it != ev->revoked.cend(); ++it) {
            const auto parts = it.key().split(u'\t');
            t.sample("simba_revoked_total", label("kind", parts.at(0)) + ',' + label("reason", parts.at(1)),
                     QByteArray::number(it.value()));
        }
        t.family("simba_session_losses_total", "counter", "Sessions lost, by reason.");
        for (auto it = ev->sessionLosses.cbegin(); it != ev->sessionLosses.cend(); ++it)
            t.sample("simba_session_losses_total", label("reason", it.key()), QByteArray::number(it.value()));
        t.family("simba_session_suspensions_total", "counter", "Keep-alive failures that suspended the session.");
        t.sample("simba_session_suspensions_total", {}, QByteArray::number(ev->suspensions));
        t.family("simba_acquire_failures_total", "counter", "Acquire attempts that failed with an error.");
        t.sample("simba_acquire_failures_total", {}, QByteArray::number(ev->acquireFailures));
        t.family("simba_events_total", "counter", "Events published, by type.");
        for (auto it = ev->events.cbegin(); it != ev->events.cend(); ++it)
            t.sample("simba_events_total", label("type", QString::fromLatin1(it.key())), QByteArray::number(it.value()));
    }

    if (const QSimbaBackendMetrics *bm = in.backend) {
        using Call = QSimbaBackendMetrics::Call;
        t.family("simba_acquire_attempts_total", "counter", "Names sent to the backend's acquire.");
        t.sample("simba_acquire_attempts_total", {}, QByteArray::number(bm->acquireAttempts()));
        t.family("simba_backend_call_duration_seconds", "histogram", "Duration of backend calls, by call.");
        QList<std::pair<QByteArray, QSimbaBackendMetrics::CallStats>> stats;
        for (int c = 0; c < QSimbaBackendMetrics::CallCount; ++c)
            stats.append({label("call", QSimbaBackendMetrics::callName(Call(c))), bm->stats(Call(c))});
        for (const auto &[callLabel, s] : stats) {
            quint64 cumulative = 0;
            for (int b = 0; b < QSimbaBackendMetrics::BucketCount; ++b) {
                cumulative += s.buckets[size_t(b)];
                const QByteArray le = b < int(QSimbaBackendMetrics::BucketBounds.size())
                    ? bound(QSimbaBackendMetrics::BucketBounds[size_t(b)])
                    : QByteArray("+Inf");
                t.sample("simba_backend_call_duration_seconds_bucket", callLabel + ",le=\"" + le + '"',
                         QByteArray::number(cumulative));
            }
            // The count is the buckets' total, so _count and the +Inf bucket always agree.
            t.sample("simba_backend_call_duration_seconds_sum", callLabel, seconds(s.sum));
            t.sample("simba_backend_call_duration_seconds_count", callLabel, QByteArray::number(cumulative));
        }
        t.family("simba_backend_errors_total", "counter", "Backend calls that failed, by call.");
        for (const auto &[callLabel, s] : stats)
            t.sample("simba_backend_errors_total", callLabel, QByteArray::number(s.errors));
        t.family("simba_hints_total", "counter", "Backend hints delivered, by kind.");
        t.sample("simba_hints_total", label("kind", QStringLiteral("members_changed")),
                 QByteArray::number(bm->membersChangedHints()));
        t.sample("simba_hints_total", label("kind", QStringLiteral("released")), QByteArray::number(bm->releasedHints()));
    }

    t.family("simba_http_event_readers", "gauge", "Open event streams (/simba/events).");
    t.sample("simba_http_event_readers", {}, QByteArray::number(in.readers));
    t.family("simba_http_event_readers_dropped_total", "counter",
             "Event streams closed because their reader fell behind.");
    t.sample("simba_http_event_readers_dropped_total", {}, QByteArray::number(in.readersDropped));
    return t.take();
}
