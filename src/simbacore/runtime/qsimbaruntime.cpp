// SPDX-License-Identifier: Apache-2.0
#include "qsimbaruntime_p.h"

#include "qsimbalogging_p.h"


using namespace QSimbaEngine;
using namespace std::chrono;

namespace {
// The innermost CallerRuns of this thread, if any.
thread_local QSimbaRuntime::CallerRuns *t_callerRuns = nullptr;
} // namespace

QSimbaRuntime::CallerRuns::CallerRuns(QSimbaRuntime &runtime, Nanos deadline)
    : m_runtime(runtime), m_deadline(deadline), m_previous(t_callerRuns)
{
    t_callerRuns = this;
}

QSimbaRuntime::CallerRuns::~CallerRuns()
{
    m_runtime.runCallersCall(); // taken but not run (no post() ended since): never dropped
    t_callerRuns = m_previous;
}

QSimbaRuntime::QSimbaRuntime(Options options, std::unique_ptr<QSimbaLeaseBackend> backend, Hooks hooks)
    : m_ticker(options.ticker), m_core(options), m_hooks(std::move(hooks)), m_backend(std::move(backend))
{
    m_engineThread.setObjectName(QStringLiteral("simba-engine"));
    m_backendThread.setObjectName(QStringLiteral("simba-backend"));
    m_backendContext = new QSimbaHandOverReceiver;
    m_backendContext->moveToThread(&m_backendThread);
    m_timer = new QTimer;
    m_timer->setSingleShot(true);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->moveToThread(&m_engineThread);
    QObject::connect(m_timer, &QTimer::timeout, this, [this] {
        {
            Locker lock(m_mutex);
            m_armedAt = Core::Never;
        }
        post(In::Tick{});
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
    QSimbaHandOverReceiver::startThread(m_backendThread);
    QSimbaHandOverReceiver::startThread(m_engineThread);
    {
        Locker lock(m_mutex);
        ++m_backendCalls; // a caller must not use the backend while it subscribes
    }
    QSimbaHandOverReceiver::post(m_backendContext, [this] {
        {
            std::lock_guard use(m_backendMutex);
            m_subscription = m_backend->subscribe([this](const QSimbaLeaseBackend::Hint &hint) {
                post(In::Hint{hint});
            });
        }
        Locker lock(m_mutex);
        --m_backendCalls;
    });
    post(In::Start{});
}

bool QSimbaRuntime::isEngineThread() const
{
    return QThread::currentThread() == &m_engineThread || m_applyingThread.load() == QThread::currentThreadId();
}

void QSimbaRuntime::post(Input input)
{
    {
        Locker lock(m_mutex);
        if (m_stopped)
            return;
        if (m_applyingThread.load() == QThread::currentThreadId()) {
            m_pending.push_back(std::move(input)); // taken by this thread's apply() loop
            return;
        }
        feed(input);
        apply();
    }
    afterInput();
    runCallersCall();
}

bool QSimbaRuntime::handleNow(const Input &input)
{
    bool handled = true;
    {
        Locker lock(m_mutex);
        handled = feed(input);
        if (m_applyingThread.load() == QThread::currentThreadId())
            return handled; // the outer apply() takes the effects
        apply();
    }
    afterInput();
    runCallersCall();
    return handled;
}

void QSimbaRuntime::issue(quint64 id, Call call)
{
    ++m_backendCalls;
    // Caller runs: this thread waits for the answer anyway, and the backend is idle (this is
    // the only call outstanding, so the order of calls stays the order they were issued in).
    CallerRuns *const runs = t_callerRuns;
    if (runs && &runs->m_runtime == this && !runs->m_used && m_backendCalls == 1 && !m_stopped
        && QThread::currentThread() != &m_engineThread && QThread::currentThread() != &m_backendThread) {
        // Never waited for under m_mutex: the backend thread holds it only while it uses the
        // backend (and may then feed a hint, which takes m_mutex).
        std::unique_lock use(m_backendMutex, std::try_to_lock);
        if (use.owns_lock() && m_backend) {
            const auto caps = m_backend->capabilities();
            const bool inTime = runs->m_deadline == Core::Never
                                || (caps.callBound != QSimbaLeaseBackend::Millis::max()
                                    && runs->m_deadline - now() >= Nanos(caps.callBound));
            if (caps.anyThread && inTime) {
                runs->m_used = true;
                runs->m_call.emplace(id, std::move(call));
                runs->m_backendLock = std::move(use);
                return;
            }
        }
    }
    // Queued even from the backend thread itself (feeding a reply): the call must never run
    // here, under the mutex.
    QSimbaHandOverReceiver::post(m_backendContext, [this, id, call = std::move(call)] {
        Reply reply;
        {
            std::lock_guard use(m_backendMutex); // a caller may still be running the call before
            if (!m_backend)
                return; // shut down: nobody waits for the answer any more
            reply = execute(*m_backend, call);
        }
        if (reply.error != Reply::Error::None)
            qCDebug(lcSimbaEngine) << describe(call) << "failed:" << reply.message;
        replied(id, reply);
    });
}

void QSimbaRuntime::runCallersCall()
{
    CallerRuns *const runs = t_callerRuns;
    if (!runs || &runs->m_runtime != this || !runs->m_call)
        return;
    const auto [id, call] = std::move(*runs->m_call);
    runs->m_call.reset();
    const Reply reply = execute(*m_backend, call); // m_backendMutex held since it was taken
    runs->m_backendLock.unlock();
    if (reply.error != Reply::Error::None)
        qCDebug(lcSimbaEngine) << describe(call) << "failed (run by its caller):" << reply.message;
    replied(id, reply);
}

void QSimbaRuntime::replied(quint64 id, const Reply &reply)
{
    {
        Locker lock(m_mutex);
        --m_backendCalls;
        if (m_stopped)
            return;
        feed(In::BackendReplied{id, reply});
        apply();
    }
    afterInput();
    runCallersCall();
}

void QSimbaRuntime::query(const Query &fn) const
{
    Locker lock(m_mutex);
    fn(m_core, now());
}

bool QSimbaRuntime::feed(const Input &input)
{
    return m_core.handle(now(), input);
}

void QSimbaRuntime::afterInput()
{
    if (QThread::currentThread() == &m_engineThread && !m_runningTasks)
        runTasks();
}

void QSimbaRuntime::apply()
{
    m_applyingThread = QThread::currentThreadId();
    for (;;) {
        auto effects = m_core.takeEffects();
        if (effects.empty()) {
            if (m_pending.empty())
                break;
            const Input input = std::move(m_pending.front());
            m_pending.pop_front();
            feed(input);
            continue;
        }
        for (auto &effect : effects) {
            switch (effect.type) {
            case Effect::Type::CallBackend:
                issue(effect.callId, std::move(effect.call));
                break;
            case Effect::Type::RunTask: {
                const QString stream = effect.stream;
                auto task = [this, stream, t = std::move(effect.task)] {
                    const Taken taken = m_hooks.perform(t);
                    post(In::Delivered{stream, /*rejected=*/false, taken});
                };
                // The executor is called on the engine thread only, in the order of the
                // tasks (a Direct executor runs them there, as before).
                m_tasks.emplace_back(stream, std::move(task));
                break;
            }
            case Effect::Type::Resolve:
                m_hooks.resolve(effect.promise, effect.term, effect.failure);
                break;
            }
        }
    }
    m_applyingThread = nullptr;
    const bool onEngine = QThread::currentThread() == &m_engineThread;
    if (!m_tasks.empty() && !onEngine && !m_tasksPosted) {
        m_tasksPosted = true;
        QSimbaHandOverReceiver::post(this, [this] {
            {
                Locker lock(m_mutex);
                m_tasksPosted = false;
            }
            if (!m_runningTasks)
                runTasks();
        });
    }
    if (onEngine) {
        arm();
    } else if (m_core.nextWakeup() < m_armedAt && !m_rearmPosted) {
        // Only an earlier wake-up needs the timer moved; a later one lets it fire early
        // (a tick with nothing due). The timer is the engine thread's.
        m_rearmPosted = true;
        QSimbaHandOverReceiver::post(this, [this] {
            Locker lock(m_mutex);
            m_rearmPosted = false;
            arm();
        });
    }
}

void QSimbaRuntime::arm()
{
    const Nanos wake = m_core.nextWakeup();
    if (wake == m_armedAt && (wake == Core::Never || m_timer->isActive()))
        return;
    m_armedAt = wake;
    if (wake == Core::Never) {
        m_timer->stop();
    } else {
        const Nanos wait = std::max(Nanos(0), wake - now());
        m_timer->start(int(std::min<qint64>(ceil<milliseconds>(wait).count(), 24 * 3600 * 1000)));
    }
}

void QSimbaRuntime::runTasks()
{
    m_runningTasks = true;
    for (;;) {
        std::pair<QString, std::function<void()>> next;
        {
            Locker lock(m_mutex);
            if (m_tasks.empty() || m_stopped)
                break;
            next = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        if (!m_hooks.executor(std::move(next.second)))
            post(In::Delivered{next.first, /*rejected=*/true});
    }
    m_runningTasks = false;
}

void QSimbaRuntime::shutdown()
{
    if (m_backendThread.isRunning()) {
        postBlocking(m_backendContext, [this] {
            std::lock_guard use(m_backendMutex); // after a call a caller runs
            m_subscription.reset();
            m_backend.reset();
        });
        stopThread(m_backendThread);
    }
    if (m_engineThread.isRunning()) {
        postBlocking(this, [this] {
            m_timer->stop();
            Locker lock(m_mutex);
            m_stopped = true;
        });
        stopThread(m_engineThread);
    }
    Locker lock(m_mutex);
    m_stopped = true;
}

#include "moc_qsimbaruntime_p.cpp"
