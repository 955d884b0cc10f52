// The workbench window driven through its real widgets, found by object name.
#include "MainWindow.h"
#include "RepoBuilder.h"
#include "TestSupport.h"

#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QTextBlock>
#include <QTreeView>
#include <QtTest>

using pw::gui::MainWindow;
using pw::test::RepoBuilder;

namespace {

const char *kBase = "import pytest\n\n\ndef test_a():\n    assert f() == 1\n\n\ndef test_b():\n    "
                    "assert g() == 2\n";
const char *kHead = "import pytest\n\n\ndef test_a():\n    assert f()\n";

} // namespace

class TstMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void showsTheAudit();
    void selectingAFindingScrollsTheDiff();
    void badRevisionKeepsTheWindowUsable();

private:
    std::unique_ptr<RepoBuilder> m_repo;
    std::string m_base, m_head;
};

void TstMainWindow::initTestCase()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_repo->write("tests/test_x.py", kBase);
    m_base = m_repo->commit("base");
    m_repo->write("tests/test_x.py", kHead);
    m_head = m_repo->commit("head");
}

void TstMainWindow::showsTheAudit()
{
    MainWindow w;
    w.setPython(QString::fromStdString(pw::test::testPython()));
    w.show();
    w.openRepository(QString::fromStdString(m_repo->root()), QString::fromStdString(m_base),
                     QString::fromStdString(m_head));
    w.runner().waitForFinished();
    auto *chip = w.findChild<QLabel *>(QStringLiteral("verdictChip"));
    QVERIFY(chip);
    QVERIFY2(chip->text().startsWith(QLatin1String("BLOCK")), qPrintable(chip->text()));
    auto *findings = w.findChild<QTableView *>(QStringLiteral("findingsView"));
    QVERIFY(findings->model()->rowCount() >= 3); // T-DEL, BLOCKER:deleted, LATITUDE, WEAKER...
    auto *files = w.findChild<QTreeView *>(QStringLiteral("filesView"));
    QCOMPARE(files->model()->rowCount(), 1);
    auto *diff = w.findChild<QPlainTextEdit *>(QStringLiteral("diffView"));
    QVERIFY(diff->toPlainText().contains(QLatin1String("assert f()")));
}

void TstMainWindow::selectingAFindingScrollsTheDiff()
{
    MainWindow w;
    w.setPython(QString::fromStdString(pw::test::testPython()));
    w.show();
    w.openRepository(QString::fromStdString(m_repo->root()), QString::fromStdString(m_base),
                     QString::fromStdString(m_head));
    w.runner().waitForFinished();
    auto *findings = w.findChild<QTableView *>(QStringLiteral("findingsView"));
    auto *diff = w.findChild<QPlainTextEdit *>(QStringLiteral("diffView"));
    int latitudeRow = -1;
    for (int r = 0; r < findings->model()->rowCount(); ++r) {
        if (findings->model()->index(r, 1).data().toString() == QLatin1String("LATITUDE"))
            latitudeRow = r;
    }
    QVERIFY(latitudeRow >= 0);
    findings->setCurrentIndex(findings->model()->index(latitudeRow, 0));
    // test_a's def is on line 4 at head: the cursor sits on it
    QCOMPARE(diff->textCursor().block().text(), QStringLiteral("def test_a():"));
}

void TstMainWindow::badRevisionKeepsTheWindowUsable()
{
    MainWindow w;
    w.setPython(QString::fromStdString(pw::test::testPython()));
    w.show();
    w.openRepository(QString::fromStdString(m_repo->root()), QStringLiteral("no-such-rev"),
                     QString::fromStdString(m_head));
    w.runner().waitForFinished();
    auto *chip = w.findChild<QLabel *>(QStringLiteral("verdictChip"));
    QCOMPARE(chip->text(), QStringLiteral("error"));
    auto *diff = w.findChild<QPlainTextEdit *>(QStringLiteral("diffView"));
    QVERIFY(diff->toPlainText().contains(QLatin1String("unknown revision 'no-such-rev'")));
    // fix the revision and audit again from the same window
    auto *baseEdit = w.findChild<QLineEdit *>(QStringLiteral("baseEdit"));
    baseEdit->setText(QString::fromStdString(m_base));
    QTest::mouseClick(w.findChild<QPushButton *>(QStringLiteral("auditButton")), Qt::LeftButton);
    w.runner().waitForFinished();
    QVERIFY2(chip->text().startsWith(QLatin1String("BLOCK")), qPrintable(chip->text()));
}

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
