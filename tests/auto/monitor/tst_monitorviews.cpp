// SPDX-License-Identifier: Apache-2.0
// The monitor's views, loaded as simba-monitor loads them (offscreen), watching real workers
// on an SQLite file and a redis-server the test starts, plus a connection that fails: the
// language switch at runtime, no untranslated string in the Chinese UI, finished .ts files,
// and a screenshot of each view in English and Chinese (into $QSIMBA_MONITOR_SCREENSHOTS,
// default <build>/monitor-screenshots).
#include "monitorapplication.h"
#include "monitorcontroller.h"
#include "monitorworkers.h"
#include "redisserver.h"

#ifdef QSIMBA_MONITOR_HAVE_HTTP
#include "qsimbahttpendpoint.h"
#endif

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTranslator>
#include <QtCore/QXmlStreamReader>
#include <QtQml/QQmlApplicationEngine>
#include <QtQuick/QQuickItem>
#include <QtQuick/QQuickWindow>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>
#include <QtWidgets/QApplication>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {

// Installed last-but-not-least: QCoreApplication asks it only for what every other
// translator left untranslated, so what it records is what the UI shows untranslated.
class MissRecorder : public QTranslator
{
public:
    bool isEmpty() const override { return false; }
    QString translate(const char *context, const char *source, const char *, int) const override
    {
        if (context && QByteArray(context) != "QObject" && QByteArray(context).left(2) != "Qt"
            && QByteArray(context).left(1) != "Q")
            misses.insert(QString::fromUtf8(context) + QStringLiteral(": ") + QString::fromUtf8(source));
        return {};
    }
    mutable QSet<QString> misses;
};

void collectTexts(QObject *object, QStringList *out)
{
    auto *item = qobject_cast<QQuickItem *>(object);
    if (item && !item->isVisible())
        return;
    for (const char *property : {"text", "placeholderText", "title", "displayText"}) {
        const QVariant v = object->property(property);
        if (v.typeId() == QMetaType::QString && !v.toString().isEmpty())
            out->append(v.toString());
    }
    if (item) {
        for (QQuickItem *child : item->childItems())
            collectTexts(child, out);
    }
    for (QObject *child : object->children()) {
        if (!qobject_cast<QQuickItem *>(child))
            collectTexts(child, out);
    }
}

} // namespace

class tst_MonitorViews : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        m_sqlite = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("simba.db"));
        // Three workers as an operator runs them: an election each contends for, a lock-like
        // name held by one, and a group of 12 partitions shared by all.
        const QStringList hosts{QStringLiteral("app-1"), QStringLiteral("app-2"), QStringLiteral("app-3")};
        for (int i = 0; i < hosts.size(); ++i) {
            m_workers.push_back(std::make_unique<MonitorTestWorker>(
                m_sqlite, hosts.at(i), 4100 + i,
                QStringList{QStringLiteral("billing"), QStringLiteral("report-%1").arg(i + 1)}, QStringLiteral("orders"), 12, 10s));
        }
        m_workers.push_back(std::make_unique<MonitorTestWorker>(
            QStringLiteral("redis://127.0.0.1:%1/0?maxLease=4s").arg(m_redis.port()), QStringLiteral("cache-1"), 5200,
            QStringList{QStringLiteral("cache-warmer")}));

        m_controller = std::make_unique<MonitorController>(nullptr);
        m_controller->setLanguage(QStringLiteral("en"));
        QCOMPARE(m_controller->addConnection(m_sqlite), QString());
        QCOMPARE(m_controller->addConnection(m_redis.url().toString()), QString());
#ifdef QSIMBA_MONITOR_HAVE_HTTP
        // app-2 serves its operator endpoint: the monitor reads its snapshot and events too.
        m_endpoint = std::make_unique<QSimbaHttpEndpoint>(m_workers.at(1)->simba.get());
        QCOMPARE(m_controller->addConnection(m_endpoint->url().toString()), QString());
#endif
        m_refused = QStringLiteral("http://127.0.0.1:%1").arg(TestServer::freePort());
        QCOMPARE(m_controller->addConnection(m_refused), QString());
        MonitorApplication::prepare(m_controller.get());
        m_engine = MonitorApplication::load(m_controller.get());
        QVERIFY(m_engine);
        m_window = qobject_cast<QQuickWindow *>(m_engine->rootObjects().value(0));
        QVERIFY(m_window);
        m_window->resize(1280, 800);
        QVERIFY(QTest::qWaitForWindowExposed(m_window));

        // Everything is there: 3 + 3 + 1 leases and 12 partitions, all owned.
        auto *leases = m_controller->leaseModel();
        QTRY_VERIFY_WITH_TIMEOUT(leases->count() >= 7, 30000);
        auto *groups = m_controller->groups();
        // The SQLite backend's view of the group (an endpoint has one of its own).
        auto group = [groups, this] {
            for (int r = 0; r < groups->rowCount(); ++r) {
                if (groups->index(r).data(GroupModel::ConnectionRole).toString() == m_sqlite)
                    return groups->index(r);
            }
            return QModelIndex();
        };
        QTRY_VERIFY_WITH_TIMEOUT(group().isValid() && group().data(GroupModel::UnownedRole).toInt() == 0
                                     && group().data(GroupModel::MembersRole).toList().size() == 3,
                                 30000);
        QTRY_VERIFY_WITH_TIMEOUT(m_controller->connections()->index(m_controller->connections()->count() - 1).data(ConnectionModel::StateRole).toInt()
                                     == int(MonitorConnection::State::Failing),
                                 10000);
        auto heldBy = [leases](const QString &host) {
            int n = 0;
            for (int r = 0; r < leases->rowCount(); ++r)
                n += leases->index(r, LeaseModel::HolderColumn).data().toString() == host ? 1 : 0;
            return n;
        };
        QTRY_VERIFY_WITH_TIMEOUT(heldBy(QStringLiteral("cache-1")) == 1, 30000);
        // A takeover, so the timeline and the chart have something: app-1 leaves, and the
        // others take its leases over.
        QTRY_VERIFY_WITH_TIMEOUT(heldBy(QStringLiteral("app-1")) > 0, 30000);
        m_workers.front()->close();
        QTRY_VERIFY_WITH_TIMEOUT(heldBy(QStringLiteral("app-1")) == 0 && group().data(GroupModel::UnownedRole).toInt() == 0
                                     && group().data(GroupModel::MembersRole).toList().size() == 2, 40000);
        QTRY_VERIFY_WITH_TIMEOUT(m_controller->eventModel()->rowCount() >= 2, 30000);
        // Two buckets of the chart at least, so its lines are lines.
        QTRY_VERIFY_WITH_TIMEOUT(m_controller->chart()->rowCount() >= 3, 20000);
    }

    void cleanupTestCase()
    {
        m_engine.reset();
#ifdef QSIMBA_MONITOR_HAVE_HTTP
        m_endpoint.reset();
#endif
        m_controller.reset();
        m_workers.clear();
    }

    void failingConnectionIsShownInWords()
    {
        m_window->setProperty("currentView", 0);
        QTRY_VERIFY(!findTexts(QStringLiteral("refused")).isEmpty());
    }

    void languageSwitchesAtRuntime()
    {
        m_controller->setLanguage(QStringLiteral("en"));
        QTRY_VERIFY(findTexts(QStringLiteral("Overview")).size() >= 1);
        QCOMPARE(m_controller->leaseModel()->headerData(LeaseModel::NameColumn, Qt::Horizontal).toString(), QStringLiteral("Lease"));
        m_controller->setLanguage(QStringLiteral("zh_CN"));
        QTRY_VERIFY(findTexts(QStringLiteral("概览")).size() >= 1);
        QVERIFY(findTexts(QStringLiteral("Overview")).isEmpty());
        QCOMPARE(m_controller->leaseModel()->headerData(LeaseModel::NameColumn, Qt::Horizontal).toString(), QStringLiteral("租约"));
        QCOMPARE(m_controller->localeName(), QStringLiteral("zh_CN"));
        // Numbers and durations follow the locale too (a model string, not QML).
        QCOMPARE(MonitorFormat::duration(4200), QStringLiteral("4.2 秒"));
        m_controller->setLanguage(QStringLiteral("en"));
        QTRY_VERIFY(findTexts(QStringLiteral("Overview")).size() >= 1);
    }

    void translationFilesAreFinished_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("en") << QStringLiteral(QSIMBA_SOURCE_DIR "/translations/simba-monitor_en.ts");
        QTest::newRow("zh_CN") << QStringLiteral(QSIMBA_SOURCE_DIR "/translations/simba-monitor_zh_CN.ts");
    }

    void translationFilesAreFinished()
    {
        QFETCH(QString, file);
        QFile f(file);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(file));
        QXmlStreamReader xml(&f);
        QString source;
        QStringList unfinished;
        int messages = 0;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement())
                continue;
            if (xml.name() == u"source") {
                source = xml.readElementText();
                ++messages;
            } else if (xml.name() == u"translation") {
                const auto type = xml.attributes().value(QStringLiteral("type")).toString();
                QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
                if (!type.isEmpty() || text.trimmed().isEmpty())
                    unfinished << source + QStringLiteral(" [") + (type.isEmpty() ? QStringLiteral("empty") : type) + QLatin1Char(']');
            }
        }
        QVERIFY(!xml.hasError());
        QVERIFY(messages > 50);
        QVERIFY2(unfinished.isEmpty(), qPrintable(unfinished.join(QLatin1Char('\n'))));
    }

    // Every view and the dialog in Chinese: no string looked up without a translation, and no
    // visible text with Latin words other than data (names, URLs, hosts, event fields).
    void chineseUiIsFullyTranslated()
    {
        MissRecorder recorder;
        QCoreApplication::installTranslator(&recorder);
        m_controller->setLanguage(QStringLiteral("zh_CN"));
        QCoreApplication::removeTranslator(&recorder);
        QCoreApplication::installTranslator(&recorder); // after the monitor's: asked last
        m_controller->setLanguage(QStringLiteral("en"));
        m_controller->setLanguage(QStringLiteral("zh_CN"));
        QStringList texts;
        for (int view = 0; view < 5; ++view) {
            m_window->setProperty("currentView", view);
            QTest::qWait(0);
            collectTexts(m_window->contentItem(), &texts);
        }
        selectFirstEvent();
        collectTexts(m_window->contentItem(), &texts);
        QObject *dialog = m_window->findChild<QObject *>(QStringLiteral("addDialog"));
        QVERIFY(dialog);
        QMetaObject::invokeMethod(dialog, "open");
        QTRY_VERIFY(dialog->property("opened").toBool());
        collectTexts(dialog, &texts);
        const QString problem = m_controller->addConnection(QStringLiteral("nosuch://x"));
        QVERIFY(!problem.isEmpty());
        QMetaObject::invokeMethod(dialog, "close");
        QCoreApplication::removeTranslator(&recorder);
        QStringList misses(recorder.misses.cbegin(), recorder.misses.cend());
        misses.sort();
        QVERIFY2(misses.isEmpty(), qPrintable(misses.join(QLatin1Char('\n'))));

        // Longest first, so a URL goes before a name inside it; only strings with words.
        const QSet<QString> dataSet = dataStrings();
        QStringList data;
        static const QRegularExpression word(QStringLiteral("[A-Za-z]{2,}"));
        for (const QString &d : dataSet) {
            if (d.contains(word))
                data << d;
        }
        std::sort(data.begin(), data.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
        static const QRegularExpression latinWord(QStringLiteral("[A-Za-z]{2,}"));
        // URLs are examples or data, never words to translate.
        static const QRegularExpression url(QStringLiteral("[a-z][a-z0-9+.-]*://[^\\s、，）)]*"));
        QStringList untranslated;
        for (QString text : std::as_const(texts)) {
            for (const QString &d : data)
                text.remove(d);
            text.remove(url);
            if (text.contains(latinWord))
                untranslated << text;
        }
        untranslated.removeDuplicates();
        QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(QLatin1Char('\n'))));
        m_controller->setLanguage(QStringLiteral("en"));
    }

    void screenshots_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<int>("view");
        const QStringList names{QStringLiteral("overview"), QStringLiteral("leases"), QStringLiteral("partitions"),
                                QStringLiteral("events"), QStringLiteral("charts")};
        for (const QString &language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
            for (int view = 0; view < names.size(); ++view)
                QTest::addRow("%s-%s", qPrintable(names.at(view)), qPrintable(language)) << language << view;
        }
    }

    void screenshots()
    {
        QFETCH(QString, language);
        QFETCH(int, view);
        static const QStringList names{QStringLiteral("overview"), QStringLiteral("leases"), QStringLiteral("partitions"),
                                       QStringLiteral("events"), QStringLiteral("charts")};
        m_controller->setLanguage(language);
        m_window->setProperty("currentView", view);
        if (view == 3)
            selectFirstEvent();
        // Two frames, so the delegates of the new view and language are laid out.
        QSignalSpy swapped(m_window, &QQuickWindow::frameSwapped);
        m_window->update();
        QTRY_VERIFY(swapped.size() >= 1);
        m_window->update();
        QTRY_VERIFY(swapped.size() >= 2);
        const QImage image = m_window->grabWindow();
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), m_window->size() * m_window->devicePixelRatio());
        // Not a blank window: many colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 8, qPrintable(QString::number(colours.size())));
        const QString dir = qEnvironmentVariable("QSIMBA_MONITOR_SCREENSHOTS",
                                                 QCoreApplication::applicationDirPath() + QStringLiteral("/monitor-screenshots"));
        QVERIFY(QDir().mkpath(dir));
        const QString file = QStringLiteral("%1/monitor-%2-%3.png").arg(dir, names.at(view), language == u"en" ? QStringLiteral("en") : QStringLiteral("zh"));
        QVERIFY2(image.save(file), qPrintable(file));
    }

private:
    QStringList findTexts(const QString &needle)
    {
        QStringList texts, out;
        collectTexts(m_window->contentItem(), &texts);
        for (const QString &t : std::as_const(texts)) {
            if (t.contains(needle))
                out << t;
        }
        return out;
    }

    void selectFirstEvent()
    {
        m_window->setProperty("currentView", 3);
        auto *list = m_window->findChild<QQuickItem *>(QStringLiteral("eventList"));
        QVERIFY(list);
        QTRY_VERIFY(list->property("count").toInt() > 0);
        QMetaObject::invokeMethod(list, "positionViewAtBeginning");
        QTRY_VERIFY(list->isVisible() && list->width() > 0);
        const QPointF p = list->mapToScene(QPointF(list->width() / 3, 10));
        QTest::mouseClick(m_window, Qt::LeftButton, {}, p.toPoint());
        auto *fields = m_window->findChild<QQuickItem *>(QStringLiteral("eventFields"));
        QVERIFY(fields);
        QTRY_VERIFY(fields->childItems().size() > 2);
    }

    // What the models show as data (not UI): every string an operator's backend decides.
    QSet<QString> dataStrings() const
    {
        QSet<QString> out{QStringLiteral("English"), QStringLiteral("QSimba")};
        auto add = [&](const QVariant &v) {
            if (v.typeId() == QMetaType::QString && !v.toString().isEmpty())
                out.insert(v.toString());
            if (v.typeId() == QMetaType::QStringList)
                for (const auto &s : v.toStringList())
                    out.insert(s);
        };
        const auto *leases = m_controller->leaseModel();
        for (int r = 0; r < leases->rowCount(); ++r)
            for (int c : {LeaseModel::ConnectionColumn, LeaseModel::NameColumn, LeaseModel::HolderColumn, LeaseModel::SessionColumn})
                add(leases->index(r, c).data());
        auto *connections = m_controller->connections();
        for (int r = 0; r < connections->rowCount(); ++r)
            add(connections->index(r).data(ConnectionModel::UrlRole));
        auto *groups = m_controller->groups();
        for (int r = 0; r < groups->rowCount(); ++r) {
            add(groups->index(r).data(GroupModel::NameRole));
            for (const auto &m : groups->index(r).data(GroupModel::MembersRole).toList())
                add(m.toMap().value(QStringLiteral("label")));
        }
        auto *events = m_controller->eventModel();
        for (int r = 0; r < events->rowCount(); ++r) {
            add(events->index(r).data(EventModel::NameRole));
            add(events->index(r).data(EventModel::SessionRole));
            for (const auto &f : events->index(r).data(EventModel::FieldsRole).toList()) {
                add(f.toMap().value(QStringLiteral("key")));
                add(f.toMap().value(QStringLiteral("value")));
            }
        }
        return out;
    }

    QTemporaryDir m_dir;
    RedisServer m_redis;
    QString m_sqlite;
    QString m_refused;
    std::vector<std::unique_ptr<MonitorTestWorker>> m_workers;
    std::unique_ptr<MonitorController> m_controller;
    std::unique_ptr<QQmlApplicationEngine> m_engine;
#ifdef QSIMBA_MONITOR_HAVE_HTTP
    std::unique_ptr<QSimbaHttpEndpoint> m_endpoint;
#endif
    QQuickWindow *m_window = nullptr;
};

// QtCharts in QML needs a QApplication.
QSIMBA_TEST_ENTRY(tst_monitorviews)
{
    QApplication app(argc, argv);
    tst_MonitorViews test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_monitorviews.moc"
