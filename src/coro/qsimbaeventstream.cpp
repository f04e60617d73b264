// SPDX-License-Identifier: Apache-2.0
#include "qsimbaeventstream.h"

#include <qsimbaerror.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QMutex>
#include <QtCore/QPointer>

#include <coroutine>
#include <deque>
#include <optional>

/*!
    \class QSimbaEventStream
    \brief A bounded, drop-oldest buffer of a client's events, consumed by coroutines.

    The listener and push() may be called on any thread (the client's callback executor);
    next() is called and resumes on the stream's thread, from its event loop. One next() may
    wait at a time.

    The seeds' SimbaEventFlow: a client's events, in order, for a coroutine to consume with
    co_await next(). Register listener() with QSimba::Builder::listener(), or connect
    QSimba::event to push(). Holds at most bufferCapacity() events: a consumer that falls
    behind loses the oldest ones (counted by dropped()). Thread-affine (next() resumes on the
    stream's thread); push() and the listener are thread-safe.
*/

// Named, not anonymous: QSimbaEventStreamPrivate and the coroutine frame of next() hold
// these types, and a class of external linkage must not hold a type of internal linkage
// (GCC says so when the unity build compiles this file as an included one).
namespace QSimbaEventStreamDetail {

class Waiter;

// Shared by the stream and its listeners, which may outlive it.
struct State
{
    mutable QMutex mutex;
    std::deque<QSimbaEvent> buffer;
    qsizetype capacity = QSimbaEventStream::DefaultBufferCapacity;
    qint64 dropped = 0;
    QObject *stream = nullptr; // null once the stream is gone
    Waiter *waiter = nullptr;  // the next() waiting, on the stream's thread

    void push(const std::shared_ptr<State> &self, const QSimbaEvent &event);
    //! Posts wake() to the stream's thread; with the mutex held.
    void postWake(const std::shared_ptr<State> &self);
    //! On the stream's thread: resumes the waiter when it has something to take.
    void wake();
};

class Waiter
{
public:
    Waiter(std::shared_ptr<State> state, std::stop_token stop) : m_state(std::move(state)), m_stop(std::move(stop)) {}
    Waiter(const Waiter &) = delete;
    Waiter &operator=(const Waiter &) = delete;
    ~Waiter()
    {
        if (m_handle) { // the frame is destroyed while it waits
            m_stopCallback.reset();
            QMutexLocker lock(&m_state->mutex);
            if (m_state->waiter == this)
                m_state->waiter = nullptr;
        }
    }

    bool await_ready() const
    {
        QMutexLocker lock(&m_state->mutex);
        return !m_state->buffer.empty() || !m_state->stream || m_stop.stop_requested();
    }

    bool await_suspend(std::coroutine_handle<> handle)
    {
        {
            QMutexLocker lock(&m_state->mutex);
            if (!m_state->buffer.empty() || !m_state->stream)
                return false;
            if (m_state->waiter)
                throw QSimbaIllegalStateError(QStringLiteral("QSimbaEventStream::next(): another next() is waiting"));
            m_state->waiter = this;
            m_handle = handle;
        }
        if (m_stop.stop_possible()) {
            std::weak_ptr<State> weak = m_state;
            m_stopCallback.emplace(m_stop, StopHandler{weak});
        }
        return true;
    }

    QSimbaEvent await_resume()
    {
        m_stopCallback.reset();
        QMutexLocker lock(&m_state->mutex);
        if (m_state->waiter == this)
            m_state->waiter = nullptr;
        if (m_stop.stop_requested())
            throw QSimbaInterruptedError(QStringLiteral("QSimbaEventStream::next(): cancelled"));
        if (m_state->buffer.empty())
            throw QSimbaIllegalStateError(QStringLiteral("QSimbaEventStream::next(): the stream was destroyed"));
        QSimbaEvent event = std::move(m_state->buffer.front());
        m_state->buffer.pop_front();
        return event;
    }

    bool isStopRequested() const { return m_stop.stop_requested(); }
    //! With the mutex released; on the stream's thread.
    void resume() { std::exchange(m_handle, {}).resume(); }

private:
    struct StopHandler
    {
        std::weak_ptr<State> state;
        void operator()() const noexcept
        {
            if (auto s = state.lock()) {
                QMutexLocker lock(&s->mutex);
                s->postWake(s);
            }
        }
    };

    std::shared_ptr<State> m_state;
    std::stop_token m_stop;
    std::coroutine_handle<> m_handle;
    std::optional<std::stop_callback<StopHandler>> m_stopCallback;
};

// What co_await takes (QCoro 0.8 copies an lvalue awaiter; a Waiter cannot be copied).
struct NextEvent
{
    std::shared_ptr<State> state;
    std::stop_token stop;
    Waiter operator co_await() const { return Waiter(state, stop); }
};

void State::push(const std::shared_ptr<State> &self, const QSimbaEvent &event)
{
    QMutexLocker lock(&mutex);
    buffer.push_back(event);
    while (qsizetype(buffer.size()) > capacity) {
        buffer.pop_front();
        ++dropped;
    }
    if (waiter)
        postWake(self);
}

void State::postWake(const std::shared_ptr<State> &self)
{
    if (!stream)
        return;
    // Resume from the stream's event loop: never inside push(), which may be a listener
    // call on another thread or a signal emission. A stream destroyed first drops the post.
    std::weak_ptr<State> weak = self;
    QMetaObject::invokeMethod(stream, [weak] {
        if (auto s = weak.lock())
            s->wake();
    }, Qt::QueuedConnection);
}

void State::wake()
{
    Waiter *w = nullptr;
    {
        QMutexLocker lock(&mutex);
        if (waiter && (!buffer.empty() || !stream || waiter->isStopRequested()))
            w = std::exchange(waiter, nullptr);
    }
    if (w)
        w->resume();
}

} // namespace QSimbaEventStreamDetail

using namespace QSimbaEventStreamDetail;

class QSimbaEventStreamPrivate
{
public:
    std::shared_ptr<State> state = std::make_shared<State>();
};

/*!
    Creates a stream holding at most DefaultBufferCapacity (1024) events.
*/
QSimbaEventStream::QSimbaEventStream(QObject *parent) : QSimbaEventStream(DefaultBufferCapacity, parent) {}

/*!
    Creates a stream holding at most \a bufferCapacity events; throws
    QSimbaInvalidArgumentError unless it is at least 1.
*/
QSimbaEventStream::QSimbaEventStream(int bufferCapacity, QObject *parent)
    : QObject(parent), d_ptr(new QSimbaEventStreamPrivate)
{
    if (bufferCapacity < 1)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("QSimbaEventStream: bufferCapacity must be at least 1, not %1").arg(bufferCapacity));
    d_ptr->state->capacity = bufferCapacity;
    d_ptr->state->stream = this;
}

/*!
    A next() still waiting resumes with QSimbaIllegalStateError; listeners registered
    elsewhere keep working and drop what they receive.
*/
QSimbaEventStream::~QSimbaEventStream()
{
    auto &state = d_ptr->state;
    {
        QMutexLocker lock(&state->mutex);
        state->stream = nullptr;
        state->buffer.clear();
    }
    state->wake();
}

int QSimbaEventStream::bufferCapacity() const
{
    QMutexLocker lock(&d_func()->state->mutex);
    return int(d_func()->state->capacity);
}

/*!
    Events dropped so far because a consumer fell more than bufferCapacity() behind.
    Thread-safe.
*/
qint64 QSimbaEventStream::dropped() const
{
    QMutexLocker lock(&d_func()->state->mutex);
    return d_func()->state->dropped;
}

/*!
    Events buffered now, not yet taken by next(). Thread-safe.
*/
qsizetype QSimbaEventStream::size() const
{
    QMutexLocker lock(&d_func()->state->mutex);
    return qsizetype(d_func()->state->buffer.size());
}

/*!
    A listener for QSimba::Builder::listener() that pushes every event into this stream.
    It holds the stream's buffer, not the stream: after the stream is destroyed it drops
    what it receives.
*/
QSimba::EventListener QSimbaEventStream::listener() const
{
    std::weak_ptr<State> weak = d_func()->state;
    return [weak](const QSimbaEvent &event) {
        if (auto s = weak.lock()) {
            {
                QMutexLocker lock(&s->mutex);
                if (!s->stream)
                    return;
            }
            s->push(s, event);
        }
    };
}

/*!
    Appends \a event, dropping the oldest buffered event when the buffer is full. Connect
    QSimba::event to it, or call it from any thread.
*/
void QSimbaEventStream::push(const QSimbaEvent &event)
{
    d_func()->state->push(d_func()->state, event);
}

/*!
    Returns the oldest buffered event, suspending until one arrives when the buffer is
    empty. Call it on the stream's thread; it resumes there. Throws (at the co_await)
    QSimbaInterruptedError when \a stop is requested while it waits, QSimbaIllegalStateError
    when another next() is already waiting or the stream is destroyed while it waits.
*/
QCoro::Task<QSimbaEvent> QSimbaEventStream::next(std::stop_token stop)
{
    // A named awaitable: g++ 12 mis-destroys temporaries of a co_await operand.
    const NextEvent next{d_func()->state, std::move(stop)};
    co_return co_await next;
}

#include "moc_qsimbaeventstream.cpp"
