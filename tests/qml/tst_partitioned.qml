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

    function split() {
        const a = partsA.ownedPartitions
        const b = partsB.ownedPartitions
        if (a.length === 0 || b.length === 0 || a.length + b.length !== 8)
            return false
        for (let p = 0; p < 8; ++p) {
            if ((a.indexOf(p) >= 0) === (b.indexOf(p) >= 0))
                return false
        }
        return true
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
