// SPDX-License-Identifier: Apache-2.0
import QtQuick

// Colours the views share: owners of partitions, states of connections.
QtObject {
    readonly property var owners: ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                   "#edc948", "#e15759", "#9c755f", "#bab0ac", "#ff9da7"]
    readonly property color healthy: "#2e7d32"
    readonly property color failing: "#c62828"
    readonly property color waiting: "#f9a825"
    readonly property color muted: "#666666"
    readonly property color card: "#f6f7f9"
    readonly property color border: "#d0d4da"
    function owner(index) { return index < 0 ? "#e0e0e0" : owners[index % owners.length] }
}
