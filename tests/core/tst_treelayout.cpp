// TreeLayout: where a tree's own code is, read from its build settings the way each build
// backend reads them, so that runs import the tree under test and not an installed copy;
// and the distribution metadata runs see.

#include "RunFixtures.h"
#include "TestSupport.h"
#include "execution/TreeLayout.h"
#include "repo/Repository.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using pw::core::TagDistance;
using pw::core::TreeLayout;
using pw::test::writeText;

namespace {

// "path=content" files, '|' separating them; "\n" in content is a newline.
void writeTree(const std::string &dir, const QString &files)
{
    for (const QString &file : files.split(QLatin1Char('|'), Qt::SkipEmptyParts)) {
        const int eq = file.indexOf(QLatin1Char('='));
        QString content = file.mid(eq + 1);
        content.replace(QLatin1String("\\n"), QLatin1String("\n"));
        writeText(dir, file.left(eq).toStdString(), content.toStdString());
    }
}

QString joined(const std::vector<std::string> &items)
{
    QStringList out;
    for (const std::string &item : items)
        out << QString::fromStdString(item);
    return out.join(QLatin1Char(','));
}

} // namespace

class TestTreeLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void importRootsPackagesAndVersionFollowTheBuildBackend_data()
    {
        QTest::addColumn<QString>("files");
        QTest::addColumn<QString>("roots");
        QTest::addColumn<QString>("packages");
        QTest::addColumn<QString>("distribution");
        QTest::addColumn<QString>("version");

        const QString pkg = QStringLiteral("src/clicky/__init__.py=def f():\\n    return 1\\n|");
        QTest::newRow("flit, src layout, static version")
            << pkg + QStringLiteral("pyproject.toml=[project]\\nname = \"clicky\"\\nversion = "
                                    "\"8.3.1\"\\n[build-system]\\nbuild-backend = "
                                    "\"flit_core.buildapi\"\\n[tool.flit.module]\\nname = "
                                    "\"clicky\"\\n")
            << "src"
            << "clicky"
            << "clicky"
            << "8.3.1";
        QTest::newRow("flit, module's __version__")
            << QStringLiteral("src/clicky/__init__.py=__version__ = \"2.0.1\"\\n|"
                              "pyproject.toml=[project]\\nname = \"clicky\"\\ndynamic = "
                              "[\"version\"]\\n[build-system]\\nbuild-backend = "
                              "\"flit_core.buildapi\"\\n")
            << "src"
            << "clicky"
            << "clicky"
            << "2.0.1";
        QTest::newRow("flit, flat module")
            << QStringLiteral("single.py=__version__ = '0.4'\\n|"
                              "pyproject.toml=[project]\\nname = \"single\"\\ndynamic = "
                              "[\"version\"]\\n[build-system]\\nbuild-backend = "
                              "\"flit_core.buildapi\"\\n[tool.flit.module]\\nname = \"single\"\\n")
            << ""
            << "single"
            << "single"
            << "0.4";
        QTest::newRow("hatch packages, hatch-vcs on a tag")
            << QStringLiteral("src/attr/__init__.py=|src/attrs/__init__.py=|"
                              "pyproject.toml=[project]\\nname = \"attrs\"\\ndynamic = "
                              "[\"version\"]\\n[build-system]\\nrequires = [\"hatchling\", "
                              "\"hatch-vcs\"]\\nbuild-backend = \"hatchling.build\"\\n"
                              "[tool.hatch.version]\\nsource = \"vcs\"\\nraw-options = { "
                              "local_scheme = \"no-local-version\" }\\n"
                              "[tool.hatch.build.targets.wheel]\\npackages = [\"src/attr\", "
                              "\"src/attrs\"]\\n")
            << "src"
            << "attr,attrs"
            << "attrs"
            << "25.3.0";
        QTest::newRow("hatch version path, sources table")
            << QStringLiteral("lib/hatched/__init__.py=|lib/hatched/about.py=__version__ = "
                              "\"1.9\"\\n|pyproject.toml=[project]\\nname = \"hatched\"\\ndynamic "
                              "= [\"version\"]\\n[build-system]\\nbuild-backend = "
                              "\"hatchling.build\"\\n[tool.hatch.version]\\npath = "
                              "\"lib/hatched/about.py\"\\n[tool.hatch.build.targets.wheel."
                              "sources]\\n\"lib\" = \"\"\\n")
            << "lib"
            << "hatched"
            << "hatched"
            << "1.9";
        QTest::newRow("setuptools package-dir, dynamic attr version")
            << QStringLiteral("src/tooly/__init__.py=from .v import VERSION\\n|"
                              "src/tooly/v.py=VERSION = \"3.1.4\"\\n|pyproject.toml=[project]\\n"
                              "name = \"tooly\"\\ndynamic = [\"version\"]\\n[tool.setuptools]\\n"
                              "package-dir = {\"\" = \"src\"}\\n[tool.setuptools.dynamic]\\n"
                              "version = {attr = \"tooly.v.VERSION\"}\\n")
            << "src"
            << "tooly"
            << "tooly"
            << "3.1.4";
        QTest::newRow("setuptools packages.find, setuptools_scm without tag")
            << QStringLiteral("code/scm_pkg/__init__.py=|pyproject.toml=[project]\\nname = "
                              "\"scm-pkg\"\\ndynamic = [\"version\"]\\n[build-system]\\n"
                              "requires = [\"setuptools>=64\", \"setuptools_scm>=8\"]\\n"
                              "[tool.setuptools.packages.find]\\nwhere = [\"code\"]\\n"
                              "[tool.setuptools_scm]\\n")
            << "code"
            << "scm_pkg"
            << "scm-pkg"
            << "0.1.dev3+gabc1234";
        QTest::newRow("setup.cfg package_dir, version attr")
            << QStringLiteral("src/cfgpkg/__init__.py=__version__ = '1.2.3'\\n|setup.cfg=["
                              "metadata]\\nname = cfgpkg\\nversion = attr: "
                              "cfgpkg.__version__\\n\\n[options]\\npackage_dir =\\n    =src\\n"
                              "packages = find:\\n\\n[options.packages.find]\\nwhere = src\\n|"
                              "setup.py=from setuptools import setup\\nsetup()\\n")
            << "src"
            << "cfgpkg"
            << "cfgpkg"
            << "1.2.3";
        QTest::newRow("setup.py only")
            << QStringLiteral("src/oldpkg/__init__.py=|setup.py=from setuptools import setup, "
                              "find_packages\\nsetup(name=\"oldpkg\", version=\"0.9.1\", "
                              "package_dir={\"\": \"src\"}, packages=find_packages(\"src\"))\\n")
            << "src"
            << "oldpkg"
            << "oldpkg"
            << "0.9.1";
        QTest::newRow("poetry packages from src")
            << QStringLiteral("src/poems/__init__.py=|pyproject.toml=[tool.poetry]\\nname = "
                              "\"poems\"\\nversion = \"0.3.0\"\\npackages = [{ include = "
                              "\"poems\", from = \"src\" }]\\n")
            << "src"
            << "poems"
            << "poems"
            << "0.3.0";
        QTest::newRow("pdm package-dir, scm")
            << QStringLiteral("src/pdmpkg/__init__.py=|pyproject.toml=[project]\\nname = "
                              "\"pdmpkg\"\\ndynamic = [\"version\"]\\n[tool.pdm.build]\\n"
                              "package-dir = \"src\"\\n[tool.pdm.version]\\nsource = \"scm\"\\n")
            << "src"
            << "pdmpkg"
            << "pdmpkg"
            << "25.3.1.dev2+gabc1234";
        QTest::newRow("flat layout, static version")
            << QStringLiteral("flatpkg/__init__.py=|tests/test_x.py=|pyproject.toml=[project]\\n"
                              "name = \"flatpkg\"\\nversion = \"4.0\"\\n")
            << ""
            << "flatpkg"
            << "flatpkg"
            << "4.0";
        QTest::newRow("no build settings, src/ directory")
            << QStringLiteral("src/bare/__init__.py=|tests/test_bare.py=") << "src"
            << "bare"
            << ""
            << "";
        QTest::newRow("hatch default discovery under src/")
            << QStringLiteral("src/defaulted/__init__.py=|pyproject.toml=[project]\\nname = "
                              "\"defaulted\"\\nversion = \"1.0\"\\n[build-system]\\n"
                              "build-backend = \"hatchling.build\"\\n")
            << "src"
            << "defaulted"
            << "defaulted"
            << "1.0";
        QTest::newRow("namespace package under src/")
            << QStringLiteral("src/acme/widgets/__init__.py=|pyproject.toml=[project]\\nname = "
                              "\"acme-widgets\"\\nversion = \"1.0\"\\n")
            << "src"
            << "acme"
            << "acme-widgets"
            << "1.0";
        QTest::newRow("flit, dotted module of a namespace package")
            << QStringLiteral("src/acme/gadgets/__init__.py=__version__ = '0.2'\\n|"
                              "pyproject.toml=[project]\\nname = \"acme.gadgets\"\\nversion = "
                              "\"0.2\"\\n[build-system]\\nbuild-backend = \"flit_core.buildapi\"\\n"
                              "[tool.flit.module]\\nname = \"acme.gadgets\"\\n")
            << "src"
            << "acme"
            << "acme.gadgets"
            << "0.2";
        QTest::newRow("setup.py literal packages, flat")
            << QStringLiteral("listed/__init__.py=|other/__init__.py=|setup.py=from setuptools "
                              "import setup\\nsetup(name='listed', version='1.5', "
                              "packages=['listed', 'listed.sub'])\\n")
            << ""
            << "listed"
            << "listed"
            << "1.5";
        QTest::newRow("flat layout leaves docs, tests, tools and test out")
            << QStringLiteral("real/__init__.py=|docs/__init__.py=|tests/__init__.py=|"
                              "tools/__init__.py=|test/__init__.py=|_private/__init__.py=|"
                              "pyproject.toml=[project]\\nname = \"real\"\\nversion = \"1\"\\n")
            << ""
            << "real"
            << "real"
            << "1";
        QTest::newRow("a version that is no PEP 440 version")
            << QStringLiteral("p/__init__.py=|pyproject.toml=[project]\\nname = \"p\"\\nversion "
                              "= \"1/../../../../escaped\"\\n")
            << ""
            << "p"
            << "p"
            << "0+unknown";
        QTest::newRow("a version file that is a header injection")
            << QStringLiteral("p/__init__.py=|VERSION=1.0\\nName: evil\\n|setup.cfg=[metadata]"
                              "\\nname = p\\nversion = file: VERSION\\n")
            << ""
            << "p"
            << "p"
            << "0+unknown";
        QTest::newRow("version computed by setup.py")
            << QStringLiteral("computed/__init__.py=|setup.py=import x\\nsetup(name=\"computed\", "
                              "version=x.get())\\n")
            << ""
            << "computed"
            << "computed"
            << "0+unknown";
    }

    void importRootsPackagesAndVersionFollowTheBuildBackend()
    {
        QFETCH(QString, files);
        QFETCH(QString, roots);
        QFETCH(QString, packages);
        QFETCH(QString, distribution);
        QFETCH(QString, version);
        QTemporaryDir dir;
        writeTree(dir.path().toStdString(), files);
        // The rows taking their version from git are described as tag 25.3.0, or without
        // a tag for setuptools_scm's row (three commits).
        TagDistance vcs{
            QString::fromLatin1(QTest::currentDataTag()).contains("without tag") ? "" : "25.3.0", 0,
            "abc1234"};
        if (vcs.tag.empty())
            vcs.distance = 3;
        if (QString::fromLatin1(QTest::currentDataTag()).contains("pdm"))
            vcs.distance = 2;
        const TreeLayout layout = pw::core::readTreeLayout(dir.path().toStdString(), &vcs, false);
        QCOMPARE(joined(layout.importRoots), roots);
        QCOMPARE(joined(layout.packages), packages);
        QCOMPARE(QString::fromStdString(layout.distribution), distribution);
        QCOMPARE(QString::fromStdString(layout.version), version);
        if (version == QLatin1String("0+unknown"))
            QVERIFY2(!layout.notes.empty(), "an unknown version is said");
        QVERIFY(!layout.layoutFrom.empty());
    }

    void versionFromGitFollowsSetuptoolsScm_data()
    {
        QTest::addColumn<QString>("tag");
        QTest::addColumn<int>("distance");
        QTest::addColumn<bool>("dirty");
        QTest::addColumn<bool>("local");
        QTest::addColumn<QString>("version");
        QTest::newRow("on the tag") << "25.3.0" << 0 << false << true << "25.3.0";
        QTest::newRow("v prefix") << "v1.2" << 0 << false << true << "1.2";
        QTest::newRow("name prefix") << "release-2.0.1" << 0 << false << true << "2.0.1";
        QTest::newRow("past the tag") << "25.3.0" << 5 << false << true << "25.3.1.dev5+gabc1234";
        QTest::newRow("past the tag, no local") << "25.3.0" << 5 << false << false << "25.3.1.dev5";
        QTest::newRow("dirty on the tag")
            << "1.0" << 0 << true << true << "1.1.dev0+gabc1234.dirty";
        QTest::newRow("no tag") << "" << 12 << false << true << "0.1.dev12+gabc1234";
        QTest::newRow("pre-release tag") << "2.0rc1" << 2 << false << false << "2.0rc2.dev2";
    }

    void versionFromGitFollowsSetuptoolsScm()
    {
        QFETCH(QString, tag);
        QFETCH(int, distance);
        QFETCH(bool, dirty);
        QFETCH(bool, local);
        QFETCH(QString, version);
        const TagDistance vcs{tag.toStdString(), distance, "abc1234"};
        QCOMPARE(QString::fromStdString(pw::core::vcsVersion(vcs, dirty, local)), version);
    }

    void buildFilesAreReadOnlyAsRegularFilesInsideTheTree()
    {
        // A committed symlink to /dev/zero (or anything outside the tree) is not read: the
        // build files are read outside the sandbox.
        QTemporaryDir dir, outside;
        writeTree(dir.path().toStdString(),
                  QStringLiteral("p/__init__.py=|setup.cfg=[metadata]\\nname = p\\nversion = "
                                 "file: VERSION\\n"));
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), dir.filePath(QStringLiteral("VERSION"))));
        TreeLayout layout = pw::core::readTreeLayout(dir.path().toStdString(), nullptr, false);
        QCOMPARE(layout.version, std::string("0+unknown"));
        QFile::remove(dir.filePath(QStringLiteral("VERSION")));
        writeText(outside.path().toStdString(), "V", "9.9\n");
        QVERIFY(QFile::link(outside.filePath(QStringLiteral("V")),
                            dir.filePath(QStringLiteral("VERSION"))));
        layout = pw::core::readTreeLayout(dir.path().toStdString(), nullptr, false);
        QCOMPARE(layout.version, std::string("0+unknown"));
    }

    void aVersionFileTheBuildWritesIsGenerated_data()
    {
        QTest::addColumn<QString>("settings");
        QTest::addColumn<QString>("module");
        QTest::newRow("hatch-vcs version-file")
            << "[tool.hatch.version]\\nsource = \"vcs\"\\n[tool.hatch.build.hooks.vcs]\\n"
               "version-file = \"src/vf/_version.py\"\\n"
            << "vf._version";
        QTest::newRow("setuptools_scm version_file")
            << "[tool.setuptools_scm]\\nversion_file = \"src/vf/_version.py\"\\n"
            << "vf._version";
        QTest::newRow("setuptools_scm write_to") << "[tool.setuptools_scm]\\nwrite_to = "
                                                    "\"src/vf/version.py\"\\n"
                                                 << "vf.version";
        QTest::newRow("pdm write_to, relative to the package directory")
            << "[tool.pdm.build]\\npackage-dir = \"src\"\\n[tool.pdm.version]\\nsource = "
               "\"scm\"\\nwrite_to = \"vf/_version.py\"\\n"
            << "vf._version";
    }

    void aVersionFileTheBuildWritesIsGenerated()
    {
        QFETCH(QString, settings);
        QFETCH(QString, module);
        QTemporaryDir dir;
        writeTree(dir.path().toStdString(),
                  QStringLiteral("src/vf/__init__.py=from ._version import version\\n|"
                                 "pyproject.toml=[project]\\nname = \"vf\"\\ndynamic = "
                                 "[\"version\"]\\n[build-system]\\nbuild-backend = "
                                 "\"hatchling.build\"\\n") +
                      settings);
        const TagDistance vcs{"v4.1", 2, "abc1234"};
        const TreeLayout layout = pw::core::readTreeLayout(dir.path().toStdString(), &vcs, false);
        QCOMPARE(layout.generatedModules.size(), size_t(1));
        QCOMPARE(QString::fromStdString(layout.generatedModules[0].first), module);
        const QString source = QString::fromStdString(layout.generatedModules[0].second);
        QVERIFY2(source.contains(QLatin1String("__version__ = version = '4.2.dev2+gabc1234'")),
                 qPrintable(source));
        QVERIFY2(source.contains(QLatin1String("version_tuple = (4, 2, 'dev2', 'gabc1234')")),
                 qPrintable(source));
        // Committed after all: the tree's own file, nothing generated.
        QString file = module;
        file.replace(QLatin1Char('.'), QLatin1Char('/'));
        writeText(dir.path().toStdString(), "src/" + file.toStdString() + ".py", "version = '0'\n");
        QVERIFY(pw::core::readTreeLayout(dir.path().toStdString(), &vcs, false)
                    .generatedModules.empty());
    }

    void entryPointsOfSetupCfgAreTheDistributions()
    {
        QTemporaryDir dir;
        writeTree(dir.path().toStdString(),
                  QStringLiteral("src/epkg/__init__.py=|setup.cfg=[metadata]\\nname = epkg\\n"
                                 "version = 1.0\\n[options]\\npackage_dir =\\n    =src\\n"
                                 "[options.entry_points]\\nepkg.plugins =\\n    F = epkg.f:F\\n"
                                 "    G = epkg.g:G\\nconsole_scripts =\\n    epkg = epkg:main\\n"));
        const TreeLayout layout =
            pw::core::readTreeLayout(dir.path().toStdString(), nullptr, false);
        QCOMPARE(joined(layout.scripts),
                 QStringLiteral("[console_scripts],epkg = epkg:main,[epkg.plugins],F = epkg.f:F,"
                                "G = epkg.g:G"));
    }

    void aVersionFromGitWithoutHistoryIsUnknownAndSaid()
    {
        QTemporaryDir dir;
        writeTree(
            dir.path().toStdString(),
            QStringLiteral("src/v/__init__.py=|pyproject.toml=[project]\\nname = \"v\"\\n"
                           "dynamic = [\"version\"]\\n[build-system]\\nbuild-backend = "
                           "\"hatchling.build\"\\n[tool.hatch.version]\\nsource = \"vcs\"\\n"));
        const TreeLayout layout =
            pw::core::readTreeLayout(dir.path().toStdString(), nullptr, false);
        QCOMPARE(layout.version, std::string("0+unknown"));
        QVERIFY(!layout.notes.empty());
    }

    void pytest9sOwnConfigurationIsRecognised_data()
    {
        QTest::addColumn<QString>("files");
        QTest::addColumn<QString>("config");
        QTest::newRow("pytest.toml") << "pytest.toml=[pytest]\\ntestpaths = [\"t\"]\\n"
                                     << "pytest.toml";
        QTest::newRow(".pytest.toml") << ".pytest.toml=[pytest]\\n"
                                      << ".pytest.toml";
        QTest::newRow("[tool.pytest] table")
            << "pyproject.toml=[tool.pytest]\\ntestpaths = [\"t\"]\\n"
            << "pyproject.toml [tool.pytest]";
        QTest::newRow("ini_options only: every pytest reads it")
            << "pyproject.toml=[tool.pytest.ini_options]\\ntestpaths = [\"t\"]\\n"
            << "";
        QTest::newRow("pytest.ini first: every pytest reads it")
            << "pytest.ini=[pytest]\\n|pyproject.toml=[tool.pytest]\\ntestpaths = [\"t\"]\\n"
            << "";
        QTest::newRow("no configuration") << "setup.py="
                                          << "";
    }

    void pytest9sOwnConfigurationIsRecognised()
    {
        QFETCH(QString, files);
        QFETCH(QString, config);
        QTemporaryDir dir;
        writeTree(dir.path().toStdString(), files);
        const TreeLayout layout =
            pw::core::readTreeLayout(dir.path().toStdString(), nullptr, false);
        QCOMPARE(QString::fromStdString(layout.pytest9Config), config);
    }

    void brokenPyprojectIsANoteNotACrash()
    {
        QTemporaryDir dir;
        writeTree(dir.path().toStdString(),
                  QStringLiteral("src/p/__init__.py=|pyproject.toml=[project\\nname = \"p\"\\n"));
        const TreeLayout layout =
            pw::core::readTreeLayout(dir.path().toStdString(), nullptr, false);
        QVERIFY(!layout.notes.empty());
        QVERIFY2(layout.notes.front().find("pyproject.toml:1") != std::string::npos,
                 layout.notes.front().c_str());
        QCOMPARE(joined(layout.importRoots), QStringLiteral("src")); // the src/ convention
    }

    void stagedMetadataIsWhatImportlibMetadataReads()
    {
        QTemporaryDir tree, cache;
        writeTree(tree.path().toStdString(),
                  QStringLiteral("src/tooly/__init__.py=|pyproject.toml=[project]\\nname = "
                                 "\"Tooly.Thing\"\\nversion = \"3.1.4\"\\n[project.scripts]\\n"
                                 "tooly = \"tooly:main\"\\n[project.entry-points.pytest11]\\n"
                                 "tooly = \"tooly.plugin\"\\n"));
        const TreeLayout layout =
            pw::core::readTreeLayout(tree.path().toStdString(), nullptr, false);
        const std::string dist =
            pw::core::stageDistributionMetadata(cache.path().toStdString(), layout);
        QVERIFY(!dist.empty());
        QCOMPARE(pw::core::stageDistributionMetadata(cache.path().toStdString(), layout), dist);
        QProcess python;
        python.start(
            QString::fromStdString(pw::test::testPython()),
            {QStringLiteral("-I"), QStringLiteral("-c"),
             QStringLiteral("import sys; sys.path.insert(0, %1)\n"
                            "from importlib import metadata as m\n"
                            "d = m.distribution('tooly-thing')\n"
                            "print(d.version, d.read_text('top_level.txt').strip(), "
                            "sorted(e.name for e in d.entry_points))")
                 .arg(QLatin1Char('"') + QString::fromStdString(dist) + QLatin1Char('"'))});
        QVERIFY(python.waitForFinished(30000));
        QCOMPARE(python.readAllStandardOutput().trimmed(),
                 QByteArray("3.1.4 tooly ['tooly', 'tooly']"));
    }

    void describeFindsTheNearestTag()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        auto git = [&](const QStringList &args) {
            QProcess p;
            p.setWorkingDirectory(dir.path());
            p.start(QStringLiteral("git"),
                    QStringList{QStringLiteral("-c"), QStringLiteral("user.name=t"),
                                QStringLiteral("-c"), QStringLiteral("user.email=t@x")} +
                        args);
            QVERIFY(p.waitForFinished(30000));
            QCOMPARE(p.exitCode(), 0);
        };
        git({QStringLiteral("init"), QStringLiteral("-q")});
        for (int i = 0; i < 4; ++i) {
            writeText(root, "f.txt", std::to_string(i));
            git({QStringLiteral("add"), QStringLiteral("f.txt")});
            git({QStringLiteral("commit"), QStringLiteral("-qm"), QString::number(i)});
            if (i == 0)
                git({QStringLiteral("tag"), QStringLiteral("no-digits")});
            if (i == 1)
                git({QStringLiteral("tag"), QStringLiteral("v1.0")});
        }
        const pw::core::Repository repo = pw::core::Repository::open(root);
        const std::string head = repo.resolve("HEAD").commit;
        const TagDistance d = repo.describe(head);
        QCOMPARE(d.tag, std::string("v1.0"));
        QCOMPARE(d.distance, 2);
        QCOMPARE(d.shortId, head.substr(0, 7));
        const TagDistance first = repo.describe(repo.resolve("HEAD~3").commit);
        QCOMPARE(first.tag, std::string()); // "no-digits" does not look like a version
        QCOMPARE(first.distance, 1);
    }
};

QTEST_GUILESS_MAIN(TestTreeLayout)
#include "tst_treelayout.moc"
