// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QString>

#include <memory>

class MonitorController;
class QQmlApplicationEngine;

/*
 * What simba-monitor and the view tests share: the QML registration ("Monitor" in the
 * QSimba.Monitor module) and the loading of the main window.
 */
namespace MonitorApplication {

inline constexpr char MainQml[] = "qrc:/qml/monitor/Main.qml";

//! Fusion style, the QML singleton; call once, before load().
void prepare(MonitorController *controller);
//! The engine with the main window loaded (null with the QML errors logged when it failed).
std::unique_ptr<QQmlApplicationEngine> load(MonitorController *controller);

} // namespace MonitorApplication
