#include "SeedMatrixPanel.h"

#include "runs/RunsModel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

namespace pw::gui {

namespace {

const core::Triage kVerdicts[] = {core::Triage::PatchBug, core::Triage::FlakyOracle,
                                  core::Triage::NeedsManualReview, core::Triage::PreExisting,
                                  core::Triage::NoSignal};

} // namespace

SeedMatrixPanel::SeedMatrixPanel(QWidget *parent)
    : QWidget(parent), m_heat(new MatrixHeat(this)), m_view(new HeatmapView(m_heat, this)),
      m_legend(new HeatmapLegend(m_heat, this)), m_filter(new QComboBox(this)),
      m_sort(new QComboBox(this)), m_zoomOut(new QToolButton(this)),
      m_zoomIn(new QToolButton(this)), m_summary(new QLabel(this)), m_triage(new QLabel(this)),
      m_grantFreeze(new QPushButton(tr("&Grant freeze…"), this)),
      m_copyCommand(new QPushButton(tr("Copy &command"), this)), m_log(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("seedMatrixPanel"));
    m_filter->setObjectName(QStringLiteral("matrixFilter"));
    m_sort->setObjectName(QStringLiteral("matrixSort"));
    m_summary->setObjectName(QStringLiteral("matrixSummary"));
    m_triage->setObjectName(QStringLiteral("matrixTriage"));
    m_grantFreeze->setObjectName(QStringLiteral("matrixGrantFreeze"));
    m_copyCommand->setObjectName(QStringLiteral("matrixCopyCommand"));
    m_log->setObjectName(QStringLiteral("matrixCellLog"));

    m_filter->addItem(tr("All verdicts"));
    for (core::Triage t : kVerdicts)
        m_filter->addItem(QString::fromLatin1(core::triageName(t)), int(t));
    m_filter->addItem(tr("No triage"), -1);
    m_filter->setToolTip(tr("Show the tests of one verdict"));
    m_sort->addItem(tr("By verdict"), int(MatrixHeat::Sort::Verdict));
    m_sort->addItem(tr("By test"), int(MatrixHeat::Sort::Test));
    m_sort->addItem(tr("By failing head replays"), int(MatrixHeat::Sort::HeadFails));
    m_zoomOut->setText(QStringLiteral("−"));
    m_zoomOut->setToolTip(tr("Smaller cells (Ctrl+wheel, -)"));
    m_zoomIn->setText(QStringLiteral("+"));
    m_zoomIn->setToolTip(tr("Larger cells (Ctrl+wheel, +)"));
    m_grantFreeze->setEnabled(false);
    m_copyCommand->setEnabled(false);
    m_copyCommand->setToolTip(tr("Copy the selected cell's reproduction command"));
    m_summary->setText(m_heat->summary());
    m_summary->setWordWrap(true);
    m_triage->setWordWrap(true);
    m_triage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_log->setReadOnly(true);
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(
        tr("Click a cell to see its counts, its command and the log of the run that held it."));

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_filter);
    controls->addWidget(m_sort);
    controls->addWidget(m_zoomOut);
    controls->addWidget(m_zoomIn);
    controls->addStretch(1);
    controls->addWidget(m_grantFreeze);
    controls->addWidget(m_copyCommand);
    auto *top = new QWidget(this);
    auto *topColumn = new QVBoxLayout(top);
    topColumn->setContentsMargins(0, 0, 0, 0);
    topColumn->addLayout(controls);
    topColumn->addWidget(m_summary);
    topColumn->addWidget(m_legend);
    topColumn->addWidget(m_view, 1);
    auto *bottom = new QWidget(this);
    auto *bottomColumn = new QVBoxLayout(bottom);
    bottomColumn->setContentsMargins(0, 0, 0, 0);
    bottomColumn->addWidget(m_triage);
    bottomColumn->addWidget(m_log, 1);
    // Side by side: the dock is wide and short, and the heatmap wants every row of it.
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(top);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_filter, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int index) {
        if (index <= 0) {
            m_heat->setFilter(MatrixHeat::Filter::everything());
            return;
        }
        const int value = m_filter->itemData(index).toInt();
        m_heat->setFilter(value < 0 ? MatrixHeat::Filter::untriaged()
                                    : MatrixHeat::Filter::verdict(core::Triage(value)));
    });
    connect(m_sort, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int index) {
        m_heat->setSort(MatrixHeat::Sort(m_sort->itemData(index).toInt()));
    });
    connect(m_zoomOut, &QToolButton::clicked, m_view, &HeatmapView::zoomOut);
    connect(m_zoomIn, &QToolButton::clicked, m_view, &HeatmapView::zoomIn);
    connect(m_heat, &MatrixHeat::changed, this, [this] {
        m_summary->setText(m_heat->summary());
        updateRow();
    });
    // New rows: the log described a cell of the matrix before.
    connect(m_heat, &MatrixHeat::reset, this, [this] {
        m_log->clear();
        m_copyCommand->setEnabled(false);
    });
    connect(m_view, &HeatmapView::currentChanged, this, &SeedMatrixPanel::updateRow);
    connect(m_view, &HeatmapView::cellActivated, this, &SeedMatrixPanel::showCell);
    connect(m_grantFreeze, &QPushButton::clicked, this, [this] {
        const int row = m_view->currentRow();
        if (row < 0 || !freezeRefusal(row).isEmpty())
            return;
        Q_EMIT grantFreezeRequested(m_heat->row(row).test,
                                    QString::fromStdString(m_heat->result()->recordPath));
    });
    connect(m_copyCommand, &QPushButton::clicked, this, [this] {
        const std::optional<HeatmapView::Hit> cell = m_view->currentCell();
        if (!cell)
            return;
        const std::vector<QString> &commands = m_heat->row(cell->row).commands(cell->arm);
        if (size_t(cell->seed) < commands.size())
            QApplication::clipboard()->setText(commands[size_t(cell->seed)]);
    });
    updateRow();
}

bool SeedMatrixPanel::selectTest(const QString &test, std::optional<long long> seed)
{
    const int row = m_heat->rowOf(test);
    if (row < 0)
        return false;
    HeatmapView::Hit hit;
    hit.row = row;
    if (seed) {
        for (size_t s = 0; s < m_heat->seeds().size(); ++s)
            if ((long long)m_heat->seeds()[s] == *seed)
                hit.seed = int(s);
    }
    m_view->setCurrent(hit);
    if (hit.seed >= 0)
        showCell(row, hit.arm, hit.seed);
    return true;
}

void SeedMatrixPanel::setFailure(const QString &text)
{
    m_summary->setText(text);
}

QString SeedMatrixPanel::freezeRefusal(int row) const
{
    if (row < 0 || row >= m_heat->rowCount())
        return tr("Select a test of the matrix");
    if (m_heat->running())
        return tr("The matrix is still running");
    const MatrixHeat::Row &r = m_heat->row(row);
    if (!r.triage)
        return tr("No triage: %1").arg(r.reason);
    switch (*r.triage) {
    case core::Triage::PreExisting:
        break;
    case core::Triage::PatchBug:
        return tr("PATCH_BUG: the patch broke this test (seed %1 fails every replay at head, none "
                  "on the base) — fix the patch, never freeze it")
            .arg(r.witnessSeed.value_or(0));
    case core::Triage::FlakyOracle:
        return tr("FLAKY_ORACLE: seed %1 fails only some replays at head — not freezable yet: "
                  "make the oracle deterministic first")
            .arg(r.flakySeed.value_or(0));
    case core::Triage::NoSignal:
        return tr("NO_SIGNAL: green on every seed at head — nothing to freeze");
    case core::Triage::NeedsManualReview:
        return tr("NEEDS_MANUAL_REVIEW: %1").arg(r.line);
    }
    const core::MatrixResult *result = m_heat->result();
    if (!result || result->recordPath.empty())
        return tr("The matrix was not recorded: its record is the freeze's evidence (run it "
                  "again with recording on)");
    return {};
}

QString SeedMatrixPanel::cellText(int row, core::Arm arm, int seed) const
{
    if (row < 0 || row >= m_heat->rowCount() || seed < 0 || seed >= int(m_heat->seeds().size()))
        return {};
    const MatrixHeat::Row &r = m_heat->row(row);
    const size_t s = size_t(seed);
    const int k = m_heat->replays();
    const QString tree = arm == core::Arm::Base ? tr("baseline") : tr("patched");
    QString text = tr("%1 · %2 · seed %3\n").arg(r.test, tree).arg(m_heat->seeds()[s]);
    if (!r.collected(arm)) {
        text += tr("not collected on this tree\n");
    } else {
        const MatrixHeat::Cell &c = r.cells(arm)[s];
        text += tr("%1 of %2 replays failed").arg(c.fails).arg(k);
        if (c.errors > 0)
            text += tr(", %n no evidence", nullptr, c.errors);
        if (m_heat->running() && c.seen + c.errors < k)
            text += tr(" (%1 reported so far)").arg(c.seen + c.errors);
        text += QLatin1Char('\n');
        const MatrixHeat::Cell &other =
            r.cells(arm == core::Arm::Base ? core::Arm::Head : core::Arm::Base)[s];
        text += tr("the other tree: %1/%2\n").arg(other.fails).arg(k);
    }
    text += r.line + QLatin1Char('\n');
    const std::vector<QString> &commands = r.commands(arm);
    if (s < commands.size())
        text +=
            tr("\nreproduce (a fresh run of the test alone at this seed):\n%1\n").arg(commands[s]);
    const core::MatrixResult *result = m_heat->result();
    if (result && !result->portableCell(r.test.toStdString(), m_heat->seeds()[s]).empty())
        text += tr("from any checkout:\n%1\n")
                    .arg(QString::fromStdString(
                        result->portableCell(r.test.toStdString(), m_heat->seeds()[s])));
    const int run = r.collected(arm) ? r.cells(arm)[s].run : -1;
    if (result && run >= 0 && size_t(run) < result->runs.size())
        text += QStringLiteral("\n") +
                tr("the run that held it (a fork server: one collection, a child per replay):\n") +
                RunsModel::runLog(tr("matrix"), result->runs[size_t(run)]);
    else if (m_heat->running())
        text += tr("\n(the run's log is shown when the matrix ends)\n");
    return text;
}

void SeedMatrixPanel::showCell(int row, core::Arm arm, int seed)
{
    m_log->setPlainText(cellText(row, arm, seed));
    const std::vector<QString> &commands = m_heat->row(row).commands(arm);
    m_copyCommand->setEnabled(size_t(seed) < commands.size());
}

void SeedMatrixPanel::updateRow()
{
    const int row = m_view->currentRow();
    if (row < 0 || row >= m_heat->rowCount()) {
        m_triage->clear();
        m_grantFreeze->setEnabled(false);
        m_grantFreeze->setToolTip(tr("Select a PRE_EXISTING test of a recorded matrix"));
        m_copyCommand->setEnabled(false);
        return;
    }
    const MatrixHeat::Row &r = m_heat->row(row);
    m_triage->setText(
        QStringLiteral("<b>%1</b>: %2").arg(r.test.toHtmlEscaped(), r.line.toHtmlEscaped()));
    const QString refusal = freezeRefusal(row);
    m_grantFreeze->setEnabled(refusal.isEmpty());
    m_grantFreeze->setToolTip(refusal.isEmpty()
                                  ? tr("Open Grant freeze pre-filled from %1")
                                        .arg(QString::fromStdString(m_heat->result()->recordPath))
                                  : refusal);
    const std::optional<HeatmapView::Hit> cell = m_view->currentCell();
    m_copyCommand->setEnabled(cell && size_t(cell->seed) <
                                          m_heat->row(cell->row).commands(cell->arm).size());
}

} // namespace pw::gui
