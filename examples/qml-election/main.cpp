// SPDX-License-Identifier: Apache-2.0
// The QML election example: a window with this instance's role, term token and remaining
// lease, and a step-down button. Run two instances on one backend to watch the handover:
//     SIMBA_BACKEND=sqlite:///tmp/demo.db qml-election &
//     SIMBA_BACKEND=sqlite:///tmp/demo.db qml-election
// The QML module is found through QML_IMPORT_PATH (or Qt's qml directory when installed there).
#include <QtCore/QCommandLineParser>
#include <QtCore/QTimer>
#include <QtGui/QGuiApplication>
#include <QtGui/QImage>
#include <QtQml/QQmlApplicationEngine>
#include <QtQml/QQmlContext>
#include <QtQuick/QQuickWindow>

#include <cstdio>

// What the window reports to; prints each change and, for the smoke test, saves a screenshot
// once leader or steps down once and quits.
class Host : public QObject
{
    Q_OBJECT
public:
    QQuickWindow *window = nullptr;
    QString screenshot;
    bool stepDownOnce = false;

    Q_INVOKABLE void elected(double token)
    {
        std::printf("leader with token %.0f\n", token);
        std::fflush(stdout);
        if (!screenshot.isEmpty()) {
            // Save the first frame that shows the new role.
            connect(window, &QQuickWindow::frameSwapped, this, [this] {
                const bool saved = window->grabWindow().save(screenshot, "PNG");
                std::printf("screenshot %s: %s\n", qPrintable(screenshot), saved ? "saved" : "FAILED");
                std::fflush(stdout);
                QCoreApplication::exit(saved ? 0 : 1);
            }, Qt::SingleShotConnection);
            window->requestUpdate();
        }
        if (stepDownOnce)
            Q_EMIT stepDownRequested();
    }
    Q_INVOKABLE void revoked(const QString &reason)
    {
        std::printf("revoked: %s\n", qPrintable(reason));
        std::fflush(stdout);
        if (stepDownOnce)
            QCoreApplication::exit(0);
    }

Q_SIGNALS:
    void stepDownRequested();
};

int main(int argc, char *argv[])
{
    QGuiApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("QSimba"));
    QCoreApplication::setApplicationName(QStringLiteral("qml-election"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A QSimba leader election in a Qt Quick window."));
    parser.addHelpOption();
    const QCommandLineOption backend(QStringLiteral("backend"),
                                     QStringLiteral("Backend URL (else SIMBA_BACKEND, else the settings)."),
                                     QStringLiteral("URL"));
    const QCommandLineOption name(QStringLiteral("name"), QStringLiteral("The election's lease name."),
                                  QStringLiteral("NAME"), QStringLiteral("qml-election"));
    const QCommandLineOption label(QStringLiteral("label"), QStringLiteral("This instance's label."),
                                   QStringLiteral("TEXT"),
                                   QStringLiteral("pid %1").arg(QCoreApplication::applicationPid()));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Once leader, save the window as a PNG and quit."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption stepDown(QStringLiteral("step-down"),
                                      QStringLiteral("Once leader, step down (as the button does); quit when revoked."));
    const QCommandLineOption timeout(QStringLiteral("timeout"), QStringLiteral("Give up after SECONDS (exit 1)."),
                                     QStringLiteral("SECONDS"));
    parser.addOptions({backend, name, label, screenshot, stepDown, timeout});
    parser.process(app);

    // The default client follows the settings rules: SIMBA_BACKEND overrides simba/backend.
    if (parser.isSet(backend))
        qputenv("SIMBA_BACKEND", parser.value(backend).toUtf8());

    Host host;
    host.screenshot = parser.value(screenshot);
    host.stepDownOnce = parser.isSet(stepDown);
    QQmlApplicationEngine engine;
    engine.rootContext()->setContextProperty(QStringLiteral("electionName"), parser.value(name));
    engine.rootContext()->setContextProperty(QStringLiteral("instanceLabel"), parser.value(label));
    engine.rootContext()->setContextProperty(QStringLiteral("host"), &host);
    engine.load(QUrl(QStringLiteral("qrc:/QSimbaElectionExample/Main.qml")));
    if (engine.rootObjects().isEmpty())
        return 1;
    host.window = qobject_cast<QQuickWindow *>(engine.rootObjects().constFirst());
    if (parser.isSet(timeout)) {
        QTimer::singleShot(parser.value(timeout).toInt() * 1000, &app, [] {
            std::printf("timed out\n");
            QCoreApplication::exit(1);
        });
    }
    return app.exec();
}

#include "main.moc"
