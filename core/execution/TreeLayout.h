#pragma once

#include <string>
#include <vector>

namespace pw::core {

struct TagDistance;

// How a materialised tree's own code is found, so that base tests base's code and head
// tests head's code whatever the interpreter has installed: the import roots its build
// configuration names (a `src/` layout, setuptools `package-dir` / `packages.find`, flit's
// module, hatch's `packages` / `sources`, poetry's and pdm's package settings, setup.cfg),
// the top-level packages it provides, and the distribution's name and version, which runs
// see through a generated `<name>-<version>.dist-info` (importlib.metadata). Read from
// the tree's files only: no build backend, no project code runs.
struct TreeLayout
{
    // Import roots relative to the tree ("src"). The tree itself is pytest's working
    // directory, first on sys.path already (`python -m pytest`), and is not listed.
    std::vector<std::string> importRoots;
    // Top-level import names the tree provides ("attr", "attrs", "click"); the plugin
    // keeps each of them coming from the tree.
    std::vector<std::string> packages;
    // How the roots were found: "pyproject.toml [tool.hatch.build.targets.wheel] packages",
    // "src/ layout", …
    std::string layoutFrom;
    std::string distribution; // the project's name; "": none found
    std::string version;      // PEP 440; "0+unknown" when computed in a way not read here
    std::string versionFrom;  // "pyproject.toml [project] version", "git describe (hatch-vcs)", …
    // entry_points.txt lines by section ("[console_scripts]", "x = m:f").
    std::vector<std::string> scripts;
    // Modules the build writes from git that a tree taken from git lacks (a version file):
    // module name ("pkg._version") and the source the runs import for it.
    std::vector<std::pair<std::string, std::string>> generatedModules;
    // Things the reviewer should know about the tree's build ("the version is computed by
    // setup.py; runs see 0+unknown").
    std::vector<std::string> notes;
    // When pytest's configuration for this tree is pytest 9's own (a `pytest.toml`, or a
    // `[tool.pytest]` table in pyproject.toml that pytest < 9 ignores, collecting with no
    // configuration at all): the file and table, e.g. "pyproject.toml [tool.pytest]".
    std::string pytest9Config;
};

// `vcs`: the tree's commit described by its nearest tag (Repository::describe), for
// versions a build takes from git; `dirty`: the tree is a WORKTREE or PATCH head on top
// of that commit. Never throws: what cannot be read becomes a note.
TreeLayout readTreeLayout(const std::string &treeDir, const TagDistance *vcs, bool dirty);

// setuptools_scm's default version scheme (guess-next-dev, node-and-date without the
// date): "1.2.3" on the tag, "1.2.4.dev5+gabc1234" five commits after it, "0.1.dev5+g…"
// without a tag; `dirty` adds ".dirty" to the local part (and counts as one commit past
// an exact tag); `localPart` false is `local_scheme = "no-local-version"`.
std::string vcsVersion(const TagDistance &vcs, bool dirty, bool localPart);

// Writes the distribution's metadata (METADATA, top_level.txt, entry_points.txt,
// INSTALLER, RECORD) as `<cacheRoot>/dist/<hash>/<name>-<version>.dist-info/`, and each
// generated module as `<hash>/pw-generated/<module>.py` (generatedModuleFile), and returns
// `<cacheRoot>/dist/<hash>` (the directory to put on sys.path); reused when present. ""
// when the layout names no distribution. Throws Error::harness when it cannot write.
std::string stageDistributionMetadata(const std::string &cacheRoot, const TreeLayout &layout);
// Where stageDistributionMetadata put `module` under `distDir` (a directory name that is no
// Python identifier, so nothing imports it by accident).
std::string generatedModuleFile(const std::string &distDir, const std::string &module);

// PEP 503 normalised name ("Foo.Bar_baz" → "foo-bar-baz"), and the dist-info form
// ("foo_bar_baz").
std::string normalizedDistributionName(const std::string &name);

} // namespace pw::core
