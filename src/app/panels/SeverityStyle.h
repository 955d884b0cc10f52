#pragma once

#include "audit/Finding.h"

#include <QBrush>
#include <QColor>
#include <QVariant>
#include <optional>

namespace pw::gui::severity_style {

// Cell colours for severities. Coloured cells set a light tint *and* a dark text colour so
// they stay legible under both light and dark palettes; info cells keep the palette's own.
enum class Tone
{
    Neutral,
    Good,   // satisfied, stronger
    Review, // amber
    Block   // red
};

// nullopt: nothing judged yet (no report), shown like info.
inline Tone toneForSeverity(std::optional<core::Severity> severity)
{
    if (!severity)
        return Tone::Neutral;
    switch (*severity) {
    case core::Severity::Block:
        return Tone::Block;
    case core::Severity::Review:
        return Tone::Review;
    case core::Severity::Info:
        break;
    }
    return Tone::Neutral;
}

inline QColor foreground(Tone tone)
{
    switch (tone) {
    case Tone::Block:
        return QColor(0xa3, 0x1b, 0x1b);
    case Tone::Review:
        return QColor(0x7a, 0x4a, 0x00);
    case Tone::Good:
        return QColor(0x1b, 0x5e, 0x20);
    case Tone::Neutral:
        break;
    }
    return {};
}

inline QColor background(Tone tone)
{
    switch (tone) {
    case Tone::Block:
        return QColor(0xfb, 0xdc, 0xd8);
    case Tone::Review:
        return QColor(0xff, 0xed, 0xbf);
    case Tone::Good:
        return QColor(0xdc, 0xf1, 0xdd);
    case Tone::Neutral:
        break;
    }
    return {};
}

// data() helpers: an invalid QVariant leaves the palette's colour in place.
inline QVariant foregroundData(Tone tone)
{
    const QColor c = foreground(tone);
    return c.isValid() ? QVariant(QBrush(c)) : QVariant();
}

inline QVariant backgroundData(Tone tone)
{
    const QColor c = background(tone);
    return c.isValid() ? QVariant(QBrush(c)) : QVariant();
}

} // namespace pw::gui::severity_style
