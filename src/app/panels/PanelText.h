#pragma once

#include <QString>
#include <string>

namespace pw::gui {

// The core speaks UTF-8 std::string; the models speak QString.
inline QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace pw::gui
