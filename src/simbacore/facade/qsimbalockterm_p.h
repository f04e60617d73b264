// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbalockterm.h"

#include <QtCore/QFuture>
#include <QtCore/QMutex>

#include <memory>

class QSimbaLink;

class QSimbaLockTermPrivate
{
public:
    //! The public handle of \a d (QSimbaLockTerm's constructor from its private part is
    //! private), as QSimbaTermPrivate::handle() does for terms.
    static QSimbaLockTerm handle(std::shared_ptr<QSimbaLockTermPrivate> d) { return QSimbaLockTerm(std::move(d)); }
    //! The private part behind \a term (null for an empty one).
    static std::shared_ptr<QSimbaLockTermPrivate> get(const QSimbaLockTerm &term) { return term.d; }

    //! Releases the term once (later calls answer the same future); \a wait: the caller
    //! blocks for the release next, so it may run the backend call itself, and only the
    //! direct promise is made (no callback task; see release()).
    QFuture<void> release(bool wait);

    QSimbaTerm term;
    std::weak_ptr<QSimbaLink> link;
    QMutex mutex;
    bool releasing = false;
    bool hasReleased = false;     // `released` was made (releaseAsync(), or close() in a callback)
    QFuture<void> released;       // completes on the callback executor
    QFuture<void> releasedDirect; // completes on the engine thread (for close())
};
