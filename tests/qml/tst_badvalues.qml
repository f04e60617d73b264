// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// Bad property values give a warning and an errorString naming the property and the rule;
// the element stays inactive and nothing crashes.
TestCase {
    id: test
    name: "BadValues"

    SimbaClient { id: good; backend: simbaTestBackend; leaseDuration: "3s" }

    Component {
        id: electionComponent
        SimbaElection { name: "qml.bad.client" }
    }

    function make(qml) {
        return Qt.createQmlObject('import QSimba; ' + qml, test)
    }

    function test_elements_data() {
        return [
            { tag: "election name", qml: 'SimbaElection { client: good; name: "bad name!" }',
              expected: ['name "bad name!"', "[A-Za-z0-9._:-]"] },
            { tag: "empty name", qml: 'SimbaElection { client: good }', expected: ["name is empty"] },
            { tag: "both delays", qml: 'SimbaScheduled { client: good; name: "x"; fixedDelay: "1s"; fixedRate: "1s" }',
              expected: ["fixedDelay and fixedRate are both set", "exactly one"] },
            { tag: "no delay", qml: 'SimbaScheduled { client: good; name: "x" }',
              expected: ["neither fixedDelay nor fixedRate"] },
            { tag: "malformed delay", qml: 'SimbaScheduled { client: good; name: "x"; fixedDelay: "10 parsecs" }',
              expected: ['fixedDelay "10 parsecs" is not a duration', "PT1M"] },
            { tag: "initialDelay", qml: 'SimbaScheduled { client: good; name: "x"; fixedRate: "1s"; initialDelay: "soon" }',
              expected: ['initialDelay "soon" is not a duration'] },
            { tag: "scheduled name", qml: 'SimbaScheduled { client: good; name: ".."; fixedRate: "1s" }',
              expected: ['name ".."'] },
            { tag: "partitions", qml: 'SimbaPartitioned { client: good; group: "g"; partitions: 0; fixedRate: "1s" }',
              expected: ["partitions: 0 is not a number of partitions"] },
        ]
    }

    function test_elements(data) {
        ignoreWarning(new RegExp(".*"))
        const element = make(data.qml)
        for (const part of data.expected)
            verify(element.errorString.indexOf(part) >= 0, "'" + element.errorString + "' names " + part)
        if (element.running !== undefined)
            verify(!element.running)
        if (element.leader !== undefined)
            verify(!element.leader)
        element.destroy()
    }

    function test_client_data() {
        return [
            { tag: "url", qml: 'SimbaClient { backend: "ftp://host/x" }', expected: ["backend:", "unknown scheme 'ftp'"] },
            { tag: "no scheme", qml: 'SimbaClient { backend: "just text" }', expected: ["backend:", "malformed URL"] },
            { tag: "duration", qml: 'SimbaClient { backend: "memory://bad"; leaseDuration: "long" }',
              expected: ['leaseDuration: "long" is not a duration'] },
            { tag: "rule", qml: 'SimbaClient { backend: "memory://bad"; leaseDuration: "1s"; renewInterval: "900ms" }',
              expected: ["timing:", "renewInterval"] },
            { tag: "drift", qml: 'SimbaClient { backend: "memory://bad"; drift: "lots" }', expected: ["drift:"] },
        ]
    }

    function test_client(data) {
        ignoreWarning(new RegExp(".*"))
        const client = make(data.qml)
        const election = electionComponent.createObject(test, { client: client })
        compare(client.status, SimbaClient.Error)
        verify(!client.healthy)
        for (const part of data.expected)
            verify(client.errorString.indexOf(part) >= 0, "'" + client.errorString + "' names " + part)
        verify(election.errorString.indexOf("client:") === 0, election.errorString)
        compare(election.status, SimbaElection.Idle)
        verify(!election.leader)
        compare(JSON.stringify(client.snapshot()), "{}")
        election.destroy()
        client.destroy()
    }

    function test_lockBadValues() {
        ignoreWarning(new RegExp(".*"))
        const lock = make('SimbaLock { client: good; name: "" }')
        let error
        lock.acquire("1s").then(() => {}, e => { error = e })
        tryVerify(() => error !== undefined)
        verify(String(error.message).indexOf("name is empty") >= 0, error.message)
        lock.name = "qml.bad.lock"
        error = undefined
        lock.acquire("forever").then(() => {}, e => { error = e })
        tryVerify(() => error !== undefined)
        verify(String(error.message).indexOf('acquire timeout: "forever" is not a duration') >= 0, error.message)
        verify(!lock.held)
        lock.destroy()
    }

    function test_stepDownBadCooldown() {
        ignoreWarning(new RegExp(".*"))
        const election = make('SimbaElection { client: good; name: "qml.bad.stepdown" }')
        election.stepDown("a while")
        verify(election.errorString.indexOf('stepDown cooldown: "a while" is not a duration') >= 0,
               election.errorString)
        election.destroy()
    }
}
