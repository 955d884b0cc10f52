#include "CliSupport.h"

#include "Cli.h"
#include "ledger/LedgerDate.h"

#include <QDir>

namespace pw::cli {

void printText(FILE *f, const std::string &text)
{
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
}

int usageError(FILE *err, const std::string &message)
{
    printText(err, "patchwitness-cli: " + message + "\n");
    return ExitUsage;
}

int usageError(FILE *err, const char *message)
{
    return usageError(err, std::string(message));
}

std::optional<int> integerValue(const QString &text, const QCommandLineOption &o,
                                const std::string &command, FILE *err, int *exitCode, int minimum)
{
    bool ok = false;
    const int n = text.toInt(&ok);
    if (ok && n >= minimum)
        return n;
    *exitCode = usageError(err, command + ": --" + o.names().constFirst().toStdString() +
                                    " must be an integer of at least " + std::to_string(minimum) +
                                    ", not '" + text.toStdString() + "'");
    return std::nullopt;
}

int usageError(FILE *err, const QString &message)
{
    return usageError(err, message.toStdString());
}

QCommandLineOption option(const char *name, const char *help, const char *value,
                          const char *defaultValue)
{
    if (!value)
        return QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help));
    return QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help),
                              QString::fromLatin1(value),
                              defaultValue ? QString::fromLatin1(defaultValue) : QString());
}

std::optional<int> parseCommandLine(QCommandLineParser &p, const QString &command,
                                    const QStringList &arguments, FILE *out, FILE *err,
                                    const QString &errorPrefix)
{
    QStringList args = arguments;
    args.prepend(QStringLiteral("patchwitness-cli ") + command);
    if (!p.parse(args))
        return usageError(err, errorPrefix + p.errorText());
    if (p.isSet(QStringLiteral("help"))) {
        printText(out, p.helpText().toStdString());
        return ExitPass;
    }
    return std::nullopt;
}

std::optional<int> refusePositionals(const QCommandLineParser &p, const QString &command, FILE *err)
{
    if (p.positionalArguments().isEmpty())
        return std::nullopt;
    return usageError(err, QStringLiteral("%1: unexpected argument '%2'")
                               .arg(command, p.positionalArguments().constFirst()));
}

std::optional<int> requireTextOrJson(const QCommandLineParser &p, const QCommandLineOption &format,
                                     const QString &command, FILE *err)
{
    const QString fmt = p.value(format);
    if (fmt == QLatin1String("text") || fmt == QLatin1String("json"))
        return std::nullopt;
    return usageError(err,
                      QStringLiteral("%1: unknown --format '%2' (text, json)").arg(command, fmt));
}

std::optional<QDate> parseDay(const QString &text)
{
    const std::optional<QDate> day = core::parseLedgerDate(text.toStdString());
    if (!day || text.size() != 10)
        return std::nullopt;
    return day;
}

std::optional<int> checkToday(const QCommandLineParser &p, const QCommandLineOption &today,
                              const QString &command, FILE *err)
{
    if (!p.isSet(today) || parseDay(p.value(today)))
        return std::nullopt;
    return usageError(err, QStringLiteral("%1: --today: '%2' is not a date (YYYY-MM-DD)")
                               .arg(command, p.value(today)));
}

void printWarnings(FILE *err, const std::vector<std::string> &warnings)
{
    for (const std::string &w : warnings)
        printText(err, "warning: " + w + "\n");
}

int failureExit(const std::string &command, bool interrupted, const std::string &error, FILE *err)
{
    if (!interrupted && error.empty())
        return ExitPass;
    printText(err,
              "patchwitness-cli: " + command + ": " + (interrupted ? "interrupted" : error) + "\n");
    return ExitInternal;
}

int verdictExit(core::Verdict verdict, bool reviewOk)
{
    switch (verdict) {
    case core::Verdict::Pass:
        return ExitPass;
    case core::Verdict::Block:
        return ExitBlock;
    case core::Verdict::Review:
        return reviewOk ? ExitPass : ExitReview;
    }
    return ExitInternal;
}

std::string pad(const std::string &text, size_t width)
{
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string padLeft(const std::string &text, size_t width)
{
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

std::string relativeTo(const std::string &root, const std::string &path)
{
    const QString rel =
        QDir(QString::fromStdString(root)).relativeFilePath(QString::fromStdString(path));
    return rel.startsWith(QLatin1String("..")) ? path : rel.toStdString();
}

} // namespace pw::cli
