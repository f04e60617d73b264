// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QSimba.Monitor

// Every lease: sortable by any column, filtered by a text, remaining lease counting down.
Item {
    Theme { id: theme }
    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 12
        spacing: 8
        RowLayout {
            Layout.fillWidth: true
            TextField {
                objectName: "leaseFilter"
                Layout.preferredWidth: 360
                placeholderText: qsTr("Filter by lease, host, PID, session or connection")
                onTextChanged: Monitor.leases.filterText = text
            }
            Label {
                text: qsTr("%1 of %2 leases shown").arg(Monitor.format.number(table.rows)).arg(Monitor.format.number(Monitor.leaseModel.count))
                color: theme.muted
            }
            Item { Layout.fillWidth: true }
            Label {
                text: qsTr("Click a column heading to sort")
                color: theme.muted
            }
        }
        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 0
            HorizontalHeaderView {
                id: header
                Layout.fillWidth: true
                syncView: table
                clip: true
                delegate: Rectangle {
                    implicitHeight: 30
                    implicitWidth: 100
                    color: "#e8eaee"
                    border.color: theme.border
                    Label {
                        anchors.fill: parent
                        anchors.leftMargin: 6
                        verticalAlignment: Text.AlignVCenter
                        text: display + (Monitor.leases.sortColumn === column ? (Monitor.leases.descending ? " ▼" : " ▲") : "")
                        font.bold: true
                        elide: Text.ElideRight
                    }
                    TapHandler { onTapped: Monitor.leases.sortBy(column) }
                }
            }
            TableView {
                id: table
                objectName: "leaseTable"
                Layout.fillWidth: true
                Layout.fillHeight: true
                clip: true
                model: Monitor.leases
                columnSpacing: 0
                rowSpacing: 0
                boundsBehavior: Flickable.StopAtBounds
                ScrollBar.vertical: ScrollBar {}
                property var widths: [0.18, 0.17, 0.12, 0.07, 0.14, 0.09, 0.23]
                columnWidthProvider: (column) => Math.max(60, widths[column] * table.width)
                onWidthChanged: Qt.callLater(forceLayout)
                delegate: Rectangle {
                    implicitHeight: 26
                    color: row % 2 ? "#ffffff" : "#f7f8fa"
                    Label {
                        anchors.fill: parent
                        anchors.leftMargin: 6
                        verticalAlignment: Text.AlignVCenter
                        text: display
                        elide: Text.ElideMiddle
                        color: column === 5 && expiring ? theme.failing : column === 2 && !held ? theme.muted : "#202020"
                        font.family: column >= 3 ? "monospace" : ""
                    }
                }
            }
        }
    }
}
