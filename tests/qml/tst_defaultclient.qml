// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// Without a SimbaClient, elements use the application's default client, configured from
// settings and SIMBA_* variables (the test runner sets SIMBA_BACKEND and a lease of
// "${QSIMBA_TEST_LEASE:3s}"). A SimbaClient without a backend reads the same settings, with
// its own timing on top.
TestCase {
    name: "DefaultClient"

    SimbaElection { id: election; name: "qml.default" }

    SimbaClient { id: settingsClient; leaseDuration: "2s" }
    SimbaElection { id: rival; client: settingsClient; name: "qml.default" }

    function test_defaultClient() {
        // Same store as the rival: exactly one of them leads. Stop the rival to see the
        // default client lead with its own lease (3 s from the placeholder's default).
        rival.active = false
        tryVerify(() => election.leader, 15000)
        verify(election.term.remaining > 2000 && election.term.remaining <= 3000, election.term.remaining)
        compare(election.client, null)
        rival.active = true
        tryCompare(rival, "status", SimbaElection.Candidate)
    }

    function test_clientWithoutBackendUsesTheSettings() {
        tryCompare(settingsClient, "status", SimbaClient.Live, 15000)
        compare(settingsClient.leaseDurationMs, 2000)
        // The same store as the default client: one leads, the other waits behind it.
        tryVerify(() => election.leader !== rival.leader, 15000)
        const waiting = election.leader ? rival : election
        tryCompare(waiting, "status", SimbaElection.Candidate)
    }
}
