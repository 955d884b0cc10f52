#include "dynamic/RunsDir.h"

#include "ledger/RunEvidence.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace pw::core {

std::string RunsDir::recordStem(const std::string &date, const std::string &test,
                                const std::string &what)
{
    return date + "-" + AttributionRecord::fileNamePart(test) + "-" + what;
}

std::string RunsDir::writeNew(const std::string &dir, const std::string &stem,
                              const std::string &text)
{
    const std::string base = dir + "/" + stem;
    const std::string tmp = dir + "/.attribution-" + std::to_string(::getpid()) + ".tmp";
    std::string error;
    if (!writeFileAtomically(tmp, text, /*createDirs=*/true, &error))
        throw Error::input(dir + ": cannot write the evidence record: " + error);
    // The records are patchwitness's, not the patch's: a `.gitignore` of `*` (as pytest
    // keeps .pytest_cache out of git) keeps them out of `git status`, so they neither make
    // the work tree dirty (the default head stays HEAD) nor enter a WORKTREE head's diff.
    // `git add -f` commits one that should travel with a ledger. Best effort: a record
    // that git sees is still a record.
    const std::string ignore = dir + "/.gitignore";
    if (!QFileInfo::exists(QString::fromStdString(ignore)))
        writeFileAtomically(ignore,
                            "# Written by patchwitness: run evidence records stay out of git "
                            "status\n# (commit one with `git add -f`).\n*\n");
    // link(2) fails when the name exists. Later records of a day sort after the earlier
    // ones ("_" > "."; two digits), as AttributionRecord::latestFor breaks ties of a day by
    // file name.
    for (int n = 1; n < 100; ++n) {
        const std::string path =
            base + (n == 1 ? "" : (n < 10 ? "_0" : "_") + std::to_string(n)) + ".json";
        if (::link(tmp.c_str(), path.c_str()) == 0) {
            ::unlink(tmp.c_str());
            return path;
        }
        if (errno != EEXIST) {
            const int code = errno;
            ::unlink(tmp.c_str());
            throw Error::input(
                path + ": cannot write the evidence record: " + std::string(std::strerror(code)));
        }
    }
    ::unlink(tmp.c_str());
    throw Error::input(base + ".json: 99 records of that day exist already");
}

} // namespace pw::core
