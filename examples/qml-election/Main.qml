// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QSimba

// One instance of the example: its role in the election, the term's fencing token and the
// lease it has left, and a button that hands leadership to another instance.
ApplicationWindow {
    id: window
    width: 420
    height: 300
    visible: true
    title: qsTr("QSimba election — %1").arg(instanceLabel)


    // No SimbaClient: the application's default client, from QSettings group "simba" and
    // the SIMBA_* environment (SIMBA_BACKEND=sqlite:///tmp/demo.db for two instances).
    SimbaElection {
        id: election
        name: electionName
        // The host prints these (and takes screenshots for the smoke test).
        onElected: (term) => {
            window.leaseMs = Math.max(1, term.remaining)
            window.remainingMs = term.remaining
            host.elected(term.token)
        }
        onRevoked: (term, reason) => host.revoked(reason)
    }

    // The remaining lease moves with time (a renewal pushes it back up): read it again a
    // few times a second.
    property real remainingMs: 0
    property real leaseMs: 1
    Timer {
        interval: 200
        repeat: true
        running: election.leader
        onTriggered: {
            window.remainingMs = election.term.remaining
            window.leaseMs = Math.max(window.leaseMs, window.remainingMs)
        }
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 24
        spacing: 12

        Label {
            text: qsTr("Election “%1”").arg(election.name)
            font.pixelSize: 16
        }
        Rectangle {
            Layout.fillWidth: true
            Layout.preferredHeight: 64
            radius: 8
            color: election.leader ? "#2e7d32" : election.statusName === "COOLDOWN" ? "#ef6c00" : "#546e7a"
            Label {
                anchors.centerIn: parent
                color: "white"
                font.pixelSize: 28
                font.bold: true
                text: election.leader ? qsTr("LEADER") : election.statusName
            }
        }
        GridLayout {
            columns: 2
            columnSpacing: 16
            Label { text: qsTr("Term token") }
            Label { text: election.leader ? election.token : "—"; font.bold: true }
            Label { text: qsTr("Remaining lease") }
            RowLayout {
                ProgressBar {
                    Layout.fillWidth: true
                    from: 0
                    to: window.leaseMs
                    value: election.leader ? window.remainingMs : 0
                }
                Label {
                    text: election.leader ? qsTr("%1 s").arg((window.remainingMs / 1000).toFixed(1)) : "—"
                    Layout.preferredWidth: 48
                    horizontalAlignment: Text.AlignRight
                }
            }
            Label { text: qsTr("Instance") }
            Label { text: instanceLabel; elide: Text.ElideRight; Layout.fillWidth: true }
        }
        Button {
            Layout.alignment: Qt.AlignRight
            text: qsTr("Step down")
            enabled: election.leader
            onClicked: election.stepDown("5s")
            Connections {
                target: host
                function onStepDownRequested() { election.stepDown("5s") }
            }
        }
        Label {
            visible: election.errorString.length > 0
            text: election.errorString
            color: "#c62828"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
    }
}
