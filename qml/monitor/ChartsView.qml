// SPDX-License-Identifier: Apache-2.0
import QtQuick
import QtQuick.Controls
import QtCharts
import QSimba.Monitor

// Terms started and backend call latency over the last half hour, in 5-second buckets.
Item {
    ChartView {
        id: chart
        objectName: "chart"
        anchors.fill: parent
        antialiasing: true
        title: qsTr("Leadership changes and backend call latency")
        legend.alignment: Qt.AlignBottom
        DateTimeAxis {
            id: timeAxis
            format: "hh:mm:ss"
            min: Monitor.chart.first
            max: Monitor.chart.last
            titleText: qsTr("Time")
        }
        ValueAxis {
            id: changesAxis
            min: 0
            max: Monitor.chart.maxChanges
            labelFormat: "%d"
            titleText: qsTr("Terms started per 5 s")
        }
        ValueAxis {
            id: latencyAxis
            min: 0
            max: Monitor.chart.maxLatency
            labelFormat: "%.1f"
            titleText: qsTr("Latency (ms)")
        }
        LineSeries {
            id: changes
            name: qsTr("Leadership changes")
            axisX: timeAxis
            axisY: changesAxis
            width: 2
            color: "#e15759"
            pointsVisible: true
            VXYModelMapper { model: Monitor.chart; xColumn: 0; yColumn: 1 }
        }
        LineSeries {
            id: latency
            name: qsTr("Backend call latency")
            axisX: timeAxis
            axisYRight: latencyAxis
            width: 2
            color: "#4e79a7"
            pointsVisible: true
            VXYModelMapper { model: Monitor.chart; xColumn: 0; yColumn: 2 }
        }
    }
}
