#include "ledgers/LedgerFormDialog.h"

#include "panels/SeverityStyle.h"
#include "ui_LedgerFormDialog.h"
#include "util/Error.h"

#include <QDir>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>

namespace pw::gui {
namespace {

QString problemLines(const std::vector<core::LedgerProblem> &problems)
{
    QStringList lines;
    for (const core::LedgerProblem &p : problems)
        lines << QString::fromStdString(p.toString());
    return lines.join(QLatin1Char('\n'));
}

std::vector<std::string> splitLines(const std::string &text)
{
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

} // namespace

LedgerFormDialog::LedgerFormDialog(LedgerForm *form, LedgerFormContext context, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::LedgerFormDialog>()), m_form(form),
      m_context(std::move(context)), m_actions(core::LedgerValidator(m_context.validation))
{
    m_ui->setupUi(this);
    setWindowTitle(form->title());
    m_ui->intro->setText(form->intro());
    severity_style::setTextColour(m_ui->fileLabel,
                                  severity_style::mutedText(m_ui->fileLabel->palette()));
    m_ui->formHostLayout->addWidget(form);
    m_ui->preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto *reloadButton =
        m_ui->buttonBox->addButton(tr("Reloa&d File"), QDialogButtonBox::ResetRole);
    reloadButton->setObjectName(QStringLiteral("reloadButton"));
    reloadButton->setToolTip(tr("Read the ledger file again; the fields keep their values"));
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setText(tr("&Write"));
    connect(reloadButton, &QPushButton::clicked, this, &LedgerFormDialog::reload);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &LedgerFormDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &LedgerFormDialog::reject);
    connect(form, &LedgerForm::changed, this, &LedgerFormDialog::validate);
    // Four lines of problems, whatever their number: the preview and buttons stay put.
    m_ui->problemList->setFixedHeight(4 * m_ui->problemList->fontMetrics().height() +
                                      2 * m_ui->problemList->frameWidth() + 8);
    connect(m_ui->problemList, &QListWidget::itemClicked, this, [](QListWidgetItem *item) {
        if (auto *field = item->data(Qt::UserRole).value<QWidget *>())
            field->setFocus(Qt::OtherFocusReason);
    });
    reload();
    resize(sizeHint().expandedTo(size()));
    // Never taller or wider than the screen (a 1366×768 laptop keeps Write on screen).
    if (const QScreen *on = parent ? parent->screen() : QGuiApplication::primaryScreen())
        resize(size().boundedTo(on->availableGeometry().size() - QSize(16, 48)));
}

LedgerFormDialog::~LedgerFormDialog() = default;

QString LedgerFormDialog::filePath() const
{
    return QDir(m_context.ledgerDir).filePath(m_form->fileName());
}

std::string LedgerFormDialog::origin() const
{
    const QString dir = m_context.displayDir.isEmpty() ? m_context.ledgerDir : m_context.displayDir;
    return QDir::cleanPath(dir + QLatin1Char('/') + m_form->fileName()).toStdString();
}

QString LedgerFormDialog::generalProblems() const
{
    return m_general;
}

QString LedgerFormDialog::previewCaption() const
{
    return m_ui->previewCaption->text();
}

QString LedgerFormDialog::previewText() const
{
    return m_ui->preview->toPlainText();
}

void LedgerFormDialog::setError(const QString &message)
{
    m_lastError = message;
    m_general = message;
    showProblemList();
}

void LedgerFormDialog::showProblemList()
{
    QListWidget *list = m_ui->problemList;
    list->clear();
    const QColor red =
        severity_style::textOn(severity_style::Tone::Block, list->palette().color(QPalette::Base));
    const auto add = [&](const QString &text, QWidget *field) {
        auto *item = new QListWidgetItem(text, list);
        item->setToolTip(text);
        item->setForeground(red);
        item->setData(Qt::UserRole, QVariant::fromValue(field));
    };
    for (const LedgerForm::FieldProblem &p : m_form->fieldProblems()) {
        for (const QString &line : p.reason.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            add(tr("%1: %2").arg(p.label, line), p.widget);
    }
    for (const QString &line : m_general.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        add(line, nullptr);
    if (list->count() == 0) {
        auto *ok = new QListWidgetItem(tr("Nothing to fix: Write adds the lines below."), list);
        ok->setForeground(list->palette().color(QPalette::Disabled, QPalette::Text));
    }
}

void LedgerFormDialog::reload()
{
    m_lastError.clear();
    try {
        m_store = core::LedgerStore::open(filePath().toStdString());
        const QString writes = m_store->existed()
                                   ? tr("Writes %1").arg(QDir::toNativeSeparators(filePath()))
                                   : tr("Creates %1 (it does not exist yet)")
                                         .arg(QDir::toNativeSeparators(filePath()));
        m_ui->fileLabel->setText(m_context.countsWhen.isEmpty()
                                     ? writes
                                     : writes + QLatin1Char('\n') + m_context.countsWhen);
    } catch (const core::Error &e) {
        m_store.reset();
        m_ui->fileLabel->setText(QDir::toNativeSeparators(filePath()));
        m_lastError = QString::fromUtf8(e.what());
    }
    validate();
}

void LedgerFormDialog::validate()
{
    m_valid = false;
    QString general = m_lastError;
    if (!m_context.unavailable.isEmpty())
        general += (general.isEmpty() ? QString() : QStringLiteral("\n")) + m_context.unavailable;
    if (m_store) {
        const std::string &loaded = m_store->loaded();
        try {
            const std::vector<core::LedgerProblem> problems =
                m_form->problems(loaded, origin(), m_actions);
            const std::vector<core::LedgerProblem> rest = m_form->showProblems(problems);
            if (!rest.empty())
                general +=
                    (general.isEmpty() ? QString() : QStringLiteral("\n")) + problemLines(rest);
            m_valid = problems.empty() && m_lastError.isEmpty() && m_context.unavailable.isEmpty();
            showPreview(loaded, m_form->draft(loaded, origin(), m_actions));
        } catch (const core::Error &e) {
            // The file does not parse, or the entry this form edits is gone: nothing to write.
            m_form->showProblems({});
            general += (general.isEmpty() ? QString() : QStringLiteral("\n")) +
                       QString::fromUtf8(e.what());
            m_ui->previewCaption->setText(tr("Nothing can be written."));
            m_ui->preview->clear();
        }
    }
    m_general = general;
    showProblemList();
    QPushButton *ok = m_ui->buttonBox->button(QDialogButtonBox::Ok);
    ok->setEnabled(m_valid);
    ok->setToolTip(m_valid ? tr("Write the entry (atomically)")
                           : tr("Fix the fields marked in red first"));
}

void LedgerFormDialog::showPreview(const std::string &before, const std::string &after)
{
    const std::vector<std::string> a = splitLines(before);
    const std::vector<std::string> b = splitLines(after);
    size_t prefix = 0;
    while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
        ++prefix;
    size_t suffix = 0;
    while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
           a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
        ++suffix;
    const size_t removed = a.size() - prefix - suffix;
    const size_t added = b.size() - prefix - suffix;
    QStringList lines;
    for (size_t i = prefix; i < prefix + added; ++i)
        lines << QString::fromStdString(b[i]);
    const QString file = QString::fromStdString(origin());
    QString caption;
    if (added == 0 && removed == 0)
        caption = tr("%1 stays as it is.").arg(file);
    else if (removed == 0 && prefix == a.size())
        caption = a.empty() ? tr("Creates %1 with:").arg(file)
                            : tr("Appends to %1 after line %2:").arg(file).arg(prefix);
    else if (removed == 0)
        caption = tr("Inserts into %1 after line %2:").arg(file).arg(prefix);
    else if (removed == 1)
        caption = tr("Replaces line %2 of %1 with:").arg(file).arg(prefix + 1);
    else
        caption =
            tr("Replaces lines %2–%3 of %1 with:").arg(file).arg(prefix + 1).arg(prefix + removed);
    m_ui->previewCaption->setText(caption);
    m_ui->preview->setPlainText(lines.join(QLatin1Char('\n')));
}

void LedgerFormDialog::accept()
{
    if (!m_store || !m_valid)
        return;
    try {
        const std::string text = m_form->apply(m_store->loaded(), origin(), m_actions);
        // The evidence first; the ledger's write holds the directory's lock from the re-read
        // through the rename (another writer holding it for longer than 3 s is a refusal).
        core::EvidenceFiles::writeBefore(m_context.ledgerDir.toStdString(),
                                         m_form->companionFiles(),
                                         [&] { m_store->write(text, std::chrono::seconds(3)); });
    } catch (const core::Error &e) {
        // Refused: the file changed on disk, another writer held the lock, or writing failed.
        // Nothing was written and the fields stay as typed.
        m_lastError = QString::fromUtf8(e.what()) +
                      tr("\nNothing was written; your entries are kept. Reload File reads the "
                         "current file.");
        validate();
        return;
    }
    m_written = true;
    Q_EMIT ledgerWritten(filePath());
    QDialog::accept();
}

} // namespace pw::gui
