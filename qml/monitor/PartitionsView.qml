// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QSimba.Monitor

// One map per group: a cell per partition coloured by its owner, the members listed,
// a partition that just moved outlined for a moment.
Item {
    Theme { id: theme }
    Label {
        anchors.centerIn: parent
        visible: groupList.count === 0
        text: qsTr("No partition group on the watched connections.")
        color: theme.muted
    }
    ListView {
        id: groupList
        objectName: "groupList"
        anchors.fill: parent
        anchors.margins: 12
        spacing: 12
        clip: true
        model: Monitor.groups
        ScrollBar.vertical: ScrollBar {}
        delegate: Rectangle {
            width: groupList.width - 12
            height: content.implicitHeight + 24
            radius: 6
            color: theme.card
            border.color: theme.border
            ColumnLayout {
                id: content
                x: 12; y: 12
                width: parent.width - 24
                spacing: 8
                Label {
                    text: qsTr("Group %1").arg(model.name)
                    font.bold: true
                    font.pixelSize: 15
                }
                Label {
                    text: qsTr("%1 · %n partition(s)", "", model.partitionCount).arg(model.connection)
                          + (model.unowned > 0 ? " · " + qsTr("%n without owner", "", model.unowned) : "")
                          + (model.partial ? " · " + qsTr("this client's partitions only") : "")
                    color: model.unowned > 0 ? theme.failing : theme.muted
                }
                Flow {
                    Layout.fillWidth: true
                    spacing: 12
                    Label { text: qsTr("Members:"); color: theme.muted }
                    Repeater {
                        model: members
                        Row {
                            spacing: 4
                            Rectangle { width: 14; height: 14; radius: 3; color: theme.owner(modelData.colorIndex); anchors.verticalCenter: parent.verticalCenter }
                            Label { text: modelData.label }
                        }
                    }
                    Label { visible: members.length === 0; text: qsTr("none"); color: theme.failing }
                }
                Flow {
                    Layout.fillWidth: true
                    spacing: 4
                    Repeater {
                        model: partitions
                        Rectangle {
                            width: 44; height: 44; radius: 4
                            color: theme.owner(modelData.colorIndex)
                            border.width: modelData.moved ? 4 : 1
                            border.color: modelData.moved ? "#000000" : theme.border
                            scale: modelData.moved ? 1.12 : 1.0
                            Behavior on scale { NumberAnimation { duration: 250 } }
                            Label {
                                anchors.centerIn: parent
                                text: Monitor.format.number(modelData.partition)
                                color: modelData.colorIndex < 0 ? "#303030" : "#ffffff"
                                font.bold: true
                            }
                            ToolTip.visible: tap.hovered
                            ToolTip.text: modelData.owner === "" ? (model.partial ? qsTr("Partition %1: not this client's").arg(modelData.partition)
                                                                                  : qsTr("Partition %1: no owner").arg(modelData.partition))
                                                                 : qsTr("Partition %1: %2").arg(modelData.partition).arg(modelData.ownerLabel)
                            HoverHandler { id: tap }
                        }
                    }
                }
            }
        }
    }
}
