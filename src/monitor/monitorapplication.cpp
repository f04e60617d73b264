// SPDX-License-Identifier: Apache-2.0
#include "monitorapplication.h"

#include "monitorcontroller.h"
#include "monitorlogging_p.h"

#include <QtQml/QQmlApplicationEngine>
#include <QtQml/QQmlEngine>
#include <QtQuickControls2/QQuickStyle>

void MonitorApplication::prepare(MonitorController *controller)
{
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    qmlRegisterSingletonInstance("QSimba.Monitor", 1, 0, "Monitor", controller);
}

std::unique_ptr<QQmlApplicationEngine> MonitorApplication::load(MonitorController *controller)
{
    auto engine = std::make_unique<QQmlApplicationEngine>();
    controller->setEngine(engine.get());
    engine->load(QUrl(QString::fromLatin1(MainQml)));
    if (engine->rootObjects().isEmpty()) {
        qCCritical(lcMonitor) << "the main window did not load";
        return nullptr;
    }
    return engine;
}
