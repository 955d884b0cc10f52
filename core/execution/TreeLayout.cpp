#include "execution/TreeLayout.h"

#include "repo/Repository.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>
#include <map>
#include <optional>
#include <toml++/toml.h>

namespace pw::core {
namespace {

constexpr const char *kUnknownVersion = "0+unknown";
constexpr size_t kMaxPackages = 64; // a tree with more top-level packages lists the first ones
// Build files are read outside the sandbox: only regular files inside the tree, at most this
// big (a committed symlink to /dev/zero or a FIFO must not eat memory or hang).
constexpr qint64 kMaxBuildFileBytes = 1024 * 1024;

// `rel` inside `treeDir` when it is a regular file there, not through a symlink leaving the
// tree, and not over kMaxBuildFileBytes; nullopt otherwise.
std::optional<std::string> readTreeFile(const std::string &treeDir, const std::string &rel)
{
    const QFileInfo info(QString::fromStdString(treeDir + "/" + rel));
    if (!info.isFile() || info.size() > kMaxBuildFileBytes)
        return std::nullopt;
    const QString root = QFileInfo(QString::fromStdString(treeDir)).canonicalFilePath();
    const QString real = info.canonicalFilePath();
    if (root.isEmpty() || !real.startsWith(root + QLatin1Char('/')))
        return std::nullopt;
    return readWholeFile(real.toStdString());
}

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

std::string trimmed(const std::string &s)
{
    return QString::fromStdString(s).trimmed().toStdString();
}

// setup.cfg / tox.ini / pytest.ini: sections of keys; an indented line continues the value
// before it (setuptools' multi-line lists), `#` and `;` start comments.
using IniSections = std::map<std::string, std::map<std::string, std::string>>;

IniSections parseIni(const std::string &text)
{
    IniSections out;
    std::string section;
    std::string *last = nullptr;
    for (const QString &raw : QString::fromStdString(text).split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')) ||
            line.startsWith(QLatin1Char(';')))
            continue;
        if (raw.at(0).isSpace() && last) {
            *last += "\n" + line.toStdString();
            continue;
        }
        if (line.startsWith(QLatin1Char('[')) && line.endsWith(QLatin1Char(']'))) {
            section = line.mid(1, line.size() - 2).trimmed().toStdString();
            last = nullptr;
            continue;
        }
        const int eq = line.indexOf(QLatin1Char('='));
        const int colon = line.indexOf(QLatin1Char(':'));
        const int at = eq < 0 ? colon : (colon < 0 ? eq : std::min(eq, colon));
        if (at <= 0) {
            last = nullptr;
            continue;
        }
        // setup.cfg writes `package_dir =\n    =src`: the key is before the first `=`.
        const int split = eq > 0 ? eq : at;
        last = &out[section][line.left(split).trimmed().toStdString()];
        *last = line.mid(split + 1).trimmed().toStdString();
    }
    return out;
}

std::vector<std::string> iniList(const std::string &value)
{
    std::vector<std::string> out;
    for (const QString &part :
         QString::fromStdString(value).split(QRegularExpression(QStringLiteral("[\\n,]")))) {
        const QString item = part.trimmed();
        if (!item.isEmpty())
            out.push_back(item.toStdString());
    }
    return out;
}

// What the tree's build files say, read once.
struct Project
{
    std::string dir;
    std::optional<toml::table> pyproject;
    IniSections setupCfg;
    std::string setupPy;

    bool isFile(const std::string &rel) const { return QFileInfo(qs(dir + "/" + rel)).isFile(); }
    std::optional<std::string> read(const std::string &rel) const { return readTreeFile(dir, rel); }
    bool isDir(const std::string &rel) const { return QFileInfo(qs(dir + "/" + rel)).isDir(); }
    bool isPackage(const std::string &rel) const { return isFile(rel + "/__init__.py"); }

    const toml::node *at(const char *path) const
    {
        if (!pyproject)
            return nullptr;
        const toml::node_view<const toml::node> view = pyproject->at_path(path);
        return view.node();
    }
    std::optional<std::string> string(const char *path) const
    {
        const toml::node *node = at(path);
        if (node && node->is_string())
            return node->as_string()->get();
        return std::nullopt;
    }
    std::vector<std::string> strings(const char *path) const
    {
        std::vector<std::string> out;
        const toml::node *node = at(path);
        if (node && node->is_string())
            out.push_back(node->as_string()->get());
        if (const toml::array *array = node ? node->as_array() : nullptr) {
            for (const toml::node &item : *array) {
                if (item.is_string())
                    out.push_back(item.as_string()->get());
            }
        }
        return out;
    }
    std::string cfg(const std::string &section, const std::string &key) const
    {
        const auto s = setupCfg.find(section);
        if (s == setupCfg.end())
            return {};
        const auto k = s->second.find(key);
        return k == s->second.end() ? std::string() : k->second;
    }
    // A literal keyword argument of setup.py's setup(...) call, e.g. name="foo".
    std::string setupPyLiteral(const char *keyword) const
    {
        const QRegularExpression re(
            QStringLiteral("\\b%1\\s*=\\s*[\"']([^\"'\\n]+)[\"']").arg(QLatin1String(keyword)));
        const QRegularExpressionMatch m = re.match(qs(setupPy));
        return m.hasMatch() ? m.captured(1).toStdString() : std::string();
    }
    std::string backend() const { return string("build-system.build-backend").value_or(""); }
    bool requiresBuild(const char *needle) const
    {
        for (const std::string &req : strings("build-system.requires")) {
            if (QString::fromStdString(req)
                    .toLower()
                    .replace(QLatin1Char('_'), QLatin1Char('-'))
                    .contains(QLatin1String(needle)))
                return true;
        }
        return false;
    }
};

std::string dirName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string baseName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string cleanRel(std::string path)
{
    path = QDir::cleanPath(qs(path)).toStdString();
    if (path == ".")
        return {};
    if (path.starts_with("./"))
        path = path.substr(2);
    return path;
}

void addUnique(std::vector<std::string> &list, const std::string &item)
{
    if (std::find(list.begin(), list.end(), item) == list.end())
        list.push_back(item);
}

void addRoot(TreeLayout &layout, const std::string &root)
{
    const std::string rel = cleanRel(root);
    if (!rel.empty() && !rel.starts_with(".."))
        addUnique(layout.importRoots, rel);
}

// Directories a flat layout never ships (setuptools' FlatLayoutPackageFinder excludes).
bool notAPackage(const QString &name)
{
    static const QStringList names = {QStringLiteral("ci"),
                                      QStringLiteral("bin"),
                                      QStringLiteral("debian"),
                                      QStringLiteral("doc"),
                                      QStringLiteral("docs"),
                                      QStringLiteral("documentation"),
                                      QStringLiteral("manpages"),
                                      QStringLiteral("news"),
                                      QStringLiteral("newsfragments"),
                                      QStringLiteral("changelog"),
                                      QStringLiteral("test"),
                                      QStringLiteral("tests"),
                                      QStringLiteral("unit_test"),
                                      QStringLiteral("unit_tests"),
                                      QStringLiteral("example"),
                                      QStringLiteral("examples"),
                                      QStringLiteral("scripts"),
                                      QStringLiteral("tools"),
                                      QStringLiteral("util"),
                                      QStringLiteral("utils"),
                                      QStringLiteral("python"),
                                      QStringLiteral("build"),
                                      QStringLiteral("dist"),
                                      QStringLiteral("venv"),
                                      QStringLiteral("env"),
                                      QStringLiteral("requirements"),
                                      QStringLiteral("tasks"),
                                      QStringLiteral("fabfile"),
                                      QStringLiteral("site_scons"),
                                      QStringLiteral("benchmark"),
                                      QStringLiteral("benchmarks"),
                                      QStringLiteral("exercise"),
                                      QStringLiteral("exercises"),
                                      QStringLiteral("htmlcov")};
    return names.contains(name) || name.startsWith(QLatin1Char('.')) ||
           name.startsWith(QLatin1Char('_'));
}

// Whether directory `rel` holds Python code (a namespace package: .py files in it or in a
// package below it), looking two levels down.
bool holdsPython(const Project &p, const std::string &rel, int depth = 2)
{
    const QDir dir(qs(p.dir + "/" + rel));
    if (!dir.entryList({QStringLiteral("*.py")}, QDir::Files).isEmpty())
        return true;
    if (depth == 0)
        return false;
    for (const QString &sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (holdsPython(p, rel + "/" + sub.toStdString(), depth - 1))
            return true;
    }
    return false;
}

// The packages and modules directly inside `root` (relative to the tree; "" = the tree): a
// declared import root's namespace packages too; at the tree's top (a flat layout) only
// regular packages, and not what setuptools' flat layout leaves out.
std::vector<std::string> scanPackages(const Project &p, const std::string &root, bool modules)
{
    std::vector<std::string> out;
    const QDir dir(qs(root.empty() ? p.dir : p.dir + "/" + root));
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const std::string rel = (root.empty() ? "" : root + "/") + name.toStdString();
        if (name.contains(QLatin1Char('.')) || name == QLatin1String("__pycache__") ||
            (root.empty() && notAPackage(name)))
            continue;
        if (p.isPackage(rel) || (!root.empty() && holdsPython(p, rel)))
            out.push_back(name.toStdString());
    }
    if (modules) {
        for (const QString &name :
             dir.entryList({QStringLiteral("*.py")}, QDir::Files, QDir::Name)) {
            const QString stem = name.chopped(3);
            if (stem != QLatin1String("setup") && stem != QLatin1String("conftest") &&
                !stem.startsWith(QLatin1String("test_")) && !stem.contains(QLatin1Char('.')))
                out.push_back(stem.toStdString());
        }
    }
    return out;
}

std::string moduleName(const std::string &distribution)
{
    std::string out = distribution;
    std::replace(out.begin(), out.end(), '-', '_');
    std::replace(out.begin(), out.end(), '.', '_');
    return QString::fromStdString(out).toLower().toStdString();
}

// Where `module` ("pkg" or "pkg.sub") lives: the file, relative to the tree, under the
// tree or one of `roots`; "" when not found.
std::string moduleFile(const Project &p, const std::vector<std::string> &roots,
                       const std::string &module)
{
    std::string rel = module;
    std::replace(rel.begin(), rel.end(), '.', '/');
    std::vector<std::string> bases = roots;
    bases.insert(bases.begin(), std::string());
    for (const std::string &base : bases) {
        const std::string prefix = base.empty() ? "" : base + "/";
        if (p.isFile(prefix + rel + "/__init__.py"))
            return prefix + rel + "/__init__.py";
        if (p.isFile(prefix + rel + ".py"))
            return prefix + rel + ".py";
    }
    return {};
}

// The string literal assigned to `name` in `file` (a version attribute), "" when it is
// computed.
std::string assignedLiteral(const Project &p, const std::string &file, const std::string &name)
{
    const std::optional<std::string> text = p.read(file);
    if (!text)
        return {};
    const QRegularExpression re(QStringLiteral("^%1\\s*(?::[^=\\n]+)?=\\s*[\"']([^\"'\\n]+)[\"']")
                                    .arg(QRegularExpression::escape(qs(name))),
                                QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = re.match(qs(*text));
    return m.hasMatch() ? m.captured(1).toStdString() : std::string();
}

void readLayout(const Project &p, TreeLayout &layout)
{
    // hatch: explicit packages ("src/attr"), or source roots.
    for (const char *table : {"tool.hatch.build.targets.wheel", "tool.hatch.build"}) {
        const std::string base = table;
        const std::vector<std::string> packages = p.strings((base + ".packages").c_str());
        for (const std::string &path : packages) {
            addRoot(layout, dirName(cleanRel(path)));
            addUnique(layout.packages, baseName(cleanRel(path)));
        }
        std::vector<std::string> sources = p.strings((base + ".sources").c_str());
        if (const toml::node *node = p.at((base + ".sources").c_str()); node && node->is_table()) {
            for (auto &&[from, to] : *node->as_table()) {
                if (to.is_string() && to.as_string()->get().empty())
                    sources.push_back(std::string(from.str()));
            }
        }
        for (const std::string &root : sources)
            addRoot(layout, root);
        if (!packages.empty() || !sources.empty()) {
            layout.layoutFrom =
                "pyproject.toml [" + base + "] " + (packages.empty() ? "sources" : "packages");
            return;
        }
    }
    // setuptools in pyproject.toml.
    if (const toml::node *dirs = p.at("tool.setuptools.package-dir"); dirs && dirs->is_table()) {
        for (auto &&[key, value] : *dirs->as_table()) {
            if (!value.is_string())
                continue;
            const std::string to = cleanRel(value.as_string()->get());
            if (key.str().empty()) {
                addRoot(layout, to);
            } else if (baseName(to) == std::string(key.str()) &&
                       key.str().find('.') == std::string_view::npos) {
                addRoot(layout, dirName(to));
                addUnique(layout.packages, std::string(key.str()));
            } else {
                layout.notes.push_back("pyproject.toml [tool.setuptools] package-dir maps " +
                                       std::string(key.str()) + " to " + to +
                                       ", which runs cannot reproduce without building the tree");
            }
        }
        layout.layoutFrom = "pyproject.toml [tool.setuptools] package-dir";
    }
    for (const std::string &where : p.strings("tool.setuptools.packages.find.where")) {
        addRoot(layout, where);
        layout.layoutFrom = "pyproject.toml [tool.setuptools.packages.find] where";
    }
    if (const toml::node *list = p.at("tool.setuptools.packages"); list && list->is_array()) {
        for (const std::string &name : p.strings("tool.setuptools.packages"))
            addUnique(layout.packages, name.substr(0, name.find('.')));
        if (layout.layoutFrom.empty())
            layout.layoutFrom = "pyproject.toml [tool.setuptools] packages";
    }
    for (const std::string &module : p.strings("tool.setuptools.py-modules"))
        addUnique(layout.packages, module);
    // setup.cfg.
    for (const std::string &line : iniList(p.cfg("options", "package_dir"))) {
        const size_t eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        const std::string key = trimmed(line.substr(0, eq));
        const std::string to = cleanRel(trimmed(line.substr(eq + 1)));
        if (key.empty())
            addRoot(layout, to);
        else if (baseName(to) == key)
            addRoot(layout, dirName(to)), addUnique(layout.packages, key);
        layout.layoutFrom = "setup.cfg [options] package_dir";
    }
    for (const std::string &where : iniList(p.cfg("options.packages.find", "where"))) {
        addRoot(layout, where);
        layout.layoutFrom = "setup.cfg [options.packages.find] where";
    }
    const std::string cfgPackages = p.cfg("options", "packages");
    if (!cfgPackages.empty() && !cfgPackages.starts_with("find")) {
        for (const std::string &name : iniList(cfgPackages))
            addUnique(layout.packages, name.substr(0, name.find('.')));
    }
    for (const std::string &module : iniList(p.cfg("options", "py_modules")))
        addUnique(layout.packages, module);
    // setup.py, literal arguments only.
    if (!p.setupPy.empty()) {
        static const QRegularExpression packages(
            QStringLiteral("\\bpackages\\s*=\\s*\\[([^\\]]*)\\]"));
        static const QRegularExpression item(QStringLiteral("[\"']([A-Za-z_][\\w.]*)[\"']"));
        if (const QRegularExpressionMatch m = packages.match(qs(p.setupPy)); m.hasMatch()) {
            QRegularExpressionMatchIterator it = item.globalMatch(m.captured(1));
            while (it.hasNext()) {
                const std::string name = it.next().captured(1).toStdString();
                addUnique(layout.packages, name.substr(0, name.find('.')));
            }
            layout.layoutFrom = "setup.py packages";
        }
        static const QRegularExpression packageDir(
            QStringLiteral("package_dir\\s*=\\s*\\{\\s*[\"']{2}\\s*:\\s*[\"']([^\"']+)[\"']"));
        static const QRegularExpression findWhere(QStringLiteral(
            "find(?:_namespace)?_packages\\(\\s*(?:where\\s*=\\s*)?[\"']([^\"']+)[\"']"));
        for (const QRegularExpression *re : {&packageDir, &findWhere}) {
            const QRegularExpressionMatch m = re->match(qs(p.setupPy));
            if (m.hasMatch()) {
                addRoot(layout, m.captured(1).toStdString());
                layout.layoutFrom = "setup.py package_dir / find_packages";
            }
        }
    }
    // flit: one module, at the top or under src/.
    std::optional<std::string> flitModule = p.string("tool.flit.module.name");
    if (!flitModule)
        flitModule = p.string("tool.flit.metadata.module");
    if (!flitModule && p.backend().starts_with("flit") && !layout.distribution.empty())
        flitModule = moduleName(layout.distribution);
    if (flitModule) {
        // A dotted name is a module of a namespace package ("acme.widgets" in acme/widgets).
        std::string rel = *flitModule;
        std::replace(rel.begin(), rel.end(), '.', '/');
        for (const char *root : {"", "src"}) {
            const std::string prefix = *root ? std::string(root) + "/" : std::string();
            if (p.isPackage(prefix + rel) || p.isFile(prefix + rel + ".py")) {
                addRoot(layout, root);
                addUnique(layout.packages, flitModule->substr(0, flitModule->find('.')));
                layout.layoutFrom = "pyproject.toml [tool.flit.module] (flit)";
                break;
            }
        }
    }
    // poetry: [{include = "pkg", from = "src"}].
    if (const toml::node *list = p.at("tool.poetry.packages"); list && list->is_array()) {
        for (const toml::node &item : *list->as_array()) {
            const toml::table *entry = item.as_table();
            if (!entry)
                continue;
            const std::string include = entry->get_as<std::string>("include")
                                            ? entry->get_as<std::string>("include")->get()
                                            : std::string();
            const std::string from = entry->get_as<std::string>("from")
                                         ? entry->get_as<std::string>("from")->get()
                                         : std::string();
            addRoot(layout, from);
            if (!include.empty() && include.find('*') == std::string::npos)
                addUnique(layout.packages, baseName(cleanRel(include)));
        }
        layout.layoutFrom = "pyproject.toml [tool.poetry] packages";
    }
    if (std::optional<std::string> dir = p.string("tool.pdm.build.package-dir")) {
        addRoot(layout, *dir);
        layout.layoutFrom = "pyproject.toml [tool.pdm.build] package-dir";
    }
}

void fillPackages(const Project &p, TreeLayout &layout)
{
    if (layout.packages.empty()) {
        for (const std::string &root : layout.importRoots) {
            for (const std::string &name : scanPackages(p, root, true))
                addUnique(layout.packages, name);
        }
    }
    if (layout.importRoots.empty() && layout.packages.empty()) {
        // No build setting names them: the conventions build backends fall back on.
        const std::string name = moduleName(layout.distribution);
        const std::vector<std::string> src =
            p.isDir("src") ? scanPackages(p, "src", true) : std::vector<std::string>();
        // (A namespace package under src/ counts: scanPackages looks below it.)
        if (!src.empty()) {
            layout.importRoots.push_back("src");
            layout.packages = src;
            layout.layoutFrom = "src/ layout";
        } else {
            layout.packages = scanPackages(p, "", false);
            if (!name.empty() && p.isFile(name + ".py"))
                addUnique(layout.packages, name);
            layout.layoutFrom = layout.packages.empty() ? "no packages found" : "flat layout";
        }
    }
    if (layout.packages.size() > kMaxPackages)
        layout.packages.resize(kMaxPackages);
    // A package both under an import root and at the top: pytest's rootdir insertion (a
    // tests/__init__.py, prepend import mode) may put the top one first for the tests.
    for (const std::string &name : layout.packages) {
        if (!layout.importRoots.empty() && p.isPackage(name))
            layout.notes.push_back(name + " exists both under " + layout.importRoots.front() +
                                   "/ and at the tree's top: the runs put " +
                                   layout.importRoots.front() +
                                   "/ first, but pytest's rootdir "
                                   "insertion can put the top one ahead for the tests");
    }
}

void readName(const Project &p, TreeLayout &layout)
{
    for (const char *path : {"project.name", "tool.poetry.name", "tool.flit.metadata.dist-name",
                             "tool.flit.metadata.module"}) {
        if (std::optional<std::string> name = p.string(path)) {
            layout.distribution = *name;
            return;
        }
    }
    layout.distribution = p.cfg("metadata", "name");
    if (layout.distribution.empty())
        layout.distribution = p.setupPyLiteral("name");
}

// The version from `vcs`, or why not.
void fromVcs(const TagDistance *vcs, bool dirty, bool local, const std::string &tool,
             const std::string &fallback, TreeLayout &layout)
{
    if (vcs) {
        layout.version = vcsVersion(*vcs, dirty, local);
        layout.versionFrom = "git describe (" + tool + ")";
    } else if (!fallback.empty()) {
        layout.version = fallback;
        layout.versionFrom = tool + " fallback version";
    } else {
        layout.notes.push_back("the version comes from git (" + tool +
                               "), which this tree has no history for");
    }
}

bool localScheme(const Project &p, const char *path)
{
    const std::optional<std::string> scheme = p.string(path);
    return !scheme || *scheme != "no-local-version";
}

std::string attrVersion(const Project &p, const TreeLayout &layout, const std::string &attr)
{
    const size_t dot = attr.rfind('.');
    if (dot == std::string::npos)
        return {};
    const std::string file = moduleFile(p, layout.importRoots, attr.substr(0, dot));
    return file.empty() ? std::string() : assignedLiteral(p, file, attr.substr(dot + 1));
}

void readVersion(const Project &p, const TagDistance *vcs, bool dirty, TreeLayout &layout)
{
    const std::vector<std::string> dynamic = p.strings("project.dynamic");
    const bool isDynamic = std::find(dynamic.begin(), dynamic.end(), "version") != dynamic.end();
    if (std::optional<std::string> v = p.string("project.version"); v && !isDynamic) {
        layout.version = *v;
        layout.versionFrom = "pyproject.toml [project] version";
        return;
    }
    const std::string backend = p.backend();
    if (isDynamic || !p.pyproject || !p.at("project")) {
        if (backend.starts_with("hatchling") || p.at("tool.hatch.version")) {
            const std::string source = p.string("tool.hatch.version.source").value_or("regex");
            if (source == "vcs") {
                fromVcs(vcs, dirty, localScheme(p, "tool.hatch.version.raw-options.local_scheme"),
                        "hatch-vcs", p.string("tool.hatch.version.fallback-version").value_or(""),
                        layout);
                return;
            }
            if (std::optional<std::string> path = p.string("tool.hatch.version.path")) {
                const std::optional<std::string> text = p.read(*path);
                const QRegularExpression re(
                    qs(p.string("tool.hatch.version.pattern")
                           .value_or(
                               "(?i)^(__version__|VERSION) *= *(['\"])v?(?P<version>.+?)\\2")),
                    QRegularExpression::MultilineOption);
                const QRegularExpressionMatch m =
                    text ? re.match(qs(*text)) : QRegularExpressionMatch();
                if (m.hasMatch()) {
                    layout.version = m.captured(QStringLiteral("version")).toStdString();
                    layout.versionFrom = *path + " (hatch version path)";
                    return;
                }
            }
        }
        if (backend.starts_with("flit")) {
            const std::string module =
                layout.packages.empty() ? moduleName(layout.distribution) : layout.packages.front();
            const std::string file = moduleFile(p, layout.importRoots, module);
            const std::string v =
                file.empty() ? std::string() : assignedLiteral(p, file, "__version__");
            if (!v.empty()) {
                layout.version = v;
                layout.versionFrom = file + " __version__ (flit)";
                return;
            }
        }
        if (std::optional<std::string> attr = p.string("tool.setuptools.dynamic.version.attr")) {
            if (std::string v = attrVersion(p, layout, *attr); !v.empty()) {
                layout.version = v;
                layout.versionFrom = *attr + " (setuptools dynamic version)";
                return;
            }
        }
        if (std::optional<std::string> file = p.string("tool.setuptools.dynamic.version.file")) {
            if (std::optional<std::string> text = p.read(*file)) {
                layout.version = trimmed(*text);
                layout.versionFrom = *file + " (setuptools dynamic version)";
                return;
            }
        }
        if (p.at("tool.setuptools_scm") || p.requiresBuild("setuptools-scm")) {
            fromVcs(vcs, dirty, localScheme(p, "tool.setuptools_scm.local_scheme"),
                    "setuptools_scm", p.string("tool.setuptools_scm.fallback_version").value_or(""),
                    layout);
            return;
        }
        if (p.string("tool.pdm.version.source").value_or("") == "scm") {
            fromVcs(vcs, dirty, true, "pdm scm",
                    p.string("tool.pdm.version.fallback_version").value_or(""), layout);
            return;
        }
        if (std::optional<std::string> path = p.string("tool.pdm.version.path")) {
            if (std::string v = assignedLiteral(p, *path, "__version__"); !v.empty()) {
                layout.version = v;
                layout.versionFrom = *path + " (pdm version file)";
                return;
            }
        }
        if (p.at("tool.poetry-dynamic-versioning")) {
            fromVcs(vcs, dirty, true, "poetry-dynamic-versioning", {}, layout);
            return;
        }
    }
    if (std::optional<std::string> v = p.string("tool.poetry.version")) {
        layout.version = *v;
        layout.versionFrom = "pyproject.toml [tool.poetry] version";
        return;
    }
    const std::string cfg = p.cfg("metadata", "version");
    if (cfg.starts_with("attr:")) {
        if (std::string v = attrVersion(p, layout, trimmed(cfg.substr(5))); !v.empty()) {
            layout.version = v;
            layout.versionFrom = "setup.cfg [metadata] version = " + cfg;
            return;
        }
    } else if (cfg.starts_with("file:")) {
        if (std::optional<std::string> text = p.read(trimmed(cfg.substr(5)))) {
            layout.version = trimmed(*text);
            layout.versionFrom = "setup.cfg [metadata] version = " + cfg;
            return;
        }
    } else if (!cfg.empty()) {
        layout.version = cfg;
        layout.versionFrom = "setup.cfg [metadata] version";
        return;
    }
    if (std::string v = p.setupPyLiteral("version"); !v.empty()) {
        layout.version = v;
        layout.versionFrom = "setup.py version";
        return;
    }
    if (!p.setupPy.empty() && p.setupPy.find("use_scm_version") != std::string::npos) {
        fromVcs(vcs, dirty, true, "setuptools_scm", {}, layout);
        return;
    }
}

// The version file a build writes from git (hatch-vcs `version-file`, setuptools_scm
// `version_file` / `write_to`, pdm's `write_to`) is not in git, so a materialised tree lacks
// it and `from ._version import version` fails there: the runs are given it, generated as
// setuptools_scm writes it, as the module its path names.
void readGeneratedModules(const Project &p, TreeLayout &layout)
{
    std::vector<std::string> files;
    for (const char *path :
         {"tool.hatch.build.hooks.vcs.version-file", "tool.setuptools_scm.version_file",
          "tool.setuptools_scm.write_to", "tool.pdm.version.write_to"}) {
        if (std::optional<std::string> file = p.string(path))
            files.push_back(cleanRel(*file));
    }
    if (files.empty() || layout.version.empty() || layout.version == kUnknownVersion)
        return;
    std::string tuple;
    for (const QString &part :
         QString::fromStdString(layout.version).split(QRegularExpression(QStringLiteral("[.+]")))) {
        bool number = false;
        const long long n = part.toLongLong(&number);
        tuple += (tuple.empty() ? "" : ", ") +
                 (number ? std::to_string(n) : "'" + part.toStdString() + "'");
    }
    const std::string source =
        "# The version file this tree's build writes from git, generated by patchwitness for a\n"
        "# tree taken from git (as setuptools-scm writes it).\n"
        "__all__ = ['__version__', '__version_tuple__', 'version', 'version_tuple']\n"
        "__version__ = version = '" +
        layout.version +
        "'\n"
        "__version_tuple__ = version_tuple = (" +
        tuple + (tuple.find(',') == std::string::npos ? "," : "") + ")\n";
    for (const std::string &file : files) {
        if (file.size() < 4 || !file.ends_with(".py"))
            continue;
        // pdm's write_to is relative to the package directory; the others to the tree.
        std::vector<std::string> candidates = {file};
        for (const std::string &root : layout.importRoots)
            candidates.push_back(root + "/" + file);
        for (const std::string &rel : candidates) {
            if (p.isFile(rel))
                break; // committed after all: the tree's own
            std::string module = rel.substr(0, rel.size() - 3);
            for (const std::string &root : layout.importRoots) {
                if (module.starts_with(root + "/")) {
                    module = module.substr(root.size() + 1);
                    break;
                }
            }
            if (module.find('/') == std::string::npos || !p.isDir(rel.substr(0, rel.rfind('/'))))
                continue;
            std::replace(module.begin(), module.end(), '/', '.');
            layout.generatedModules.emplace_back(module, source);
            layout.notes.push_back(rel +
                                   " is written by the build from git and is not in the "
                                   "tree: the runs import " +
                                   module + " as generated for " + layout.version);
            break;
        }
    }
}

// PEP 508 names and PEP 440 versions only: both become a path and a METADATA header.
bool validName(const std::string &name)
{
    static const QRegularExpression re(
        QStringLiteral("^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$"));
    return re.match(qs(name)).hasMatch();
}

bool validVersion(const std::string &version)
{
    static const QRegularExpression re(
        QStringLiteral("^v?(?:[0-9]+!)?[0-9]+(?:\\.[0-9]+)*"
                       "(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
                       "(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?"
                       "(?:[-_.]?dev[-_.]?[0-9]*)?"
                       "(?:\\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$"),
        QRegularExpression::CaseInsensitiveOption);
    return re.match(qs(version)).hasMatch();
}

void readScripts(const Project &p, TreeLayout &layout)
{
    const std::pair<const char *, const char *> groups[] = {
        {"project.scripts", "console_scripts"},
        {"project.gui-scripts", "gui_scripts"},
        {"tool.poetry.scripts", "console_scripts"}};
    std::map<std::string, std::vector<std::string>> sections;
    for (const auto &[path, group] : groups) {
        if (const toml::node *node = p.at(path); node && node->is_table()) {
            for (auto &&[name, target] : *node->as_table()) {
                if (target.is_string())
                    sections[group].push_back(std::string(name.str()) + " = " +
                                              target.as_string()->get());
            }
        }
    }
    if (const toml::node *node = p.at("project.entry-points"); node && node->is_table()) {
        for (auto &&[group, entries] : *node->as_table()) {
            if (!entries.is_table())
                continue;
            for (auto &&[name, target] : *entries.as_table()) {
                if (target.is_string())
                    sections[std::string(group.str())].push_back(std::string(name.str()) + " = " +
                                                                 target.as_string()->get());
            }
        }
    }
    // setup.cfg: [options.entry_points] group = one "name = target" per line.
    if (const auto cfg = p.setupCfg.find("options.entry_points"); cfg != p.setupCfg.end()) {
        for (const auto &[group, value] : cfg->second) {
            for (const QString &line : QString::fromStdString(value).split(QLatin1Char('\n'))) {
                if (line.contains(QLatin1Char('=')))
                    sections[group].push_back(line.trimmed().toStdString());
            }
        }
    }
    if (sections.empty() && p.setupPy.find("entry_points") != std::string::npos)
        layout.notes.push_back("setup.py declares entry points, which patchwitness does not "
                               "read (it runs no build): tests that look them up through "
                               "importlib.metadata see none for the tree");
    for (const auto &[group, entries] : sections) {
        layout.scripts.push_back("[" + group + "]");
        layout.scripts.insert(layout.scripts.end(), entries.begin(), entries.end());
    }
}

void readPytestConfig(const Project &p, TreeLayout &layout)
{
    // pytest 9 looks for these first in a directory; pytest < 9 does not know them.
    for (const char *name : {"pytest.toml", ".pytest.toml"}) {
        if (p.isFile(name)) {
            layout.pytest9Config = name;
            return;
        }
    }
    if (p.isFile("pytest.ini") || p.isFile(".pytest.ini"))
        return; // every pytest reads these before pyproject.toml
    if (const toml::node *table = p.at("tool.pytest"); table && table->is_table()) {
        for (auto &&[key, value] : *table->as_table()) {
            if (key.str() != "ini_options") {
                layout.pytest9Config = "pyproject.toml [tool.pytest]";
                return;
            }
        }
    }
}

// setuptools_scm's guess-next-dev: the last number goes up ("25.3.0" -> "25.3.1",
// "2.0rc1" -> "2.0rc2").
std::string bumped(const std::string &version)
{
    static const QRegularExpression last(QStringLiteral("^(.*?)(\\d+)$"));
    const QRegularExpressionMatch m = last.match(qs(version));
    if (!m.hasMatch())
        return version;
    return m.captured(1).toStdString() + std::to_string(m.captured(2).toLongLong() + 1);
}

} // namespace

std::string vcsVersion(const TagDistance &vcs, bool dirty, bool localPart)
{
    // setuptools_scm's default tag pattern: an optional "name-" prefix and "v".
    static const QRegularExpression tagPattern(
        QStringLiteral("^(?:[\\w-]+-)?[vV]?(\\d+(?:\\.\\d+){0,2}[^+]*)(?:\\+.*)?$"));
    const QRegularExpressionMatch m = tagPattern.match(qs(vcs.tag));
    int distance = vcs.distance;
    std::string next;
    if (!vcs.tag.empty() && m.hasMatch()) {
        const std::string tagged = m.captured(1).toStdString();
        if (distance == 0 && !dirty)
            return tagged;
        next = bumped(tagged);
    } else {
        next = "0.1";
    }
    std::string version = next + ".dev" + std::to_string(distance);
    if (localPart)
        version += "+g" + vcs.shortId + (dirty ? ".dirty" : "");
    return version;
}

std::string normalizedDistributionName(const std::string &name)
{
    QString out = QString::fromStdString(name).toLower();
    out.replace(QRegularExpression(QStringLiteral("[-_.]+")), QStringLiteral("-"));
    return out.toStdString();
}

TreeLayout readTreeLayout(const std::string &treeDir, const TagDistance *vcs, bool dirty)
{
    Project p;
    p.dir = treeDir;
    TreeLayout layout;
    if (const std::optional<std::string> text = readTreeFile(treeDir, "pyproject.toml")) {
        try {
            p.pyproject = toml::parse(std::string_view(*text), std::string_view("pyproject.toml"));
        } catch (const toml::parse_error &e) {
            layout.notes.push_back("pyproject.toml:" + std::to_string(e.source().begin.line) +
                                   ": does not parse (" + std::string(e.description()) +
                                   "); its build settings were not read");
        }
    }
    if (const std::optional<std::string> text = readTreeFile(treeDir, "setup.cfg"))
        p.setupCfg = parseIni(*text);
    p.setupPy = readTreeFile(treeDir, "setup.py").value_or("");

    readName(p, layout);
    if (!layout.distribution.empty() && !validName(layout.distribution)) {
        layout.notes.push_back("the project name '" + layout.distribution +
                               "' is not a valid distribution name: runs get no metadata for it");
        layout.distribution.clear();
    }
    readLayout(p, layout);
    fillPackages(p, layout);
    if (!layout.distribution.empty()) {
        readVersion(p, vcs, dirty, layout);
        if (!layout.version.empty() && !validVersion(layout.version)) {
            layout.notes.push_back("the version '" + layout.version + "' (" + layout.versionFrom +
                                   ") is not a PEP 440 version: runs see " + kUnknownVersion);
            layout.version.clear();
        }
        if (layout.version.empty()) {
            layout.version = kUnknownVersion;
            layout.versionFrom = "unknown";
            layout.notes.push_back("the version of " + layout.distribution +
                                   " is computed by its build in a way patchwitness does not "
                                   "read; runs see " +
                                   kUnknownVersion);
        }
    }
    readGeneratedModules(p, layout);
    readScripts(p, layout);
    readPytestConfig(p, layout);
    return layout;
}

std::string stageDistributionMetadata(const std::string &cacheRoot, const TreeLayout &layout)
{
    if (layout.distribution.empty())
        return {};
    std::string metadata =
        "Metadata-Version: 2.1\nName: " + layout.distribution + "\nVersion: " + layout.version +
        "\nSummary: the tree's own metadata, written by patchwitness (version: " +
        layout.versionFrom + ")\n";
    std::string topLevel;
    for (const std::string &name : layout.packages)
        topLevel += name + "\n";
    std::string entryPoints;
    for (const std::string &line : layout.scripts)
        entryPoints += (line.starts_with('[') && !entryPoints.empty() ? "\n" : "") + line + "\n";
    std::string stem = normalizedDistributionName(layout.distribution);
    std::replace(stem.begin(), stem.end(), '-', '_');
    const std::string info = stem + "-" + layout.version + ".dist-info";
    std::vector<std::pair<std::string, std::string>> files = {
        {info + "/METADATA", metadata},
        {info + "/top_level.txt", topLevel},
        {info + "/entry_points.txt", entryPoints},
        {info + "/INSTALLER", "patchwitness\n"},
        {info + "/RECORD", ""}};
    for (const auto &[module, source] : layout.generatedModules)
        files.emplace_back(generatedModuleFile({}, module).substr(1), source);
    std::string all;
    for (const auto &[path, text] : files)
        all += path + '\0' + text + '\0';
    const std::string dir = cacheRoot + "/dist/" + sha256Hex(all, 16);
    for (const auto &[path, text] : files) {
        const std::string file = dir + "/" + path;
        if (readWholeFile(file) != text && !writeFileReplacing(file, text, /*createDirs=*/true))
            throw Error::harness("cannot write the tree's distribution metadata into " + dir);
    }
    return dir;
}

std::string generatedModuleFile(const std::string &distDir, const std::string &module)
{
    return distDir + "/pw-generated/" + module + ".py";
}

} // namespace pw::core
