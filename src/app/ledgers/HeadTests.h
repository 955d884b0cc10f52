#pragma once

#include "audit/ReviewTarget.h"
#include "python/TestsAtRevision.h"

#include <QObject>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace pw::gui {

// The tests of the audited head as the ledger desk asks for them while a reviewer types:
// answered from what is known (the audit reads the files its findings and ledgers name),
// and looked up on a thread of its own when not — the GUI thread never reads git or starts
// the fact extractor. changed() says an answer arrived; the forms validate again.
class HeadTests : public QObject
{
    Q_OBJECT
public:
    struct File
    {
        std::vector<std::string> ids;    // "path::name", as TestsAtRevision lists them
        std::vector<std::string> guards; // TestsAtRevision::guardsFor
        std::string problem;             // why the file's tests are unknown; "" when known
    };
    using Files = std::map<std::string, File>;

    // `known`: what was read already (read()); the rest is looked up in `target`'s head
    // with its interpreter and fact cache.
    // `side` names the revision in messages ("head"; "base" for a desk's base lookups).
    HeadTests(core::ReviewTarget target, Files known, std::string side = "head");
    ~HeadTests() override; // stops the lookup thread and waits for it

    // The files of `lookup`'s revision, as File values (on the calling thread).
    // Stops between files when `stop` is requested (what was read so far).
    static Files read(core::TestsAtRevision &lookup, const std::vector<std::string> &files,
                      std::stop_token stop = {});

    // The tests of `file` when known; else null, and a lookup is started (changed() follows).
    const File *find(const std::string &file);
    // Whether the test exists at head, for the validator: throws core::Error::harness while
    // the file is being looked up, or when its tests cannot be known (the file's problem).
    bool contains(const std::string &testId);
    // Nothing asked for is still being looked up (for tests).
    bool idle() const;

Q_SIGNALS:
    void changed();

private:
    void work(std::stop_token stop);
    void deliver(Files files);

    core::ReviewTarget m_target;
    std::string m_side;
    Files m_known;                 // GUI thread
    std::set<std::string> m_asked; // GUI thread: being looked up
    mutable std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::deque<std::string> m_queue; // under m_mutex
    std::jthread m_thread;           // last: started when everything it uses exists
};

} // namespace pw::gui
