// Ledger writers that race, die or cannot read (issue 18): of any number of writers
// at once every one lands or is refused with the others' entries kept — never lost with
// exit 0; a writer killed with SIGKILL leaves the file old or new, no temporary file and no
// stale lock; a ledger (or its directory) that cannot be read is exit 3 with "cannot be
// read: Permission denied", never an empty ledger and never the patch's doing. The
// unreadable cases run the CLI as `nobody` when the tests run as root (root reads anything).
#include "RepoBuilder.h"
#include "TestSupport.h"
#include "ledger/LedgerActions.h"
#include "ledger/LedgerDate.h"
#include "ledger/LedgerStore.h"
#include "ledger/WaiverLedger.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QtTest>
#include <atomic>
#include <csignal>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace pw::core;
using pw::test::RepoBuilder;

namespace {

constexpr int kTests = 40;
const QString kToday = QStringLiteral("2024-05-10");
const QString kWaivers = QStringLiteral("census_waiver.toml");

struct Result
{
    int exitCode = -1;
    QString out;
    QString err;
};

// tests/test_x.py with test_0 … test_39 and test_b (the witness and substitute).
std::string testFile()
{
    std::string text = "def test_b():\n    assert 2 == 2\n";
    for (int i = 0; i < kTests; ++i)
        text += "\n\ndef test_" + std::to_string(i) + "():\n    assert " + std::to_string(i) +
                " == " + std::to_string(i) + "\n";
    return text;
}

QString node(int i)
{
    return QStringLiteral("tests/test_x.py::test_%1").arg(i);
}

QStringList waiveArgs(int i)
{
    return {QStringLiteral("waive"),     QStringLiteral("tests/test_gone.py::test_%1").arg(i),
            QStringLiteral("--reason"),  QStringLiteral("obsolete-behavior"),
            QStringLiteral("--witness"), QStringLiteral("tests/test_x.py::test_b"),
            QStringLiteral("--by"),      QStringLiteral("w%1").arg(i)};
}

QStringList freezeArgs(int i)
{
    return {QStringLiteral("freeze"),         node(i),
            QStringLiteral("--owner"),        QStringLiteral("bob"),
            QStringLiteral("--expires"),      QStringLiteral("2024-05-20"),
            QStringLiteral("--attribution"),  QStringLiteral("order"),
            QStringLiteral("--witness-seed"), QStringLiteral("7"),
            QStringLiteral("--baseline-sha"), QStringLiteral("0123abcd"),
            QStringLiteral("--base-fail"),    QStringLiteral("3"),
            QStringLiteral("--head-fail"),    QStringLiteral("3"),
            QStringLiteral("--mode"),         QStringLiteral("matched"),
            QStringLiteral("--seeds"),        QStringLiteral("7,8"),
            QStringLiteral("--env-digest"),   QStringLiteral("abcd1234abcd1234"),
            QStringLiteral("--obligation"),   QStringLiteral("it holds"),
            QStringLiteral("--substitute"),   QStringLiteral("tests/test_x.py::test_b"),
            QStringLiteral("--guards"),       QStringLiteral("src/a.py"),
            QStringLiteral("--replay"),       QStringLiteral("pytest %1").arg(node(i)),
            QStringLiteral("--by"),           QStringLiteral("carol")};
}

// The record behind freezeArgs(i): what it types, as a run would have recorded it.
std::string recordFor(int i)
{
    return "{\"schema\": \"patchwitness.attribution/1\", \"test\": \"" + node(i).toStdString() +
           "\", \"verdict\": \"PRE_EXISTING\", \"mode\": \"matched\", \"base_fail\": 3, "
           "\"head_fail\": 3, \"seeds\": [7, 8], \"witness_seed\": 7, \"env_digest\": "
           "\"abcd1234abcd1234\", \"baseline_sha\": \"0123abcd\", \"attribution\": \"order\", "
           "\"recorded\": \"2024-05-01\"}\n";
}

QStringList closeArgs(int i)
{
    return {QStringLiteral("journal"), QStringLiteral("close"), QStringLiteral("j%1").arg(i),
            QStringLiteral("--by"), QStringLiteral("frank")};
}

// A journal of `rows` open rows, each with the two passing replays a close needs.
std::string journal(int rows)
{
    std::string text;
    for (int i = 0; i < rows; ++i)
        text += "{\"id\": \"j" + std::to_string(i) + "\", \"seed\": " + std::to_string(i) +
                ", \"env\": \"e\", \"status\": \"open\", \"opened\": \"2024-05-01\", "
                "\"replays\": [{\"outcome\": \"pass\", \"env\": \"e\"}, {\"outcome\": "
                "\"pass\", \"env\": \"e\"}]}\n";
    return text;
}

int count(const std::string &text, const std::string &needle)
{
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
        ++n;
    return n;
}

bool runningAsRoot()
{
    return ::geteuid() == 0;
}

void chownToNobody(const QString &path)
{
    QProcess p;
    p.start(QStringLiteral("chown"), {QStringLiteral("-R"), QStringLiteral("65534:65534"), path});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
}

} // namespace

class TstLedgerWriters : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void datesFormattedOnManyThreadsAtOnce(); // first: no date was formatted before it
    void init();
    void concurrentCommandsAllLand_data();
    void concurrentCommandsAllLand();
    void storesWritingAtOnceNeverBothLand();
    void aLockHeldTooLongIsARefusal();
    void killedWritersLeaveOldOrNew();
    void unreadableLedgersFailClosed_data();
    void unreadableLedgersFailClosed();

private:
    QStringList common() const;
    QProcess *start(const QStringList &args, bool unprivileged = false);
    Result finish(QProcess *p);
    Result cli(const QStringList &args, bool unprivileged = false)
    {
        return finish(start(args, unprivileged));
    }
    QString ledger(const QString &name) const
    {
        return QString::fromStdString(m_repo->root()) + QStringLiteral("/.patchwitness/") + name;
    }
    std::unique_ptr<RepoBuilder> m_repo;
    std::unique_ptr<QTemporaryDir> m_cache;
    std::unique_ptr<QTemporaryDir> m_outside;
};

// Writers on threads format their first date at the same moment (the workbench's audit and
// its forms; storesWritingAtOnceNeverBothLand below). Under Qt 5.15 QDate::toString races on
// the first QCalendar and gave "" to some threads, so `approved_on = ` was written and the
// next read failed. The ledger formatters are Qt::ISODate's text, on any thread, at once.
void TstLedgerWriters::datesFormattedOnManyThreadsAtOnce()
{
    constexpr int kThreads = 16;
    std::atomic<int> ready{0}, wrong{0};
    std::vector<std::thread> threads;
    const QDateTime noon(QDate(2024, 5, 10), QTime(12, 3, 4), Qt::UTC);
    for (int i = 0; i < kThreads; ++i) {
        threads.emplace_back([&] {
            ++ready;
            while (ready.load() < kThreads)
                std::this_thread::yield();
            if (ledgerDateText(QDate(2024, 5, 10)) != "2024-05-10" ||
                utcTimestampText(noon) != "2024-05-10T12:03:04Z")
                ++wrong;
        });
    }
    for (std::thread &t : threads)
        t.join();
    QCOMPARE(wrong.load(), 0);
    // Qt's own text, now that its calendar exists: every 97th day of years 1 … 9999, the
    // ends of that range, an invalid date, a UTC and a non-UTC time.
    for (qint64 jd = QDate(1, 1, 1).toJulianDay(); jd <= QDate(9999, 12, 31).toJulianDay();
         jd += 97) {
        const QDate d = QDate::fromJulianDay(jd);
        QCOMPARE(ledgerDateText(d), d.toString(Qt::ISODate).toStdString());
    }
    QCOMPARE(ledgerDateText(QDate(9999, 12, 31)), std::string("9999-12-31"));
    QCOMPARE(ledgerDateText(QDate(10000, 1, 1)), std::string());
    QCOMPARE(ledgerDateText(QDate()), std::string());
    QCOMPARE(utcTimestampText(noon), noon.toString(Qt::ISODate).toStdString());
    const QDateTime east(QDate(2024, 5, 10), QTime(1, 0, 0), Qt::OffsetFromUTC, 2 * 3600);
    QCOMPARE(utcTimestampText(east), std::string("2024-05-09T23:00:00Z"));
}

void TstLedgerWriters::init()
{
    m_repo = std::make_unique<RepoBuilder>();
    m_repo->write("tests/test_x.py", testFile());
    m_repo->write("src/a.py", "a = 1\n");
    m_repo->commit("base");
    m_cache = std::make_unique<QTemporaryDir>();
    m_outside = std::make_unique<QTemporaryDir>();
    QVERIFY(m_cache->isValid() && m_outside->isValid());
}

QStringList TstLedgerWriters::common() const
{
    return {QStringLiteral("--repo"),      QString::fromStdString(m_repo->root()),
            QStringLiteral("--python"),    QString::fromStdString(pw::test::testPython()),
            QStringLiteral("--cache-dir"), m_cache->path(),
            QStringLiteral("--today"),     kToday};
}

QProcess *TstLedgerWriters::start(const QStringList &args, bool unprivileged)
{
    auto *p = new QProcess(this);
    if (unprivileged && runningAsRoot()) {
        // nobody's own HOME: libgit2 reads the global git config from it.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), m_cache->path());
        env.insert(QStringLiteral("XDG_CACHE_HOME"), m_cache->path());
        p->setProcessEnvironment(env);
        p->start(QStringLiteral("setpriv"),
                 QStringList{QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"),
                             QStringLiteral("--clear-groups"), QStringLiteral("--"),
                             QStringLiteral(PW_CLI_PATH)} +
                     args);
    } else {
        p->start(QStringLiteral(PW_CLI_PATH), args);
    }
    return p;
}

Result TstLedgerWriters::finish(QProcess *p)
{
    if (!p->waitForFinished(180000))
        p->kill();
    p->waitForFinished(5000);
    Result r{p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1,
             QString::fromUtf8(p->readAllStandardOutput()),
             QString::fromUtf8(p->readAllStandardError())};
    p->deleteLater();
    return r;
}

void TstLedgerWriters::concurrentCommandsAllLand_data()
{
    QTest::addColumn<int>("waivers");
    QTest::addColumn<int>("freezes");
    QTest::addColumn<int>("closes");
    QTest::newRow("40 waive at once") << 40 << 0 << 0;
    QTest::newRow("waive, freeze and journal close at once") << 12 << 12 << 12;
}

// The issue's benchmark: 40 concurrent writers → 40 entries or clean refusals, 0 lost. With
// the lock held from read to rename they queue, so every one of them lands.
void TstLedgerWriters::concurrentCommandsAllLand()
{
    QFETCH(int, waivers);
    QFETCH(int, freezes);
    QFETCH(int, closes);
    if (closes > 0)
        QVERIFY(writeFileAtomically(ledger(QStringLiteral("seed_journal.jsonl")).toStdString(),
                                    journal(closes), true));
    for (int i = 0; i < freezes; ++i)
        QVERIFY(
            writeFileAtomically(ledger(QStringLiteral("runs/record-%1.json").arg(i)).toStdString(),
                                recordFor(i), true));
    // The extractor's facts are cached first, so the writers race on the ledgers only.
    const Result warm =
        cli(QStringList{QStringLiteral("ledger"), QStringLiteral("check")} + common());
    QVERIFY2(warm.exitCode == 0, qPrintable(warm.out + warm.err));

    std::vector<std::pair<QString, QProcess *>> running; // (what it writes, process)
    for (int i = 0; i < std::max({waivers, freezes, closes}); ++i) {
        if (i < waivers)
            running.emplace_back(QStringLiteral("tests/test_gone.py::test_%1").arg(i),
                                 start(waiveArgs(i) + common()));
        if (i < freezes)
            running.emplace_back(node(i), start(freezeArgs(i) + common()));
        if (i < closes)
            running.emplace_back(QStringLiteral("j%1").arg(i), start(closeArgs(i) + common()));
    }
    int landed = 0, refused = 0;
    QStringList problems;
    for (auto &[what, p] : running) {
        const Result r = finish(p);
        if (r.exitCode == 0)
            ++landed;
        else if (r.exitCode == 3 && r.err.contains(QLatin1String("nothing was written")))
            ++refused;
        else
            problems << QStringLiteral("%1: exit %2: %3").arg(what).arg(r.exitCode).arg(r.err);
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));

    const std::string w = readWholeFile(ledger(kWaivers).toStdString()).value_or("");
    const std::string q =
        readWholeFile(ledger(QStringLiteral("quarantine.toml")).toStdString()).value_or("");
    const std::string j =
        readWholeFile(ledger(QStringLiteral("seed_journal.jsonl")).toStdString()).value_or("");
    const int entries =
        count(w, "[[waiver]]") + count(q, "[[quarantine]]") + count(j, "\"status\": \"closed\"");
    // Every exit 0 is an entry in its file: nothing lost.
    QCOMPARE(entries, landed);
    QCOMPARE(refused, 0); // they queue on the lock rather than being refused
    QCOMPARE(landed, waivers + freezes + closes);
    const Result check =
        cli(QStringList{QStringLiteral("ledger"), QStringLiteral("check")} + common());
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
}

// Stores that load first and write later (the workbench's forms): of writers that all
// loaded the same bytes, exactly one lands and the others are refused — the check and the
// rename are one step under the lock.
void TstLedgerWriters::storesWritingAtOnceNeverBothLand()
{
    const std::string path = ledger(kWaivers).toStdString();
    ValidationContext ctx;
    ctx.today = QDate(2024, 5, 10);
    ctx.testExistsAtHead = [](const std::string &) { return true; };
    const LedgerActions actions{LedgerValidator(ctx)};
    for (int round = 0; round < 20; ++round) {
        constexpr int kWriters = 8;
        std::vector<LedgerStore> stores;
        for (int i = 0; i < kWriters; ++i)
            stores.push_back(LedgerStore::open(path));
        std::atomic<int> ready{0}, landed{0}, refused{0};
        std::vector<std::thread> threads;
        for (int i = 0; i < kWriters; ++i) {
            threads.emplace_back([&, i] {
                WaiverEntry e;
                e.node = "tests/t.py::r" + std::to_string(round) + "_" + std::to_string(i);
                e.reason = "obsolete-behavior";
                e.witness = "tests/t.py::w";
                e.approvedBy = "a";
                const std::string text = actions.waive(stores[size_t(i)].loaded(), path, e);
                ++ready;
                while (ready.load() < kWriters)
                    std::this_thread::yield();
                try {
                    stores[size_t(i)].write(text);
                    ++landed;
                } catch (const Error &) {
                    ++refused;
                }
            });
        }
        for (std::thread &t : threads)
            t.join();
        QCOMPARE(landed.load(), 1);
        QCOMPARE(refused.load(), kWriters - 1);
        QCOMPARE(count(readWholeFile(path).value_or(""), "[[waiver]]"), round + 1);
    }
}

void TstLedgerWriters::aLockHeldTooLongIsARefusal()
{
    const std::string path = ledger(kWaivers).toStdString();
    QVERIFY(writeFileAtomically(path, "# reviewed\n", true));
    LedgerStore holder = LedgerStore::openForUpdate(path);
    LedgerStore other = LedgerStore::open(path);
    try {
        other.write("# mine\n", std::chrono::milliseconds(200));
        QFAIL("a writer must not pass another's lock");
    } catch (const Error &e) {
        QCOMPARE(int(e.kind()), int(Error::Kind::Input));
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("another writer has held its "
                                                                    "lock")),
                 e.what());
    }
    QCOMPARE(readWholeFile(path).value_or(""), std::string("# reviewed\n"));
    holder.write("# holder's\n"); // releases the lock
    try {
        other.write("# mine\n", std::chrono::milliseconds(200));
        QFAIL("the holder's entry must be kept");
    } catch (const Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("changed on disk")), e.what());
    }
    QCOMPARE(readWholeFile(path).value_or(""), std::string("# holder's\n"));
}

// SIGKILL at any moment of a write: the ledger is the old file or the new one, parses, has
// no temporary file beside it, and the next writer does not wait on a dead one's lock.
void TstLedgerWriters::killedWritersLeaveOldOrNew()
{
    const QString path = ledger(kWaivers);
    const Result warm = cli(waiveArgs(100) + common());
    QVERIFY2(warm.exitCode == 0, qPrintable(warm.err));
    std::mt19937 random(18);
    std::uniform_int_distribution<int> delay(0, 400);
    int killed = 0;
    for (int i = 0; i < 24; ++i) {
        const std::string before = readWholeFile(path.toStdString()).value_or("");
        QProcess *p = start(waiveArgs(i) + common());
        QVERIFY(p->waitForStarted());
        QThread::msleep(ulong(delay(random)));
        if (p->state() == QProcess::Running) {
            ::kill(pid_t(p->processId()), SIGKILL);
            ++killed;
        }
        finish(p);
        const std::string after = readWholeFile(path.toStdString()).value_or("");
        const int added = count(after, "[[waiver]]") - count(before, "[[waiver]]");
        QVERIFY2(added == 0 || added == 1, after.c_str());
        if (added == 1)
            QVERIFY(after.starts_with(before));         // appended, nothing else changed
        WaiverLedger::parse(after, path.toStdString()); // throws on a torn file
        const QStringList beside =
            QDir(QFileInfo(path).absolutePath()).entryList(QDir::Files | QDir::Hidden);
        QCOMPARE(beside, QStringList{kWaivers});
    }
    QVERIFY2(killed > 0, "no writer was killed while running: the test proves nothing");
    // No stale lock: the next writer lands at once.
    const std::string before = readWholeFile(path.toStdString()).value_or("");
    LedgerStore next = LedgerStore::open(path.toStdString());
    next.write(before + "# after the kills\n", std::chrono::milliseconds(500));
}

void TstLedgerWriters::unreadableLedgersFailClosed_data()
{
    QTest::addColumn<QString>("command");    // "check", "audit", "waive"
    QTest::addColumn<QString>("where");      // "repo" or "outside"
    QTest::addColumn<QString>("unreadable"); // "directory" or a file name
    QTest::newRow("ledger check, directory") << "check"
                                             << "repo"
                                             << "directory";
    QTest::newRow("ledger check, one file") << "check"
                                            << "repo"
                                            << "seed_journal.jsonl";
    QTest::newRow("ledger check, outside directory") << "check"
                                                     << "outside"
                                                     << "directory";
    QTest::newRow("audit, outside directory") << "audit"
                                              << "outside"
                                              << "directory";
    QTest::newRow("audit, outside file") << "audit"
                                         << "outside"
                                         << "census_waiver.toml";
    QTest::newRow("audit of the work tree, in-repo directory") << "audit"
                                                               << "repo"
                                                               << "directory";
    QTest::newRow("audit of the work tree, in-repo file") << "audit"
                                                          << "repo"
                                                          << "seed_journal.jsonl";
    QTest::newRow("waive into an unreadable directory") << "waive"
                                                        << "repo"
                                                        << "directory";
    QTest::newRow("waive over an unreadable file") << "waive"
                                                   << "repo"
                                                   << "census_waiver.toml";
}

void TstLedgerWriters::unreadableLedgersFailClosed()
{
    QFETCH(QString, command);
    QFETCH(QString, where);
    QFETCH(QString, unreadable);
    const QString dir =
        where == QLatin1String("repo")
            ? QString::fromStdString(m_repo->root()) + QStringLiteral("/.patchwitness")
            : m_outside->filePath(QStringLiteral("ledgers"));
    // Ledgers that matter: an open journal row and a waiver; committed when in the repo.
    auto in = [&dir](const QString &name) {
        return QString(dir + QLatin1Char('/') + name).toStdString();
    };
    QVERIFY(writeFileAtomically(in(QStringLiteral("seed_journal.jsonl")), journal(1), true));
    QVERIFY(writeFileAtomically(
        in(kWaivers),
        "[[waiver]]\nnode = \"tests/test_gone.py::test_old\"\nreason = \"obsolete-behavior\"\n"
        "witness = \"tests/test_x.py::test_b\"\napproved_by = \"a\"\napproved_on = 2024-05-01\n",
        true));
    const QString base = QString::fromStdString(m_repo->commit("ledgers"));
    m_repo->write("src/a.py", "a = 2\n"); // the work tree differs from HEAD
    if (runningAsRoot()) {
        chownToNobody(QString::fromStdString(m_repo->root()));
        chownToNobody(m_cache->path());
        chownToNobody(m_outside->path());
    }
    const QString target =
        unreadable == QLatin1String("directory") ? dir : dir + QLatin1Char('/') + unreadable;
    const std::string before = readWholeFile(in(kWaivers)).value_or("");
    QVERIFY(::chmod(target.toLocal8Bit().constData(), 0) == 0);
    auto restore = qScopeGuard([&] { ::chmod(target.toLocal8Bit().constData(), 0755); });

    QStringList args;
    if (command == QLatin1String("check"))
        args = QStringList{QStringLiteral("ledger"), QStringLiteral("check")};
    else if (command == QLatin1String("audit"))
        args = QStringList{QStringLiteral("audit"), QStringLiteral("--base"), base,
                           QStringLiteral("--head"), QStringLiteral("WORKTREE")};
    else
        args = waiveArgs(7);
    args += common();
    if (command == QLatin1String("audit")) // audit has no --today
        args = args.mid(0, args.indexOf(QStringLiteral("--today")));
    if (where == QLatin1String("outside"))
        args << QStringLiteral("--ledger-dir") << dir;
    const Result r = cli(args, /*unprivileged=*/true);
    QVERIFY2(r.exitCode == 3,
             qPrintable(QStringLiteral("exit %1\n%2%3").arg(r.exitCode).arg(r.out, r.err)));
    QVERIFY2(r.err.contains(QLatin1String("cannot be read: Permission denied")), qPrintable(r.err));
    QVERIFY2(!r.out.contains(QLatin1String("deletes")) && !r.err.contains(QLatin1String("deletes")),
             qPrintable(r.out + r.err)); // never blamed on the patch
    restore.dismiss();
    ::chmod(target.toLocal8Bit().constData(), 0755);
    QCOMPARE(readWholeFile(in(kWaivers)).value_or(""),
             before); // nothing written
}

QTEST_GUILESS_MAIN(TstLedgerWriters)
#include "tst_ledgerwriters.moc"
