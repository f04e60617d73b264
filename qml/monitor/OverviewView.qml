// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QSimba.Monitor

// Per connection: healthy or not and why, counts, names without a leader, sessions close to expiry.
Item {
    id: root
    signal addRequested()
    Theme { id: theme }

    Column {
        anchors.centerIn: parent
        spacing: 12
        visible: Monitor.connections.count === 0
        Label {
            anchors.horizontalCenter: parent.horizontalCenter
            text: qsTr("No connection yet. Add a backend URL or the service endpoint of a client.")
        }
        Button {
            anchors.horizontalCenter: parent.horizontalCenter
            text: qsTr("Add connection…")
            onClicked: root.addRequested()
        }
    }

    GridView {
        id: grid
        objectName: "overviewGrid"
        anchors.fill: parent
        anchors.margins: 12
        clip: true
        cellWidth: Math.max(380, width / Math.max(1, Math.floor(width / 420)))
        cellHeight: 250
        model: Monitor.connections
        delegate: Item {
            width: grid.cellWidth
            height: grid.cellHeight
            Rectangle {
                anchors.fill: parent
                anchors.margins: 6
                radius: 6
                color: theme.card
                border.color: model.state === 2 ? theme.failing : theme.border
                ColumnLayout {
                    anchors.fill: parent
                    anchors.margins: 12
                    spacing: 4
                    RowLayout {
                        Layout.fillWidth: true
                        Rectangle {
                            width: 14; height: 14; radius: 7
                            color: model.healthy ? theme.healthy : model.state === 2 ? theme.failing : theme.waiting
                        }
                        Label {
                            Layout.fillWidth: true
                            text: model.url
                            font.bold: true
                            elide: Text.ElideMiddle
                        }
                        ToolButton {
                            text: "×"
                            ToolTip.visible: hovered
                            ToolTip.text: qsTr("Stop watching this connection")
                            onClicked: Monitor.removeConnection(index)
                        }
                    }
                    Label {
                        text: model.kindText + " · " + model.stateText + (model.state === 1 ? " · " + model.healthText : "")
                        color: model.state === 2 ? theme.failing : theme.muted
                    }
                    Label {
                        objectName: "problemLabel"
                        Layout.fillWidth: true
                        visible: model.problem !== ""
                        text: model.problem
                        wrapMode: Text.Wrap
                        maximumLineCount: 3
                        elide: Text.ElideRight
                        color: theme.failing
                    }
                    RowLayout {
                        visible: model.needsPassword
                        TextField {
                            id: password
                            Layout.fillWidth: true
                            echoMode: TextInput.Password
                            placeholderText: qsTr("Password")
                        }
                        Button {
                            text: qsTr("Connect")
                            onClicked: { Monitor.supplyPassword(index, password.text); password.text = "" }
                        }
                    }
                    GridLayout {
                        columns: 2
                        columnSpacing: 16
                        visible: model.state === 1
                        Label { text: qsTr("Sessions"); color: theme.muted }
                        Label { text: Monitor.format.number(model.sessions) }
                        Label { text: qsTr("Leases held"); color: theme.muted }
                        Label { text: qsTr("%1 of %2").arg(Monitor.format.number(model.held)).arg(Monitor.format.number(model.leases)) }
                        Label { text: qsTr("Groups"); color: theme.muted }
                        Label { text: Monitor.format.number(model.groups) }
                        Label { text: qsTr("Without a leader"); color: theme.muted }
                        Label {
                            Layout.fillWidth: true
                            text: model.leaderless.length === 0 ? qsTr("none") : model.leaderless.join(", ")
                            color: model.leaderless.length === 0 ? theme.healthy : theme.failing
                            elide: Text.ElideRight
                        }
                        Label { text: qsTr("Close to expiry"); color: theme.muted }
                        Label {
                            Layout.fillWidth: true
                            text: model.expiring.length === 0 ? qsTr("none") : model.expiring.join(", ")
                            color: model.expiring.length === 0 ? theme.healthy : theme.failing
                            elide: Text.ElideRight
                        }
                    }
                    Item { Layout.fillHeight: true }
                    Label {
                        Layout.fillWidth: true
                        text: model.refresh + (model.lastSuccess !== "" ? " · " + qsTr("last answer %1").arg(model.lastSuccess) : "")
                        color: theme.muted
                        font.pixelSize: 11
                        elide: Text.ElideRight
                    }
                }
            }
        }
    }
}
