// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtTest
import QSimba

// Two clients on one store share a lock: one holds it at a time; a destroyed holder releases it.
TestCase {
    id: test
    name: "SimbaLock"

    SimbaClient { id: clientA; backend: simbaTestBackend; leaseDuration: "3s" }
    SimbaClient { id: clientB; backend: simbaTestBackend; leaseDuration: "3s" }

    SimbaLock { id: lockA; client: clientA; name: "qml.lock." + simbaTestStore }
    SimbaLock { id: lockB; client: clientB; name: "qml.lock." + simbaTestStore }

    Component {
        id: lockComponent
        SimbaLock { client: clientA; name: "qml.lock.destroyed." + simbaTestStore }
    }

    // Settles a Promise into an object the test can wait on.
    function settle(promise) {
        const out = { done: false, value: undefined, error: undefined }
        promise.then(v => { out.value = v; out.done = true }, e => { out.error = e; out.done = true })
        return out
    }

    function test_exclusion() {
        const a = settle(lockA.acquire("10s"))
        tryVerify(() => a.done, 15000)
        verify(a.error === undefined, String(a.error))
        verify(lockA.held)
        const first = lockA.token
        verify(first > 0)
        compare(a.value.token, first)
        verify(a.value.valid)

        const tryB = settle(lockB.tryAcquire())
        tryVerify(() => tryB.done, 15000)
        compare(tryB.value, false)
        verify(!lockB.held)

        const waitB = settle(lockB.acquire(300))
        tryVerify(() => waitB.done, 15000)
        verify(waitB.error !== undefined, "acquire timed out")
        verify(String(waitB.error.message).length > 0)
        verify(!lockB.held)

        // Acquire again while held: refused, named.
        const twice = settle(lockA.acquire("1s"))
        tryVerify(() => twice.done)
        verify(String(twice.error.message).indexOf("already holds") >= 0, String(twice.error.message))

        const takeB = settle(lockB.acquire("10s"))
        lockA.release()
        verify(!lockA.held)
        tryVerify(() => takeB.done, 15000)
        verify(takeB.error === undefined, String(takeB.error))
        verify(lockB.held)
        verify(lockB.token > first, lockB.token + " after " + first)
        lockB.release()
    }

    function test_acquiredSignal() {
        const tokens = []
        const onAcquired = term => tokens.push(term.token)
        lockA.acquired.connect(onAcquired)
        const result = settle(lockA.tryAcquire())
        tryVerify(() => result.done, 15000)
        lockA.acquired.disconnect(onAcquired)
        compare(result.value, true)
        compare(tokens.length, 1)
        compare(tokens[0], lockA.token)
        lockA.release()
        verify(!lockA.held)
    }

    function test_destroyedItemReleases() {
        const item = lockComponent.createObject(test)
        const held = settle(item.acquire("10s"))
        tryVerify(() => held.done, 15000)
        verify(item.held)
        const token = item.token
        item.destroy()
        const other = lockComponent.createObject(test, { client: clientB })
        const taken = settle(other.acquire("10s"))
        // Client A lives on and would keep an unreleased lock forever: only the release frees it.
        tryVerify(() => taken.done, 15000, "the destroyed holder released the lock")
        verify(taken.error === undefined, String(taken.error))
        verify(other.token > token)
        other.release()
        other.destroy()
    }
}
