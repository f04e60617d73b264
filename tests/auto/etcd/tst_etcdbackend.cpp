// SPDX-License-Identifier: Apache-2.0
#include "etcdserver.h"
#include "qsimbaerror.h"
#include "qsimbaetcdleasebackend.h"

#include <QtTest/QTest>

class tst_EtcdBackend : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void placeholder() {}
};

QTEST_GUILESS_MAIN(tst_EtcdBackend)
#include "tst_etcdbackend.moc"
