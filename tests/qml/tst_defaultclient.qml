// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// Without a SimbaClient, elements use the application's default client, configured from
// settings and SIMBA_* variables (the test runner sets SIMBA_BACKEND and a lease of
// "${QSIMBA_TEST_LEASE:3s}").
TestCase {
    name: "DefaultClient"

    SimbaElection { id: election; name: "qml.default" }

    function test_defaultClient() {
        tryVerify(() => election.leader, 15000)
        verify(election.term.remaining > 0 && election.term.remaining <= 3000, election.term.remaining)
        compare(election.client, null)
    }
}
