#pragma once

#include <QString>
#include <string>

namespace pw::test {

// Interpreter with pytest installed (Debian's /usr/bin/python3 by default).
std::string testPython();

// Compares `actual` with the golden file `relPath` under tests/golden. On mismatch
// returns false and fills `diff` with a unified diff (the KSyntaxHighlighting way).
// With PW_REGENERATE_GOLDEN=1 in the environment the golden file is rewritten instead.
bool compareGolden(const QString &relPath, const QByteArray &actual, QString *diff);

} // namespace pw::test
