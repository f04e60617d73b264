// SPDX-License-Identifier: Apache-2.0
// simbactl's output; not installed.
#pragma once

#include <QtCore/QString>

/*
 * Lines to stdout and stderr, in UTF-8, flushed at once (readers of a pipe see each event
 * when it happens). Static functions; call them from the main thread.
 */
class Console
{
public:
    //! One line to stdout.
    static void out(const QString &line);
    //! "simbactl: <message>" to stderr.
    static void error(const QString &message);
    //! Text as is (with its own newlines) to stdout.
    static void print(const QString &text);
};
