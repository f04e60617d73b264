// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// The README's QML sample, against the installed module (QML_IMPORT_PATH only).
TestCase {
    name: "Readme"

    SimbaElection {
        id: election
        name: "report"
        onElected: (term) => console.log("leading with token", term.token)
        onRevoked: (term, reason) => console.log("term", term.token, "ended:", reason)
    }
    Text { text: election.leader ? "leader " + election.token : election.statusName }

    function test_readmeSample() {
        tryVerify(() => election.leader, 15000)
        verify(election.token > 0)
        verify(election.term.valid)
        election.stepDown("1s")
        tryVerify(() => !election.leader, 15000)
    }
}
