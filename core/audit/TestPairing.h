#pragma once

#include "python/TestFacts.h"

#include <map>
#include <string>
#include <vector>

namespace pw::core {

struct TestFileChange;

// How a base test and a head test were found to be one test (tests are matched
// across a renamed or moved class or file by name and body similarity, like files).
enum class TestMatch
{
    Name,   // the same qualified name in the same file (or the file's rename)
    Body,   // the same body hash under another name, class or file: a pure rename or move
    Similar // most of its statements kept under another name, class or file
};

// One test of one side: the file it is in (that side's path) and its facts.
struct TestRef
{
    std::string file;
    const TestFunctionFacts *facts = nullptr;
};

// A test at base and/or at head; one side is null when the test exists only on the other.
struct TestPair
{
    const TestFunctionFacts *base = nullptr;
    const TestFunctionFacts *head = nullptr;
    std::string baseFile; // the base side's file (its base path); empty without a base side
    std::string headFile; // the head side's file; empty without a head side
    TestMatch match = TestMatch::Name;
    // Percent of statements the two bodies share (Dice over the statement multisets);
    // 100 for Name and Body pairs.
    int similarity = 100;

    // A pair found under another name, class or file (Body or Similar).
    bool renamed() const { return base && head && match != TestMatch::Name; }
};

// Pairs the tests of `base` with those of `head`:
//  1. by qualified name in the same file (base files mapped through `renamedFiles`, base
//     path → head path, the renames git found);
//  2. the rest by identical body hash, one to one (the same leaf name, then the same class
//     and file, first);
//  3. the rest by statement similarity, one to one, best first, when at least
//       50% with the same leaf name and a class or file that is gone or new (a class
//          renamed in place, a file moved),
//       70% with the same leaf name between classes/files that exist on both sides, or
//          another leaf name in the same class and file (renamed and edited slightly),
//       75% with another leaf name in a class or file that is gone or new,
//       85% with another leaf name between classes/files that exist on both sides.
// Only tests left unpaired by an earlier step are candidates of a later one, so a deleted
// test can never be matched to a test that already has its own base counterpart.
// Pairs keep head order, then the base-only tests in base order.
std::vector<TestPair> matchTests(const std::vector<TestRef> &base, const std::vector<TestRef> &head,
                                 const std::map<std::string, std::string> &renamedFiles = {});

// The tests of every test file a patch changed, matched across them (a test moved from one
// changed file to another is a pair). Files with a side that does not parse take no part:
// their tests are not compared (PARSE_ERROR says why).
std::vector<TestPair> pairPatchTests(const std::vector<TestFileChange> &changes);

// Dice similarity of two sorted statement-hash multisets, in percent (rounded down).
int statementSimilarity(const std::vector<std::string> &a, const std::vector<std::string> &b);

} // namespace pw::core
