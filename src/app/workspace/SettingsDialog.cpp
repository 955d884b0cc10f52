#include "workspace/SettingsDialog.h"

#include "ledger/Config.h"
#include "panels/SeverityStyle.h"
#include "ui_SettingsDialog.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>

namespace pw::gui {
namespace {

const std::string kPython = "python";
const std::string kTestGlobs = "test_globs";
const std::string kFixtureGlobs = "fixture_globs";
const std::string kLatitude = "latitude_max";
constexpr int kLatitudeMax = 100;

void setStatus(QLabel *label, const QString &text, bool problem)
{
    label->setText(text);
    label->setProperty("problem", problem);
    // Red says "fix this"; an explanation or confirmation stays quiet. Both read at WCAG AA
    // on the dialog's palette, light or dark.
    severity_style::setTextColour(label, problem ? severity_style::problemText(label->palette())
                                                 : severity_style::mutedText(label->palette()));
}

std::vector<std::string> toStd(const QStringList &list)
{
    std::vector<std::string> out;
    out.reserve(size_t(list.size()));
    for (const QString &s : list)
        out.push_back(s.toStdString());
    return out;
}

QString lines(const std::vector<std::string> &items)
{
    QStringList out;
    for (const std::string &s : items)
        out << QString::fromStdString(s);
    return out.join(QLatin1Char('\n'));
}

core::ConfigValue defaultOf(const std::string &key)
{
    const core::Config defaults;
    if (key == kPython)
        return defaults.python;
    if (key == kTestGlobs)
        return defaults.testGlobs;
    if (key == kFixtureGlobs)
        return std::vector<std::string>(); // the built-in fixture globs always apply
    return static_cast<long long>(defaults.latitudeMax);
}

} // namespace

SettingsDialog::SettingsDialog(const QString &repoRoot, const QString &ledgerDir, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::SettingsDialog>()), m_repoRoot(repoRoot),
      m_path(configPathFor(repoRoot, ledgerDir))
{
    m_ui->setupUi(this);
    m_ui->latitudeSpin->setRange(0, kLatitudeMax);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    connect(m_ui->browseButton, &QPushButton::clicked, this, &SettingsDialog::browse);
    load();
    connect(m_ui->pythonEdit, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_ui->testGlobsEdit, &QPlainTextEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_ui->fixtureGlobsEdit, &QPlainTextEdit::textChanged, this, &SettingsDialog::validate);
    connect(m_ui->latitudeSpin, qOverload<int>(&QSpinBox::valueChanged), this,
            &SettingsDialog::validate);
    validate();
}

SettingsDialog::~SettingsDialog() = default;

QString SettingsDialog::configPathFor(const QString &repoRoot, const QString &ledgerDir)
{
    const QString dir = QDir(repoRoot).absoluteFilePath(ledgerDir);
    return QDir::cleanPath(QDir(dir).filePath(QStringLiteral("config.toml")));
}

void SettingsDialog::load()
{
    m_ui->fileLabel->setText(tr("Settings of this repository's static audit, in %1")
                                 .arg(QDir::toNativeSeparators(m_path)));
    m_ui->problemLabel->hide();
    const bool exists = QFileInfo::exists(m_path);
    const std::optional<std::string> bytes = core::readWholeFile(m_path.toStdString());
    if (exists && !bytes) {
        m_loadFailed = true;
        m_ui->problemLabel->setText(tr("Cannot read %1.").arg(m_path));
    }
    m_original = bytes.value_or(std::string());
    const std::string origin = m_path.toStdString();

    try {
        for (const std::string &key : {kPython, kTestGlobs, kFixtureGlobs, kLatitude})
            m_fileValues[key] = core::ConfigEditor::value(m_original, key, origin);
    } catch (const core::Error &e) {
        // Splicing needs toml++'s view of the file: a file that does not parse is fixed
        // by hand first.
        m_loadFailed = true;
        m_ui->problemLabel->setText(
            tr("This file is not valid TOML, so it cannot be edited here: %1")
                .arg(QString::fromUtf8(e.what())));
    }
    if (!m_loadFailed) {
        try {
            core::Config::parse(m_original, origin);
        } catch (const core::Error &e) {
            m_ui->problemLabel->setText(
                tr("The file has a problem; saving requires it to be fixed: %1")
                    .arg(QString::fromUtf8(e.what())));
        }
    }
    if (!m_ui->problemLabel->text().isEmpty()) {
        severity_style::setTextColour(m_ui->problemLabel,
                                      severity_style::problemText(m_ui->problemLabel->palette()));
        m_ui->problemLabel->show();
    }

    auto shown = [&](const std::string &key) {
        const auto &v = m_fileValues[key];
        return v ? *v : defaultOf(key);
    };
    const core::ConfigValue python = shown(kPython);
    m_ui->pythonEdit->setText(std::holds_alternative<std::string>(python)
                                  ? QString::fromStdString(std::get<std::string>(python))
                                  : QString());
    for (auto [key, edit] : {std::pair{kTestGlobs, m_ui->testGlobsEdit},
                             std::pair{kFixtureGlobs, m_ui->fixtureGlobsEdit}}) {
        const core::ConfigValue v = shown(key);
        if (const auto *list = std::get_if<std::vector<std::string>>(&v))
            edit->setPlainText(lines(*list));
        else if (const auto *single = std::get_if<std::string>(&v))
            edit->setPlainText(QString::fromStdString(*single));
    }
    const core::ConfigValue latitude = shown(kLatitude);
    if (const auto *n = std::get_if<long long>(&latitude)) {
        // Show what the file says, even out of range, rather than clamp it silently.
        if (*n > kLatitudeMax)
            m_ui->latitudeSpin->setMaximum(int(std::min<long long>(*n, 1000000000LL)));
        m_ui->latitudeSpin->setValue(int(std::clamp<long long>(*n, 0, 1000000000LL)));
    }

    for (QWidget *w :
         {static_cast<QWidget *>(m_ui->pythonEdit), static_cast<QWidget *>(m_ui->browseButton),
          static_cast<QWidget *>(m_ui->testGlobsEdit),
          static_cast<QWidget *>(m_ui->fixtureGlobsEdit),
          static_cast<QWidget *>(m_ui->latitudeSpin)})
        w->setEnabled(!m_loadFailed);
}

QString SettingsDialog::pythonProblem(const QString &python, const QString &repoRoot,
                                      QString *resolved)
{
    const QString text = python.trimmed();
    if (text.isEmpty())
        return tr("Required: the interpreter that runs the fact extractor.");
    if (text.contains(QLatin1Char('/'))) {
        const QFileInfo info(QDir(repoRoot), text);
        const QString path = QDir::toNativeSeparators(QDir::cleanPath(info.absoluteFilePath()));
        if (!info.exists())
            return tr("%1 does not exist.").arg(path);
        if (info.isDir())
            return tr("%1 is a directory, not an interpreter.").arg(path);
        if (!info.isExecutable())
            return tr("%1 is not executable.").arg(path);
        if (resolved)
            *resolved = path;
        return {};
    }
    const QString found = QStandardPaths::findExecutable(text);
    if (found.isEmpty())
        return tr("“%1” is not on PATH. Give a full path, or choose one with Browse….").arg(text);
    if (resolved)
        *resolved = found;
    return {};
}

QStringList SettingsDialog::globs(const QPlainTextEdit *edit) const
{
    QStringList out;
    for (const QString &line : edit->toPlainText().split(QLatin1Char('\n'))) {
        const QString glob = line.trimmed();
        if (!glob.isEmpty())
            out << glob;
    }
    return out;
}

QString SettingsDialog::globsProblem(const QStringList &globs, bool required) const
{
    if (required && globs.isEmpty())
        return tr("Required: at least one glob, or no file counts as a test.");
    for (int i = 0; i < globs.size(); ++i) {
        const QString &glob = globs.at(i);
        if (glob.startsWith(QLatin1Char('/')))
            return tr("Line %1: globs are relative to the repository; drop the leading /.")
                .arg(i + 1);
        if (glob.count(QLatin1Char('[')) > glob.count(QLatin1Char(']')))
            return tr("Line %1: “%2” opens a [character class] it does not close.")
                .arg(i + 1)
                .arg(glob);
    }
    return {};
}

void SettingsDialog::validate()
{
    QString resolved;
    const QString python = pythonProblem(m_ui->pythonEdit->text(), m_repoRoot, &resolved);
    setStatus(m_ui->pythonStatus,
              python.isEmpty() ? tr("Found: %1").arg(QDir::toNativeSeparators(resolved)) : python,
              !python.isEmpty());

    const QString tests = globsProblem(globs(m_ui->testGlobsEdit), true);
    setStatus(m_ui->testGlobsStatus,
              tests.isEmpty() ? tr("Files matching any of these are test files.") : tests,
              !tests.isEmpty());

    const QString fixtures = globsProblem(globs(m_ui->fixtureGlobsEdit), false);
    setStatus(m_ui->fixtureGlobsStatus,
              fixtures.isEmpty()
                  ? tr("Added to the built-in tests/fixtures/**/* and **/conftest.py.")
                  : fixtures,
              !fixtures.isEmpty());

    const int latitude = m_ui->latitudeSpin->value();
    if (latitude < 1) {
        setStatus(m_ui->latitudeStatus,
                  tr("Must be at least 1: a patch whose oracle latitude reaches this total is "
                     "blocked, so %1 would block every patch.")
                      .arg(latitude),
                  true);
    } else if (latitude > kLatitudeMax) {
        setStatus(m_ui->latitudeStatus, tr("Must be at most %1.").arg(kLatitudeMax), true);
    } else {
        setStatus(m_ui->latitudeStatus,
                  tr("A patch whose oracle latitude reaches %1 is blocked.").arg(latitude), false);
    }

    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(isValid());
}

bool SettingsDialog::isValid() const
{
    if (m_loadFailed)
        return false;
    for (const QLabel *status : {m_ui->pythonStatus, m_ui->testGlobsStatus,
                                 m_ui->fixtureGlobsStatus, m_ui->latitudeStatus}) {
        if (status->property("problem").toBool())
            return false;
    }
    return true;
}

std::map<std::string, core::ConfigValue> SettingsDialog::changes() const
{
    const std::map<std::string, core::ConfigValue> edited = {
        {kPython, m_ui->pythonEdit->text().trimmed().toStdString()},
        {kTestGlobs, toStd(globs(m_ui->testGlobsEdit))},
        {kFixtureGlobs, toStd(globs(m_ui->fixtureGlobsEdit))},
        {kLatitude, static_cast<long long>(m_ui->latitudeSpin->value())},
    };
    std::map<std::string, core::ConfigValue> out;
    for (const auto &[key, value] : edited) {
        const auto file = m_fileValues.find(key);
        const core::ConfigValue before =
            file != m_fileValues.end() && file->second ? *file->second : defaultOf(key);
        if (value != before)
            out.emplace(key, value);
    }
    return out;
}

void SettingsDialog::accept()
{
    if (!isValid())
        return;
    const auto values = changes();
    if (!values.empty()) {
        try {
            m_written = core::ConfigEditor::save(m_path.toStdString(), m_original, values);
        } catch (const std::exception &e) {
            showError(QString::fromUtf8(e.what()));
            return;
        }
    }
    QDialog::accept();
}

void SettingsDialog::showError(const QString &message)
{
    m_lastError = message;
    // Window-modal and non-blocking: the dialog stays open with the user's edits.
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Settings not saved"), message,
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("settingsError"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void SettingsDialog::browse()
{
    QString start;
    pythonProblem(m_ui->pythonEdit->text(), m_repoRoot, &start);
    start = start.isEmpty() ? m_repoRoot : QFileInfo(start).absolutePath();
    const QString file =
        QFileDialog::getOpenFileName(this, tr("Choose the Python interpreter"), start);
    if (!file.isEmpty())
        m_ui->pythonEdit->setText(file);
}

} // namespace pw::gui
