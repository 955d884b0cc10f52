#pragma once

#include <QDate>
#include <optional>
#include <string>

namespace pw::core {

// Ledger dates are calendar days written as ISO 8601 "YYYY-MM-DD" (a TOML local date, or a
// string in JSON). A timestamp's date part is accepted where a day is expected.
inline std::optional<QDate> parseLedgerDate(const std::string &text)
{
    if (text.size() < 10)
        return std::nullopt;
    if (text.size() > 10 && text[10] != 'T' && text[10] != ' ')
        return std::nullopt;
    const QDate d = QDate::fromString(QString::fromStdString(text.substr(0, 10)), Qt::ISODate);
    if (!d.isValid())
        return std::nullopt;
    return d;
}

inline std::string ledgerDateText(const QDate &d)
{
    return d.toString(Qt::ISODate).toStdString();
}

} // namespace pw::core
