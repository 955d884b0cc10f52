#include "TestSupport.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QStringList>
#include <algorithm>
#include <vector>

namespace pw::test {

std::string testPython()
{
    const QByteArray fromEnv = qgetenv("PW_TEST_PYTHON");
    return fromEnv.isEmpty() ? std::string(PW_TEST_PYTHON) : fromEnv.toStdString();
}

namespace {

QList<QByteArray> splitLines(const QByteArray &text)
{
    QList<QByteArray> lines = text.split('\n');
    if (!lines.isEmpty() && lines.back().isEmpty())
        lines.removeLast(); // a final newline does not start another line
    return lines;
}

struct Edit
{
    char op; // ' ', '-', '+'
    int oldIndex;
    int newIndex;
};

// Line LCS over the part between the common prefix and suffix. Golden files are small;
// beyond the cap the middle is shown as removed-then-added, which is still readable.
std::vector<Edit> lineEdits(const QList<QByteArray> &a, const QList<QByteArray> &b)
{
    const int n = static_cast<int>(a.size());
    const int m = static_cast<int>(b.size());
    int prefix = 0;
    while (prefix < n && prefix < m && a[prefix] == b[prefix])
        ++prefix;
    int suffix = 0;
    while (suffix < n - prefix && suffix < m - prefix && a[n - 1 - suffix] == b[m - 1 - suffix])
        ++suffix;
    const int rows = n - prefix - suffix;
    const int cols = m - prefix - suffix;

    std::vector<Edit> edits;
    for (int i = 0; i < prefix; ++i)
        edits.push_back({' ', i, i});
    constexpr long long kMaxCells = 4'000'000;
    if (static_cast<long long>(rows) * cols <= kMaxCells) {
        std::vector<int> table(static_cast<size_t>(rows + 1) * (cols + 1), 0);
        auto cell = [&](int i, int j) -> int & { return table[size_t(i) * (cols + 1) + j]; };
        for (int i = rows - 1; i >= 0; --i)
            for (int j = cols - 1; j >= 0; --j)
                cell(i, j) = a[prefix + i] == b[prefix + j]
                                 ? cell(i + 1, j + 1) + 1
                                 : std::max(cell(i + 1, j), cell(i, j + 1));
        int i = 0, j = 0;
        while (i < rows || j < cols) {
            if (i < rows && j < cols && a[prefix + i] == b[prefix + j]) {
                edits.push_back({' ', prefix + i++, prefix + j++});
            } else if (j >= cols || (i < rows && cell(i + 1, j) >= cell(i, j + 1))) {
                edits.push_back({'-', prefix + i++, -1});
            } else {
                edits.push_back({'+', -1, prefix + j++});
            }
        }
    } else {
        for (int i = 0; i < rows; ++i)
            edits.push_back({'-', prefix + i, -1});
        for (int j = 0; j < cols; ++j)
            edits.push_back({'+', -1, prefix + j});
    }
    for (int k = 0; k < suffix; ++k)
        edits.push_back({' ', n - suffix + k, m - suffix + k});
    return edits;
}

QString unifiedDiff(const QString &oldName, const QByteArray &oldText, const QString &newName,
                    const QByteArray &newText)
{
    constexpr int kContext = 3;
    const QList<QByteArray> a = splitLines(oldText);
    const QList<QByteArray> b = splitLines(newText);
    const std::vector<Edit> edits = lineEdits(a, b);

    QString out = QStringLiteral("--- ") + oldName + QStringLiteral("\n+++ ") + newName +
                  QStringLiteral("\n");
    const int count = static_cast<int>(edits.size());
    int k = 0;
    while (k < count) {
        if (edits[k].op == ' ') {
            ++k;
            continue;
        }
        // One hunk: from kContext lines before this change to kContext after the last
        // change that is at most 2·kContext unchanged lines further.
        const int begin = std::max(0, k - kContext);
        int end = k;
        int gap = 0;
        for (int x = k; x < count && gap <= 2 * kContext; ++x) {
            if (edits[x].op == ' ') {
                ++gap;
            } else {
                gap = 0;
                end = x;
            }
        }
        end = std::min(count, end + 1 + kContext);
        int oldStart = 0, newStart = 0, oldLines = 0, newLines = 0;
        QString body;
        for (int x = begin; x < end; ++x) {
            const Edit &e = edits[x];
            if (e.op != '+' && oldLines++ == 0)
                oldStart = e.oldIndex + 1;
            if (e.op != '-' && newLines++ == 0)
                newStart = e.newIndex + 1;
            const QByteArray &line = e.op == '+' ? b[e.newIndex] : a[e.oldIndex];
            body += QLatin1Char(e.op) + QString::fromUtf8(line) + QLatin1Char('\n');
        }
        out += QStringLiteral("@@ -%1,%2 +%3,%4 @@\n")
                   .arg(oldStart)
                   .arg(oldLines)
                   .arg(newStart)
                   .arg(newLines) +
               body;
        k = end;
    }
    if (oldText.endsWith('\n') != newText.endsWith('\n'))
        out += QStringLiteral("(the files differ in their final newline)\n");
    return out;
}

} // namespace

bool compareGolden(const QString &relPath, const QByteArray &actual, QString *diff)
{
    const QString path = QStringLiteral(PW_GOLDEN_DIR) + QLatin1Char('/') + relPath;
    if (qEnvironmentVariable("PW_REGENERATE_GOLDEN") == QLatin1String("1")) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            out.write(actual) != actual.size()) {
            if (diff)
                *diff = QStringLiteral("cannot write golden file ") + path;
            return false;
        }
        return true;
    }
    QFile in(path);
    if (!in.open(QIODevice::ReadOnly)) {
        if (diff)
            *diff = QStringLiteral("golden file ") + path +
                    QStringLiteral(" is missing (run with PW_REGENERATE_GOLDEN=1 to create it)");
        return false;
    }
    const QByteArray expected = in.readAll();
    if (expected == actual)
        return true;
    if (diff)
        *diff = unifiedDiff(QStringLiteral("golden/") + relPath, expected, QStringLiteral("actual"),
                            actual);
    return false;
}

QString panelShotsDir()
{
    const QString dir =
        qEnvironmentVariableIsSet("PW_PANEL_SHOTS")
            ? qEnvironmentVariable("PW_PANEL_SHOTS")
            : QCoreApplication::applicationDirPath() + QStringLiteral("/panel-shots");
    QDir().mkpath(dir);
    return dir;
}

} // namespace pw::test
