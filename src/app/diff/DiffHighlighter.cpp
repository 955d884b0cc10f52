#include "DiffHighlighter.h"

#include <QHash>
#include <array>
#include <unordered_map>

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/AbstractHighlighter>
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Format>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/State>
#include <KSyntaxHighlighting/Theme>
#if __has_include(<ksyntaxhighlighting_version.h>)
#include <ksyntaxhighlighting_version.h>
#endif
#endif

namespace pw::gui {

#ifdef PATCHWITNESS_HAVE_KSYNTAXHIGHLIGHTING
namespace {

namespace ksh = KSyntaxHighlighting;

// One repository for the process: loading the definitions takes tens of milliseconds.
// Handed out const so only the const theme methods are used (same code for KF5 and KF6).
const ksh::Repository &repository()
{
    static const ksh::Repository instance;
    return instance;
}

// Turns KSyntaxHighlighting's format callbacks into FormatRanges for one line at a time.
class Engine final : public ksh::AbstractHighlighter
{
public:
    ksh::State run(const QString &text, const ksh::State &state, LineFormats *out)
    {
        m_out = out;
        ksh::State next = highlightLine(QStringView(text), state);
        m_out = nullptr;
        return next;
    }

    void setTheme(const ksh::Theme &theme) override
    {
        AbstractHighlighter::setTheme(theme);
        m_theme = theme;
        m_charFormats.clear();
    }

protected:
    void applyFormat(int offset, int length, const ksh::Format &format) override
    {
        if (!m_out || length <= 0 || format.isDefaultTextStyle(m_theme))
            return;
        auto it = m_charFormats.find(format.id());
        if (it == m_charFormats.end()) {
            // Syntax only: the format's own background would hide the diff colours.
            QTextCharFormat f;
            if (format.hasTextColor(m_theme))
                f.setForeground(format.textColor(m_theme));
            if (format.isBold(m_theme))
                f.setFontWeight(QFont::Bold);
            if (format.isItalic(m_theme))
                f.setFontItalic(true);
            if (format.isUnderline(m_theme))
                f.setFontUnderline(true);
            if (format.isStrikeThrough(m_theme))
                f.setFontStrikeOut(true);
            it = m_charFormats.insert(format.id(), f);
        }
        if (it->isEmpty())
            return;
        QTextLayout::FormatRange range;
        range.start = offset;
        range.length = length;
        range.format = *it;
        m_out->append(range);
    }

private:
    LineFormats *m_out = nullptr;
    ksh::Theme m_theme;
    QHash<quint16, QTextCharFormat> m_charFormats;
};

// The lines of one hunk as one side reads them, and the highlighter state after each
// line highlighted so far (States share their data, so keeping them is cheap).
struct SideRun
{
    bool built = false;
    std::vector<int> sequence; // indices into hunk.lines, in reading order
    std::vector<int> position; // per hunk line: index in `sequence`, -1 if not on this side
    std::vector<ksh::State> after;
};

constexpr size_t kMaxCachedLines = 16384;

} // namespace

struct DiffHighlighter::Impl
{
    const core::FileDiff *file = nullptr;
    Engine engine;
    bool hasDefinition = false;
    bool themed = false;
    std::vector<std::array<SideRun, 2>> runs;
    std::unordered_map<quint64, LineFormats> cache;

    SideRun &run(int hunk, DiffSide side)
    {
        SideRun &r = runs[size_t(hunk)][size_t(side)];
        if (r.built)
            return r;
        r.built = true;
        const auto &lines = file->hunks[size_t(hunk)].lines;
        const auto skip =
            side == DiffSide::Old ? core::DiffLine::Origin::Added : core::DiffLine::Origin::Deleted;
        r.position.assign(lines.size(), -1);
        for (size_t i = 0; i < lines.size(); ++i) {
            if (lines[i].origin == skip)
                continue;
            r.position[i] = int(r.sequence.size());
            r.sequence.push_back(int(i));
        }
        return r;
    }
};

DiffHighlighter::DiffHighlighter() : d(std::make_unique<Impl>())
{
    setDarkTheme(false);
}

DiffHighlighter::~DiffHighlighter() = default;

bool DiffHighlighter::available()
{
    return true;
}

QString DiffHighlighter::description()
{
#ifdef SyntaxHighlighting_VERSION_STRING
    const QString version = QStringLiteral(" " SyntaxHighlighting_VERSION_STRING);
#else
    const QString version;
#endif
    return QStringLiteral("KSyntaxHighlighting (KF%1%2), %3 definitions")
        .arg(QT_VERSION >> 16)
        .arg(version)
        .arg(repository().definitions().size());
}

void DiffHighlighter::setFile(const core::FileDiff *file)
{
    d->file = file;
    d->cache.clear();
    d->runs.clear();
    d->hasDefinition = false;
    if (!file)
        return;
    const ksh::Definition definition =
        repository().definitionForFileName(QString::fromStdString(file->path()));
    d->engine.setDefinition(definition);
    d->hasDefinition = definition.isValid();
    d->runs.resize(file->hunks.size());
}

void DiffHighlighter::setDarkTheme(bool dark)
{
    d->engine.setTheme(
        repository().defaultTheme(dark ? ksh::Repository::DarkTheme : ksh::Repository::LightTheme));
    d->cache.clear(); // the formats were the old theme's; states stay valid
}

void DiffHighlighter::clear()
{
    setFile(nullptr);
}

QString DiffHighlighter::definitionName() const
{
    return d->hasDefinition ? d->engine.definition().name() : QString();
}

std::optional<LineFormats> DiffHighlighter::formats(int hunk, int line, DiffSide side, int *budget)
{
    if (!d->file || !d->hasDefinition || hunk < 0 || hunk >= int(d->runs.size()))
        return LineFormats();
    const auto &lines = d->file->hunks[size_t(hunk)].lines;
    if (line < 0 || line >= int(lines.size()))
        return LineFormats();
    SideRun &run = d->run(hunk, side);
    const int position = run.position[size_t(line)];
    if (position < 0)
        return LineFormats();
    const quint64 key = (quint64(hunk) << 32) | (quint64(line) << 1) | quint64(side);
    if (auto hit = d->cache.find(key); hit != d->cache.end())
        return hit->second;

    auto textOf = [&](int index) {
        const std::string &t = lines[size_t(run.sequence[size_t(index)])].text;
        return QString::fromUtf8(t.data(), int(t.size()));
    };
    // The state at `position` needs every line before it in this hunk side, from a fresh
    // state at the hunk start.
    while (int(run.after.size()) < position) {
        if (budget) {
            if (*budget <= 0)
                return std::nullopt;
            --*budget;
        }
        const int index = int(run.after.size());
        run.after.push_back(
            d->engine.run(textOf(index), index == 0 ? ksh::State() : run.after.back(), nullptr));
    }
    LineFormats out;
    const ksh::State next = d->engine.run(
        textOf(position), position == 0 ? ksh::State() : run.after[size_t(position - 1)], &out);
    if (int(run.after.size()) == position)
        run.after.push_back(next);
    if (d->cache.size() >= kMaxCachedLines)
        d->cache.clear();
    d->cache.emplace(key, out);
    return out;
}

#else // no KSyntaxHighlighting: plain diff colouring

struct DiffHighlighter::Impl
{
};

DiffHighlighter::DiffHighlighter() : d(std::make_unique<Impl>()) {}

DiffHighlighter::~DiffHighlighter() = default;

bool DiffHighlighter::available()
{
    return false;
}

QString DiffHighlighter::description()
{
    return QStringLiteral("not available in this build: KF%1SyntaxHighlighting was not found, "
                          "the diff uses plain diff colouring")
        .arg(QT_VERSION >> 16);
}

void DiffHighlighter::setFile(const core::FileDiff *) {}

void DiffHighlighter::setDarkTheme(bool) {}

void DiffHighlighter::clear() {}

QString DiffHighlighter::definitionName() const
{
    return {};
}

std::optional<LineFormats> DiffHighlighter::formats(int, int, DiffSide, int *)
{
    return LineFormats();
}

#endif

} // namespace pw::gui
