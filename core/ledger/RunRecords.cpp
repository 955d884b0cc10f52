#include "ledger/RunRecords.h"

#include "ledger/LedgerDate.h"
#include "ledger/LedgerSet.h"
#include "ledger/RunEvidence.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/JsonText.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>
#include <optional>
#include <sstream>

namespace pw::core {
namespace {

using Json = nlohmann::ordered_json;

// Evidence records are a few KB; a file past this is named, not read (the panel reads
// runs/ on the GUI thread).
constexpr qint64 kMaxRecordBytes = 8 * 1024 * 1024;
constexpr long long kMaxShards = 1000000;

LedgerProblem fieldProblem(const RunRecordFile &record, const std::string &field,
                           const std::string &message)
{
    LedgerProblem p;
    p.file = record.file;
    p.entry = record.test;
    p.rule = "field";
    p.field = field;
    p.message = message;
    return p;
}

// An Error::input of the JSON readers as a problem of `record`: "origin: field: message"
// (a field check) names the field; anything else ("origin:line:column: message") is read
// as LedgerSet's parseProblem reads a ledger's.
LedgerProblem problemOf(const RunRecordFile &record, const std::string &what)
{
    static const QRegularExpression field(QStringLiteral("^ ([a-z_]+): (.*)$"),
                                          QRegularExpression::DotMatchesEverythingOption);
    if (what.starts_with(record.file + ":")) {
        const auto f = field.match(QString::fromStdString(what.substr(record.file.size() + 1)));
        if (f.hasMatch())
            return fieldProblem(record, f.captured(1).toStdString(), f.captured(2).toStdString());
    }
    LedgerProblem p = parseProblem(record.file, what);
    p.entry = record.test;
    return p;
}

std::string stringField(const Json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string count(const std::optional<long long> &fails, const std::optional<long long> &runs)
{
    return (fails ? std::to_string(*fails) : std::string("?")) + "/" +
           (runs ? std::to_string(*runs) : std::string("?"));
}

void readAttribution(const std::string &text, RunRecordFile &record)
{
    const AttributionRecord rec = AttributionRecord::parse(text, record.file);
    record.test = rec.test;
    record.recorded = rec.recorded.value_or(std::string());
    std::string result = rec.verdict.value_or("no verdict");
    if (rec.mode)
        result += " · " + *rec.mode;
    if (rec.baseFail || rec.headFail)
        result +=
            " · base " + count(rec.baseFail, rec.runs) + ", head " + count(rec.headFail, rec.runs);
    if (rec.attribution)
        result += " · " + *rec.attribution;
    record.result = result;
}

// A cells record or a shard ledger: the fields the panel shows, a missing test a problem.
void readOther(const Json &root, RunRecordFile &record)
{
    const std::string schema = stringField(root, "schema");
    record.recorded = stringField(root, "recorded");
    if (schema == "patchwitness.cells/1") {
        record.kind = "cells";
        record.test = stringField(root, "test");
        const std::string arm = stringField(root, "arm");
        const std::string attribution = stringField(root, "attribution");
        record.result = (attribution.empty() ? std::string("no attribution") : attribution) +
                        (arm.empty() ? std::string() : " · at " + arm);
    } else if (schema == "patchwitness.shard/1") {
        record.kind = "shard";
        const auto parameters = root.find("parameters");
        if (parameters != root.end() && parameters->is_object())
            record.test = stringField(*parameters, "test");
        const auto shard = root.find("shard");
        std::string name = "shard";
        auto position = [&](const char *key) -> std::optional<long long> {
            const Json value = shard->value(key, Json());
            if (!value.is_number_integer())
                return std::nullopt;
            const long long n = value.get<long long>();
            return n >= 1 && n <= kMaxShards ? std::optional<long long>(n) : std::nullopt;
        };
        if (shard != root.end() && shard->is_object()) {
            const std::optional<long long> index = position("index"), count = position("count");
            if (index && count && *index <= *count)
                name += " " + std::to_string(*index) + "/" + std::to_string(*count);
            else
                record.problems.push_back(fieldProblem(
                    record, "shard", "index and count must be whole numbers, 1 <= index <= count"));
        }
        const std::string kind = stringField(root, "kind");
        record.result = name + (kind.empty() ? std::string() : " of " + kind);
    } else {
        record.kind = "other";
        record.result = schema.empty() ? std::string("no schema") : schema;
        record.problems.push_back(
            fieldProblem(record, "schema",
                         schema.empty() ? "missing: not a patchwitness record"
                                        : "\"" + schema + "\" is not a schema this version reads"));
        return;
    }
    if (record.test.empty())
        record.problems.push_back(fieldProblem(record,
                                               record.kind == "shard" ? "parameters.test" : "test",
                                               "missing (the test id the evidence is about)"));
    if (!record.recorded.empty() && !parseLedgerDate(record.recorded))
        record.problems.push_back(fieldProblem(
            record, "recorded", "\"" + record.recorded + "\" is not a date (YYYY-MM-DD)"));
}

// JSON Lines: one object per line; the count of rows and the first line that does not parse.
void readRows(const std::string &text, RunRecordFile &record)
{
    record.kind = "rows";
    std::istringstream in(text);
    std::string line;
    int number = 0;
    int rows = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        try {
            const Json row = jsontext::parse(line, record.file, number);
            ++rows;
            if (record.test.empty() && row.is_object())
                record.test = stringField(row, "test");
        } catch (const Error &e) {
            if (record.problems.empty())
                record.problems.push_back(problemOf(record, e.what()));
        }
    }
    record.result = std::to_string(rows) + (rows == 1 ? " row" : " rows");
}

} // namespace

std::string RunRecordFile::name() const
{
    const size_t slash = file.rfind('/');
    return slash == std::string::npos ? file : file.substr(slash + 1);
}

std::vector<RunRecordFile> readRunRecords(const std::string &runsDir, const std::string &shownAs)
{
    std::vector<RunRecordFile> out;
    const QDir dir(QString::fromStdString(runsDir));
    if (!dir.exists())
        return out;
    const QStringList names = dir.entryList({QStringLiteral("*.json"), QStringLiteral("*.jsonl")},
                                            QDir::Files, QDir::Name);
    for (const QString &name : names) {
        RunRecordFile record;
        record.file = shownAs + name.toStdString();
        const qint64 size = QFileInfo(dir.filePath(name)).size();
        // A file that is not read at all: one parse problem, and the row says no more.
        auto unread = [&](const std::string &message) {
            LedgerProblem p;
            p.file = record.file;
            p.rule = "parse";
            p.message = message;
            record.kind = "other";
            record.problems.push_back(std::move(p));
            out.push_back(std::move(record));
        };
        if (size > kMaxRecordBytes) {
            unread("too large to be a run record (" + std::to_string(size / (1024 * 1024)) +
                   " MB); not read");
            continue;
        }
        const std::optional<std::string> text = readWholeFile(dir.filePath(name).toStdString());
        if (!text) {
            unread("cannot be read");
            continue;
        }
        if (name.endsWith(QLatin1String(".jsonl"))) {
            readRows(*text, record);
            out.push_back(std::move(record));
            continue;
        }
        try {
            const Json root = jsontext::parse(*text, record.file);
            if (!root.is_object())
                throw Error::input(record.file + ":1:1: a run record must be a JSON object, got " +
                                   jsontext::typeName(root));
            if (stringField(root, "schema") == AttributionRecord::kSchema) {
                record.kind = "attribution";
                record.test = stringField(root, "test");
                readAttribution(*text, record);
            } else {
                readOther(root, record);
            }
        } catch (const Error &e) {
            if (record.kind.empty())
                record.kind = "other";
            record.problems.push_back(problemOf(record, e.what()));
        }
        out.push_back(std::move(record));
    }
    return out;
}

} // namespace pw::core
