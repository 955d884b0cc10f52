#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace pw::core {

// What every report and record of a dynamic gate names besides its seeds and env digest:
// the interpreter that ran the tests, its Python and pytest, why that interpreter, and how
// each tree imported its own code (what was overridden on the way). RunContext::provenance().
struct RunProvenance
{
    std::string interpreter; // as run (a path)
    std::string executable;  // its sys.executable, when that differs (a shim, a wrapper)
    std::string python;      // "3.11.7"
    std::string pytest;      // "8.4.2"
    std::string chosenBy;    // InterpreterChoice::origin
    struct Tree
    {
        std::string imports;                 // TreeImports::summary()
        std::vector<std::string> importPath; // absolute
        std::vector<std::string> overridden;
        std::vector<std::string> notes; // TreeLayout::notes: what the reviewer should know
    };
    Tree base;
    Tree head;

    bool empty() const { return interpreter.empty(); }
    // "interpreter /x/python (Python 3.11.7, pytest 8.4.2; the repository's .venv)"
    std::string interpreterLine() const;
    // The interpreter line, then "base tree imports …", each "overridden: …" and each
    // "note: …", every line starting with `indent` and ending with a newline.
    std::string text(const std::string &indent) const;
    // {"path", "executable", "python", "pytest", "chosen_by"}, and {"base", "head"} with
    // {"imports", "import_path", "overridden", "notes"}: a report's "interpreter" and "trees".
    nlohmann::json interpreterJson() const;
    nlohmann::json treesJson() const;
};

} // namespace pw::core
