// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QSimba.Monitor

ApplicationWindow {
    id: window
    width: 1280
    height: 800
    visible: true
    title: qsTr("QSimba Monitor")

    // For tests and screenshots: which view is shown.
    property alias currentView: tabs.currentIndex
    readonly property var languageCodes: ["", "en", "zh_CN"]

    header: ToolBar {
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 8
            anchors.rightMargin: 8
            spacing: 12
            Label {
                text: qsTr("QSimba Monitor")
                font.bold: true
                font.pixelSize: 16
            }
            TabBar {
                id: tabs
                objectName: "tabs"
                Layout.fillWidth: true
                TabButton { text: qsTr("Overview"); width: implicitWidth + 16 }
                TabButton { text: qsTr("Leases"); width: implicitWidth + 16 }
                TabButton { text: qsTr("Partitions"); width: implicitWidth + 16 }
                TabButton { text: qsTr("Events"); width: implicitWidth + 16 }
                TabButton { text: qsTr("Charts"); width: implicitWidth + 16 }
            }
            Label { text: qsTr("Language") }
            ComboBox {
                id: language
                objectName: "languageBox"
                implicitWidth: 170
                // Language names are written in their own language, as operators look for them.
                model: [qsTr("System language"), "English", "简体中文"]
                currentIndex: Math.max(0, window.languageCodes.indexOf(Monitor.language))
                onActivated: (index) => Monitor.language = window.languageCodes[index]
            }
            Button {
                objectName: "addConnectionButton"
                text: qsTr("Add connection…")
                onClicked: addDialog.open()
            }
        }
    }

    StackLayout {
        anchors.fill: parent
        currentIndex: tabs.currentIndex
        OverviewView { onAddRequested: addDialog.open() }
        LeasesView {}
        PartitionsView {}
        EventsView {}
        ChartsView {}
    }

    AddConnectionDialog {
        id: addDialog
        anchors.centerIn: parent
    }
}
