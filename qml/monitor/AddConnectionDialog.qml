// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import QSimba.Monitor

// Adds a backend by URL or a service endpoint; the password stays out of the URL shown and stored.
Dialog {
    id: dialog
    objectName: "addDialog"
    modal: true
    width: 620
    title: qsTr("Add a connection")
    property string error: ""

    onOpened: { error = ""; url.forceActiveFocus() }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("A backend URL shows everything stored there (sqlite:///path/simba.db, redis://host:6379/0, postgresql://user@host/db …). A service endpoint (http://host:port) shows one client's view and its live events.")
        }
        TextField {
            id: url
            objectName: "urlField"
            Layout.fillWidth: true
            placeholderText: qsTr("URL")
            onAccepted: dialog.add()
        }
        TextField {
            id: password
            objectName: "passwordField"
            Layout.fillWidth: true
            echoMode: TextInput.Password
            placeholderText: qsTr("Password (optional; kept in memory only, asked again after a restart)")
            onAccepted: dialog.add()
        }
        Label {
            Layout.fillWidth: true
            visible: dialog.error !== ""
            text: dialog.error
            color: "#c62828"
            wrapMode: Text.Wrap
        }
    }

    footer: DialogButtonBox {
        Button {
            text: qsTr("Add")
            DialogButtonBox.buttonRole: DialogButtonBox.AcceptRole
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: DialogButtonBox.RejectRole
        }
        onAccepted: dialog.add()
        onRejected: dialog.close()
    }

    function add() {
        const problem = Monitor.addConnection(url.text, password.text)
        password.text = ""
        if (problem === "") {
            url.text = ""
            close()
        } else {
            error = problem
            open()
        }
    }
}
