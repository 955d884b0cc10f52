#pragma once

#include "dynamic/Attribution.h"
#include "execution/Shard.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QStringList>
#include <cstdio>
#include <optional>
#include <string>

namespace pw::cli {

// `--shard i/n` and `--out PATH`, shared by every sweep: run CI job i of n (from 1)
// and write its shard ledger to PATH (default: into <ledger dir>/runs/).
struct ShardOptions
{
    QCommandLineOption shard;
    QCommandLineOption out;

    ShardOptions();
    void addTo(QCommandLineParser &p) const;
    // Reads the options into `shard` and `out` (absolute); false with *exitCode set (usage,
    // the message on `err` naming the option and value) when they are wrong.
    bool apply(const QCommandLineParser &p, const std::string &command, FILE *err,
               std::optional<core::Shard> *shard, std::string *out, int *exitCode) const;
};

// A shard's partial tallies: its runs, fail counts and failing seeds, "shard i/n: no
// verdict until merged", and where its ledger went.
std::string shardAttributionText(const std::string &repoRoot, const core::AttributionResult &r);

// `merge SHARD.json…`: joins the shard ledgers of one sweep and prints the whole sweep's
// result as the unsharded command would (its exit code too); --record writes its evidence
// record; --partial merges with shards missing (and says so; exit at least 2).
int mergeCommand(const QStringList &arguments, FILE *out, FILE *err);

} // namespace pw::cli
