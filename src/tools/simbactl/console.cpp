// SPDX-License-Identifier: Apache-2.0
#include "console.h"

#include <cstdio>

namespace {
void write(FILE *stream, const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stream);
    std::fflush(stream);
}
} // namespace

/*! Writes \a line and a newline to stdout and flushes. */
void Console::out(const QString &line)
{
    write(stdout, line + QLatin1Char('\n'));
}

/*! Writes "simbactl: \a message" and a newline to stderr. */
void Console::error(const QString &message)
{
    write(stderr, QLatin1String("simbactl: ") + message + QLatin1Char('\n'));
}

/*! Writes \a text unchanged to stdout and flushes. */
void Console::print(const QString &text)
{
    write(stdout, text);
}
