#pragma once

#include <map>
#include <string>
#include <vector>

namespace pw::core {

// One thing wrong with a ledger: where it is, which entry and field, which rule
// it breaks and a sentence a reviewer can act on. A value: the CLI prints it, the gate
// turns it into a finding, the GUI shows it as a badge.
struct LedgerProblem
{
    std::string file;  // as the ledger was named when read (".patchwitness/quarantine.toml")
    int line = 0;      // 1-based; 0 when the problem is about the whole file
    int column = 0;    // 1-based; 0 when unknown
    std::string entry; // test / node / journal id; empty for a file-level problem
    std::string field; // "expires", "evidence.mode"; empty when about the whole entry
    std::string rule; // stable code: "missing-field", "expired", "parse", ... (see LedgerValidator)
    std::string message;

    // "quarantine.toml:12: tests/t.py::test_a: expires: expired on 2024-05-01"
    std::string toString() const;
};

// Where an entry sits in its file and what the reader could not use. Fields of the wrong
// type are read as absent and reported here, so one bad value never hides the entry's
// other problems (or the file's other entries).
struct LedgerEntryInfo
{
    int index = 0;                          // position among the file's entries, 0-based
    int line = 0;                           // where the entry starts
    std::map<std::string, int> fieldLines;  // field → line of its value
    std::vector<std::string> unknownFields; // kept in the file as written, never dropped
    std::vector<LedgerProblem> problems;    // fields of the wrong type

    int lineOf(const std::string &field) const
    {
        const auto it = fieldLines.find(field);
        return it == fieldLines.end() ? line : it->second;
    }
    bool hasProblem(const std::string &field) const
    {
        for (const LedgerProblem &p : problems) {
            if (p.field == field)
                return true;
        }
        return false;
    }
};

inline std::string LedgerProblem::toString() const
{
    std::string out = file;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0)
            out += ':' + std::to_string(column);
    }
    out += ": ";
    if (!entry.empty())
        out += entry + ": ";
    if (!field.empty())
        out += field + ": ";
    return out + message;
}

} // namespace pw::core
