// SPDX-License-Identifier: Apache-2.0
#include "qsimbaruntime_p.h"

#include "qsimbalogging_p.h"

#include <QtCore/QMetaObject>

using namespace QSimbaEngine;
using namespace std::chrono;

QSimbaRuntime::QSimbaRuntime(Options options, std::unique_ptr<QSimbaLeaseBackend> backend, Hooks hooks)
    : m_ticker(options.ticker), m_core(options), m_hooks(std::move(hooks)), m_backend(std::move(backend))
{
    m_engineThread.setObjectName(QStringLiteral("simba-engine"));
    m_backendThread.setObjectName(QStringLiteral("simba-backend"));
    m_backendContext = new QObject;
    m_backendContext->moveToThread(&m_backendThread);
    m_timer = new QTimer;
    m_timer->setSingleShot(true);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->moveToThread(&m_engineThread);
    QObject::connect(m_timer, &QTimer::timeout, this, [this] {
        m_core.tick(now());
        apply();
    });
    moveToThread(&m_engineThread);
}

QSimbaRuntime::~QSimbaRuntime()
{
    // The threads are stopped by shutdown(); what is left is deleted here.
    delete m_timer;
    delete m_backendContext;
}

void QSimbaRuntime::start()
{
    m_backendThread.start();
    m_engineThread.start();
    QMetaObject::invokeMethod(m_backendContext, [this] {
        m_subscription = m_backend->subscribe([this](const QSimbaLeaseBackend::Hint &hint) {
            post([hint](Core &core, Nanos now) { core.hint(now, hint); });
        });
    });
    post([](Core &core, Nanos now) { core.start(now); });
}

void QSimbaRuntime::post(Input input)
{
    QMetaObject::invokeMethod(this, [this, input = std::move(input)] {
        input(m_core, now());
        apply();
    }, Qt::QueuedConnection);
}

void QSimbaRuntime::runBlocking(const std::function<void(Core &, Nanos)> &fn)
{
    if (isEngineThread()) {
        fn(m_core, now());
        apply();
        return;
    }
    QMetaObject::invokeMethod(this, [&] {
        fn(m_core, now());
        apply();
    }, Qt::BlockingQueuedConnection);
}

void QSimbaRuntime::apply()
{
    if (m_applying)
        return; // the outer apply() takes the effects a nested input added
    m_applying = true;
    for (;;) {
        auto effects = m_core.takeEffects();
        if (effects.empty())
            break;
        for (auto &effect : effects) {
            switch (effect.type) {
            case Effect::Type::CallBackend:
                QMetaObject::invokeMethod(m_backendContext, [this, id = effect.callId, call = std::move(effect.call)] {
                    if (!m_backend)
                        return; // shut down: nobody waits for the answer any more
                    const Reply reply = execute(*m_backend, call);
                    if (reply.error != Reply::Error::None)
                        qCDebug(lcSimbaEngine) << describe(call) << "failed:" << reply.message;
                    post([id, reply](Core &core, Nanos now) { core.backendReplied(now, id, reply); });
                });
                break;
            case Effect::Type::RunTask: {
                const QString stream = effect.stream;
                auto task = [this, stream, t = std::move(effect.task)] {
                    const Taken taken = m_hooks.perform(t);
                    post([stream, taken](Core &core, Nanos now) { core.taskFinished(now, stream, false, taken); });
                };
                if (!m_hooks.executor(std::move(task)))
                    m_core.taskFinished(now(), stream, true);
                break;
            }
            case Effect::Type::Resolve:
                m_hooks.resolve(effect.promise, effect.term, effect.failure);
                break;
            }
        }
    }
    m_applying = false;
    const Nanos wake = m_core.nextWakeup();
    if (wake == Core::Never) {
        m_timer->stop();
    } else {
        const Nanos wait = std::max(Nanos(0), wake - now());
        m_timer->start(int(std::min<qint64>(ceil<milliseconds>(wait).count(), 24 * 3600 * 1000)));
    }
}

void QSimbaRuntime::shutdown()
{
    if (m_backendThread.isRunning()) {
        QMetaObject::invokeMethod(m_backendContext, [this] {
            m_subscription.reset();
            m_backend.reset();
        }, Qt::BlockingQueuedConnection);
        m_backendThread.quit();
        m_backendThread.wait();
    }
    if (m_engineThread.isRunning()) {
        QMetaObject::invokeMethod(this, [this] { m_timer->stop(); }, Qt::BlockingQueuedConnection);
        m_engineThread.quit();
        m_engineThread.wait();
    }
}
