// SPDX-License-Identifier: Apache-2.0
// simba-monitor: the operators' dashboard of QSimba backends and service endpoints.
#include "monitorapplication.h"
#include "monitorcontroller.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QSettings>
#include <QtQml/QQmlApplicationEngine>
#include <QtWidgets/QApplication>

#include <cstdio>

int main(int argc, char *argv[])
{
    // QtCharts in QML needs a QApplication.
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QSimba"));
    QApplication::setApplicationName(QStringLiteral("simba-monitor"));
    QApplication::setApplicationVersion(QStringLiteral(QSIMBA_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Watches QSimba backends (by URL: sqlite:///…, redis://…, postgresql://…) and service endpoints "
        "(http://host:port). Connections added here or in the window are remembered, without passwords."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption settingsOption(QStringLiteral("settings"),
                                            QStringLiteral("Remember connections in FILE (INI) instead of the user's settings."),
                                            QStringLiteral("FILE"));
    const QCommandLineOption languageOption(QStringLiteral("language"),
                                            QStringLiteral("The language: en or zh_CN (default: the system's)."),
                                            QStringLiteral("LANG"));
    parser.addOption(settingsOption);
    parser.addOption(languageOption);
    parser.addPositionalArgument(QStringLiteral("URL"), QStringLiteral("Backends or endpoints to watch."), QStringLiteral("[URL…]"));
    parser.process(app);

    std::unique_ptr<QSettings> settings = parser.isSet(settingsOption)
                                              ? std::make_unique<QSettings>(parser.value(settingsOption), QSettings::IniFormat)
                                              : std::make_unique<QSettings>();
    MonitorController controller(settings.get());
    if (parser.isSet(languageOption))
        controller.setLanguage(parser.value(languageOption));
    controller.restore();
    for (const QString &url : parser.positionalArguments()) {
        const QString problem = controller.addConnection(url);
        if (!problem.isEmpty() && !problem.contains(QStringLiteral("already")))
            std::fprintf(stderr, "simba-monitor: %s\n", qPrintable(problem));
    }
    MonitorApplication::prepare(&controller);
    auto engine = MonitorApplication::load(&controller);
    if (!engine)
        return 1;
    return app.exec();
}
