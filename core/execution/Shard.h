#pragma once

#include <cstddef>
#include <string>

namespace pw::core {

// One CI job's part of a sweep (`--shard i/n`): job `index` of `count`, numbered
// from 1 as CI systems number their jobs (a GitHub Actions matrix of 1..n, GitLab's
// CI_NODE_INDEX, Buildkite's BUILDKITE_PARALLEL_JOB + 1).
//
// A sweep is a list of units in a fixed order (attribution: the i-th base/head pair of
// runs, both arms of one seed together so the pair meets one machine; cells: solo, each
// order seed, isolate, clock). Units are dealt round-robin by position — unit u belongs to
// shard (u mod n) + 1 — so every shard gets a spread of the sweep, and the n shards cover
// every unit exactly once.
struct Shard
{
    int index = 1; // 1..count
    int count = 1;

    // "2/3". Throws Error::input naming `option` and the text, e.g.
    // "--shard 3/2: i must be between 1 and n".
    static Shard parse(const std::string &text, const std::string &option = "--shard");

    bool owns(size_t unit) const { return unit % size_t(count) == size_t(index - 1); }
    std::string name() const; // "2/3"

    bool operator==(const Shard &other) const
    {
        return index == other.index && count == other.count;
    }
};

} // namespace pw::core
