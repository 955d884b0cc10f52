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

// Where GUI tests save the panel renderings a developer looks at: $PW_PANEL_SHOTS, else
// panel-shots/ next to the test binary (created).
QString panelShotsDir();

} // namespace pw::test
