// Base tests base's code and head tests head's code, whatever the interpreter carries:
// a src/ layout found and put first, the tree's own distribution metadata, and every way
// an installed or editable copy of the package could shadow the tree — detected, kept
// behind the tree, and said. Real runs, real interpreters (venvs made by the test).

#include "RepoBuilder.h"
#include "RunFixtures.h"
#include "TestSupport.h"
#include "audit/Audit.h"
#include "dynamic/Census.h"
#include "dynamic/Shadow.h"
#include "execution/Interpreter.h"
#include "execution/PytestRun.h"
#include "execution/RunContext.h"
#include "execution/Sandbox.h"
#include "ledger/Config.h"
#include "util/Error.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using pw::core::Arm;
using pw::core::Error;
using pw::core::RunContext;
using pw::test::writeText;

namespace {

// A src/ layout project whose base and head differ in code and version; each tree's tests
// pass only when they import that tree's own package and metadata.
std::string projectFiles(pw::test::RepoBuilder &repo, const std::string &value,
                         const std::string &version)
{
    repo.write("pyproject.toml", "[project]\nname = \"mypkg\"\nversion = \"" + version +
                                     "\"\n[build-system]\nbuild-backend = \"flit_core.buildapi\"\n"
                                     "[tool.flit.module]\nname = \"mypkg\"\n");
    repo.write("src/mypkg/__init__.py", "VALUE = \"" + value + "\"\n");
    repo.write("tests/conftest.py", "import mypkg  # a conftest importing the package\n");
    repo.write("tests/test_value.py",
               "import os\nfrom importlib import metadata\nimport mypkg\n\n"
               "def test_value():\n    assert mypkg.VALUE == \"" +
                   value +
                   "\"\n\n"
                   "def test_from_the_tree():\n"
                   "    assert "
                   "os.path.realpath(mypkg.__file__).startswith(os.path.realpath(os.getcwd()))\n\n"
                   "def test_metadata():\n    assert metadata.version(\"mypkg\") == \"" +
                   version + "\"\n");
    return repo.commit(value);
}

// A venv of the test interpreter that sees its site packages (pytest), with nothing of
// the project in it yet.
std::string makeVenv(const QString &dir)
{
    QProcess p;
    p.start(QString::fromStdString(pw::test::testPython()),
            {QStringLiteral("-m"), QStringLiteral("venv"), QStringLiteral("--without-pip"),
             QStringLiteral("--system-site-packages"), dir});
    if (!p.waitForFinished(120000) || p.exitCode() != 0)
        throw std::runtime_error("cannot create a venv: " + p.readAllStandardError().toStdString());
    return QString(dir + QStringLiteral("/bin/python")).toStdString();
}

std::string sitePackages(const std::string &python)
{
    QProcess p;
    p.start(QString::fromStdString(python),
            {QStringLiteral("-c"),
             QStringLiteral("import sysconfig; print(sysconfig.get_paths()['purelib'])")});
    p.waitForFinished(30000);
    return p.readAllStandardOutput().trimmed().toStdString();
}

void distInfo(const std::string &site, const std::string &version, const std::string &editableUrl)
{
    const std::string info = "mypkg-" + version + ".dist-info/";
    writeText(site, info + "METADATA",
              "Metadata-Version: 2.1\nName: mypkg\nVersion: " + version + "\n");
    if (!editableUrl.empty())
        writeText(site, info + "direct_url.json",
                  "{\"url\": \"" + editableUrl + "\", \"dir_info\": {\"editable\": true}}");
}

bool anyContains(const std::vector<std::string> &lines, const QString &needle)
{
    for (const std::string &line : lines) {
        if (QString::fromStdString(line).contains(needle))
            return true;
    }
    return false;
}

} // namespace

class TestTreeImports : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eachTreeTestsItsOwnCodeWhateverIsInstalled_data()
    {
        QTest::addColumn<QString>("install");
        QTest::addColumn<bool>("sandbox");
        QTest::addColumn<QString>("said");
        QTest::newRow("plain interpreter") << "" << false << "";
        QTest::newRow("installed copy") << "copy" << false << "an installed copy at";
        QTest::newRow("installed copy, sandbox, venv under /tmp")
            << "copy" << true << "an installed copy at";
        QTest::newRow("editable .pth to a checkout at head")
            << "pth" << false << "editable install of file://";
        QTest::newRow("easy-install.pth in front of PYTHONPATH")
            << "egg" << true << "stood ahead of the tree";
        QTest::newRow("editable finder in front of the path finder")
            << "finder" << false << "the import finder";
        QTest::newRow("imported at startup by a .pth")
            << "import" << true << "already imported from";
    }

    void eachTreeTestsItsOwnCodeWhateverIsInstalled()
    {
        QFETCH(QString, install);
        QFETCH(bool, sandbox);
        QFETCH(QString, said);
        if (sandbox)
            PW_REQUIRE_SANDBOX();
        pw::test::RepoBuilder repo;
        const std::string base = projectFiles(repo, "base", "1.0");
        const std::string head = projectFiles(repo, "head", "2.0");
        // The reviewer's checkout, at head: what an editable install points at. Not under
        // /tmp, where the sandbox would hide it (a reviewer's checkout is in a home).
        QTemporaryDir checkout(QDir::currentPath() + QStringLiteral("/checkout-XXXXXX")), venvDir,
            cache;
        writeText(checkout.path().toStdString(), "src/mypkg/__init__.py", "VALUE = \"checkout\"\n");
        const std::string src = checkout.path().toStdString() + "/src";

        std::string python = pw::test::testPython();
        if (!install.isEmpty()) {
            python = makeVenv(venvDir.path());
            const std::string site = sitePackages(python);
            QVERIFY(!site.empty());
            if (install == QLatin1String("copy")) {
                writeText(site, "mypkg/__init__.py", "VALUE = \"installed\"\n");
                distInfo(site, "9.9", "");
            } else if (install == QLatin1String("pth")) {
                writeText(site, "__editable__.mypkg-2.0.pth", src + "\n");
                distInfo(site, "2.0.dev0", "file://" + checkout.path().toStdString());
            } else if (install == QLatin1String("egg")) {
                writeText(
                    site, "easy-install.pth",
                    "import sys; sys.__plen = len(sys.path)\n" + src +
                        "\nimport sys; new = sys.path[sys.__plen:]; del sys.path[sys.__plen:]; "
                        "p = getattr(sys, '__egginsert', 0); sys.path[p:p] = new; "
                        "sys.__egginsert = p + len(new)\n");
            } else if (install == QLatin1String("finder")) {
                writeText(site, "__editable___mypkg_finder.py",
                          "import importlib.util, sys\n"
                          "class Finder:\n"
                          "    @classmethod\n"
                          "    def find_spec(cls, name, path=None, target=None):\n"
                          "        if name != 'mypkg':\n            return None\n"
                          "        return importlib.util.spec_from_file_location(name, '" +
                              src + "/mypkg/__init__.py', submodule_search_locations=['" + src +
                              "/mypkg'])\n"
                              "def install():\n    sys.meta_path.insert(0, Finder)\n");
                writeText(
                    site, "__editable__.mypkg-2.0.pth",
                    "import __editable___mypkg_finder; __editable___mypkg_finder.install()\n");
            } else if (install == QLatin1String("import")) {
                writeText(site, "zz_early.pth",
                          "import sys; sys.path.insert(0, '" + src + "'); import mypkg\n");
            }
        }
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python = python;
        request.sandbox = sandbox;
        std::vector<std::string> progress;
        request.progress = [&](const std::string &line) { progress.push_back(line); };
        const RunContext ctx = RunContext::open(request);
        for (const Arm arm : {Arm::Base, Arm::Head}) {
            const pw::core::TreeImports &imports = ctx.imports(arm);
            QCOMPARE(imports.layout.importRoots, std::vector<std::string>{"src"});
            QVERIFY2(said.isEmpty() || anyContains(imports.overridden, said),
                     qPrintable(QStringLiteral("%1: %2").arg(
                         said, QString::fromStdString(imports.summary()))));
            pw::core::PytestRun run(ctx.spec(arm, {}, 0));
            const pw::core::RunResult result = run.run();
            QVERIFY2(result.exitCode == 0,
                     qPrintable(QString::fromStdString(std::string(pw::core::armName(arm)) + ": " +
                                                       result.stdoutTail + result.stderrTail)));
            QCOMPARE(result.count(pw::core::Outcome::Pass), 3);
            QCOMPARE(result.sandboxed, sandbox);
        }
        QVERIFY(anyContains(progress, QStringLiteral("base tree imports mypkg from src/")));
        if (!said.isEmpty())
            QVERIFY(anyContains(progress, QStringLiteral("overridden: mypkg: ")));
    }

    void everyLayoutAndBackendRunsItsOwnCode_data()
    {
        // Build settings (pyproject.toml, setup.cfg, setup.py), where the package lives,
        // and the version importlib.metadata must give the tests.
        QTest::addColumn<QString>("settingsFile");
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QString>("packageDir");
        QTest::addColumn<QString>("version");
        QTest::newRow("flit, src/") << "pyproject.toml"
                                    << "[project]\nname = \"lay\"\nversion = \"1.1\"\n"
                                       "[build-system]\nbuild-backend = \"flit_core.buildapi\"\n"
                                    << "src/lay"
                                    << "1.1";
        QTest::newRow("hatch packages, hatch-vcs")
            << "pyproject.toml"
            << "[project]\nname = \"lay\"\ndynamic = [\"version\"]\n[build-system]\n"
               "build-backend = \"hatchling.build\"\n[tool.hatch.version]\nsource = \"vcs\"\n"
               "[tool.hatch.build.targets.wheel]\npackages = [\"lib/lay\"]\n"
            << "lib/lay"
            << "3.0.1.dev1+g";
        QTest::newRow("setuptools package-dir")
            << "pyproject.toml"
            << "[project]\nname = \"lay\"\nversion = \"2.2\"\n[tool.setuptools]\n"
               "package-dir = {\"\" = \"code\"}\n"
            << "code/lay"
            << "2.2";
        QTest::newRow("setup.cfg") << "setup.cfg"
                                   << "[metadata]\nname = lay\nversion = 0.7\n[options]\n"
                                      "package_dir =\n    =source\n"
                                   << "source/lay"
                                   << "0.7";
        QTest::newRow("poetry") << "pyproject.toml"
                                << "[tool.poetry]\nname = \"lay\"\nversion = \"5.0\"\n"
                                   "packages = [{ include = \"lay\", from = \"pkgs\" }]\n"
                                << "pkgs/lay"
                                << "5.0";
        QTest::newRow("flat") << "pyproject.toml"
                              << "[project]\nname = \"lay\"\nversion = \"9.0\"\n"
                              << "lay"
                              << "9.0";
    }

    void everyLayoutAndBackendRunsItsOwnCode()
    {
        QFETCH(QString, settingsFile);
        QFETCH(QString, settings);
        QFETCH(QString, packageDir);
        QFETCH(QString, version);
        settings.replace(QLatin1String("\\n"), QLatin1String("\n"));
        pw::test::RepoBuilder repo;
        repo.write(settingsFile.toStdString(), settings.toStdString());
        repo.write(packageDir.toStdString() + "/__init__.py", "VALUE = 'base'\n");
        repo.write("tests/test_lay.py",
                   "import os\nfrom importlib import metadata\nimport lay\n\n"
                   "def test_own_code():\n"
                   "    assert "
                   "os.path.realpath(lay.__file__).startswith(os.path.realpath(os.getcwd()))\n\n"
                   "def test_metadata():\n"
                   "    assert metadata.version('lay').startswith('" +
                       version.toStdString() + "')\n");
        const std::string base = repo.commit("base");
        repo.tag("v3.0.0");
        repo.write(packageDir.toStdString() + "/__init__.py", "VALUE = 'head'\n");
        const std::string head = repo.commit("head");
        // An installed copy of the same package and distribution, to be overridden.
        QTemporaryDir venvDir, cache;
        const std::string venv = makeVenv(venvDir.path());
        writeText(sitePackages(venv), "lay/__init__.py", "VALUE = 'installed'\n");
        writeText(sitePackages(venv), "lay-0.0.1.dist-info/METADATA",
                  "Metadata-Version: 2.1\nName: lay\nVersion: 0.0.1\n");
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python = venv;
        const RunContext ctx = RunContext::open(request);
        pw::core::PytestRun run(ctx.spec(Arm::Head, {}, 0));
        const pw::core::RunResult result = run.run();
        QVERIFY2(result.exitCode == 0,
                 qPrintable(QString::fromStdString(ctx.imports(Arm::Head).summary() + "\n" +
                                                   result.stdoutTail + result.stderrTail)));
        QCOMPARE(result.count(pw::core::Outcome::Pass), 2);
    }

    void namespacePackagesEntryPointsAndVersionFilesComeFromTheTree()
    {
        // A namespace package under src/ (no acme/__init__.py), entry points declared in
        // setup.cfg, and a version file hatch-vcs would write at build time: each as the
        // tree has them, with an installed copy of the package and its metadata beside.
        pw::test::RepoBuilder repo;
        repo.write("pyproject.toml",
                   "[project]\nname = \"acme-widgets\"\ndynamic = [\"version\"]\n"
                   "[build-system]\nbuild-backend = \"hatchling.build\"\n"
                   "[tool.hatch.version]\nsource = \"vcs\"\n"
                   "[tool.hatch.build.hooks.vcs]\nversion-file = \"src/acme/widgets/_version.py\"\n"
                   "[project.entry-points.\"acme.plugins\"]\nround = \"acme.widgets:Round\"\n");
        repo.write("src/acme/widgets/__init__.py",
                   "from ._version import version\nclass Round:\n    pass\n");
        repo.write(
            "tests/test_widgets.py",
            "import os\nfrom importlib import metadata\nimport acme.widgets\n\n"
            "def test_from_the_tree():\n"
            "    assert "
            "os.path.realpath(acme.widgets.__file__).startswith(os.path.realpath(os.getcwd()))\n\n"
            "def test_version_file():\n    assert acme.widgets.version == "
            "metadata.version('acme-widgets')\n"
            "    assert acme.widgets.version.startswith('2.0.1.dev1')\n\n"
            "def test_entry_points():\n"
            "    eps = metadata.entry_points()\n"
            "    found = eps.select(group='acme.plugins') if hasattr(eps, 'select') else "
            "eps.get('acme.plugins', [])\n"
            "    assert [e.name for e in found] == ['round']\n");
        const std::string base = repo.commit("base");
        repo.tag("v2.0.0");
        repo.write("src/acme/widgets/__init__.py",
                   "from ._version import version\nclass Round:\n    size = 2\n");
        const std::string head = repo.commit("head");
        QTemporaryDir venvDir, cache;
        const std::string venv = makeVenv(venvDir.path());
        writeText(sitePackages(venv), "acme/widgets/__init__.py", "version = 'installed'\n");
        writeText(sitePackages(venv), "acme_widgets-0.1.dist-info/METADATA",
                  "Metadata-Version: 2.1\nName: acme-widgets\nVersion: 0.1\n");
        writeText(sitePackages(venv), "acme_widgets-0.1.dist-info/entry_points.txt",
                  "[acme.plugins]\ninstalled = acme.widgets:Installed\n");
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python = venv;
        request.sandbox = pw::core::Sandbox::available();
        const RunContext ctx = RunContext::open(request);
        QCOMPARE(ctx.imports(Arm::Head).layout.packages, std::vector<std::string>{"acme"});
        pw::core::PytestRun run(ctx.spec(Arm::Head, {}, 0));
        const pw::core::RunResult result = run.run();
        QVERIFY2(result.exitCode == 0,
                 qPrintable(QString::fromStdString(ctx.imports(Arm::Head).summary() + "\n" +
                                                   result.stdoutTail + result.stderrTail)));
        QCOMPARE(result.count(pw::core::Outcome::Pass), 3);
    }

    void aHeadThatBreaksWhatPytestImportsIsThatTreesHarnessError()
    {
        // The tree provides iniconfig, which pytest imports at start-up, and PYTHONPATH puts
        // the tree's first for pytest too. The head breaks it: its runs cannot start, which
        // is that tree's harness error, not a reason to refuse the base's evidence (and not
        // the sandbox's fault).
        QProcess where;
        where.start(QString::fromStdString(pw::test::testPython()),
                    {QStringLiteral("-I"), QStringLiteral("-c"),
                     QStringLiteral("import iniconfig; print(iniconfig.__file__)")});
        QVERIFY(where.waitForFinished(30000));
        const std::string real = where.readAllStandardOutput().trimmed().toStdString();
        QVERIFY(!real.empty());
        pw::test::RepoBuilder repo;
        repo.write("pyproject.toml", "[project]\nname = \"iniconfig\"\nversion = \"1.1.1\"\n");
        repo.write("src/iniconfig/__init__.py",
                   "exec(compile(open('" + real + "').read(), '" + real + "', 'exec'))\n");
        repo.write("tests/test_ini.py", "def test_ok():\n    pass\n");
        const std::string base = repo.commit("base");
        repo.write("src/iniconfig/__init__.py", "raise ImportError('the head broke iniconfig')\n");
        const std::string head = repo.commit("head");
        QTemporaryDir cache;
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.sandbox = pw::core::Sandbox::available();
        const RunContext ctx = RunContext::open(request);
        QVERIFY2(anyContains(ctx.imports(Arm::Base).layout.notes,
                             QStringLiteral("the running pytest itself imports the tree's own "
                                            "iniconfig")),
                 ctx.imports(Arm::Base).summary().c_str());
        QVERIFY(anyContains(ctx.imports(Arm::Head).layout.notes,
                            QStringLiteral("the import preflight fails in this tree")));
        pw::core::PytestRun baseRun(ctx.spec(Arm::Base, {}, 0)),
            headRun(ctx.spec(Arm::Head, {}, 0));
        const pw::core::RunResult b = baseRun.run(), h = headRun.run();
        QVERIFY2(b.exitCode == 0, b.stderrTail.c_str());
        QVERIFY(h.harnessError);
        QVERIFY2(h.harnessReason.find("the head broke iniconfig") != std::string::npos ||
                     h.stderrTail.find("the head broke iniconfig") != std::string::npos,
                 h.harnessReason.c_str());
    }

    void reportsNameTheInterpreterAndEachTreesImports()
    {
        pw::test::RepoBuilder repo;
        const std::string base = projectFiles(repo, "base", "1.0");
        const std::string head = projectFiles(repo, "head", "2.0");
        QTemporaryDir venvDir, cache;
        const std::string venv = makeVenv(venvDir.path());
        writeText(sitePackages(venv), "mypkg/__init__.py", "VALUE = \"installed\"\n");
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python = venv;
        const RunContext ctx = RunContext::open(request);
        const pw::core::InterpreterProbe probe = pw::core::probeInterpreter(venv);
        const std::string line = "interpreter " + venv + " (Python " + probe.version + ", pytest " +
                                 probe.pytestVersion + "; --python)";

        pw::core::RunPool pool(ctx.workers());
        const pw::core::CensusReport census = pw::core::Census::run(ctx, {}, pool);
        QVERIFY2(census.harnessError.empty(), census.harnessError.c_str());
        const QString text = QString::fromStdString(pw::core::formatCensusText(census));
        QVERIFY2(text.contains(QString::fromStdString(line)), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("base tree imports mypkg from src/")),
                 qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("overridden: mypkg: an installed copy at")),
                 qPrintable(text));
        const nlohmann::json json = nlohmann::json::parse(pw::core::formatCensusJson(census));
        QCOMPARE(json["interpreter"]["path"].get<std::string>(), venv);
        QCOMPARE(json["interpreter"]["pytest"].get<std::string>(), probe.pytestVersion);
        QCOMPARE(json["trees"]["head"]["import_path"][0].get<std::string>(),
                 ctx.treeDir(Arm::Head) + "/src");
        QVERIFY(!json["trees"]["base"]["overridden"].empty());

        const pw::core::ShadowReport shadow = pw::core::Shadow::run(ctx, {}, pool);
        QVERIFY2(QString::fromStdString(pw::core::formatShadowText(shadow))
                     .contains(QString::fromStdString(line)),
                 pw::core::formatShadowText(shadow).c_str());
        QCOMPARE(nlohmann::json::parse(pw::core::formatShadowJson(shadow))["interpreter"]["python"]
                     .get<std::string>(),
                 probe.version);
    }

    void anInterpreterTheSandboxCannotRunIsRefusedUpFront()
    {
        PW_REQUIRE_SANDBOX();
        pw::test::RepoBuilder repo;
        const std::string base = projectFiles(repo, "base", "1.0");
        const std::string head = projectFiles(repo, "head", "2.0");
        QTemporaryDir wrapperDir, other, cache;
        // A wrapper under /tmp that reads a file of another /tmp directory: outside the
        // sandbox it works; inside, the private /tmp hides what it reads.
        writeText(other.path().toStdString(), "env.sh", "PW_WRAPPED=1\n");
        const std::string wrapper = wrapperDir.path().toStdString() + "/python";
        writeText(wrapperDir.path().toStdString(), "python",
                  "#!/bin/sh\n. " + other.path().toStdString() + "/env.sh || exit 97\nexec " +
                      pw::test::testPython() + " \"$@\"\n");
        QFile::setPermissions(QString::fromStdString(wrapper),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python = wrapper;
        request.sandbox = false;
        RunContext::open(request); // without the sandbox it runs
        request.sandbox = true;
        try {
            RunContext::open(request);
            QFAIL("an interpreter the sandbox cannot run was accepted");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(QLatin1String("does not run inside the sandbox")), e.what());
            QVERIFY2(what.contains(QString::fromStdString(wrapper)), e.what());
            QVERIFY2(what.contains(QLatin1String("sandbox = false")), e.what());
        }
    }

    void aWrapperOrVenvUnderTmpRunsInTheSandbox()
    {
        PW_REQUIRE_SANDBOX();
        pw::test::RepoBuilder repo;
        const std::string base = projectFiles(repo, "base", "1.0");
        const std::string head = projectFiles(repo, "head", "2.0");
        QTemporaryDir venvDir, wrapperDir, cache;
        const std::string venv = makeVenv(venvDir.path());
        const std::string wrapper = wrapperDir.path().toStdString() + "/python3";
        writeText(wrapperDir.path().toStdString(), "python3",
                  "#!/bin/sh\nexec " + venv + " \"$@\"\n");
        QFile::setPermissions(QString::fromStdString(wrapper),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python = wrapper;
        request.sandbox = true;
        const RunContext ctx = RunContext::open(request);
        pw::core::PytestRun run(ctx.spec(Arm::Head, {}, 0));
        const pw::core::RunResult result = run.run();
        QVERIFY2(result.exitCode == 0,
                 qPrintable(QString::fromStdString(result.stdoutTail + result.stderrTail)));
        QCOMPARE(result.count(pw::core::Outcome::Pass), 3);
        QVERIFY(result.sandboxed);
    }

    void aPytest9ConfigurationIsRefusedWithAnOlderPytest()
    {
        pw::test::RepoBuilder repo;
        repo.write("pyproject.toml", "[tool.pytest]\ntestpaths = [\"checks\"]\n");
        repo.write("checks/test_a.py", "def test_a():\n    pass\n");
        const std::string base = repo.commit("base");
        repo.write("checks/test_b.py", "def test_b():\n    pass\n");
        const std::string head = repo.commit("head");
        QTemporaryDir cache;
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        const pw::core::InterpreterProbe probe = pw::core::probeInterpreter(pw::test::testPython());
        if (probe.pytestMajor() >= 9)
            QFAIL("this test needs the test interpreter's pytest to be older than 9");
        try {
            RunContext::open(request);
            QFAIL("a pytest 9 configuration was run with an older pytest");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(QLatin1String("pyproject.toml [tool.pytest]")), e.what());
            QVERIFY2(what.contains(QString::fromStdString("pytest " + probe.pytestVersion)),
                     e.what());
            QVERIFY2(what.contains(QLatin1String("pytest 9 or newer")), e.what());
        }
    }

    void theRepositorysVenvIsChosenWhenConfigNamesNone()
    {
        pw::test::RepoBuilder repo;
        const std::string base = projectFiles(repo, "base", "1.0");
        const std::string head = projectFiles(repo, "head", "2.0");
        const std::string venv = makeVenv(QString::fromStdString(repo.root() + "/.venv"));
        QTemporaryDir cache;
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python.reset();
        const RunContext ctx = RunContext::open(request);
        QCOMPARE(ctx.interpreter().python, venv);
        QCOMPARE(ctx.interpreter().origin, std::string("the repository's .venv"));
        QVERIFY2(ctx.interpreterLine().find("pytest ") != std::string::npos,
                 ctx.interpreterLine().c_str());
        QVERIFY(ctx.spec(Arm::Base, {}, 0).env.python == venv);
    }

    void candidatesArePassedOverWithTheirReasons()
    {
        QTemporaryDir noPytest;
        QProcess p;
        p.start(QString::fromStdString(pw::test::testPython()),
                {QStringLiteral("-m"), QStringLiteral("venv"), QStringLiteral("--without-pip"),
                 noPytest.path()});
        QVERIFY(p.waitForFinished(120000) && p.exitCode() == 0);
        const std::string bare = noPytest.path().toStdString() + "/bin/python";
        const std::vector<pw::core::InterpreterCandidate> candidates = {
            {bare, "the repository's .venv", true},
            {"/nonexistent/venv/bin/python", "the repository's venv", true},
            {pw::test::testPython(), "/usr/bin/python3", true}};
        const pw::core::InterpreterChoice choice =
            pw::core::chooseFrom(candidates, {.needsPytest = true});
        QCOMPARE(choice.python, pw::test::testPython());
        QCOMPARE(choice.passedOver.size(), size_t(2));
        QVERIFY2(choice.passedOver[0].find(bare + ": cannot import pytest") == 0,
                 choice.passedOver[0].c_str());
        QVERIFY2(choice.passedOver[1].find("does not exist") != std::string::npos,
                 choice.passedOver[1].c_str());
        // The static audit reads files with ast only: the same choice as the runs' when
        // there is one, else a venv without pytest will do.
        QCOMPARE(pw::core::chooseFrom(candidates, {.needsPytest = false}).python,
                 pw::test::testPython());
        QCOMPARE(
            pw::core::chooseFrom({candidates[0], candidates[1]}, {.needsPytest = false}).python,
            bare);
        try {
            pw::core::chooseFrom({candidates[0], candidates[1]}, {.needsPytest = true});
            QFAIL("no interpreter with pytest, and no error");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), Error::Kind::Input);
            QVERIFY2(std::string(e.what()).find(bare) != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("/nonexistent/venv/bin/python") !=
                         std::string::npos,
                     e.what());
        }
    }

    void theEnvDigestTellsInterpretersApart()
    {
        QTemporaryDir venvDir;
        const std::string venv = makeVenv(venvDir.path());
        pw::core::RunEnvironment a, b;
        a.python = pw::test::testPython();
        b.python = venv; // the same Python, another environment
        QVERIFY(pw::core::envDigest(a) != pw::core::envDigest(b));
    }

    void baseAndHeadRunsShareTheirEnvDigest()
    {
        // Each tree's own import path differs, and is not the environment: the runs of one
        // context compare.
        pw::test::RepoBuilder repo;
        const std::string base = projectFiles(repo, "base", "1.0");
        const std::string head = projectFiles(repo, "head", "2.0");
        QTemporaryDir cache;
        const RunContext ctx = RunContext::open(pw::test::runRequest(
            repo.root(), cache.path().toStdString(), base, head, "2026-12-01"));
        QVERIFY(ctx.imports(Arm::Base).importPath != ctx.imports(Arm::Head).importPath);
        pw::core::PytestRun baseRun(ctx.spec(Arm::Base, {}, 3)),
            headRun(ctx.spec(Arm::Head, {}, 3));
        const pw::core::RunResult b = baseRun.run(), h = headRun.run();
        QCOMPARE(b.exitCode, 0);
        QCOMPARE(h.exitCode, 0);
        QCOMPARE(b.envDigest, h.envDigest);
    }

    void aProbeIsRedoneAfterAnInstall()
    {
        // A venv without pytest is passed over; once pytest is installed into it (here a
        // .pth to the system's packages: site-packages changes as with pip), it is chosen.
        QTemporaryDir dir;
        QProcess p;
        p.start(QString::fromStdString(pw::test::testPython()),
                {QStringLiteral("-m"), QStringLiteral("venv"), QStringLiteral("--without-pip"),
                 dir.path()});
        QVERIFY(p.waitForFinished(120000) && p.exitCode() == 0);
        const std::string venv = dir.path().toStdString() + "/bin/python";
        QVERIFY(!pw::core::inspectInterpreter(venv).pytestError.empty());
        QTest::qWait(20); // a later modification time than the probe's
        writeText(sitePackages(venv), "system.pth", "/usr/lib/python3/dist-packages\n");
        QVERIFY2(pw::core::inspectInterpreter(venv).pytestError.empty(),
                 pw::core::inspectInterpreter(venv).pytestError.c_str());
    }

    void anInterpreterInTheRepositoryNeverStartsOutsideTheSandbox()
    {
        PW_REQUIRE_SANDBOX();
        // The patch's author can write the repository's .venv: a .pth file there runs on
        // every start of its interpreter, a version probe's too. It leaves a mark on the
        // host's /tmp, which inside the sandbox is a private one.
        pw::test::RepoBuilder repo;
        const std::string base = projectFiles(repo, "base", "1.0");
        const std::string head = projectFiles(repo, "head", "2.0");
        const std::string venv = makeVenv(QString::fromStdString(repo.root() + "/.venv"));
        QTemporaryDir marks, cache;
        const std::string mark = marks.path().toStdString() + "/started-outside";
        writeText(sitePackages(venv), "zz_mark.pth",
                  "import os; open('" + mark + "-' + str(os.getpid()), 'w').close()\n");
        // The static audit does not choose it at all.
        pw::core::AuditRequest audit;
        audit.repoPath = repo.root();
        audit.base = base;
        audit.head = head;
        audit.cacheDir = cache.path().toStdString() + "/facts";
        const pw::core::Config config = pw::core::Audit::loadConfig(audit);
        QVERIFY2(config.python != venv, config.python.c_str());
        pw::core::Audit::run(audit);
        QVERIFY(QDir(marks.path()).isEmpty());
        // The runs choose it, and start it only inside the sandbox.
        pw::core::RunRequest request =
            pw::test::runRequest(repo.root(), cache.path().toStdString(), base, head, "2026-12-01");
        request.target.python.reset();
        request.sandbox = true;
        const RunContext ctx = RunContext::open(request);
        QCOMPARE(ctx.interpreter().python, venv);
        pw::core::PytestRun run(ctx.spec(Arm::Head, {}, 0));
        const pw::core::RunResult result = run.run();
        QVERIFY2(result.exitCode == 0, result.stdoutTail.c_str());
        QVERIFY2(QDir(marks.path()).isEmpty(),
                 qPrintable(QDir(marks.path()).entryList(QDir::Files).join(QLatin1Char(' '))));
    }
};

QTEST_GUILESS_MAIN(TestTreeImports)
#include "tst_treeimports.moc"
