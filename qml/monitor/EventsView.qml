// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QSimba.Monitor

// The live timeline: filter by type, name and connection; pause; the fields of the selected event.
Item {
    id: root
    Theme { id: theme }
    property int selected: -1
    property var selectedFields: []

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 12
        spacing: 8
        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            ComboBox {
                id: typeBox
                objectName: "typeFilter"
                implicitWidth: 200
                model: [qsTr("All types")].concat(Monitor.eventTypes.map((t) => Monitor.format.eventType(t)))
                onActivated: (index) => Monitor.events.type = index === 0 ? "" : Monitor.eventTypes[index - 1]
            }
            TextField {
                objectName: "nameFilter"
                Layout.preferredWidth: 220
                placeholderText: qsTr("Lease or group name")
                onTextChanged: Monitor.events.name = text
            }
            ComboBox {
                objectName: "connectionFilter"
                implicitWidth: 300
                model: [qsTr("All connections")].concat(Monitor.connections.urls)
                onActivated: (index) => Monitor.events.connection = index === 0 ? "" : Monitor.connections.urls[index - 1]
            }
            Button {
                objectName: "pauseButton"
                checkable: true
                checked: Monitor.eventModel.paused
                text: checked ? qsTr("Resume") : qsTr("Pause")
                onToggled: Monitor.eventModel.paused = checked
            }
            Label {
                visible: Monitor.eventModel.paused
                text: qsTr("%n new event(s) waiting", "", Monitor.eventModel.queued)
                color: theme.waiting
            }
            Item { Layout.fillWidth: true }
            Label {
                text: qsTr("%1 events").arg(Monitor.format.number(list.count))
                color: theme.muted
            }
        }
        SplitView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            ListView {
                id: list
                objectName: "eventList"
                SplitView.fillWidth: true
                clip: true
                model: Monitor.events
                ScrollBar.vertical: ScrollBar {}
                // Follow the newest event unless the operator scrolled up or paused.
                property bool follow: true
                onMovementEnded: follow = atYEnd
                onCountChanged: if (follow && !Monitor.eventModel.paused) positionViewAtEnd()
                // At 1,000 events per second the visible rows turn over every batch: pooled
                // delegates of plain Text items keep that cheap.
                reuseItems: true
                delegate: Rectangle {
                    id: row
                    required property int index
                    required property string time
                    required property string type
                    required property string typeText
                    required property string name
                    required property string summary
                    required property string connection
                    width: list.width
                    height: 26
                    // A pooled row waits out of sight for its next event.
                    ListView.onPooled: visible = false
                    ListView.onReused: visible = true
                    color: index === root.selected ? "#d6e4f5" : index % 2 ? "#ffffff" : "#f7f8fa"
                    Text {
                        x: 6; width: 110; height: parent.height
                        verticalAlignment: Text.AlignVCenter
                        text: row.time
                        font.family: "monospace"
                    }
                    Text {
                        x: 128; width: 150; height: parent.height
                        verticalAlignment: Text.AlignVCenter
                        text: row.typeText
                        font.bold: true
                        color: row.type === "REVOKED" || row.type === "SESSION_EXPIRED" || row.type === "GAP" ? theme.failing
                             : row.type === "ELECTED" ? theme.healthy : "#202020"
                    }
                    Text {
                        x: 290; width: 180; height: parent.height
                        verticalAlignment: Text.AlignVCenter
                        text: row.name
                        elide: Text.ElideRight
                    }
                    Text {
                        x: 482; width: Math.max(0, parent.width - 482 - 232); height: parent.height
                        verticalAlignment: Text.AlignVCenter
                        text: row.summary
                        elide: Text.ElideRight
                    }
                    Text {
                        x: parent.width - 226; width: 220; height: parent.height
                        verticalAlignment: Text.AlignVCenter
                        text: row.connection
                        color: theme.muted
                        elide: Text.ElideMiddle
                    }
                    TapHandler {
                        onTapped: { root.selected = row.index; root.selectedFields = Monitor.events.fields(row.index) }
                    }
                }
            }
            Rectangle {
                SplitView.preferredWidth: 320
                color: theme.card
                ColumnLayout {
                    anchors.fill: parent
                    anchors.margins: 10
                    Label { text: qsTr("Event details"); font.bold: true }
                    Label {
                        visible: root.selectedFields.length === 0
                        text: qsTr("Select an event to see all its fields.")
                        color: theme.muted
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                    }
                    GridLayout {
                        objectName: "eventFields"
                        columns: 2
                        Layout.fillWidth: true
                        Repeater {
                            model: root.selectedFields
                            delegate: Label {
                                required property var modelData
                                required property int index
                                Layout.row: index
                                Layout.column: 0
                                text: modelData.key
                                color: theme.muted
                                font.family: "monospace"
                            }
                        }
                        Repeater {
                            model: root.selectedFields
                            delegate: Label {
                                required property var modelData
                                required property int index
                                Layout.row: index
                                Layout.column: 1
                                Layout.fillWidth: true
                                text: modelData.value
                                wrapMode: Text.WrapAnywhere
                                font.family: "monospace"
                            }
                        }
                    }
                    Item { Layout.fillHeight: true }
                }
            }
        }
    }
}
