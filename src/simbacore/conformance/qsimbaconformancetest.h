// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbaconformance_export.h"

#include <QtCore/QObject>

#include <chrono>
#include <functional>
#include <memory>

class QSimbaLeaseBackend;

class QSIMBACONFORMANCE_EXPORT QSimbaConformanceTest : public QObject
{
    Q_OBJECT
public:
    struct Fixture
    {
        //! A new backend instance on the one storage under test (called several times).
        std::function<std::unique_ptr<QSimbaLeaseBackend>()> factory;
        //! Lets \a d of the backend's time pass: a fake ticker advances, a real server is
        //! waited for (wallClock()).
        std::function<void(std::chrono::milliseconds d)> elapse;
        //! The lease the tests use: short, so that expiry tests are fast.
        std::chrono::milliseconds lease{500};
        //! How far the backend's measure of time may stray from elapse() (clock resolution,
        //! round trips): expiry is checked after lease + tolerance.
        std::chrono::milliseconds tolerance{200};
        //! How long a published hint may take to arrive.
        std::chrono::milliseconds hintTimeout{3000};
    };

    //! An elapse() for real servers: waits \a d of real time, processing events.
    static std::function<void(std::chrono::milliseconds)> wallClock();

    explicit QSimbaConformanceTest(Fixture fixture, QObject *parent = nullptr);
    ~QSimbaConformanceTest() override;

private Q_SLOTS:
    void init();
    void cleanup();

    void describesItself();
    void openSessionGrantsRemainingLease();
    void sessionIdsAreNeverReused();
    void grantedTokenIsPositive();
    void acquireByHolderKeepsToken();
    void heldByNamesHolderAndToken();
    void batchAcquireAnswersEveryName();
    void tokensIncreaseAcrossRelease();
    void tokensIncreaseAcrossSessionExpiry();
    void tokensIncreaseAcrossInstances();
    void noLocalLeaseState();
    void callsDoNotWaitForLeases();
    void remainingComesFromBackendClock();
    void sessionExpiresWithoutKeepAlive();
    void keepAliveExtendsSession();
    void expiredSessionIsNeverRevived();
    void closedSessionIsNeverRevived();
    void keepAliveReportsEveryOwnedLease();
    void ownedLeaseLastsAsLongAsSession();
    void rejectsInvalidInput_data();
    void rejectsInvalidInput();
    void acceptsFullBatch();
    void staleReleaseIsNoop();
    void releaseFreesLease();
    void membersAreLiveSessions();
    void hintsArriveWhenAdvertised();
    void lostHintsChangeNoOutcome();
    void inspectionShowsState();

private:
    struct Private;
    std::unique_ptr<Private> const d;
};
