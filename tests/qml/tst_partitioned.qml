// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// Two clients split the partitions of a group: every partition is held by exactly one of
// them, and each runs only the partitions it holds.
TestCase {
    id: test
    name: "SimbaPartitioned"

    SimbaClient { id: clientA; backend: simbaTestBackend; leaseDuration: "3s" }
    SimbaClient { id: clientB; backend: simbaTestBackend; leaseDuration: "3s" }

    property var seenA: ({})
    property var seenB: ({})
    property var lastToken: ({})  // partition -> the token of its latest run, either client
    property var badRuns: []

    // Runs of one partition, in the order they happen, never go back to an older term: two
    // valid terms of a partition never overlap, whichever client holds them.
    function record(who, term, partition, seen) {
        if (!term.valid)
            badRuns.push(who + " ran " + partition + " outside a valid term")
        if (lastToken[partition] !== undefined && term.token < lastToken[partition])
            badRuns.push(who + " ran " + partition + " with token " + term.token + " after token " + lastToken[partition])
        lastToken[partition] = term.token
        seen[partition] = term.token
    }

    SimbaPartitioned {
        id: partsA
        client: clientA
        group: "qml.parts." + simbaTestStore
        partitions: 8
        fixedRate: "50ms"
        onTriggered: (term, partition) => test.record("A", term, partition, test.seenA)
    }
    SimbaPartitioned {
        id: partsB
        client: clientB
        group: "qml.parts." + simbaTestStore
        partitions: 8
        fixedDelay: 50
        onTriggered: (term, partition) => test.record("B", term, partition, test.seenB)
    }

    // Each client holds what rendezvous hashing gives its session among the two: not "both
    // hold some", since for 1 pair of sessions in 128 hashing gives one of them all 8.
    function split() {
        const members = [clientA.sessionId, clientB.sessionId]
        if (members[0] === "" || members[1] === "")
            return false
        const same = (got, want) => got.length === want.length && want.every(p => got.indexOf(p) >= 0)
        return same(partsA.ownedPartitions, simbaTestHashing.partitionsOf(members[0], 8, members))
            && same(partsB.ownedPartitions, simbaTestHashing.partitionsOf(members[1], 8, members))
    }

    function test_everyPartitionExactlyOnce() {
        tryVerify(split, 30000, "the clients split the 8 partitions: A " + partsA.ownedPartitions
                  + ", B " + partsB.ownedPartitions)
        // Each client runs each of its partitions.
        tryVerify(() => partsA.ownedPartitions.every(p => seenA[p] !== undefined)
                        && partsB.ownedPartitions.every(p => seenB[p] !== undefined), 15000)
        compare(badRuns.length, 0, badRuns.join("; "))
    }

    function test_badGroup() {
        const bad = Qt.createQmlObject('import QSimba; SimbaPartitioned { group: "a/b"; partitions: 4; fixedDelay: "1s" }', test)
        verify(!bad.running)
        verify(bad.errorString.indexOf("group") >= 0, bad.errorString)
        bad.destroy()
    }
}
