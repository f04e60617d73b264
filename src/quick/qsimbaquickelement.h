// SPDX-License-Identifier: Apache-2.0
// Part of the QML module QSimba: not an installed C++ API.
#pragma once

#include "qsimbaquickclient.h"

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtQml/QQmlParserStatus>
#include <QtQml/qqmlregistration.h>

class QSimba;

/*
 * What every QSimba element shares: the client it uses (an explicit SimbaClient or the
 * default one), activation once the component is complete, and errorString with a QML
 * warning naming the property and the rule. Thread-affine (GUI thread).
 */
class QSimbaQuickElement : public QObject, public QQmlParserStatus
{
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_ANONYMOUS
    Q_PROPERTY(QSimbaQuickClient *client READ client WRITE setClient NOTIFY clientChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

public:
    explicit QSimbaQuickElement(QObject *parent = nullptr);
    ~QSimbaQuickElement() override;

    QSimbaQuickClient *client() const { return m_client; }
    void setClient(QSimbaQuickClient *client);
    QString errorString() const { return m_error; }

    void classBegin() override {}
    void componentComplete() override;

Q_SIGNALS:
    void clientChanged();
    void errorStringChanged();

protected:
    bool isComplete() const { return m_complete; }
    //! The QSimba of the element's client; nullptr (and an error) when there is none.
    QSimba *simba();
    //! Reports \a message (naming the property and the rule) as a QML warning and errorString.
    void setError(const QString &message);
    void clearError();
    //! Apply the properties: (re)start or stop what the element runs.
    virtual void update() = 0;

private:
    QPointer<QSimbaQuickClient> m_client;
    QPointer<QSimbaQuickClient> m_used; // the client simba() returned, to see it go
    bool m_complete = false;
    QString m_error;
};
