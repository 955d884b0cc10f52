#pragma once

#include "audit/Finding.h"

#include <QBrush>
#include <QColor>
#include <QGuiApplication>
#include <QPalette>
#include <QVariant>
#include <QWidget>
#include <algorithm>
#include <cmath>
#include <optional>

namespace pw::gui::severity_style {

// Cell colours for severities. Coloured cells set a light tint *and* a dark text colour so
// they stay legible under both light and dark palettes (foregroundData + backgroundData);
// text without a tint takes its colour from the palette it is drawn on (textOn, textData);
// info cells keep the palette's own.
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

// `a` moved a fraction `t` (0..1) of the way to `b`, channel by channel.
inline QColor blend(const QColor &a, const QColor &b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

// WCAG 2: the relative luminance of a colour and the contrast ratio of two (1 to 21).
inline double luminance(const QColor &c)
{
    const auto channel = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

inline double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

inline constexpr double kReadable = 4.5; // WCAG AA for body text

// `wanted` made readable on `background`: as it is when it reads at kReadable or better,
// else darkened (on a light background) or lightened (on a dark one) until it does.
inline QColor readableOn(QColor wanted, const QColor &background)
{
    const bool darkBackground = luminance(background) < 0.18;
    for (int step = 0; step < 40 && contrast(wanted, background) < kReadable; ++step)
        wanted = darkBackground ? wanted.lighter(112) : wanted.darker(112);
    if (contrast(wanted, background) < kReadable) // a pure hue that cannot move far enough
        wanted = darkBackground ? QColor(Qt::white) : QColor(Qt::black);
    return wanted;
}

// Text of `tone` on an untinted background (the view's Base, a dialog's Window): a deep shade
// on a light palette, a pale one on a dark palette, at WCAG AA contrast either way. Neutral:
// the palette's own text colour, returned invalid.
inline QColor textOn(Tone tone, const QColor &background)
{
    const bool dark = luminance(background) < 0.18;
    QColor c;
    switch (tone) {
    case Tone::Block:
        c = dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb7, 0x1c, 0x1c);
        break;
    case Tone::Review:
        c = dark ? QColor(0xff, 0xcc, 0x80) : QColor(0x7a, 0x4a, 0x00);
        break;
    case Tone::Good:
        c = dark ? QColor(0xa5, 0xd6, 0xa7) : QColor(0x1b, 0x5e, 0x20);
        break;
    case Tone::Neutral:
        return {};
    }
    return readableOn(c, background);
}

// A problem sentence under a form (validation text) on `palette`'s window.
inline QColor problemText(const QPalette &palette)
{
    return textOn(Tone::Block, palette.color(QPalette::Window));
}

// Secondary text (a caption, the file a form writes) on `palette`'s window: between the text
// and the window colour, never below kReadable.
inline QColor mutedText(const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    const QColor window = palette.color(QPalette::Window);
    for (double t = 0.35; t > 0; t -= 0.05) {
        if (contrast(blend(text, window, t), window) >= kReadable)
            return blend(text, window, t);
    }
    return text;
}

// A label's text in `colour` (its palette's WindowText).
inline void setTextColour(QWidget *label, const QColor &colour)
{
    QPalette p = label->palette();
    p.setColor(QPalette::WindowText, colour);
    label->setPalette(p);
}

// data() helper for text of `tone` in a cell without a tint of its own: readable on the
// application palette's Base (light or dark).
inline QVariant textData(Tone tone)
{
    const QColor c = textOn(tone, QGuiApplication::palette().color(QPalette::Base));
    return c.isValid() ? QVariant(QBrush(c)) : QVariant();
}

} // namespace pw::gui::severity_style
