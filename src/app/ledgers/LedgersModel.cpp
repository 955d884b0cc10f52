#include "LedgersModel.h"

#include "ledger/LedgerDate.h"
#include "panels/EvidenceRoles.h"
#include "panels/PanelText.h"
#include "panels/SeverityStyle.h"

#include <QFont>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace pw::gui {

namespace style = severity_style;

namespace {

std::string baseName(const std::string &path)
{
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Files in LedgerSet::fileNames() order; anything else after them.
int fileRank(const std::string &file)
{
    const std::vector<std::string> &names = core::LedgerSet::fileNames();
    const auto it = std::find(names.begin(), names.end(), baseName(file));
    return int(it - names.begin());
}

LedgerRow::Kind kindOfFile(const std::string &file)
{
    const std::string name = baseName(file);
    if (name == core::QuarantineLedger::kFileName)
        return LedgerRow::Kind::Freeze;
    if (name == core::WaiverLedger::kFileName)
        return LedgerRow::Kind::Waiver;
    if (name == core::SeedJournal::kFileName)
        return LedgerRow::Kind::Journal;
    if (name == core::FixtureDigestLedger::kFileName)
        return LedgerRow::Kind::Fixture;
    if (name == core::PropertyBudget::kFileName)
        return LedgerRow::Kind::Budget;
    return LedgerRow::Kind::File;
}

bool sameProblem(const core::LedgerProblem &a, const core::LedgerProblem &b)
{
    return a.file == b.file && a.line == b.line && a.column == b.column && a.entry == b.entry &&
           a.field == b.field && a.rule == b.rule && a.message == b.message;
}

style::Tone toneOf(const LedgerRow &row)
{
    return style::toneForSeverity(row.severity());
}

// A round badge in the status cell: red, amber, green (valid) or grey (open journal row, an
// entry not on the base yet), drawn once per tone.
QIcon badgeIcon(const LedgerRow &row)
{
    enum
    {
        Red,
        Amber,
        Green,
        Grey,
        Count
    };
    static QIcon icons[Count];
    int which = Green;
    switch (row.status) {
    case LedgerRow::Status::Problem:
    case LedgerRow::Status::Expired:
        which = Red;
        break;
    case LedgerRow::Status::Expiring:
        which = Amber;
        break;
    case LedgerRow::Status::Open:
        which = Grey;
        break;
    case LedgerRow::Status::Valid:
        if (!row.onBase || row.changedFromBase) // valid, but counts once committed on the base
            which = Grey;
        break;
    }
    if (icons[which].isNull()) {
        const QColor colours[Count] = {QColor(0xd3, 0x2f, 0x2f), QColor(0xf0, 0x9a, 0x00),
                                       QColor(0x38, 0x8e, 0x3c), QColor(0x90, 0x90, 0x90)};
        QPixmap pixmap(12, 12);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(Qt::NoPen);
        painter.setBrush(colours[which]);
        painter.drawEllipse(QRectF(1.5, 1.5, 9, 9));
        painter.end();
        icons[which] = QIcon(pixmap);
    }
    return icons[which];
}

// The message, led by its field when the message does not name it ("max_workers: must be
// an integer, got a string"; "missing required field `owner`" already does).
QString problemText(const core::LedgerProblem &p)
{
    const QString message = qs(p.message);
    if (p.field.empty() || p.message.find(p.field) != std::string::npos)
        return message;
    return qs(p.field) + QStringLiteral(": ") + message;
}

} // namespace

core::Severity LedgerRow::severity() const
{
    switch (status) {
    case Status::Problem:
    case Status::Expired:
        return core::Severity::Block;
    case Status::Expiring:
        return core::Severity::Review;
    case Status::Valid:
    case Status::Open:
        break;
    }
    return core::Severity::Info;
}

QString LedgersModel::kindName(LedgerRow::Kind kind)
{
    switch (kind) {
    case LedgerRow::Kind::Freeze:
        return tr("freeze");
    case LedgerRow::Kind::Waiver:
        return tr("waiver");
    case LedgerRow::Kind::Journal:
        return tr("journal");
    case LedgerRow::Kind::Fixture:
        return tr("fixture");
    case LedgerRow::Kind::Budget:
        return tr("budget");
    case LedgerRow::Kind::File:
        return tr("file");
    case LedgerRow::Kind::Run:
        return tr("run");
    }
    return {};
}

QString LedgersModel::baseSuffix(const LedgerRow &row)
{
    return !row.onBase           ? tr(" · not on base")
           : row.changedFromBase ? tr(" · changed since base")
                                 : QString();
}

QString LedgersModel::statusText(const LedgerRow &row)
{
    const int n = int(row.problems.size());
    switch (row.status) {
    case LedgerRow::Status::Valid:
        return tr("valid") + baseSuffix(row);
    case LedgerRow::Status::Open:
        return tr("open") + baseSuffix(row);
    case LedgerRow::Status::Expiring:
        return tr("expiring") + baseSuffix(row);
    case LedgerRow::Status::Expired:
        return n > 1 ? tr("expired · %1 problems").arg(n) : tr("expired");
    case LedgerRow::Status::Problem:
        return n > 1 ? tr("%1 problems").arg(n) : tr("problem");
    }
    return {};
}

void LedgersModel::clear()
{
    m_ledgerRows.clear();
    m_runRows.clear();
    showRows();
}

void LedgersModel::showRows()
{
    beginResetModel();
    m_rows = m_ledgerRows;
    m_rows.insert(m_rows.end(), m_runRows.begin(), m_runRows.end());
    endResetModel();
}

void LedgersModel::setRunRecords(const std::vector<core::RunRecordFile> &records)
{
    m_runRows.clear();
    for (const core::RunRecordFile &record : records) {
        LedgerRow r;
        r.kind = LedgerRow::Kind::Run;
        r.file = qs(record.file);
        r.entry = qs(record.test.empty() ? record.name() : record.test);
        r.present = !record.test.empty();
        r.recordKind = qs(record.kind);
        r.result = qs(record.result);
        r.problems = record.problems;
        r.line = r.problems.empty() ? 0 : r.problems.front().line;
        if (!r.problems.empty())
            r.status = LedgerRow::Status::Problem;
        m_runRows.push_back(std::move(r));
    }
    showRows();
}

void LedgersModel::setLedgers(const core::LedgerSet &set,
                              const std::vector<core::LedgerProblem> &problems, const QDate &today,
                              int expiringSoonDays)
{
    std::vector<LedgerRow> rows;
    auto entryRow = [&](LedgerRow::Kind kind, const std::string &file, const std::string &id,
                        const core::LedgerEntryInfo &info, int index) -> LedgerRow & {
        LedgerRow r;
        r.kind = kind;
        r.file = qs(file);
        r.entry = qs(id);
        r.line = info.line;
        r.index = index;
        rows.push_back(std::move(r));
        return rows.back();
    };

    if (set.quarantine) {
        int i = 0;
        for (const core::QuarantineEntry &e : set.quarantine->entries) {
            LedgerRow &r =
                entryRow(LedgerRow::Kind::Freeze, set.quarantine->file, e.id(), e.info, i++);
            r.owner = qs(e.owner.value_or(std::string()));
            r.expires = e.expires;
            if (e.expires)
                r.daysLeft = int(today.daysTo(*e.expires));
            const bool active = e.opened && e.expires && *e.opened <= today && today < *e.expires;
            if (e.expires && today >= *e.expires)
                r.status = LedgerRow::Status::Expired;
            else if (active && r.daysLeft <= expiringSoonDays)
                r.status = LedgerRow::Status::Expiring;
        }
    }
    if (set.waivers) {
        int i = 0;
        for (const core::WaiverEntry &e : set.waivers->entries) {
            LedgerRow &r =
                entryRow(LedgerRow::Kind::Waiver, set.waivers->file, e.id(), e.info, i++);
            r.owner = qs(e.approvedBy.value_or(std::string()));
        }
    }
    if (set.journal) {
        int i = 0;
        for (const core::JournalRow &row : set.journal->rows) {
            LedgerRow &r =
                entryRow(LedgerRow::Kind::Journal, set.journal->file, row.key(), row.info, i++);
            r.owner = qs(row.closedBy.value_or(std::string()));
            if (row.isOpen())
                r.status = LedgerRow::Status::Open;
        }
    }
    if (set.fixtureDigest) {
        int i = 0;
        for (const core::FixtureDigestEntry &e : set.fixtureDigest->entries)
            entryRow(LedgerRow::Kind::Fixture, set.fixtureDigest->file, e.path, e.info, i++);
    }
    if (set.propertyBudget) {
        // LedgerValidator names the budget's problems with this entry id.
        entryRow(LedgerRow::Kind::Budget, set.propertyBudget->file, "property_budget",
                 set.propertyBudget->info, 0);
    }

    // The load problems are in `problems` when they come from LedgerValidator::check(set);
    // take them from the set too, so a caller with only entry checks still sees them.
    std::vector<core::LedgerProblem> all = problems;
    for (const core::LedgerProblem &p : set.loadProblems) {
        if (std::none_of(all.begin(), all.end(),
                         [&](const core::LedgerProblem &q) { return sameProblem(p, q); }))
            all.push_back(p);
    }

    // Problems to rows: by file and entry id; of several entries with one id (duplicates),
    // the last one starting at or before the problem's line.
    std::map<std::pair<std::string, std::string>, std::vector<size_t>> byEntry;
    for (size_t i = 0; i < rows.size(); ++i)
        byEntry[{rows[i].file.toStdString(), rows[i].entry.toStdString()}].push_back(i);
    std::map<std::string, size_t> fileRows;
    std::map<std::pair<std::string, std::string>, size_t> absentRows;
    for (const core::LedgerProblem &p : all) {
        size_t target = rows.size();
        if (p.entry.empty()) {
            const auto it = fileRows.find(p.file);
            if (it != fileRows.end()) {
                target = it->second;
            } else {
                LedgerRow r;
                r.kind = LedgerRow::Kind::File;
                r.file = qs(p.file);
                r.entry = qs(baseName(p.file));
                r.line = p.line;
                fileRows[p.file] = rows.size();
                rows.push_back(std::move(r));
            }
        } else if (const auto it = byEntry.find({p.file, p.entry}); it != byEntry.end()) {
            target = it->second.front();
            for (size_t candidate : it->second) {
                if (p.line > 0 && rows[candidate].line <= p.line)
                    target = candidate;
            }
        } else if (const auto absent = absentRows.find({p.file, p.entry});
                   absent != absentRows.end()) {
            target = absent->second;
        } else {
            LedgerRow r;
            r.kind = kindOfFile(p.file);
            r.file = qs(p.file);
            r.entry = qs(p.entry);
            r.line = p.line;
            r.present = false;
            absentRows[{p.file, p.entry}] = rows.size();
            rows.push_back(std::move(r));
        }
        rows[target].problems.push_back(p);
    }
    for (LedgerRow &r : rows) {
        if (!r.problems.empty() && r.status != LedgerRow::Status::Expired)
            r.status = LedgerRow::Status::Problem;
    }

    // Each file's rows together, files in the usual order, a file's own row first and
    // entries only problems name last.
    std::vector<std::tuple<int, std::string, int, size_t>> order;
    for (size_t i = 0; i < rows.size(); ++i) {
        const LedgerRow &r = rows[i];
        const int group = r.kind == LedgerRow::Kind::File ? 0 : r.present ? 1 : 2;
        const std::string file = r.file.toStdString();
        order.emplace_back(fileRank(file), file, group, i);
    }
    std::sort(order.begin(), order.end());
    std::vector<LedgerRow> sorted;
    sorted.reserve(rows.size());
    for (const auto &o : order)
        sorted.push_back(std::move(rows[std::get<3>(o)]));

    m_ledgerRows = std::move(sorted);
    showRows();
}

void LedgersModel::setNotOnBase(const std::map<std::pair<std::string, std::string>, bool> &entries,
                                const QString &countedFrom)
{
    m_countedFrom = countedFrom;
    for (LedgerRow &r : m_ledgerRows) {
        if (r.kind == LedgerRow::Kind::File || r.kind == LedgerRow::Kind::Run || !r.present)
            continue;
        // The property budget is one entry: LedgerSnapshot names it by its file.
        const std::string file = r.file.toStdString();
        const std::string id =
            r.kind == LedgerRow::Kind::Budget ? baseName(file) : r.entry.toStdString();
        const auto it = entries.find({file, id});
        r.onBase = it == entries.end() || !it->second;
        r.changedFromBase = it != entries.end() && !it->second;
    }
    showRows();
}

const LedgerRow *LedgersModel::rowAt(int row) const
{
    return row >= 0 && row < int(m_rows.size()) ? &m_rows[size_t(row)] : nullptr;
}

QString LedgersModel::summary() const
{
    if (m_rows.empty())
        return tr("No ledger entries");
    int entries = 0;
    int withProblems = 0;
    int expiring = 0;
    int unreadable = 0;
    int runRecords = 0;
    int notOnBase = 0;
    int changedFromBase = 0;
    for (const LedgerRow &r : m_rows) {
        if (r.kind == LedgerRow::Kind::Run) {
            ++runRecords;
            if (!r.problems.empty())
                ++withProblems;
            continue;
        }
        if (r.kind == LedgerRow::Kind::File) {
            const bool parse =
                std::any_of(r.problems.begin(), r.problems.end(),
                            [](const core::LedgerProblem &p) { return p.rule == "parse"; });
            (parse ? unreadable : withProblems) += 1;
            continue;
        }
        ++entries;
        if (!r.onBase)
            ++notOnBase;
        if (r.changedFromBase)
            ++changedFromBase;
        if (!r.problems.empty())
            ++withProblems;
        if (r.status == LedgerRow::Status::Expiring)
            ++expiring;
    }
    QStringList parts;
    if (entries || !runRecords)
        parts << (entries == 1 ? tr("1 entry") : tr("%1 entries").arg(entries));
    if (runRecords)
        parts << (runRecords == 1 ? tr("1 run record") : tr("%1 run records").arg(runRecords));
    if (withProblems)
        parts << tr("%1 with problems").arg(withProblems);
    if (expiring)
        parts << tr("%1 expiring soon").arg(expiring);
    if (notOnBase)
        parts << tr("%1 not on the base yet").arg(notOnBase);
    if (changedFromBase)
        parts << tr("%1 changed since the base").arg(changedFromBase);
    if (unreadable)
        parts << (unreadable == 1 ? tr("1 file does not parse")
                                  : tr("%1 files do not parse").arg(unreadable));
    return parts.join(QStringLiteral(" · "));
}

core::Severity LedgersModel::severity() const
{
    core::Severity worst = core::Severity::Info;
    for (const LedgerRow &r : m_rows)
        worst = std::max(worst, r.severity());
    return worst;
}

int LedgersModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LedgersModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString LedgersModel::text(const LedgerRow &r, int column) const
{
    switch (column) {
    case StatusColumn:
        return statusText(r);
    case KindColumn:
        if (r.kind == LedgerRow::Kind::Run)
            return r.recordKind == QLatin1String("shard")   ? tr("shard ledger")
                   : r.recordKind == QLatin1String("rows")  ? tr("run rows")
                   : r.recordKind == QLatin1String("other") ? tr("run file")
                                                            : tr("%1 run").arg(r.recordKind);
        return kindName(r.kind);
    case EntryColumn:
        if (r.kind == LedgerRow::Kind::Run)
            return r.result.isEmpty() ? r.entry
                                      : QString(r.entry + QStringLiteral(" — ") + r.result);
        return r.present ? r.entry : tr("%1 (gone)").arg(r.entry);
    case OwnerColumn:
        return r.owner;
    case ExpiresColumn:
        if (r.kind != LedgerRow::Kind::Freeze || !r.present)
            return {};
        if (!r.expires)
            return QStringLiteral("—");
        if (r.status == LedgerRow::Status::Expiring)
            return r.daysLeft == 1 ? tr("tomorrow") : tr("in %1 days").arg(r.daysLeft);
        return QString::fromStdString(core::ledgerDateText(*r.expires));
    case ProblemColumn:
        return r.problems.empty() ? QString() : problemText(r.problems.front());
    case FileColumn: {
        // The directory is the same for every row; the name and line are what differ.
        const QString name = qs(baseName(r.file.toStdString()));
        return r.line > 0 ? QString(name + QLatin1Char(':') + QString::number(r.line)) : name;
    }
    }
    return {};
}

QString LedgersModel::toolTip(const LedgerRow &r) const
{
    const QString notOnBase =
        !r.onBase ? tr("Not on the base yet: the audit counts the ledgers of %1, so this entry "
                       "answers no finding until it is committed there")
                        .arg(m_countedFrom)
        : r.changedFromBase
            ? tr("Changed since the base: the audit counts the ledgers of %1, whose version of "
                 "this entry counts until this one is committed there")
                  .arg(m_countedFrom)
            : QString();
    if (!r.problems.empty()) {
        QStringList lines;
        for (const core::LedgerProblem &p : r.problems)
            lines << qs(p.toString());
        if (!notOnBase.isEmpty())
            lines << notOnBase;
        return lines.join(QLatin1Char('\n'));
    }
    if (!notOnBase.isEmpty())
        return notOnBase;
    if (r.kind == LedgerRow::Kind::Run)
        return r.result.startsWith(QLatin1String("PRE_EXISTING"))
                   ? tr("%1\nGrant freeze… pre-fills the freeze's evidence from this record")
                         .arg(r.file)
                   : r.file;
    if (r.expires && r.status == LedgerRow::Status::Expiring)
        return tr("Expires on %1 (in %2 days): renew it with a fresh reproduction or restore "
                  "the test")
            .arg(QString::fromStdString(core::ledgerDateText(*r.expires)))
            .arg(r.daysLeft);
    if (r.status == LedgerRow::Status::Open)
        return tr("Open: a human closes it after two consecutive passing replays");
    return {};
}

QVariant LedgersModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const LedgerRow &r = m_rows[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return text(r, index.column());
    case Qt::ToolTipRole:
        return toolTip(r);
    case Qt::DecorationRole:
        if (index.column() == StatusColumn)
            return badgeIcon(r);
        break;
    case Qt::ForegroundRole:
        if (index.column() == StatusColumn) // on its tint
            return style::foregroundData(toneOf(r));
        if ((index.column() == ProblemColumn && r.severity() == core::Severity::Block) ||
            (index.column() == ExpiresColumn && r.severity() != core::Severity::Info))
            return style::textData(toneOf(r));
        if (!r.present && r.kind != LedgerRow::Kind::Run && index.column() == EntryColumn)
            return style::textData(style::Tone::Block);
        break;
    case Qt::BackgroundRole:
        if (index.column() == StatusColumn)
            return style::backgroundData(toneOf(r));
        break;
    case Qt::FontRole:
        if (index.column() == StatusColumn && r.severity() == core::Severity::Block) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    case PathRole:
        return r.file;
    case LineRole:
        return r.line;
    case TestRole:
        // a run file that names no test is listed by its name, which is no test
        return r.kind == LedgerRow::Kind::File || (r.kind == LedgerRow::Kind::Run && !r.present)
                   ? QString()
                   : r.entry;
    case SeverityRole:
        return int(r.severity());
    case CodeRole:
        return QString(); // rows are ledger entries / events, not findings
    case SortRole:
        switch (index.column()) {
        case StatusColumn:
            return int(r.status) * 1000 + int(r.problems.size());
        case ExpiresColumn:
            return r.expires ? r.expires->toJulianDay() : std::numeric_limits<qint64>::max();
        case FileColumn:
            return QString(r.file + QLatin1Char(':') +
                           QStringLiteral("%1").arg(r.line, 8, 10, QLatin1Char('0')));
        default:
            return text(r, index.column());
        }
    }
    return {};
}

QVariant LedgersModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StatusColumn:
        return tr("Status");
    case KindColumn:
        return tr("Kind");
    case EntryColumn:
        return tr("Entry");
    case OwnerColumn:
        return tr("Owner / by");
    case ExpiresColumn:
        return tr("Expires");
    case ProblemColumn:
        return tr("First problem");
    case FileColumn:
        return tr("File");
    }
    return {};
}

} // namespace pw::gui
