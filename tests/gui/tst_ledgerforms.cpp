// The five ledger forms driven offscreen through their real widgets: OK stays
// disabled until every required field holds up and the field says why, the preview shows
// the exact lines, and the written file equals the golden file (tests/golden/ledgerforms).
#include "AuditRunner.h"
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "ledger/LedgerValidator.h"
#include "ledger/QuarantineLedger.h"
#include "ledger/SeedJournal.h"
#include "ledgers/FixtureNoteForm.h"
#include "ledgers/FreezeForm.h"
#include "ledgers/JournalCloseForm.h"
#include "ledgers/LedgerDesk.h"
#include "ledgers/LedgerFormDialog.h"
#include "ledgers/RenewForm.h"
#include "ledgers/WaiverForm.h"
#include "util/Files.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDateEdit>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>
#include <set>

using namespace pw::gui;

namespace {

const QDate kToday(2024, 5, 1);
const std::string kBaseSha = "0123456789abcdef0123456789abcdef01234567";

QByteArray readBytes(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QByteArray("<missing>");
    return f.readAll();
}

void writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

LedgerFormContext contextFor(const QString &dir)
{
    LedgerFormContext c;
    c.ledgerDir = dir;
    c.displayDir = QStringLiteral(".patchwitness");
    c.validation.today = kToday;
    static const std::set<std::string> atHead = {"tests/test_parse.py::test_roundtrip",
                                                 "tests/test_parse.py::test_empty"};
    c.validation.testExistsAtHead = [](const std::string &id) { return atHead.count(id) > 0; };
    c.reviewer = QStringLiteral("Ada Reviewer");
    return c;
}

template <typename W> W *child(QWidget *parent, const char *name)
{
    W *w = parent->findChild<W *>(QString::fromLatin1(name));
    if (!w)
        qFatal("no %s named %s", W::staticMetaObject.className(), name);
    return w;
}

QPushButton *okButton(LedgerFormDialog &d)
{
    return d.findChild<QDialogButtonBox *>(QStringLiteral("buttonBox"))
        ->button(QDialogButtonBox::Ok);
}

void verifyGolden(const QString &name, const QByteArray &actual)
{
    QString diff;
    QVERIFY2(pw::test::compareGolden(QStringLiteral("ledgerforms/") + name, actual, &diff),
             qPrintable(diff));
}

// A complete freeze as an attribution run would leave it, owner aside.
pw::core::QuarantineEntry evidenceOnlyFreeze()
{
    pw::core::QuarantineEntry e;
    e.test = "tests/test_net.py::test_retry";
    e.verdict = "PRE_EXISTING";
    e.attribution = "order";
    e.witnessSeed = 7;
    e.baselineSha = kBaseSha;
    pw::core::FreezeEvidence ev;
    ev.baseFail = 3;
    ev.headFail = 3;
    ev.mode = "matched";
    ev.seeds = std::vector<long long>{0, 7, 9};
    ev.envDigest = "4f1c2a9be0d17c35";
    e.evidence = ev;
    e.guards = std::vector<std::string>{"src/net.py"};
    e.replay = "python -m pytest -p patchwitness.plugin --pw-seed 7 tests/test_net.py::test_retry";
    return e;
}

const char kQuarantineWithComments[] =
    "# Freezes granted by reviewers (SPEC §6)\n"
    "\n"
    "[[quarantine]]\n"
    "test = \"tests/test_db.py::test_pool\"  # flaky pool\n"
    "owner = \"grace\"\n"
    "opened = 2024-04-25\n"
    "expires = 2024-05-06\n"
    "verdict = \"PRE_EXISTING\"\n"
    "attribution = \"solo\"\n"
    "witness_seed = 3\n"
    "baseline_sha = \"0123456789abcdef\"\n"
    "evidence = { base_fail = 2, head_fail = 2, mode = "
    "\"matched\", seeds = [3], env_digest = \"aaaaaaaaaaaaaaaa\" }\n"
    "obligation = \"pool returns connections\"\n"
    "substitute = \"tests/test_parse.py::test_empty\"\n"
    "guards = [\"src/db.py\"]\n"
    "replay = \"pytest tests/test_db.py::test_pool\"\n"
    "last_reproduced = 2024-04-25\n"
    "ticket = \"DB-12\"  # unknown fields survive\n";

// The workbench's audit of `repo`'s HEAD against `base` on 2024-05-01, as the desk gets it.
AuditOutcome auditHead(const pw::test::RepoBuilder &repo, const std::string &base,
                       const QTemporaryDir &cache)
{
    WorkbenchRequest request;
    request.audit.repoPath = repo.root();
    request.audit.base = base;
    request.audit.head = "HEAD";
    request.audit.python = pw::test::testPython();
    request.audit.cacheDir = cache.path().toStdString();
    request.audit.today = "2024-05-01";
    return AuditRunner::runNow(request);
}

} // namespace

class TestLedgerForms : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void waiverNeedsReasonWitnessAndApprover();
    void waiverWitnessIsTheLikelySuccessor();
    void waiverFieldsSayWhy_data();
    void waiverFieldsSayWhy();
    void freezeNeedsOwnerAndTightExpiry();
    void freezeRefusesNonPreExistingVerdict();
    void freezeEvidenceIsTheRecordsNeverTyped();
    void waiverNodeMustBeOneTheBaseHad();
    void everyFormHasOneMnemonicPerKey();
    void theFreezeFormNeverMovesAFieldAndFitsALaptop();
    void renewInPlace();
    void journalRowClosesOnlyAfterTwoPasses();
    void fixtureNote();
    void changedOnDiskIsRefusedAndNothingLost();
    void unparseableLedgerDisablesWrite();
    void deskPrefillsFromEvidence();
    void deskFreezeFollowsTheCellsRecord();
    void deskLooksUpOtherTestsOffTheGuiThread();
};

void TestLedgerForms::waiverNeedsReasonWitnessAndApprover()
{
    QTemporaryDir dir;
    WaiverSeed seed;
    seed.node = QStringLiteral("tests/test_parse.py::test_legacy_format");
    seed.witnessCandidates = QStringList{QStringLiteral("tests/test_parse.py::test_roundtrip"),
                                         QStringLiteral("tests/test_parse.py::test_empty")};
    auto *form = new WaiverForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));

    // Prefilled: node, the first witness candidate that exists at head, the reviewer.
    QCOMPARE(child<QLineEdit>(form, "nodeEdit")->text(), seed.node);
    QCOMPARE(child<QComboBox>(form, "witnessCombo")->currentText(),
             seed.witnessCandidates.constFirst());
    QCOMPARE(child<QLineEdit>(form, "byEdit")->text(), QStringLiteral("Ada Reviewer"));
    // The reason is a decision nobody may make by default.
    QVERIFY(!dialog.isValid());
    QVERIFY(!okButton(dialog)->isEnabled());
    QCOMPARE(form->reason(QStringLiteral("reason")), QStringLiteral("Required."));

    child<QComboBox>(form, "reasonCombo")
        ->setCurrentIndex(
            child<QComboBox>(form, "reasonCombo")->findText(QStringLiteral("obsolete-behavior")));
    QVERIFY(dialog.isValid());
    QVERIFY(okButton(dialog)->isEnabled());
    QCOMPARE(dialog.previewCaption(),
             QStringLiteral("Creates .patchwitness/census_waiver.toml with:"));

    dialog.accept();
    QVERIFY2(dialog.written(), qPrintable(dialog.lastError()));
    const QByteArray written = readBytes(dir.filePath(QStringLiteral("census_waiver.toml")));
    verifyGolden(QStringLiteral("waiver.toml"), written);
    // The preview showed exactly the lines that were written.
    QCOMPARE(dialog.previewText() + QLatin1Char('\n'), QString::fromUtf8(written));
}

void TestLedgerForms::waiverFieldsSayWhy_data()
{
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("witness");
    QTest::addColumn<QString>("by");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("why");

    QTest::newRow("witness unknown at head") << "duplicate-coverage"
                                             << "tests/test_parse.py::test_gone"
                                             << "Ada"
                                             << "witness"
                                             << "not collected at head";
    QTest::newRow("witness is the node") << "duplicate-coverage"
                                         << "tests/test_parse.py::test_legacy_format"
                                         << "Ada"
                                         << "witness"
                                         << "another test";
    QTest::newRow("witness missing") << "obsolete-behavior"
                                     << ""
                                     << "Ada"
                                     << "witness"
                                     << "names the test that covers";
    QTest::newRow("approver missing") << "environment"
                                      << ""
                                      << ""
                                      << "approved_by"
                                      << "Required.";
}

void TestLedgerForms::waiverFieldsSayWhy()
{
    QFETCH(QString, reason);
    QFETCH(QString, witness);
    QFETCH(QString, by);
    QFETCH(QString, field);
    QFETCH(QString, why);
    QTemporaryDir dir;
    WaiverSeed seed;
    seed.node = QStringLiteral("tests/test_parse.py::test_legacy_format");
    auto *form = new WaiverForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    child<QComboBox>(form, "reasonCombo")
        ->setCurrentIndex(child<QComboBox>(form, "reasonCombo")->findText(reason));
    child<QComboBox>(form, "witnessCombo")->setCurrentText(witness);
    child<QLineEdit>(form, "byEdit")->setText(by);
    QVERIFY(!dialog.isValid());
    QVERIFY(!okButton(dialog)->isEnabled());
    QVERIFY2(form->reason(field).contains(why), qPrintable(form->reason(field)));
    dialog.accept(); // refused: nothing is written
    QVERIFY(!dialog.written());
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("census_waiver.toml"))));
}

void TestLedgerForms::freezeNeedsOwnerAndTightExpiry()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("quarantine.toml"));
    writeBytes(path, kQuarantineWithComments);
    FreezeSeed seed;
    seed.entry = evidenceOnlyFreeze();
    seed.substituteCandidates = QStringList{QStringLiteral("tests/test_parse.py::test_roundtrip")};
    seed.evidenceSource = QStringLiteral("runs/attribution-test_retry.json");
    auto *form = new FreezeForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));

    // Prefilled from the evidence; opened today, expiring after freeze_max_days.
    QCOMPARE(child<QDateEdit>(form, "openedEdit")->date(), kToday);
    QCOMPARE(child<QDateEdit>(form, "expiresEdit")->date(), kToday.addDays(14));
    QCOMPARE(child<QLineEdit>(form, "seedsEdit")->text(), QStringLiteral("0, 7, 9"));
    QCOMPARE(child<QComboBox>(form, "substituteCombo")->currentText(),
             QStringLiteral("tests/test_parse.py::test_roundtrip"));
    QVERIFY(!dialog.isValid());
    QCOMPARE(form->reason(QStringLiteral("owner")), QStringLiteral("Required."));
    QCOMPARE(form->reason(QStringLiteral("obligation")), QStringLiteral("Required."));

    child<QComboBox>(form, "ownerCombo")->setCurrentText(QStringLiteral("linus"));
    child<QLineEdit>(form, "obligationEdit")
        ->setText(QStringLiteral("retry gives up after three attempts with a clear error"));
    child<QDateEdit>(form, "expiresEdit")->setDate(kToday.addDays(20));
    QVERIFY(!dialog.isValid());
    QVERIFY2(form->reason(QStringLiteral("expires")).contains(QStringLiteral("at most 14")),
             qPrintable(form->reason(QStringLiteral("expires"))));
    child<QComboBox>(form, "substituteCombo")
        ->setCurrentText(QStringLiteral("tests/test_net.py::test_retry"));
    QVERIFY(form->reason(QStringLiteral("substitute")).contains(QStringLiteral("another test")));
    child<QComboBox>(form, "substituteCombo")
        ->setCurrentText(QStringLiteral("tests/test_parse.py::test_empty"));
    child<QLineEdit>(form, "witnessSeedEdit")->clear();
    QCOMPARE(form->reason(QStringLiteral("witness_seed")), QStringLiteral("Required."));
    child<QLineEdit>(form, "witnessSeedEdit")->setText(QStringLiteral("7"));
    child<QDateEdit>(form, "expiresEdit")->setDate(kToday.addDays(14));
    QVERIFY2(dialog.isValid(), qPrintable(dialog.generalProblems()));
    QVERIFY2(dialog.previewCaption().startsWith(
                 QStringLiteral("Appends to .patchwitness/quarantine.toml after line 18")),
             qPrintable(dialog.previewCaption()));

    dialog.accept();
    QVERIFY2(dialog.written(), qPrintable(dialog.lastError()));
    const QByteArray written = readBytes(path);
    // Comments and unknown fields of the existing entry survive byte for byte.
    QVERIFY(written.startsWith(kQuarantineWithComments));
    verifyGolden(QStringLiteral("freeze.toml"), written);
}

void TestLedgerForms::freezeRefusesNonPreExistingVerdict()
{
    QTemporaryDir dir;
    FreezeSeed seed;
    seed.entry = evidenceOnlyFreeze();
    seed.entry.verdict = "PATCH_BUG";
    seed.entry.owner = "linus";
    seed.entry.obligation = "retry works";
    seed.entry.substitute = "tests/test_parse.py::test_empty";
    auto *form = new FreezeForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    QCOMPARE(child<QComboBox>(form, "verdictCombo")->currentText(), QStringLiteral("PATCH_BUG"));
    QVERIFY(!dialog.isValid());
    QVERIFY(form->reason(QStringLiteral("verdict")).contains(QStringLiteral("PRE_EXISTING")));
    child<QLineEdit>(form, "byEdit")->clear();
    QVERIFY(form->reason(QStringLiteral("granted_by")).contains(QStringLiteral("who grants")));
    child<QLineEdit>(form, "byEdit")->setText(QStringLiteral("Ada"));
    child<QComboBox>(form, "verdictCombo")->setCurrentText(QStringLiteral("PRE_EXISTING"));
    QVERIFY2(dialog.isValid(), qPrintable(dialog.generalProblems()));
}

// What a run measured comes from the run: the evidence fields show the record and cannot
// be typed into, the verdict is PRE_EXISTING (the only one a freeze can have), and values no
// run could have written (a 3-digit digest, a witness outside the seeds, a guard on no
// file) are named, field by field.
void TestLedgerForms::freezeEvidenceIsTheRecordsNeverTyped()
{
    QTemporaryDir dir;
    LedgerFormContext context = contextFor(dir.path());
    context.validation.pathExistsAtHead = pw::core::pathLookup(
        std::make_shared<const std::set<std::string>>(std::set<std::string>{"src/", "src/net.py"}));
    const char *evidenceFields[] = {"witnessSeedEdit", "baselineShaEdit", "baseFailEdit",
                                    "headFailEdit",    "seedsEdit",       "envDigestEdit",
                                    "replayEdit"};

    FreezeSeed backed;
    backed.entry = evidenceOnlyFreeze();
    backed.evidenceSource = QStringLiteral("runs/attribution-test_retry.json");
    auto *form = new FreezeForm(backed, context);
    LedgerFormDialog dialog(form, context);
    for (const char *name : evidenceFields) {
        QVERIFY2(child<QLineEdit>(form, name)->isReadOnly(), name);
        QVERIFY(child<QLineEdit>(form, name)->toolTip().contains(backed.evidenceSource));
    }
    for (const char *name : {"attributionCombo", "modeCombo", "verdictCombo"}) {
        QVERIFY2(!child<QComboBox>(form, name)->isEnabled(), name);
        QVERIFY2(!child<QComboBox>(form, name)->isEditable(), name);
    }
    QCOMPARE(child<QComboBox>(form, "attributionCombo")->currentText(), QStringLiteral("order"));
    QCOMPARE(child<QComboBox>(form, "modeCombo")->currentText(), QStringLiteral("matched"));
    auto *verdict = child<QComboBox>(form, "verdictCombo");
    QCOMPARE(verdict->count(), 1);
    QCOMPARE(verdict->currentText(), QStringLiteral("PRE_EXISTING"));
    QCOMPARE(form->reason(QStringLiteral("guards")), QString());

    // No record: nothing to fill the evidence from, and nothing typed stands in for it.
    FreezeSeed bare;
    bare.entry.test = "tests/test_net.py::test_retry";
    bare.entry.owner = "linus";
    bare.entry.obligation = "retry works";
    bare.entry.substitute = "tests/test_parse.py::test_empty";
    bare.entry.guards = std::vector<std::string>{"src/net.py"};
    auto *empty = new FreezeForm(bare, context);
    LedgerFormDialog emptyDialog(empty, context);
    for (const char *name : evidenceFields) {
        QVERIFY2(child<QLineEdit>(empty, name)->isReadOnly(), name);
        QVERIFY(child<QLineEdit>(empty, name)->text().isEmpty());
        QVERIFY(child<QLineEdit>(empty, name)
                    ->toolTip()
                    .contains(QStringLiteral("patchwitness-cli attribute tests/test_net.py")));
    }
    QCOMPARE(child<QComboBox>(empty, "attributionCombo")->currentText(), QString());
    QVERIFY(!emptyDialog.isValid());
    QCOMPARE(empty->reason(QStringLiteral("witness_seed")), QStringLiteral("Required."));
    QVERIFY(!empty->reason(QStringLiteral("evidence.env_digest")).isEmpty());

    // A record whose values cannot be a run's (hand-edited): each named.
    FreezeSeed invented = backed;
    invented.entry.evidence->envDigest = "abc";
    invented.entry.witnessSeed = 5;
    invented.entry.evidence->baseFail = 0;
    invented.entry.guards = std::vector<std::string>{"src/net.py", "src/nowhere.py"};
    auto *bad = new FreezeForm(invented, context);
    LedgerFormDialog badDialog(bad, context);
    QVERIFY(!badDialog.isValid());
    QVERIFY2(bad->reason(QStringLiteral("evidence.env_digest"))
                 .contains(QStringLiteral("16 lowercase hex digits")),
             qPrintable(bad->reason(QStringLiteral("evidence.env_digest"))));
    QVERIFY(bad->reason(QStringLiteral("witness_seed"))
                .contains(QStringLiteral("witness seed 5 is not one of evidence.seeds")));
    QVERIFY(bad->reason(QStringLiteral("evidence.base_fail"))
                .contains(QStringLiteral("fails on the base tree too")));
    QVERIFY2(bad->reason(QStringLiteral("guards"))
                 .contains(QStringLiteral("guard src/nowhere.py names no file or directory")),
             qPrintable(bad->reason(QStringLiteral("guards"))));
}

// A waiver accepts the removal of a test the base had; a node typed that it never had
// (`…::nope`) waives nothing and is refused, naming the field.
void TestLedgerForms::waiverNodeMustBeOneTheBaseHad()
{
    QTemporaryDir dir;
    LedgerFormContext context = contextFor(dir.path());
    context.validation.testExistedAtBase = [](const std::string &id) {
        return id == "tests/test_parse.py::test_gone";
    };
    auto *form = new WaiverForm(WaiverSeed{}, context);
    LedgerFormDialog dialog(form, context);
    auto *node = child<QLineEdit>(form, "nodeEdit");
    QVERIFY(!node->isReadOnly()); // opened without a node: typed
    node->setText(QStringLiteral("tests/test_parse.py::nope"));
    child<QComboBox>(form, "reasonCombo")
        ->setCurrentIndex(child<QComboBox>(form, "reasonCombo")->findText("duplicate-coverage"));
    child<QComboBox>(form, "witnessCombo")->setCurrentText("tests/test_parse.py::test_empty");
    QVERIFY(!dialog.isValid());
    QVERIFY2(form->reason(QStringLiteral("node")).contains(QStringLiteral("not collected at base")),
             qPrintable(form->reason(QStringLiteral("node"))));
    node->setText(QStringLiteral("tests/test_parse.py::test_gone"));
    QVERIFY2(dialog.isValid(), qPrintable(dialog.generalProblems()));
}

// Alt+letter reaches one thing per dialog: a label's buddy or a button, never two (the
// waiver form had Alt+W for Witness and for Write).
void TestLedgerForms::everyFormHasOneMnemonicPerKey()
{
    QTemporaryDir dir;
    const LedgerFormContext context = contextFor(dir.path());
    const auto quarantine = pw::core::QuarantineLedger::parse(kQuarantineWithComments, "q");
    const auto journal = pw::core::SeedJournal::parse(
        "{\"id\": \"j1\", \"seed\": 1, \"env\": \"e\", \"status\": \"open\", "
        "\"opened\": \"2024-05-01\"}\n",
        "j");
    const std::vector<std::function<LedgerForm *()>> forms = {
        [&] { return new WaiverForm(WaiverSeed{}, context); },
        [&] { return new FreezeForm(FreezeSeed{}, context); },
        [&] { return new RenewForm(quarantine.entries.front(), context); },
        [&] { return new JournalCloseForm(journal.rows.front(), context); },
        [&] { return new FixtureNoteForm(FixtureNoteSeed{}, context); },
    };
    for (const auto &make : forms) {
        LedgerForm *form = make();
        LedgerFormDialog dialog(form, context);
        QMap<QChar, QString> keys;
        const auto take = [&](const QString &text, const QString &what) {
            for (int i = 0; i + 1 < text.size(); ++i) {
                if (text.at(i) != QLatin1Char('&'))
                    continue;
                if (text.at(i + 1) == QLatin1Char('&')) {
                    ++i;
                    continue;
                }
                const QChar key = text.at(i + 1).toLower();
                QVERIFY2(!keys.contains(key), qPrintable(form->title() + ": Alt+" + key + " is " +
                                                         keys.value(key) + " and " + what));
                keys.insert(key, what);
                return;
            }
        };
        for (QLabel *label : dialog.findChildren<QLabel *>()) {
            if (label->buddy())
                take(label->text(), label->text());
        }
        for (QAbstractButton *button : dialog.findChildren<QAbstractButton *>())
            take(button->text(), button->text());
        QVERIFY2(keys.size() >= 3, qPrintable(form->title()));
    }
}

// The fields stay where they are whatever is wrong with them (a click meant for one never
// lands on another), the dialog keeps its size while typing, and it opens no taller than
// a 1366×768 laptop leaves it.
void TestLedgerForms::theFreezeFormNeverMovesAFieldAndFitsALaptop()
{
    QTemporaryDir dir;
    FreezeSeed seed;
    seed.entry.test = "tests/test_net.py::test_retry";
    seed.entry.guards = std::vector<std::string>{"src/net.py"};
    auto *form = new FreezeForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(!dialog.isValid());
    auto *problems = child<QListWidget>(&dialog, "problemList");
    QVERIFY(problems->count() >= 5);
    QVERIFY(problems->item(0)->text().startsWith(QStringLiteral("Owner: ")));
    const auto places = [form] {
        QList<QRect> out;
        for (QWidget *w : form->findChildren<QWidget *>()) {
            if (w->isVisible() && (qobject_cast<QLineEdit *>(w) || qobject_cast<QComboBox *>(w)))
                out << QRect(w->mapTo(form, QPoint(0, 0)), w->size());
        }
        return out;
    };
    const QList<QRect> before = places();
    const QSize size = dialog.size();
    QVERIFY2(size.height() <= 768 - 48, qPrintable(QString::number(size.height())));
    QVERIFY2(size.width() <= 1366, qPrintable(QString::number(size.width())));
    // A problem's line puts the focus in its field.
    QTest::mouseClick(problems->viewport(), Qt::LeftButton, {},
                      problems->visualItemRect(problems->item(0)).center());
    auto *owner = child<QComboBox>(form, "ownerCombo");
    QTRY_VERIFY(QApplication::focusWidget() == owner ||
                QApplication::focusWidget() == owner->lineEdit());

    child<QComboBox>(form, "ownerCombo")->setCurrentText(QStringLiteral("linus"));
    child<QLineEdit>(form, "obligationEdit")
        ->setText(QStringLiteral("retry gives up after three attempts with a clear error that "
                                 "names the host, the port, the attempts and the last reason"));
    QCoreApplication::processEvents();
    QCOMPARE(places(), before);
    QCOMPARE(dialog.size(), size);
    QCOMPARE(form->reason(QStringLiteral("owner")), QString());
}

void TestLedgerForms::renewInPlace()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("quarantine.toml"));
    writeBytes(path, kQuarantineWithComments);
    const auto ledger = pw::core::QuarantineLedger::parse(kQuarantineWithComments, "q");
    auto *form = new RenewForm(ledger.entries.front(), contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    QCOMPARE(child<QLineEdit>(form, "testEdit")->text(),
             QStringLiteral("tests/test_db.py::test_pool"));
    QCOMPARE(child<QDateEdit>(form, "expiresEdit")->date(), kToday.addDays(14));
    // The last reproduction the ledger records is offered; none is ever invented.
    QCOMPARE(child<QDateEdit>(form, "lastReproducedEdit")->date(), QDate(2024, 4, 25));
    QVERIFY2(dialog.isValid(), qPrintable(dialog.generalProblems()));
    child<QDateEdit>(form, "lastReproducedEdit")
        ->setDate(child<QDateEdit>(form, "lastReproducedEdit")->minimumDate());
    QVERIFY(!dialog.isValid());
    QVERIFY(form->reason(QStringLiteral("last_reproduced")).contains(QStringLiteral("say when")));

    child<QDateEdit>(form, "lastReproducedEdit")->setDate(kToday.addDays(-20));
    QVERIFY(!dialog.isValid());
    QVERIFY(form->reason(QStringLiteral("last_reproduced")).contains(QStringLiteral("at most 14")));
    child<QDateEdit>(form, "lastReproducedEdit")->setDate(kToday.addDays(-1));
    child<QDateEdit>(form, "expiresEdit")->setDate(kToday.addDays(15));
    QVERIFY(!dialog.isValid());
    QVERIFY(form->reason(QStringLiteral("expires")).contains(QStringLiteral("at most 14")));
    child<QDateEdit>(form, "expiresEdit")->setDate(kToday.addDays(10));
    child<QLineEdit>(form, "byEdit")->clear();
    QVERIFY(!dialog.isValid());
    QCOMPARE(form->reason(QStringLiteral("renewed_by")), QStringLiteral("Required."));
    child<QLineEdit>(form, "byEdit")->setText(QStringLiteral("Grace Owner"));
    QVERIFY(dialog.isValid());

    dialog.accept();
    QVERIFY2(dialog.written(), qPrintable(dialog.lastError()));
    verifyGolden(QStringLiteral("renew.toml"), readBytes(path));
}

void TestLedgerForms::journalRowClosesOnlyAfterTwoPasses()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("seed_journal.jsonl"));
    const QByteArray journal =
        "{\"id\": \"j1\", \"seed\": 7, \"env\": \"e1\", \"status\": \"open\", "
        "\"opened\": \"2024-04-20\", \"replays\": [{\"outcome\": \"fail\", \"env\": \"e1\"}, "
        "{\"outcome\": \"pass\", \"env\": \"e1\"}]}\n"
        "{\"id\": \"j2\", \"seed\": null, \"env\": \"e1\", \"status\": \"open\", "
        "\"opened\": \"2024-04-21\", \"replays\": [{\"outcome\": \"pass\", \"env\": \"e1\"}, "
        "{\"outcome\": \"pass\", \"env\": \"e1\"}], \"note\": \"kept\"}\n";
    writeBytes(path, journal);
    const auto parsed = pw::core::SeedJournal::parse(journal.toStdString(), "j");

    {
        auto *form = new JournalCloseForm(parsed.rows[0], contextFor(dir.path()));
        LedgerFormDialog dialog(form, contextFor(dir.path()));
        QVERIFY(!dialog.isValid());
        QVERIFY2(form->reason(QStringLiteral("replays")).contains(QStringLiteral("two")),
                 qPrintable(form->reason(QStringLiteral("replays")) + dialog.generalProblems()));
        dialog.accept();
        QVERIFY(!dialog.written());
        QCOMPARE(readBytes(path), journal);
    }
    auto *form = new JournalCloseForm(parsed.rows[1], contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    QVERIFY2(dialog.isValid(), qPrintable(dialog.generalProblems()));
    QCOMPARE(dialog.previewCaption(),
             QStringLiteral("Replaces line 2 of .patchwitness/seed_journal.jsonl with:"));
    dialog.accept();
    QVERIFY2(dialog.written(), qPrintable(dialog.lastError()));
    verifyGolden(QStringLiteral("journal_close.jsonl"), readBytes(path));
}

void TestLedgerForms::fixtureNote()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("fixture_digest.json"));
    const QByteArray before = "{\n  \"tests/golden/a.json\": \"" + QByteArray(64, 'a') +
                              "\",\n  \"tests/golden/b.json\": \"" + QByteArray(64, 'b') +
                              "\"\n}\n";
    writeBytes(path, before);
    FixtureNoteSeed seed;
    seed.path = QStringLiteral("tests/golden/b.json");
    seed.baseSha256 = QString(64, QLatin1Char('b'));
    seed.sha256 = QString(64, QLatin1Char('c'));
    auto *form = new FixtureNoteForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    QVERIFY(!dialog.isValid());
    QVERIFY(form->reason(QStringLiteral("note")).contains(QStringLiteral("F-DRIFT")));
    child<QLineEdit>(form, "shaEdit")->setText(QStringLiteral("xyz"));
    child<QLineEdit>(form, "noteEdit")
        ->setText(QStringLiteral("the parser now keeps trailing commas"));
    QVERIFY(!dialog.isValid());
    QVERIFY(form->reason(QStringLiteral("sha256")).contains(QStringLiteral("64")));
    child<QLineEdit>(form, "shaEdit")->setText(QString(64, QLatin1Char('d')));
    QVERIFY(!dialog.isValid());
    QVERIFY(form->reason(QStringLiteral("sha256")).contains(QStringLiteral("at head")));
    child<QLineEdit>(form, "shaEdit")->setText(seed.sha256);
    QVERIFY2(dialog.isValid(), qPrintable(dialog.generalProblems()));
    dialog.accept();
    QVERIFY2(dialog.written(), qPrintable(dialog.lastError()));
    verifyGolden(QStringLiteral("fixture_digest.json"), readBytes(path));
}

void TestLedgerForms::changedOnDiskIsRefusedAndNothingLost()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("census_waiver.toml"));
    writeBytes(path, "# waivers\n");
    WaiverSeed seed;
    seed.node = QStringLiteral("tests/test_parse.py::test_legacy_format");
    seed.reason = QStringLiteral("environment");
    auto *form = new WaiverForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    QVERIFY(dialog.isValid());

    // Someone else writes the file while the form is open.
    const QByteArray theirs = "# waivers\n[[waiver]]\nnode = \"tests/x.py::test_y\"\n"
                              "reason = \"environment\"\napproved_by = \"Bob\"\n"
                              "approved_on = 2024-04-30\n";
    writeBytes(path, theirs);
    dialog.accept();
    QVERIFY(!dialog.written());
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY2(dialog.lastError().contains(QStringLiteral("changed on disk")),
             qPrintable(dialog.lastError()));
    QVERIFY(dialog.generalProblems().contains(QStringLiteral("Nothing was written")));
    QCOMPARE(readBytes(path), theirs);
    QVERIFY(!okButton(dialog)->isEnabled());
    QCOMPARE(child<QLineEdit>(form, "nodeEdit")->text(),
             seed.node); // the reviewer's entries are kept

    dialog.findChild<QPushButton *>(QStringLiteral("reloadButton"))->click();
    QVERIFY2(dialog.isValid(), qPrintable(dialog.generalProblems()));
    dialog.accept();
    QVERIFY2(dialog.written(), qPrintable(dialog.lastError()));
    const QByteArray after = readBytes(path);
    QVERIFY(after.startsWith(theirs));
    QVERIFY(after.contains("node = \"tests/test_parse.py::test_legacy_format\""));
}

void TestLedgerForms::unparseableLedgerDisablesWrite()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("census_waiver.toml"));
    const QByteArray broken = "[[waiver]]\nnode = \"tests/x.py::test_y\n";
    writeBytes(path, broken);
    WaiverSeed seed;
    seed.node = QStringLiteral("tests/test_parse.py::test_legacy_format");
    seed.reason = QStringLiteral("environment");
    auto *form = new WaiverForm(seed, contextFor(dir.path()));
    LedgerFormDialog dialog(form, contextFor(dir.path()));
    QVERIFY(!dialog.isValid());
    QVERIFY2(
        dialog.generalProblems().contains(QStringLiteral(".patchwitness/census_waiver.toml:2:")),
        qPrintable(dialog.generalProblems()));
    dialog.accept();
    QCOMPARE(readBytes(path), broken);
}

void TestLedgerForms::deskPrefillsFromEvidence()
{
    pw::test::RepoBuilder repo;
    repo.write(".github/CODEOWNERS", "*.py @core-team\ntests/ @qa-team\n");
    repo.write("calc.py", "def add(a, b):\n    return a + b\n");
    repo.write("mypkg/__init__.py", "");
    repo.write("mypkg/core.py", "X = 1\n");
    repo.write("tests/conftest.py", "");
    repo.write("tests/test_calc.py", "import calc\nimport mypkg.core\nimport os\n\n"
                                     "def test_one():\n    assert calc.add(1, 1) == 2\n\n"
                                     "def test_two():\n    assert calc.add(2, 2) == 4\n\n"
                                     "def test_three():\n    assert calc.add(0, 0) == 0\n");
    const std::string base = repo.commit("base");
    repo.write("tests/test_calc.py", "import calc\nimport mypkg.core\nimport os\nimport pytest\n\n"
                                     "def test_one():\n    assert calc.add(1, 1) == 2\n\n"
                                     "@pytest.mark.skip(reason='flaky')\n"
                                     "def test_three():\n    assert calc.add(0, 0) == 0\n");
    repo.commit("agent: drop test_two, skip test_three");
    repo.write(".patchwitness/runs/attr-three.json",
               "{\"schema\": \"patchwitness.attribution/1\", \"test\": "
               "\"tests/test_calc.py::test_three\", \"verdict\": \"PRE_EXISTING\", "
               "\"mode\": \"swept\", \"base_fail\": 4, \"head_fail\": 5, \"seeds\": [1, 2], "
               "\"witness_seed\": 2, \"env_digest\": \"0011223344556677\", "
               "\"attribution\": \"clock\", \"recorded\": \"2024-04-30\"}\n");

    QTemporaryDir cache;
    const AuditOutcome outcome = auditHead(repo, base, cache);
    QVERIFY2(outcome.ok, qPrintable(outcome.error));
    QCOMPARE(outcome.ledgerDir, QString::fromStdString(repo.root()) + "/.patchwitness");
    QCOMPARE(outcome.ledgerPrefix, QStringLiteral(".patchwitness/"));

    QWidget window;
    LedgerDesk desk(&window);
    desk.setOutcome(outcome);

    const WaiverSeed waiver = desk.waiverSeed(QStringLiteral("tests/test_calc.py::test_two"));
    QCOMPARE(waiver.witnessCandidates,
             QStringList({QStringLiteral("tests/test_calc.py::test_one"),
                          QStringLiteral("tests/test_calc.py::test_three")}));

    const FreezeSeed freeze = desk.freezeSeed(QStringLiteral("tests/test_calc.py::test_three"));
    QCOMPARE(freeze.ownerCandidates, QStringList({QStringLiteral("@qa-team")})); // last rule wins
    QCOMPARE(freeze.substituteCandidates,
             QStringList({QStringLiteral("tests/test_calc.py::test_one")}));
    QCOMPARE(freeze.entry.baselineSha.value_or(""), base);
    QCOMPARE(freeze.entry.guards.value_or(std::vector<std::string>()),
             std::vector<std::string>({"tests/conftest.py", "calc.py", "mypkg/"}));
    QCOMPARE(freeze.evidenceSource, QStringLiteral("runs/attr-three.json"));
    QCOMPARE(freeze.entry.attribution.value_or(""), std::string("clock"));
    QCOMPARE(freeze.entry.witnessSeed.value_or(-1), 2LL);
    QVERIFY(freeze.entry.evidence && freeze.entry.evidence->envDigest == "0011223344556677");
    QVERIFY(freeze.entry.replay &&
            freeze.entry.replay->find("tests/test_calc.py::test_three") != std::string::npos);

    // A file node (the whole file's removal) is one the base had tests in; a file it had
    // none in is not.
    for (const auto &[node, valid] :
         {std::pair("tests/test_calc.py", true), std::pair("tests/test_nothing.py", false)}) {
        LedgerFormDialog *fileWaiver = desk.approveWaiver(QString::fromLatin1(node));
        QVERIFY(fileWaiver);
        auto *f = fileWaiver->form();
        child<QComboBox>(f, "reasonCombo")
            ->setCurrentIndex(child<QComboBox>(f, "reasonCombo")->findText("duplicate-coverage"));
        child<QLineEdit>(f, "byEdit")->setText(QStringLiteral("Ada"));
        child<QComboBox>(f, "witnessCombo")->setCurrentText("tests/test_calc.py::test_one");
        if (valid) {
            QTRY_VERIFY2(fileWaiver->isValid(), qPrintable(f->reason(QStringLiteral("node"))));
        } else {
            QTRY_VERIFY2(f->reason(QStringLiteral("node")).contains("not collected at base"),
                         qPrintable(f->reason(QStringLiteral("node"))));
            QVERIFY(!fileWaiver->isValid());
        }
        fileWaiver->reject();
    }

    // Approving the waiver from the desk writes the ledger and says so.
    QSignalSpy written(&desk, &LedgerDesk::ledgerWritten);
    LedgerFormDialog *dialog = desk.approveWaiver(QStringLiteral("tests/test_calc.py::test_two"));
    QVERIFY(dialog);
    auto *form = dialog->form();
    QVERIFY(!dialog->isValid());
    child<QComboBox>(form, "reasonCombo")
        ->setCurrentIndex(child<QComboBox>(form, "reasonCombo")->findText("duplicate-coverage"));
    child<QLineEdit>(form, "byEdit")->setText(QStringLiteral("Ada"));
    // The witness must exist at head: looked up through the facts, file by file.
    child<QComboBox>(form, "witnessCombo")->setCurrentText("tests/test_calc.py::test_two");
    QVERIFY(!dialog->isValid());
    child<QComboBox>(form, "witnessCombo")->setCurrentText("tests/test_calc.py::test_nope");
    QVERIFY(form->reason(QStringLiteral("witness")).contains(QStringLiteral("not collected")));
    child<QComboBox>(form, "witnessCombo")->setCurrentText("tests/test_calc.py::test_one");
    // The node must be one the base had: looked up off the GUI thread, then valid.
    QTRY_VERIFY2(dialog->isValid(), qPrintable(dialog->generalProblems()));
    dialog->accept();
    QCOMPARE(written.count(), 1);
    QVERIFY(QFileInfo::exists(QString::fromStdString(repo.root()) +
                              "/.patchwitness/census_waiver.toml"));

    // Renew and close need an entry of the ledger on disk.
    QVERIFY(!desk.renewFreeze(QStringLiteral("tests/test_calc.py::test_three")));
    QVERIFY(!desk.closeJournalRow(QStringLiteral("j1")));
}

// Issue 17: Grant freeze follows the freeze rule on the records of runs/ — the attribution
// comes from the newest cells record, a cells record that says broken test keeps Write
// disabled whatever is typed, and without one the form says what to run first.
void TestLedgerForms::deskFreezeFollowsTheCellsRecord()
{
    pw::test::RepoBuilder repo;
    repo.write("calc.py", "def add(a, b):\n    return a + b\n");
    repo.write("tests/test_calc.py",
               "import calc\n\ndef test_one():\n    assert calc.add(1, 1) == 2\n"
               "\ndef test_three():\n    assert calc.add(0, 0) == 1\n");
    const std::string base = repo.commit("base");
    repo.write("calc.py", "def add(a, b):\n    return b + a\n");
    repo.commit("agent: commute");
    const std::string test = "tests/test_calc.py::test_three";
    repo.write(".patchwitness/runs/2024-04-29-tests_test_calc.py_test_three-matched.json",
               "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"" + test +
                   "\", \"verdict\": \"PRE_EXISTING\", \"mode\": \"matched\", "
                   "\"base_fail\": 3, \"head_fail\": 3, \"seeds\": [0], \"witness_seed\": 0, "
                   "\"env_digest\": \"0011223344556677\", \"baseline_sha\": \"" +
                   base +
                   "\", \"replay\": \"patchwitness-cli attribute x\", "
                   "\"recorded\": \"2024-04-29\"}\n");
    QTemporaryDir cache;
    const AuditOutcome outcome = auditHead(repo, base, cache);
    QVERIFY2(outcome.ok, qPrintable(outcome.error));
    QWidget window;
    LedgerDesk desk(&window);
    desk.setOutcome(outcome);
    const QString id = QString::fromStdString(test);

    // No cells record yet: nothing to fill the attribution with, and the form says why.
    FreezeSeed seed = desk.freezeSeed(id);
    QVERIFY(seed.evidence.has_value());
    QCOMPARE(int(seed.evidence->stance()), int(pw::core::FreezeCase::Stance::NeedsCells));
    QVERIFY(!seed.entry.attribution);
    {
        FreezeForm form(seed, desk.formContext());
        QVERIFY2(child<QLabel>(&form, "evidenceLabel")
                     ->text()
                     .contains(QStringLiteral("Not yet: no cells record of ") + id),
                 qPrintable(child<QLabel>(&form, "evidenceLabel")->text()));
    }

    const auto cells = [&](const std::string &day, const std::string &attribution) {
        repo.write(".patchwitness/runs/" + day + "-tests_test_calc.py_test_three-cells.json",
                   "{\"schema\": \"patchwitness.cells/1\", \"test\": \"" + test +
                       "\", \"arm\": \"head\", \"attribution\": \"" + attribution +
                       "\", \"sentence\": \"" + attribution + " says so\", \"recorded\": \"" + day +
                       "\"}\n");
    };
    cells("2024-04-30", "isolate");
    seed = desk.freezeSeed(id);
    QVERIFY2(seed.evidence->allowed(), seed.evidence->reason().c_str());
    QCOMPARE(seed.entry.attribution.value_or(""), std::string("isolate"));
    QVERIFY2(seed.evidenceSource.contains(QStringLiteral("-cells.json")),
             qPrintable(seed.evidenceSource));
    // Both records go into evidence/ with the entry, which pins them.
    QCOMPARE(seed.evidenceFiles.size(), size_t(2));
    const std::string attributionCopy =
        "evidence/2024-04-29-tests_test_calc.py_test_three-matched.json";
    QCOMPARE(seed.entry.evidence->record.value_or(""), attributionCopy);
    QCOMPARE(seed.entry.evidence->cells.value_or(""),
             std::string("evidence/2024-04-30-tests_test_calc.py_test_three-cells.json"));
    {
        LedgerFormDialog *write = desk.grantFreeze(id);
        QVERIFY(write);
        auto *form = write->form();
        child<QComboBox>(form, "ownerCombo")->setCurrentText(QStringLiteral("linus"));
        child<QLineEdit>(form, "obligationEdit")->setText(QStringLiteral("zero plus zero is zero"));
        child<QComboBox>(form, "substituteCombo")
            ->setCurrentText(QStringLiteral("tests/test_calc.py::test_one"));
        // (calc.py is what the patch edits: a guard the patch edits refuses the freeze.)
        child<QLineEdit>(form, "guardsEdit")->setText(QStringLiteral("tests/test_calc.py"));
        child<QLineEdit>(form, "byEdit")->setText(QStringLiteral("Ada"));
        const auto why = [form, write] {
            QString text = write->generalProblems();
            for (const LedgerForm::FieldProblem &p : form->fieldProblems())
                text += QLatin1Char('\n') + p.label + QStringLiteral(": ") + p.reason;
            return text;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(write->isValid(), qPrintable(why()), 20000);
        write->accept();
        const QString dir = QString::fromStdString(repo.root()) + "/.patchwitness/";
        const std::string written =
            pw::core::readWholeFile(QString(dir + QStringLiteral("quarantine.toml")).toStdString())
                .value_or("");
        const std::optional<std::string> copy =
            pw::core::readWholeFile((dir.toStdString() + attributionCopy));
        QVERIFY(copy);
        QVERIFY2(written.find("record = \"" + attributionCopy + "\", record_sha256 = \"" +
                              pw::core::sha256Hex(*copy) + "\"") != std::string::npos,
                 written.c_str());
        QVERIFY(QFileInfo::exists(
            dir + QStringLiteral("evidence/2024-04-30-tests_test_calc.py_test_three-cells.json")));
    }

    // The newest cells record calls it broken: the dialog refuses, even with every field
    // filled and another attribution typed.
    cells("2024-05-01", "solo");
    LedgerFormDialog *dialog = desk.grantFreeze(id);
    QVERIFY(dialog);
    auto *form = dialog->form();
    QVERIFY2(child<QLabel>(form, "evidenceLabel")
                 ->text()
                 .contains(QStringLiteral("No freeze: the four cells say it is a broken test")),
             qPrintable(child<QLabel>(form, "evidenceLabel")->text()));
    child<QComboBox>(form, "ownerCombo")->setCurrentText(QStringLiteral("linus"));
    child<QLineEdit>(form, "obligationEdit")->setText(QStringLiteral("zero plus zero is zero"));
    child<QComboBox>(form, "substituteCombo")
        ->setCurrentText(QStringLiteral("tests/test_calc.py::test_one"));
    child<QLineEdit>(form, "guardsEdit")->setText(QStringLiteral("calc.py"));
    child<QComboBox>(form, "verdictCombo")->setCurrentText(QStringLiteral("PRE_EXISTING"));
    child<QComboBox>(form, "attributionCombo")->setCurrentText(QStringLiteral("order"));
    QVERIFY(!dialog->isValid());
    QVERIFY2(form->reason(QStringLiteral("attribution")).contains(QStringLiteral("broken test")),
             qPrintable(form->reason(QStringLiteral("attribution"))));
    dialog->close();
}

// Issue 19: the desk answers from the tests the audit read (the files its findings, the
// patch and the ledgers name); a witness in any other file is looked up on HeadTests'
// thread — the form says so meanwhile, and validates again when the answer arrives. The
// desk marks the GUI thread: a git read or an extractor start on it would abort this test.
void TestLedgerForms::deskLooksUpOtherTestsOffTheGuiThread()
{
    pw::test::RepoBuilder repo;
    repo.write("calc.py", "def add(a, b):\n    return a + b\n");
    repo.write("tests/test_calc.py",
               "import calc\n\ndef test_one():\n    assert calc.add(1, 1) == 2\n\n"
               "def test_two():\n    assert calc.add(2, 2) == 4\n");
    repo.write("tests/test_other.py",
               "import calc\n\ndef test_alpha():\n    assert calc.add(0, 1) == 1\n");
    repo.write("tests/test_third.py", "import calc\n\ndef test_x():\n    assert calc.add(1, 2)\n\n"
                                      "def test_y():\n    pass\n\ndef test_z():\n    pass\n");
    repo.write("tests/test_fifth.py", "def test_m():\n    pass\n\ndef test_n():\n    pass\n\n"
                                      "def test_o():\n    pass\n");
    repo.write("tests/test_fourth.py", "import calc\n\ndef test_p():\n    assert calc.add(1, 2)\n\n"
                                       "def test_q():\n    pass\n");
    const std::string base = repo.commit("base");
    repo.write("tests/test_calc.py",
               "import calc\n\ndef test_one():\n    assert calc.add(1, 1) == 2\n");
    repo.commit("agent: drop test_two");

    QTemporaryDir cache;
    const AuditOutcome outcome = auditHead(repo, base, cache);
    QVERIFY2(outcome.ok, qPrintable(outcome.error));
    // Read with the audit: the changed test file; not: the file the patch leaves alone.
    QVERIFY(outcome.headTests.count("tests/test_calc.py"));
    QVERIFY(!outcome.headTests.count("tests/test_other.py"));

    QWidget window;
    LedgerDesk desk(&window);
    desk.setOutcome(outcome);
    LedgerFormDialog *dialog = desk.approveWaiver(QStringLiteral("tests/test_calc.py::test_two"));
    QVERIFY(dialog);
    auto *form = dialog->form();
    child<QComboBox>(form, "reasonCombo")
        ->setCurrentIndex(child<QComboBox>(form, "reasonCombo")->findText("duplicate-coverage"));
    child<QLineEdit>(form, "byEdit")->setText(QStringLiteral("Ada"));
    child<QComboBox>(form, "witnessCombo")->setCurrentText("tests/test_calc.py::test_one");
    QTRY_VERIFY2(dialog->isValid(), qPrintable(form->reason(QStringLiteral("witness")) +
                                               form->reason(QStringLiteral("node"))));

    // Another file: not known yet, so the form waits for the lookup and says why.
    child<QComboBox>(form, "witnessCombo")->setCurrentText("tests/test_other.py::test_alpha");
    QVERIFY(!dialog->isValid());
    QVERIFY2(form->reason(QStringLiteral("witness")).contains(QStringLiteral("being looked up")),
             qPrintable(form->reason(QStringLiteral("witness"))));
    // The answer arrives on the GUI thread and the open form validates again by itself.
    QTRY_VERIFY_WITH_TIMEOUT(dialog->isValid(), 60000);
    QVERIFY(form->reason(QStringLiteral("witness")).isEmpty());
    // Known now: a name the file does not hold is refused at once.
    child<QComboBox>(form, "witnessCombo")->setCurrentText("tests/test_other.py::test_beta");
    QVERIFY(!dialog->isValid());
    QVERIFY2(form->reason(QStringLiteral("witness")).contains(QStringLiteral("not collected")),
             qPrintable(form->reason(QStringLiteral("witness"))));
    dialog->reject();

    // A freeze for a test of a file the audit did not read: its substitutes and guards are
    // not known when the form opens; they fill in when the lookup answers, what the
    // reviewer typed stays.
    LedgerFormDialog *freeze = desk.grantFreeze(QStringLiteral("tests/test_third.py::test_x"));
    QVERIFY(freeze);
    auto *substitute = child<QComboBox>(freeze->form(), "substituteCombo");
    auto *guards = child<QLineEdit>(freeze->form(), "guardsEdit");
    QCOMPARE(substitute->count(), 0);
    QVERIFY(guards->text().isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(substitute->count(), 2, 60000);
    QCOMPARE(substitute->itemText(0), QStringLiteral("tests/test_third.py::test_y"));
    QCOMPARE(substitute->currentText(), QStringLiteral("tests/test_third.py::test_y"));
    QVERIFY2(guards->text().contains(QStringLiteral("calc.py")), qPrintable(guards->text()));
    freeze->reject();

    // The same with something typed first: offered, not overwritten.
    LedgerFormDialog *again = desk.grantFreeze(QStringLiteral("tests/test_fourth.py::test_p"));
    QVERIFY(again);
    auto *typed = child<QComboBox>(again->form(), "substituteCombo");
    typed->setCurrentText(QStringLiteral("tests/test_calc.py::test_one"));
    QTRY_COMPARE_WITH_TIMEOUT(typed->count(), 1, 60000);
    QCOMPARE(typed->itemText(0), QStringLiteral("tests/test_fourth.py::test_q"));
    QCOMPARE(typed->currentText(), QStringLiteral("tests/test_calc.py::test_one"));
    again->reject();

    // A waiver for a node of a file the audit did not read: its witness candidates (the
    // file's other tests) arrive with the lookup, the first taken as the witness.
    LedgerFormDialog *waiver = desk.approveWaiver(QStringLiteral("tests/test_fifth.py::test_m"));
    QVERIFY(waiver);
    auto *witness = child<QComboBox>(waiver->form(), "witnessCombo");
    QCOMPARE(witness->count(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(witness->count(), 2, 60000);
    QCOMPARE(witness->currentText(), QStringLiteral("tests/test_fifth.py::test_n"));
    QCOMPARE(witness->itemText(1), QStringLiteral("tests/test_fifth.py::test_o"));
    waiver->reject();
}

QTEST_MAIN(TestLedgerForms)

// Issue 20 item 9: two tests folded into one parametrised test — Approve waiver on either
// deleted test opens with that test as the witness, the successor the audit named.
void TestLedgerForms::waiverWitnessIsTheLikelySuccessor()
{
    pw::test::RepoBuilder repo;
    repo.write("calc.py", "def half(x):\n    return x / 2\n\n\ndef twice(x):\n    return 2 * x\n");
    repo.write("tests/test_calc.py",
               "import calc\n\n\ndef test_half_of_two():\n    assert calc.half(2) == 1\n\n\n"
               "def test_half_of_four():\n    assert calc.half(4) == 2\n\n\n"
               "def test_twice():\n    assert calc.twice(2) == 4\n");
    const std::string base = repo.commit("base");
    repo.write("tests/test_calc.py",
               "import pytest\nimport calc\n\n\n"
               "@pytest.mark.parametrize('x, half', [(2, 1), (4, 2)])\n"
               "def test_half(x, half):\n    assert calc.half(x) == half\n\n\n"
               "def test_twice():\n    assert calc.twice(2) == 4\n");
    repo.commit("agent: fold the half tests");
    QTemporaryDir cache;
    const AuditOutcome outcome = auditHead(repo, base, cache);
    QVERIFY2(outcome.ok, qPrintable(outcome.error));
    QWidget window;
    LedgerDesk desk(&window);
    desk.setOutcome(outcome);
    for (const char *node :
         {"tests/test_calc.py::test_half_of_two", "tests/test_calc.py::test_half_of_four"}) {
        const WaiverSeed seed = desk.waiverSeed(QString::fromLatin1(node));
        QVERIFY2(!seed.witnessCandidates.isEmpty(), node);
        QCOMPARE(seed.witnessCandidates.front(), QStringLiteral("tests/test_calc.py::test_half"));
        LedgerFormDialog *dialog = desk.approveWaiver(QString::fromLatin1(node));
        QVERIFY(dialog);
        QCOMPARE(child<QComboBox>(dialog->form(), "witnessCombo")->currentText(),
                 QStringLiteral("tests/test_calc.py::test_half"));
        dialog->reject();
    }
}

#include "tst_ledgerforms.moc"
