// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// Two clients on one store contend for one name; the leader steps down and the other takes
// over. Every elected is followed by exactly one revoked, in order.
TestCase {
    id: test
    name: "SimbaElection"

    SimbaClient { id: clientA; backend: simbaTestBackend; leaseDuration: "3s" }
    SimbaClient { id: clientB; backend: simbaTestBackend; leaseDuration: 3000 }

    property var logA: []
    property var logB: []

    SimbaElection {
        id: electionA
        client: clientA
        name: "qml.election." + simbaTestStore
        onElected: (term) => test.logA.push("elected " + term.token)
        onRevoked: (term, reason) => test.logA.push("revoked " + term.token + " " + reason)
    }
    SimbaElection {
        id: electionB
        client: clientB
        name: "qml.election." + simbaTestStore
        onElected: (term) => test.logB.push("elected " + term.token)
        onRevoked: (term, reason) => test.logB.push("revoked " + term.token + " " + reason)
    }

    // elected/revoked alternate, starting with elected, each revoked naming the term before.
    function checkContract(log) {
        for (let i = 0; i < log.length; ++i) {
            const parts = log[i].split(" ")
            compare(parts[0], i % 2 === 0 ? "elected" : "revoked", "entry " + i + " of " + JSON.stringify(log))
            if (i % 2 === 1)
                compare(parts[1], log[i - 1].split(" ")[1], "revoked names the elected term: " + JSON.stringify(log))
        }
    }

    function test_handover() {
        tryVerify(() => electionA.leader !== electionB.leader, 15000, "one of the two leads")
        tryCompare(clientA, "status", SimbaClient.Live, 15000)
        tryCompare(clientB, "status", SimbaClient.Live, 15000)
        verify(clientA.healthy)
        verify(clientA.sessionId.length > 0)
        verify(clientA.sessionId !== clientB.sessionId)
        const leader = electionA.leader ? electionA : electionB
        const other = electionA.leader ? electionB : electionA
        // status follows the engine's state changes, signalled apart from elected.
        tryCompare(leader, "status", SimbaElection.Leader)
        compare(leader.statusName, "LEADER")
        tryCompare(other, "status", SimbaElection.Candidate)
        const first = leader.token
        verify(first > 0)
        compare(leader.term.token, first)
        verify(leader.term.valid)
        verify(leader.term.remaining > 0 && leader.term.remaining <= 3000, "remaining " + leader.term.remaining)
        verify(other.term.isNull)
        compare(other.token, 0)

        // The snapshot shows the election; the events arrive as a signal.
        const snap = (leader === electionA ? clientA : clientB).snapshot()
        verify(snap.healthy)
        verify(snap.elections.some(e => e.name === leader.name && e.token === first), JSON.stringify(snap))

        leader.stepDown("10s")
        tryVerify(() => other.leader, 15000, "the other client took over")
        // Its term was revoked before the release; the revoked callback runs on this
        // client's stream, which need not come before the other client's elected callback.
        tryVerify(() => !leader.leader, 5000, "the leader's revoked ran")
        verify(other.token > first, "token " + other.token + " after " + first)
        tryCompare(leader, "statusName", "COOLDOWN")
        const log = leader === electionA ? logA : logB
        tryVerify(() => log.length === 2)
        compare(log[1], "revoked " + first + " STEPPED_DOWN")
        checkContract(logA)
        checkContract(logB)
    }

    function test_stopEndsTheTerm() {
        tryVerify(() => electionA.leader || electionB.leader, 15000)
        const leader = electionA.leader ? electionA : electionB
        const log = leader === electionA ? logA : logB
        const before = log.length
        leader.active = false
        compare(leader.status, SimbaElection.Idle) // at once: the element no longer contends
        tryVerify(() => log.length === before + 1)
        verify(log[before].endsWith("STOPPED"), log[before])
        verify(!leader.leader)
        leader.active = true
        checkContract(logA)
        checkContract(logB)
    }
}
