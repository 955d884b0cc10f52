#include "audit/TestPairing.h"

#include "audit/ManifestDiff.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

namespace pw::core {
namespace {

// Statement-similarity thresholds (percent) of step 3, see the header.
constexpr int kSameLeafMoved = 50;
constexpr int kSameLeafKept = 70;
constexpr int kRenamedInPlace = 70;
constexpr int kRenamedMoved = 75;
constexpr int kRenamedKept = 85;
// A statement found in more head tests than this is boilerplate (`runner = CliRunner()`):
// it does not make two tests candidates on its own (it still counts in their similarity).
constexpr size_t kMaxPostings = 64;

std::string leafOf(const std::string &name)
{
    const size_t colon = name.rfind("::");
    return colon == std::string::npos ? name : name.substr(colon + 2);
}

std::string containerOf(const std::string &file, const std::string &name)
{
    const size_t colon = name.rfind("::");
    return file + "::" + (colon == std::string::npos ? std::string() : name.substr(0, colon));
}

struct Side
{
    const TestRef *ref;
    std::string file;      // in head coordinates (a base file through the renames)
    std::string container; // file + "::" + class chain
    std::string leaf;
    int partner = -1;
    TestMatch match = TestMatch::Name;
    int similarity = 100;
};

std::vector<Side> sides(const std::vector<TestRef> &refs,
                        const std::map<std::string, std::string> *renamed)
{
    std::vector<Side> out;
    out.reserve(refs.size());
    for (const TestRef &r : refs) {
        std::string file = r.file;
        if (renamed) {
            if (const auto it = renamed->find(file); it != renamed->end())
                file = it->second;
        }
        const std::string &name = r.facts->name;
        out.push_back({&r, file, containerOf(file, name), leafOf(name)});
    }
    return out;
}

void link(Side &b, int bi, Side &h, int hi, TestMatch match, int similarity)
{
    b.partner = hi;
    h.partner = bi;
    b.match = h.match = match;
    b.similarity = h.similarity = similarity;
}

// 1. same file, same qualified name.
void byName(std::vector<Side> &base, std::vector<Side> &head)
{
    std::map<std::pair<std::string, std::string>, int> index;
    for (size_t i = 0; i < base.size(); ++i)
        index.emplace(std::make_pair(base[i].file, base[i].ref->facts->name), int(i));
    for (size_t h = 0; h < head.size(); ++h) {
        const auto it = index.find({head[h].file, head[h].ref->facts->name});
        if (it != index.end() && base[size_t(it->second)].partner < 0)
            link(base[size_t(it->second)], it->second, head[h], int(h), TestMatch::Name, 100);
    }
}

// 2. identical body hash, one to one; a same-leaf, same-container partner first.
void byBody(std::vector<Side> &base, std::vector<Side> &head)
{
    std::unordered_map<std::string, std::vector<int>> headByHash;
    for (size_t h = 0; h < head.size(); ++h) {
        if (head[h].partner < 0 && !head[h].ref->facts->bodyHash.empty())
            headByHash[head[h].ref->facts->bodyHash].push_back(int(h));
    }
    for (size_t b = 0; b < base.size(); ++b) {
        Side &s = base[b];
        if (s.partner >= 0 || s.ref->facts->bodyHash.empty())
            continue;
        const auto it = headByHash.find(s.ref->facts->bodyHash);
        if (it == headByHash.end())
            continue;
        int best = -1;
        std::pair<int, int> bestRank{-1, -1};
        for (int h : it->second) {
            if (head[size_t(h)].partner >= 0)
                continue;
            const std::pair<int, int> rank{head[size_t(h)].leaf == s.leaf ? 1 : 0,
                                           head[size_t(h)].container == s.container ? 1 : 0};
            if (rank > bestRank) {
                bestRank = rank;
                best = h;
            }
        }
        if (best >= 0)
            link(s, int(b), head[size_t(best)], best, TestMatch::Body, 100);
    }
}

// 3. statement similarity above the threshold the names and containers ask for.
void bySimilarity(std::vector<Side> &base, std::vector<Side> &head)
{
    std::set<std::string> baseContainers, headContainers;
    for (const Side &s : base)
        baseContainers.insert(s.container);
    for (const Side &s : head)
        headContainers.insert(s.container);

    std::unordered_map<std::string, std::vector<int>> postings; // statement → head tests
    for (size_t h = 0; h < head.size(); ++h) {
        if (head[h].partner >= 0)
            continue;
        const std::vector<std::string> &stmts = head[h].ref->facts->statements;
        for (size_t k = 0; k < stmts.size(); ++k) {
            if (k == 0 || stmts[k] != stmts[k - 1])
                postings[stmts[k]].push_back(int(h));
        }
    }

    struct Candidate
    {
        int similarity, sameLeaf, sameContainer, base, head;
    };
    std::vector<Candidate> candidates;
    for (size_t b = 0; b < base.size(); ++b) {
        const Side &s = base[b];
        if (s.partner >= 0)
            continue;
        std::set<int> heads;
        for (const std::string &stmt : s.ref->facts->statements) {
            const auto it = postings.find(stmt);
            if (it != postings.end() && it->second.size() <= kMaxPostings)
                heads.insert(it->second.begin(), it->second.end());
        }
        for (int h : heads) {
            const Side &t = head[size_t(h)];
            const int sim = statementSimilarity(s.ref->facts->statements, t.ref->facts->statements);
            const bool sameLeaf = s.leaf == t.leaf;
            const bool sameContainer = s.container == t.container;
            // A class or file that is gone at head or new there: its tests moved.
            const bool moved =
                !headContainers.count(s.container) || !baseContainers.count(t.container);
            const int threshold = sameLeaf        ? (moved ? kSameLeafMoved : kSameLeafKept)
                                  : sameContainer ? kRenamedInPlace
                                  : moved         ? kRenamedMoved
                                                  : kRenamedKept;
            if (sim >= threshold && sim > 0)
                candidates.push_back({sim, sameLeaf ? 1 : 0, sameContainer ? 1 : 0, int(b), h});
        }
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate &x, const Candidate &y) {
        return std::make_tuple(-x.similarity, -x.sameLeaf, -x.sameContainer, x.base, x.head) <
               std::make_tuple(-y.similarity, -y.sameLeaf, -y.sameContainer, y.base, y.head);
    });
    for (const Candidate &c : candidates) {
        Side &b = base[size_t(c.base)];
        Side &h = head[size_t(c.head)];
        if (b.partner < 0 && h.partner < 0)
            link(b, c.base, h, c.head, TestMatch::Similar, c.similarity);
    }
}

} // namespace

int statementSimilarity(const std::vector<std::string> &a, const std::vector<std::string> &b)
{
    if (a.empty() && b.empty())
        return 100;
    size_t common = 0;
    for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
        if (a[i] == b[j]) {
            ++common;
            ++i;
            ++j;
        } else if (a[i] < b[j]) {
            ++i;
        } else {
            ++j;
        }
    }
    return int(200 * common / (a.size() + b.size()));
}

std::vector<TestPair> matchTests(const std::vector<TestRef> &base, const std::vector<TestRef> &head,
                                 const std::map<std::string, std::string> &renamedFiles)
{
    std::vector<Side> b = sides(base, &renamedFiles);
    std::vector<Side> h = sides(head, nullptr);
    byName(b, h);
    byBody(b, h);
    bySimilarity(b, h);

    std::vector<TestPair> pairs;
    pairs.reserve(b.size() + h.size());
    for (const Side &s : h) {
        TestPair p;
        p.head = s.ref->facts;
        p.headFile = s.ref->file;
        if (s.partner >= 0) {
            const TestRef &partner = *b[size_t(s.partner)].ref;
            p.base = partner.facts;
            p.baseFile = partner.file;
            p.match = s.match;
            p.similarity = s.similarity;
        }
        pairs.push_back(std::move(p));
    }
    for (const Side &s : b) {
        if (s.partner < 0) {
            TestPair p;
            p.base = s.ref->facts;
            p.baseFile = s.ref->file;
            pairs.push_back(std::move(p));
        }
    }
    return pairs;
}

std::vector<TestPair> pairPatchTests(const std::vector<TestFileChange> &changes)
{
    std::vector<TestRef> base, head;
    std::map<std::string, std::string> renamed;
    for (const TestFileChange &c : changes) {
        if ((c.base && c.base->error) || (c.head && c.head->error))
            continue;
        if (c.base) {
            for (const TestFunctionFacts &t : c.base->tests)
                base.push_back({c.basePath, &t});
        }
        if (c.head) {
            for (const TestFunctionFacts &t : c.head->tests)
                head.push_back({c.path, &t});
        }
        if (c.base && c.head && c.basePath != c.path)
            renamed[c.basePath] = c.path;
    }
    return matchTests(base, head, renamed);
}

} // namespace pw::core
