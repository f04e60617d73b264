// SPDX-License-Identifier: Apache-2.0
#include "qsimbaquickelement.h"
#include "qsimbaquickutil_p.h"

#include <QtQml/QQmlInfo>

QSimbaQuickElement::QSimbaQuickElement(QObject *parent) : QObject(parent) {}

QSimbaQuickElement::~QSimbaQuickElement() = default;

void QSimbaQuickElement::setClient(QSimbaQuickClient *client)
{
    if (client == m_client)
        return;
    if (m_complete && m_used) {
        setError(QStringLiteral("client: an element cannot move to another client once it started"));
        return;
    }
    m_client = client;
    Q_EMIT clientChanged();
}

void QSimbaQuickElement::componentComplete()
{
    m_complete = true;
    update();
}

QSimba *QSimbaQuickElement::simba()
{
    QSimbaQuickClient *client = QSimbaQuickClient::resolve(m_client, this);
    if (!client) {
        setError(QStringLiteral("client: no SimbaClient given and no QML engine for the default client"));
        return nullptr;
    }
    QSimba *simba = client->client();
    if (!simba) {
        setError(QStringLiteral("client: %1").arg(client->errorString()));
        return nullptr;
    }
    m_used = client;
    return simba;
}

void QSimbaQuickElement::setError(const QString &message)
{
    qmlWarning(this) << message;
    if (message == m_error)
        return;
    m_error = message;
    Q_EMIT errorStringChanged();
}

void QSimbaQuickElement::clearError()
{
    if (m_error.isEmpty())
        return;
    m_error.clear();
    Q_EMIT errorStringChanged();
}

#include "moc_qsimbaquickelement.cpp"
