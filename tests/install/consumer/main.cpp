// SPDX-License-Identifier: Apache-2.0
#include <QSimba/qsimbamemoryleasebackend.h>

#include <cstdio>

int main()
{
    using namespace std::chrono_literals;
    QSimbaMemoryLeaseBackend backend;
    const auto session = backend.openSession(1s).id;
    const auto name = QSimbaLeaseName::of(QStringLiteral("consumer"));
    const auto result = backend.acquire(session, {name}).value(name);
    std::printf("consumer: %s token %lld\n", result.isGranted ? "granted" : "held", qint64(result.token));
    return result.isGranted ? 0 : 1;
}
