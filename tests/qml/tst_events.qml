// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// SimbaClient publishes every event of its client as a signal, in the seeds' JSON form.
TestCase {
    id: test
    name: "SimbaClientEvents"

    property var events: []

    SimbaClient {
        id: client
        backend: simbaTestBackend
        leaseDuration: "PT3S"
        onEventPublished: (event) => test.events.push(event)
    }
    SimbaElection { id: election; client: client; name: "qml.events." + simbaTestStore }

    function test_events() {
        tryVerify(() => election.leader, 15000)
        tryVerify(() => test.events.some(e => e.type === "Elected" && e.name === election.name))
        verify(test.events.some(e => e.type === "SessionOpened"), JSON.stringify(test.events))
        const elected = test.events.find(e => e.type === "Elected")
        compare(elected.token, election.token)
        compare(client.leaseDurationMs, 3000)
    }
}
