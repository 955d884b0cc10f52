#pragma once

#include <QDateTime>
#include <cstdio>
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

// "YYYY-MM-DD", or "" for an invalid date or a year outside 0…9999 (as Qt::ISODate). Written
// from year(), month() and day() rather than QDate::toString: Qt 5.15's toString goes through
// a QCalendar whose first construction races, so threads that format their first date at
// once can get "" (tst_ledgerwriters saw `approved_on = ` written). Use these two for every
// date and timestamp the core writes.
inline std::string ledgerDateText(const QDate &d)
{
    if (!d.isValid() || d.year() < 0 || d.year() > 9999)
        return {};
    char text[16];
    std::snprintf(text, sizeof text, "%04d-%02d-%02d", d.year(), d.month(), d.day());
    return text;
}

// A UTC time as "YYYY-MM-DDTHH:MM:SSZ" (Qt::ISODate of a UTC QDateTime, without the race).
inline std::string utcTimestampText(const QDateTime &t)
{
    const QDateTime utc = t.toUTC();
    const std::string day = ledgerDateText(utc.date());
    if (day.empty())
        return {};
    const QTime time = utc.time();
    char text[16];
    std::snprintf(text, sizeof text, "T%02d:%02d:%02dZ", time.hour(), time.minute(), time.second());
    return day + text;
}

} // namespace pw::core
