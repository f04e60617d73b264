// SPDX-License-Identifier: Apache-2.0
#include "sseparser.h"

QList<SseParser::Event> SseParser::feed(const QByteArray &bytes)
{
    QList<Event> out;
    m_buffer += bytes;
    qsizetype start = 0;
    while (true) {
        const qsizetype nl = m_buffer.indexOf('\n', start);
        if (nl < 0)
            break;
        QByteArray line = m_buffer.mid(start, nl - start);
        start = nl + 1;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.isEmpty()) {
            // Dispatch.
            if (m_hasData || !m_current.type.isEmpty()) {
                if (m_current.type.isEmpty())
                    m_current.type = QStringLiteral("message");
                if (!m_current.id.isEmpty())
                    m_lastId = m_current.id;
                out.append(m_current);
            }
            m_current = {};
            m_hasData = false;
            continue;
        }
        if (line.startsWith(':'))
            continue;
        const qsizetype colon = line.indexOf(':');
        const QByteArray field = colon < 0 ? line : line.left(colon);
        QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
        if (value.startsWith(' '))
            value.remove(0, 1);
        if (field == "data") {
            if (m_hasData)
                m_current.data += QLatin1Char('\n');
            m_current.data += QString::fromUtf8(value);
            m_hasData = true;
        } else if (field == "event") {
            m_current.type = QString::fromUtf8(value);
        } else if (field == "id") {
            m_current.id = QString::fromUtf8(value);
        }
    }
    m_buffer.remove(0, start);
    return out;
}
