// SPDX-License-Identifier: Apache-2.0
#include "qsimbaerror.h"
#include "qsimbaetcdleasebackend.h"

#include <QtTest/QTest>

class tst_EtcdUrl : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void placeholder() {}
};

QTEST_GUILESS_MAIN(tst_EtcdUrl)
#include "tst_etcdurl.moc"
