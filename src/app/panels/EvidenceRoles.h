#pragma once

#include <Qt>

namespace pw::gui {

// Item roles every evidence model answers, so one panel (EvidencePanel) can filter by file,
// select by location and sort numerically whatever the model. Views read these roles; they
// never reach into a model's value types.
enum EvidenceRole : int
{
    PathRole = Qt::UserRole + 64, // QString: repository-relative file path ('/' separators)
    LineRole,                     // int: head-side line, 0 when the row has no line
    TestRole,                     // QString: test id ("tests/x.py::test_y"), empty if none
    SeverityRole,                 // int: 0 info, 1 review, 2 block (core::Severity order)
    SortRole,                     // per column: a number where the column is numeric
    CodeRole // QString: the finding code ("T-DEL", "F-DRIFT"), empty for rows of no finding
};

} // namespace pw::gui
