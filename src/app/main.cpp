#include "MainWindow.h"
#include "repo/DemoRepository.h"
#include "runs/RunController.h"
#include "runs/RunDesk.h"
#include "util/Error.h"
#include "workspace/AppLook.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// "a.py::t[1,2],b.py::u" → the two node ids: a comma inside a parametrize id's brackets
// is part of the id.
QStringList splitNodeIds(const QString &text)
{
    QStringList ids;
    QString current;
    int depth = 0;
    for (const QChar c : text) {
        if (c == QLatin1Char('['))
            ++depth;
        else if (c == QLatin1Char(']') && depth > 0)
            --depth;
        if (c == QLatin1Char(',') && depth == 0) {
            if (!current.trimmed().isEmpty())
                ids << current.trimmed();
            current.clear();
            continue;
        }
        current += c;
    }
    if (!current.trimmed().isEmpty())
        ids << current.trimmed();
    return ids;
}

// Without a display Qt aborts in QApplication's constructor. What needs no window (help,
// version, a screenshot) is rendered offscreen instead; anything else is refused with a
// message, before Qt is asked. An explicit platform (QT_QPA_PLATFORM, -platform) wins.
// Returns false when the workbench cannot start.
bool choosePlatform(int argc, char **argv)
{
    const auto set = [](const char *name) {
        const char *value = std::getenv(name);
        return value != nullptr && *value != '\0';
    };
    if (set("QT_QPA_PLATFORM") || set("DISPLAY") || set("WAYLAND_DISPLAY"))
        return true;
    bool headless = false;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (std::strcmp(a, "-platform") == 0 || std::strcmp(a, "--platform") == 0)
            return true;
        for (const char *o : {"--screenshot", "--write-icon"})
            headless = headless || std::strcmp(a, o) == 0 ||
                       (std::strncmp(a, o, std::strlen(o)) == 0 && a[std::strlen(o)] == '=');
    }
    if (headless) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return true;
    }
    std::fprintf(stderr, "patchwitness: no display to open the workbench on (DISPLAY and "
                         "WAYLAND_DISPLAY are unset). Use patchwitness-cli for headless "
                         "reviews, or --screenshot FILE to render the workbench to a PNG.\n");
    return false;
}

// The command line, defined once for --help (answered without a window system) and the run.
struct Options
{
    explicit Options(QCommandLineParser &parser)
    {
        parser.setApplicationDescription(
            QStringLiteral("Review workbench for agent-written patches."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({repo, base, head, python, ledgerDir, screenshot, writeIcon, palette,
                           demo, panel, form, run});
        parser.addPositionalArgument(QStringLiteral("repository"),
                                     QStringLiteral("Repository to open."));
    }

    const QCommandLineOption repo{QStringLiteral("repo"), QStringLiteral("Repository to open."),
                                  QStringLiteral("path")};
    const QCommandLineOption base{QStringLiteral("base"), QStringLiteral("Base revision."),
                                  QStringLiteral("rev")};
    const QCommandLineOption head{QStringLiteral("head"),
                                  QStringLiteral("Head revision or WORKTREE."),
                                  QStringLiteral("rev")};
    const QCommandLineOption python{QStringLiteral("python"), QStringLiteral("Python interpreter."),
                                    QStringLiteral("path")};
    const QCommandLineOption ledgerDir{
        QStringLiteral("ledger-dir"),
        QStringLiteral("Ledger directory (default .patchwitness; a relative one is relative to "
                       "the repository). One outside the repository is read as it is, so an "
                       "entry written to it counts from the next audit; for one inside, the "
                       "base revision's copy counts."),
        QStringLiteral("dir")};
    const QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QStringLiteral("Load, lay out at 1280x800, save the window as PNG and exit."),
        QStringLiteral("file")};
    const QCommandLineOption palette{
        QStringLiteral("palette"),
        QStringLiteral("Colours: system (the desktop's, default), light or dark (the Fusion "
                       "style with that palette)."),
        QStringLiteral("name")};
    const QCommandLineOption writeIcon{
        QStringLiteral("write-icon"),
        QStringLiteral("Save the application icon as a 256x256 PNG and exit (what an install "
                       "puts under share/icons)."),
        QStringLiteral("file")};
    const QCommandLineOption demo{
        QStringLiteral("demo"),
        QStringLiteral("Open the demo repository (built on first use): an agent's patch that "
                       "shows every static verdict.")};
    const QCommandLineOption panel{
        QStringLiteral("panel"),
        QStringLiteral(
            "Raise an evidence panel: findings, manifest, latitude, strength, "
            "census, attribution, cells, heatmap (the seed matrix), shadow, runs, ledgers, "
            "history or log."),
        QStringLiteral("name")};
    const QCommandLineOption form{
        QStringLiteral("form"),
        QStringLiteral("Open a ledger form after the audit: waiver, freeze, renew, close or "
                       "note, as KIND or KIND=ID (default: the first finding or entry it applies "
                       "to). With --screenshot the form is saved instead of the window."),
        QStringLiteral("kind[=id]")};
    const QCommandLineOption run{
        QStringLiteral("run"),
        QStringLiteral(
            "After the audit, run a dynamic gate and wait for it: census, "
            "census-collect, attribute=TEST, cells=TEST, matrix[=TEST,TEST…] (default: the "
            "tests the patch touches) or shadow; the window stays open "
            "unless --screenshot is given (exit 4 when the gate failed). Naming it "
            "here is the consent, for this run only, to run the project's tests "
            "when no sandbox is available."),
        QStringLiteral("gate")};
};

// Help and version need no window system at all: answered before any platform plugin is
// loaded (which would warn about XDG_RUNTIME_DIR and the like on a headless machine).
// The arguments without those QGuiApplication would have taken (-platform NAME, -style NAME,
// -reverse, …), which a QCoreApplication leaves in place.
QStringList withoutGuiOptions(const QStringList &arguments)
{
    static const QStringList withValue = {
        QStringLiteral("-platform"),        QStringLiteral("-platformpluginpath"),
        QStringLiteral("-platformtheme"),   QStringLiteral("-plugin"),
        QStringLiteral("-qwindowgeometry"), QStringLiteral("-qwindowicon"),
        QStringLiteral("-qwindowtitle"),    QStringLiteral("-style"),
        QStringLiteral("-stylesheet"),      QStringLiteral("-session"),
        QStringLiteral("-display"),         QStringLiteral("-geometry"),
        QStringLiteral("-title"),           QStringLiteral("-name")};
    static const QStringList alone = {QStringLiteral("-reverse"), QStringLiteral("-widgetcount"),
                                      QStringLiteral("-nograb"), QStringLiteral("-dograb"),
                                      QStringLiteral("-sync")};
    QStringList out;
    for (int i = 0; i < arguments.size(); ++i) {
        const QString &a = arguments.at(i);
        QString flag = a.startsWith(QLatin1String("--")) ? a.mid(1) : a;
        flag = flag.section(QLatin1Char('='), 0, 0);
        if (i > 0 && withValue.contains(flag)) {
            if (!a.contains(QLatin1Char('=')))
                ++i; // and its value
            continue;
        }
        if (i > 0 && alone.contains(flag))
            continue;
        out << a;
    }
    return out;
}

bool asksForHelpOrVersion(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        for (const char *o : {"-h", "--help", "--help-all", "-v", "--version"}) {
            if (std::strcmp(argv[i], o) == 0)
                return true;
        }
    }
    return false;
}

// The settings of versions that ran without an organisation name lived in
// ~/.config/Unknown Organization/patchwitness.conf, and the viewed marks straight under the
// data directory: taken over once, when the new places are still empty.
void adoptEarlierSettings()
{
    QSettings now;
    QSettings before(QSettings::NativeFormat, QSettings::UserScope,
                     QStringLiteral("Unknown Organization"), QApplication::applicationName());
    if (now.allKeys().isEmpty() && QFileInfo::exists(before.fileName())) {
        for (const QString &key : before.allKeys())
            now.setValue(key, before.value(key));
        now.sync();
    }
    const QString marks = QStringLiteral("viewed-marks.json");
    const QString oldMarks =
        QDir(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation))
            .filePath(QApplication::applicationName() + QLatin1Char('/') + marks);
    const QString newDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (QFileInfo::exists(oldMarks) && !QFileInfo::exists(QDir(newDir).filePath(marks)) &&
        QDir().mkpath(newDir))
        QFile::copy(oldMarks, QDir(newDir).filePath(marks));
}

void describeApplication()
{
    QCoreApplication::setOrganizationName(QStringLiteral("patchwitness"));
    QCoreApplication::setOrganizationDomain(QStringLiteral("patchwitness.dev"));
    QCoreApplication::setApplicationName(QStringLiteral("patchwitness"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PATCHWITNESS_VERSION));
}

} // namespace

int main(int argc, char **argv)
{
    if (asksForHelpOrVersion(argc, argv)) {
        QCoreApplication core(argc, argv);
        describeApplication();
        QCommandLineParser parser;
        const Options o(parser);
        parser.process(withoutGuiOptions(QCoreApplication::arguments())); // prints and exits
        return 0;
    }
    if (!choosePlatform(argc, argv))
        return 3;
    QApplication app(argc, argv);
    describeApplication();
    QGuiApplication::setDesktopFileName(QStringLiteral("patchwitness"));
    QApplication::setWindowIcon(pw::gui::appIcon());
    adoptEarlierSettings();

    QCommandLineParser parser;
    const Options o(parser);
    parser.process(app);

    if (!pw::gui::applyPalette(parser.value(o.palette))) {
        std::fprintf(stderr, "patchwitness: --palette: %s is not system, light or dark\n",
                     qPrintable(parser.value(o.palette)));
        return 3;
    }
    if (parser.isSet(o.writeIcon)) {
        const QString file = parser.value(o.writeIcon);
        if (!pw::gui::appIconImage(256).save(file, "PNG")) {
            std::fprintf(stderr, "patchwitness: cannot write %s\n", qPrintable(file));
            return 3;
        }
        return 0;
    }
    QString path = parser.value(o.repo);
    if (path.isEmpty() && !parser.positionalArguments().isEmpty())
        path = parser.positionalArguments().constFirst();
    if (parser.isSet(o.demo)) {
        if (!path.isEmpty()) {
            std::fprintf(stderr, "patchwitness: --demo opens the demo repository; do not name "
                                 "another repository\n");
            return 3;
        }
        try {
            // Default base and head: the merge-base with main and the agent's branch.
            path = QString::fromStdString(pw::core::DemoRepository::ensure());
        } catch (const pw::core::Error &e) {
            std::fprintf(stderr, "patchwitness: cannot prepare the demo repository: %s\n",
                         e.what());
            return e.kind() == pw::core::Error::Kind::Input ? 3 : 4;
        }
    }
    // The window marks this thread as one that never waits on git (the demo is built
    // before it exists).
    pw::gui::MainWindow window;
    if (parser.isSet(o.python))
        window.setPython(parser.value(o.python));
    if (parser.isSet(o.ledgerDir))
        window.setLedgerDir(parser.value(o.ledgerDir)); // relative: to the repository, as the CLI
    window.resize(1280, 800);
    if (!path.isEmpty())
        window.openRepository(path, parser.value(o.base), parser.value(o.head));

    if (!parser.isSet(o.screenshot) && !parser.isSet(o.panel) && !parser.isSet(o.form) &&
        !parser.isSet(o.run)) {
        window.show();
        return app.exec();
    }
    window.resetLayout(); // what a saved layout hid is no part of a scripted window
    window.show();
    window.runner().waitForFinished();
    QApplication::processEvents();
    // Scripted (a screenshot, panel, form or run was asked for): an audit that could not run
    // is said on stderr too, and a screenshot run then exits 3 (the picture shows it).
    const bool auditFailed = !path.isEmpty() && !window.runner().outcome().ok;
    if (auditFailed)
        std::fprintf(stderr, "patchwitness: the audit could not run: %s\n",
                     qPrintable(window.runner().outcome().error));
    bool runFailed = false; // the job of --run failed: a screenshot run exits 4
    if (parser.isSet(o.run)) {
        const QString spec = parser.value(o.run);
        const QString gate = spec.section(QLatin1Char('='), 0, 0);
        const QString test = spec.section(QLatin1Char('='), 1);
        pw::gui::RunDesk *desk = window.runDesk();
        desk->setConsentHandler([](const QString &, const QString &) { return true; });
        desk->setRememberConsent(false); // consent for this command line only
        bool started = false;
        if (gate == QLatin1String("census") || gate == QLatin1String("census-collect")) {
            started = desk->startCensus(gate == QLatin1String("census"));
        } else if (gate == QLatin1String("attribute") && !test.isEmpty()) {
            started = desk->startAttribution(test);
        } else if (gate == QLatin1String("cells") && !test.isEmpty()) {
            started = desk->startCells(test);
        } else if (gate == QLatin1String("matrix")) {
            started = desk->startMatrix(splitNodeIds(test));
        } else if (gate == QLatin1String("shadow")) {
            started = desk->startShadow();
        } else {
            std::fprintf(stderr,
                         "patchwitness: --run: unknown gate %s (census, census-collect, "
                         "attribute=TEST, cells=TEST, matrix[=TESTS], shadow)\n",
                         qPrintable(spec));
            return 3;
        }
        if (!started) {
            std::fprintf(stderr, "patchwitness: --run %s: nothing to run (no audit)\n",
                         qPrintable(gate));
            return 3;
        }
        bool failed = false;
        const auto fail = [&failed](const QString &message) {
            failed = true;
            std::fprintf(stderr, "patchwitness: --run: %s\n", qPrintable(message));
        };
        QObject::connect(desk->controller(), &pw::gui::RunController::failed, desk,
                         [fail](const QString &, const QString &message) { fail(message); });
        // A census or shadow sample with no result is no success either (the CLI exits 4).
        QObject::connect(desk->controller(), &pw::gui::RunController::censusReady, desk,
                         [fail](const pw::core::CensusReport &report) {
                             if (!report.harnessError.empty())
                                 fail(QString::fromStdString("no census: " + report.harnessError));
                         });
        QObject::connect(
            desk->controller(), &pw::gui::RunController::shadowReady, desk,
            [fail](const pw::core::ShadowReport &report) {
                if (!report.harnessError.empty())
                    fail(QString::fromStdString("no shadow result: " + report.harnessError));
            });
        desk->controller()->waitForFinished();
        QApplication::processEvents();
        runFailed = failed;
    }
    if (parser.isSet(o.panel) && !window.showPanel(parser.value(o.panel))) {
        std::fprintf(stderr, "patchwitness: no panel named %s\n",
                     qPrintable(parser.value(o.panel)));
        return 3;
    }
    QWidget *grabbed = &window;
    if (parser.isSet(o.form)) {
        const QString spec = parser.value(o.form);
        const qsizetype eq = spec.indexOf(QLatin1Char('='));
        QWidget *dialog = window.openLedgerForm(eq < 0 ? spec : spec.left(eq),
                                                eq < 0 ? QString() : spec.mid(eq + 1));
        if (!dialog) {
            std::fprintf(stderr,
                         "patchwitness: cannot open form %s (unknown kind, no audit, or no "
                         "finding or entry it applies to)\n",
                         qPrintable(spec));
            return 3;
        }
        grabbed = dialog;
    }
    QApplication::processEvents();
    if (parser.isSet(o.screenshot)) {
        const QString file = parser.value(o.screenshot);
        if (!grabbed->grab().save(file)) {
            std::fprintf(stderr, "patchwitness: cannot write screenshot %s\n", qPrintable(file));
            return 4;
        }
        return auditFailed ? 3 : runFailed ? 4 : 0;
    }
    return app.exec();
}
