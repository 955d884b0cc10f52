#include "execution/RunEnvironment.h"

#include "execution/QuickProcess.h"
#include "execution/TreeCache.h"
#include "ledger/Config.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <algorithm>
#include <mutex>
#include <set>

static void initRunResources()
{
    Q_INIT_RESOURCE(core);
}

namespace pw::core {

namespace {

// The bundled plugin is named in PYTEST_PLUGINS, not with `-p`: pytest looks a `-p` name up
// among the entry points of every installed distribution first (pluggy's
// load_setuptools_entrypoints, even with autoload off), which costs more than the plugin.
constexpr char kPluginsVariable[] = "PYTEST_PLUGINS";
constexpr char kPluginModule[] = "pw_plugin";
// What pw_plugin/layout.py reads to keep the tree first (RunEnvironment::treeDir).
constexpr char kTreeVariable[] = "PATCHWITNESS_TREE";
constexpr char kImportPathVariable[] = "PATCHWITNESS_IMPORT_PATH";
constexpr char kPackagesVariable[] = "PATCHWITNESS_TREE_PACKAGES";
constexpr char kGeneratedVariable[] = "PATCHWITNESS_GENERATED";
constexpr int kPrecompileTimeoutMs = 60 * 1000;

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

RunEnvironment RunEnvironment::fromConfig(const Config &config)
{
    RunEnvironment env;
    env.python = config.python;
    env.plugins = config.plugins;
    env.probeTimeoutMs = Config::milliseconds(config.timeoutProbe);
    return env;
}

QProcessEnvironment RunEnvironment::environment() const
{
    const QProcessEnvironment parent = QProcessEnvironment::systemEnvironment();
    QProcessEnvironment env;
    // The parent's PATH keeps tools the tests call reachable; USER/LOGNAME keep getpass
    // working. Everything else is set here or absent.
    for (const char *key : {"PATH", "USER", "LOGNAME"}) {
        const QString name = QString::fromLatin1(key);
        if (parent.contains(name))
            env.insert(name, parent.value(name));
    }
    if (!env.contains(QStringLiteral("PATH")))
        env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    if (!homeDir.empty())
        env.insert(QStringLiteral("HOME"), qs(homeDir));
    if (!tmpDir.empty())
        env.insert(QStringLiteral("TMPDIR"), qs(tmpDir));
    env.insert(QStringLiteral("PYTHONHASHSEED"), QString::number(hashSeed));
    env.insert(QStringLiteral("TZ"), QStringLiteral("UTC"));
    env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
    env.insert(QStringLiteral("PYTEST_DISABLE_PLUGIN_AUTOLOAD"), QStringLiteral("1"));
    // The plugin's private directory, then the tree's own import roots: nothing of the
    // parent's, and ahead of everything the interpreter has installed.
    QStringList pythonPath;
    if (witness.enabled)
        pythonPath << qs(pluginDir(cacheRoot));
    for (const std::string &dir : importPath)
        pythonPath << qs(dir);
    if (!treeDir.empty()) {
        env.insert(QLatin1String(kTreeVariable), qs(treeDir));
        env.insert(QLatin1String(kImportPathVariable),
                   pythonPath.mid(witness.enabled ? 1 : 0).join(QLatin1Char(':')));
        QStringList packages;
        for (const std::string &name : treePackages)
            packages << qs(name);
        env.insert(QLatin1String(kPackagesVariable), packages.join(QLatin1Char(',')));
        QStringList generated;
        for (const auto &[module, file] : generatedModules)
            generated << qs(module) + QLatin1Char('=') + qs(file);
        if (!generated.isEmpty())
            env.insert(QLatin1String(kGeneratedVariable), generated.join(QLatin1Char(':')));
    }
    for (const auto &[key, value] : extraVariables)
        env.insert(qs(key), qs(value));
    // A PYTHONPATH a run sets itself (a test map's variables) comes after the tree's.
    const auto theirPath = extraVariables.find("PYTHONPATH");
    if (theirPath != extraVariables.end() && !theirPath->second.empty())
        pythonPath << qs(theirPath->second);
    if (!pythonPath.isEmpty())
        env.insert(QStringLiteral("PYTHONPATH"), pythonPath.join(QLatin1Char(':')));
    else
        env.remove(QStringLiteral("PYTHONPATH"));
    // The bundled plugin first, then a run's own PYTEST_PLUGINS (the plugin takes itself out
    // of the variable once imported, so the test's own pytest subprocesses see theirs only;
    // under pytest-xdist the controller puts it back for the workers it starts).
    if (witness.enabled) {
        QString list = QLatin1String(kPluginModule);
        const auto theirs = extraVariables.find(kPluginsVariable);
        if (theirs != extraVariables.end() && !theirs->second.empty() &&
            theirs->second != kPluginModule)
            list += QLatin1Char(',') + qs(theirs->second);
        env.insert(QLatin1String(kPluginsVariable), list);
    }
    return env;
}

QStringList RunEnvironment::pytestArguments(const std::string &junitXml,
                                            const std::vector<std::string> &selection,
                                            const QStringList &extraArgs) const
{
    QStringList args = {QStringLiteral("-m"), QStringLiteral("pytest"), QStringLiteral("-p"),
                        QStringLiteral("no:cacheprovider")};
    for (const std::string &plugin : plugins)
        args << QStringLiteral("-p") << qs(plugin);
    if (witness.enabled) { // the plugin itself is named in PYTEST_PLUGINS (environment())
        args << QStringLiteral("--pw-seed") << QString::number(witness.seed);
        const std::pair<const char *, const std::string *> named[] = {
            {"--pw-out", &witness.outFile},         {"--pw-order", &witness.orderFile},
            {"--pw-collect", &witness.collectFile}, {"--pw-arm", &witness.arm},
            {"--pw-run", &witness.runId},           {"--pw-freeze-time", &witness.freezeTime},
            {"--pw-witness", &witness.witnessFile}, {"--pw-cover", &witness.coverFile}};
        // One token each: pytest takes an existing path after an option it does not know
        // yet (plugin options, in its first pass) for a test path, and moves the rootdir.
        for (const auto &[option, value] : named) {
            if (!value->empty())
                args << QString::fromLatin1(option) + QLatin1Char('=') + qs(*value);
        }
        if (witness.probe)
            args << QStringLiteral("--pw-probe");
        if (!witness.watch.empty()) {
            QStringList modules;
            for (const std::string &module : witness.watch)
                modules << qs(module);
            args << QStringLiteral("--pw-watch=") + modules.join(QLatin1Char(','));
        }
        if (witness.budget > 0)
            args << QStringLiteral("--pw-budget=") + QString::number(witness.budget);
        if (!witness.replayPlan.empty())
            args << QStringLiteral("--pw-replays=") + qs(witness.replayPlan);
        if (witness.replayTimeoutMs > 0)
            args << QStringLiteral("--pw-replay-timeout=") +
                        QString::number(witness.replayTimeoutMs / 1000.0, 'g', 10);
        if (witness.testTimeoutMs > 0)
            args << QStringLiteral("--pw-test-timeout=") +
                        QString::number(witness.testTimeoutMs / 1000.0, 'g', 10);
    }
    args << QStringLiteral("-o") << QStringLiteral("junit_family=xunit1")
         << QStringLiteral("--junitxml=") + qs(junitXml) << QStringLiteral("-q");
    args << extraArgs;
    for (const std::string &node : selection)
        args << qs(node);
    return args;
}

const std::vector<std::pair<std::string, std::string>> &RunEnvironment::pluginFiles()
{
    static const std::vector<std::pair<std::string, std::string>> files = [] {
        initRunResources();
        std::vector<std::pair<std::string, std::string>> out;
        const QDir package(QStringLiteral(":/patchwitness/pw_plugin"));
        for (const QString &name : package.entryList(QDir::Files, QDir::Name)) {
            QFile f(package.filePath(name));
            if (!f.open(QIODevice::ReadOnly))
                return std::vector<std::pair<std::string, std::string>>();
            out.emplace_back("pw_plugin/" + name.toStdString(), f.readAll().toStdString());
        }
        return out;
    }();
    return files;
}

const std::string &RunEnvironment::pluginHash()
{
    static const std::string hash = [] {
        std::string all;
        for (const auto &[path, text] : pluginFiles())
            all += path + '\0' + text + '\0';
        return sha256Hex(all, 16);
    }();
    return hash;
}

std::string RunEnvironment::pluginDir(const std::string &cacheRoot)
{
    static std::mutex mutex;
    if (pluginFiles().empty())
        throw Error::harness("the bundled pytest plugin is missing from this build");
    const std::string dir =
        QDir::cleanPath(qs(cacheRoot.empty() ? TreeCache::defaultRoot() : cacheRoot))
            .toStdString() +
        "/plugin/" + pluginHash();
    std::lock_guard<std::mutex> lock(mutex);
    // Each file written to a temporary file and renamed: a run starting meanwhile (in this
    // or another process) sees the old complete file or the new one, never a torn one; the
    // directory's name is the hash of them all, so no run mixes two versions.
    for (const auto &[path, text] : pluginFiles()) {
        const std::string file = dir + "/" + path;
        if (readWholeFile(file) != text && !writeFileReplacing(file, text, /*createDirs=*/true))
            throw Error::harness("cannot stage the bundled pytest plugin into " + dir);
    }
    return dir;
}

std::string shellQuote(const std::string &text)
{
    const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
    });
    if (plain)
        return text;
    std::string out = "'";
    for (char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string RunEnvironment::shellCommand(const std::string &dir, const QStringList &arguments) const
{
    return shellCommand(dir, python, arguments);
}

std::string RunEnvironment::shellCommand(const std::string &dir, const std::string &program,
                                         const QStringList &arguments) const
{
    const QProcessEnvironment env = environment();
    QStringList keys = env.keys();
    keys.sort();
    std::string line = "cd " + shellQuote(dir) + " && env -i";
    for (const QString &key : keys)
        line += ' ' + shellQuote(QString(key + QLatin1Char('=') + env.value(key)).toStdString());
    line += ' ' + shellQuote(program);
    for (const QString &arg : arguments)
        line += ' ' + shellQuote(arg.toStdString());
    return line;
}

void cachePluginBytecode(const std::string &python, const std::string &cacheRoot)
{
    const InterpreterProbe probe = probeInterpreter(python);
    if (probe.cacheTag.empty())
        return; // an interpreter that writes no bytecode
    const std::string dir = RunEnvironment::pluginDir(cacheRoot);
    // pytest rewrites the package's modules (it marks a plugin it loads for rewriting) and
    // caches each beside it; one older than its source (staging repaired the file) is stale.
    bool fresh = true;
    for (const auto &file : RunEnvironment::pluginFiles()) {
        const QFileInfo source(qs(dir + "/" + file.first));
        const QFileInfo pyc(source.dir().filePath(
            QStringLiteral("__pycache__/%1.%2-pytest-%3.pyc")
                .arg(source.completeBaseName(), qs(probe.cacheTag), qs(probe.pytestVersion))));
        fresh = fresh && pyc.exists() && pyc.lastModified() >= source.lastModified();
    }
    static std::mutex mutex;
    static std::set<std::string> tried; // once per process: a failure is not retried
    const std::lock_guard<std::mutex> lock(mutex);
    if (fresh || !tried.insert(python + '\0' + dir).second)
        return;
    QTemporaryDir empty(QDir::tempPath() + QStringLiteral("/patchwitness-plugin-XXXXXX"));
    if (!empty.isValid())
        return;
    RunEnvironment env;
    env.python = python;
    env.cacheRoot = cacheRoot;
    env.witness.enabled = true;
    env.homeDir = empty.path().toStdString();
    env.tmpDir = env.homeDir;
    runQuick(qs(interpreterPath(python)),
             {QStringLiteral("-m"), QStringLiteral("pytest"), QStringLiteral("-p"),
              QStringLiteral("no:cacheprovider"), QStringLiteral("--pw-precompile"),
              QStringLiteral("--collect-only"), QStringLiteral("-q"), empty.path()},
             env.environment(), empty.path(), kPrecompileTimeoutMs);
}

std::string envDigest(const InterpreterProbe &probe, const RunEnvironment &env)
{
    std::vector<std::string> plugins = env.plugins;
    if (env.witness.enabled)
        plugins.push_back("pw_plugin@" + RunEnvironment::pluginHash());
    std::sort(plugins.begin(), plugins.end());
    std::string joined;
    for (const std::string &plugin : plugins)
        joined += (joined.empty() ? "" : ",") + plugin;
    std::string sysPath;
    for (const std::string &entry : probe.sysPath)
        sysPath += entry + '\n';
    const std::string text = "python=" + probe.pythonVersion + "\npytest=" + probe.pytestVersion +
                             "\nhashseed=" + std::to_string(env.hashSeed) +
                             "\nautoload=0\nplugins=" + joined + "\nplatform=" + probe.platform +
                             "\nexecutable=" + probe.executable + "\nreal=" + probe.realExecutable +
                             "\nsys.path=\n" + sysPath;
    return sha256Hex(text, 16);
}

InterpreterProbe RunEnvironment::probe() const
{
    return probeInterpreter(python, probeSandboxed, probeTimeoutMs);
}

std::string envDigest(const RunEnvironment &env)
{
    return envDigest(env.probe(), env);
}

} // namespace pw::core
