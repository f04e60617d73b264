// SPDX-License-Identifier: Apache-2.0
// main() of a test program that holds several tests (qsimbatestmain.h).
#include "qsimbatestmain.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {
std::string lowered(const char *name)
{
    std::string out(name);
    for (char &c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Filled by the tests' static initializers, in any order: constructed on first use.
std::map<std::string, QSimbaTestProgram::Entry> &entries()
{
    static std::map<std::string, QSimbaTestProgram::Entry> map;
    return map;
}
} // namespace

bool QSimbaTestProgram::add(const char *name, Entry entry)
{
    entries().emplace(lowered(name), entry);
    return true;
}

int main(int argc, char **argv)
{
    const auto found = argc > 1 ? entries().find(lowered(argv[1])) : entries().end();
    if (found == entries().end()) {
        std::string names;
        for (const auto &[name, entry] : entries())
            names += (names.empty() ? "" : ", ") + name;
        std::fprintf(stderr,
                     "%s: the first argument must name one of the tests this program holds (%s), "
                     "not '%s'\n",
                     argv[0], names.c_str(), argc > 1 ? argv[1] : "");
        return 2;
    }
    // The test sees itself as a program of its own beside this one (argv[0] names it, so
    // QCoreApplication::applicationName() is the test's name), and its own arguments.
    const std::string self = argv[0];
    const auto slash = self.rfind('/');
    std::string testPath = (slash == std::string::npos ? std::string() : self.substr(0, slash + 1))
        + found->first;
    std::vector<char *> args{testPath.data()};
    args.insert(args.end(), argv + 2, argv + argc);
    args.push_back(nullptr);
    return found->second(argc - 1, args.data());
}
