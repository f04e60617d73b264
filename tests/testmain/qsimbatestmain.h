// SPDX-License-Identifier: Apache-2.0
#pragma once

// The entry point of a QtTest test, in a program of its own or in a test program that holds
// several (qsimba_add_test(… PROGRAM <program>), tests/CMakeLists.txt): such a program takes
// the test's CTest name as its first argument and runs that test's entry with the rest of
// the arguments, so `<program> tst_values -functions` is `tst_values -functions` of old.
//
//   QSIMBA_TEST_MAIN(tst_Values)          instead of QTEST_MAIN(tst_Values)
//   QSIMBA_TEST_GUILESS_MAIN(tst_Values)  instead of QTEST_GUILESS_MAIN(tst_Values)
//   QSIMBA_TEST_ENTRY(tst_values) { … }   instead of int main(int argc, char **argv) { … }
//
// The name (the class's, or the one given) is the test's CTest name, compared without case.
// The macros use QtTest's (qtest.h), which the test includes; this header includes nothing, so
// that the programs' main() (qsimbatestmain.cpp) compiles in a fraction of a second.

namespace QSimbaTestProgram {
using Entry = int (*)(int argc, char **argv);
// Registers a test of this program under name; the return value only makes it callable from
// a static initializer.
bool add(const char *name, Entry entry);
} // namespace QSimbaTestProgram

#ifdef QSIMBA_TEST_PROGRAM
#define QSIMBA_TEST_ENTRY(name)                                                                   \
    static int qsimbaTestEntry_##name(int argc, char **argv);                                      \
    [[maybe_unused]] static const bool qsimbaTestAdded_##name =                                    \
        QSimbaTestProgram::add(#name, qsimbaTestEntry_##name);                                     \
    static int qsimbaTestEntry_##name(int argc, char **argv)
#else
#define QSIMBA_TEST_ENTRY(name) int main(int argc, char **argv)
#endif

// As QTEST_MAIN_WRAPPER (qtest.h), with QSIMBA_TEST_ENTRY for main.
#define QSIMBA_TEST_MAIN_WRAPPER(TestObject, ...)                                                 \
    QSIMBA_TEST_ENTRY(TestObject)                                                                  \
    {                                                                                              \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                         \
        __VA_ARGS__                                                                                \
        TestObject tc;                                                                             \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return QTest::qExec(&tc, argc, argv);                                                      \
    }
// QTEST_MAIN's application: QApplication with Qt Widgets, QGuiApplication with Qt GUI,
// QCoreApplication otherwise.
#define QSIMBA_TEST_MAIN(TestObject) QSIMBA_TEST_MAIN_WRAPPER(TestObject, QTEST_MAIN_SETUP())
#define QSIMBA_TEST_GUILESS_MAIN(TestObject)                                                      \
    QSIMBA_TEST_MAIN_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
