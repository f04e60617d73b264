// SPDX-License-Identifier: Apache-2.0
#include "eventmodel.h"

#include "monitorformat.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QVariantMap>

EventModel::EventModel(QObject *parent) : QAbstractListModel(parent)
{
    m_flush.setInterval(100);
    connect(&m_flush, &QTimer::timeout, this, &EventModel::flush);
    m_flush.start();
}

int EventModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QHash<int, QByteArray> EventModel::roleNames() const
{
    return {{TimeRole, "time"},     {ConnectionRole, "connection"}, {TypeRole, "type"},
            {TypeTextRole, "typeText"}, {NameRole, "name"},         {SessionRole, "session"},
            {TokenRole, "token"},   {SummaryRole, "summary"},       {FieldsRole, "fields"}};
}

QVariant EventModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const MonitorEvent &e = m_rows.at(index.row());
    switch (role) {
    case TimeRole: return MonitorFormat::time(e.time);
    case ConnectionRole: return e.connection;
    case TypeRole: return e.type;
    case Qt::DisplayRole:
    case TypeTextRole: return MonitorFormat::eventType(e.type);
    case NameRole: return e.name;
    case SessionRole: return e.session;
    case TokenRole: return e.token;
    case SummaryRole: {
        QStringList parts;
        if (e.token > 0)
            parts << tr("token %1").arg(e.token); // an identifier: no digit grouping
        const QString reason = e.fields.value(u"reason").toString();
        if (!reason.isEmpty())
            parts << MonitorFormat::reason(reason);
        const QString error = e.fields.value(u"error").toString();
        if (!error.isEmpty())
            parts << error;
        if (e.type == u"HOLDER_CHANGED" && e.session.isEmpty())
            parts << tr("now free");
        return parts.join(QStringLiteral(" · "));
    }
    case FieldsRole: {
        QVariantList out;
        for (auto it = e.fields.begin(); it != e.fields.end(); ++it) {
            const QJsonValue v = it.value();
            QString text = v.isString() ? v.toString()
                           : v.isDouble() ? QString::number(v.toInteger())
                           : v.isBool() ? (v.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                           : QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
            out.append(QVariantMap{{QStringLiteral("key"), it.key()}, {QStringLiteral("value"), text}});
        }
        return out;
    }
    default:
        return {};
    }
}

void EventModel::add(const MonitorEvent &event)
{
    m_queue.append(event);
    if (m_queue.size() > m_capacity)
        m_queue.remove(0, m_queue.size() - m_capacity);
    if (!m_types.contains(event.type)) {
        m_types.append(event.type);
        m_types.sort();
        Q_EMIT typesChanged();
    }
}

void EventModel::flush()
{
    if (m_paused || m_queue.isEmpty())
        return;
    const int incoming = int(m_queue.size());
    const int overflow = int(m_rows.size()) + incoming - m_capacity;
    if (overflow > 0) {
        const int drop = std::min(overflow, int(m_rows.size()));
        if (drop > 0) {
            beginRemoveRows({}, 0, drop - 1);
            m_rows.remove(0, drop);
            endRemoveRows();
        }
    }
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + incoming - 1);
    m_rows.append(std::move(m_queue));
    m_queue.clear();
    endInsertRows();
    Q_EMIT queuedChanged();
    Q_EMIT countChanged();
}

void EventModel::setPaused(bool paused)
{
    if (paused == m_paused)
        return;
    m_paused = paused;
    Q_EMIT pausedChanged();
    if (!paused)
        flush();
}

void EventModel::retranslate()
{
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_rows.size()) - 1), {TimeRole, TypeTextRole, SummaryRole, Qt::DisplayRole});
}

// ---------------------------------------------------------------------------------------

void EventFilterModel::setField(QString &field, const QString &value)
{
    if (value == field)
        return;
    field = value;
    invalidateFilter();
    Q_EMIT changed();
}

QVariantList EventFilterModel::fields(int row) const
{
    return data(index(row, 0), EventModel::FieldsRole).toList();
}

bool EventFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    Q_UNUSED(sourceParent);
    const MonitorEvent &e = static_cast<const EventModel *>(sourceModel())->event(sourceRow);
    if (!m_type.isEmpty() && e.type != m_type)
        return false;
    if (!m_connection.isEmpty() && e.connection != m_connection)
        return false;
    return m_name.isEmpty() || e.name.contains(m_name, Qt::CaseInsensitive);
}

#include "moc_eventmodel.cpp"
