// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// SimbaScheduled fires only on the client that leads its name, only inside a valid term,
// and stops at the revocation; the other client then takes over.
TestCase {
    id: test
    name: "SimbaScheduled"

    SimbaClient { id: clientA; backend: simbaTestBackend; leaseDuration: "3s" }
    SimbaClient { id: clientB; backend: simbaTestBackend; leaseDuration: "3s" }

    property var runsA: []
    property var runsB: []

    SimbaScheduled {
        id: jobA
        client: clientA
        name: "qml.scheduled." + simbaTestStore
        fixedDelay: "50ms"
        onTriggered: (term) => test.runsA.push({ token: term.token, valid: term.valid, leader: jobA.leader,
                                                 otherLeads: jobB.leader })
    }
    SimbaScheduled {
        id: jobB
        client: clientB
        name: "qml.scheduled." + simbaTestStore
        fixedRate: 50
        initialDelay: "PT0.1S"
        onTriggered: (term) => test.runsB.push({ token: term.token, valid: term.valid, leader: jobB.leader,
                                                 otherLeads: jobA.leader })
    }

    function checkRuns(runs) {
        for (const run of runs) {
            verify(run.valid, "ran inside a valid term: " + JSON.stringify(run))
            verify(run.leader, "ran while leading: " + JSON.stringify(run))
            verify(!run.otherLeads, "the other client did not lead then: " + JSON.stringify(run))
        }
    }

    function test_onlyTheLeaderRuns() {
        verify(jobA.running)
        verify(jobB.running)
        tryVerify(() => runsA.length + runsB.length >= 3, 15000, "the leader runs")
        const first = jobA.leader ? jobA : jobB
        const second = first === jobA ? jobB : jobA
        const firstRuns = first === jobA ? runsA : runsB
        const secondRuns = first === jobA ? runsB : runsA
        compare(secondRuns.length, 0, "the other client never ran")
        const token = first.term.token

        // Disabling stops the schedule in handover order: no run after this line.
        first.enabled = false
        verify(!first.running)
        verify(!first.leader)
        const stoppedAt = firstRuns.length
        tryVerify(() => secondRuns.length >= 3, 15000, "the other client took over")
        compare(firstRuns.length, stoppedAt, "no run after the revocation")
        verify(secondRuns.every(r => r.token > token))
        checkRuns(runsA)
        checkRuns(runsB)
        first.enabled = true
    }

    function test_defaultClientHasSchedulingDisabled() {
        // SIMBA_SCHEDULING_ENABLED=false (set by the test runner) applies to the default client.
        const job = Qt.createQmlObject('import QSimba; SimbaScheduled { name: "qml.scheduled.default"; fixedDelay: "10ms" }',
                                       test)
        verify(!job.running)
        compare(job.errorString, "")
        job.destroy()
    }
}
