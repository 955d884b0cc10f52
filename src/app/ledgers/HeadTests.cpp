#include "ledgers/HeadTests.h"

#include "python/TestsAtRevision.h"
#include "util/Error.h"

#include <QMetaObject>
#include <memory>

namespace pw::gui {

HeadTests::HeadTests(core::ReviewTarget target, Files known, std::string side)
    : m_target(std::move(target)), m_side(std::move(side)), m_known(std::move(known)),
      m_thread([this](std::stop_token stop) { work(stop); })
{
}

HeadTests::~HeadTests()
{
    m_thread.request_stop();
    m_wake.notify_all();
    // ~jthread joins; an extractor it runs ends within its start timeout.
}

HeadTests::Files HeadTests::read(core::TestsAtRevision &lookup,
                                 const std::vector<std::string> &files, std::stop_token stop)
{
    if (stop.stop_requested())
        return {};
    lookup.preload(files);
    Files out;
    for (const std::string &file : files) {
        if (stop.stop_requested()) // a closing desk waits for this thread: no new extractor
            return out;
        const core::TestsAtRevision::FileTests &tests = lookup.load(file);
        File f;
        f.ids = tests.ids;
        f.problem = tests.problem;
        if (tests.problem.empty() && !tests.ids.empty())
            f.guards = lookup.guardsFor(file);
        out[file] = std::move(f);
    }
    return out;
}

const HeadTests::File *HeadTests::find(const std::string &file)
{
    if (const auto known = m_known.find(file); known != m_known.end())
        return &known->second;
    if (m_asked.insert(file).second) {
        {
            const std::lock_guard lock(m_mutex);
            m_queue.push_back(file);
        }
        m_wake.notify_one();
    }
    return nullptr;
}

bool HeadTests::contains(const std::string &testId)
{
    const std::string name = core::TestsAtRevision::nameOf(testId);
    if (name.empty())
        return false;
    const std::string file = core::TestsAtRevision::fileOf(testId);
    const File *tests = find(file);
    if (!tests)
        throw core::Error::harness("the tests of " + file + " at " + m_side +
                                   " are being looked up");
    for (const std::string &id : tests->ids) {
        if (id == file + "::" + name)
            return true;
    }
    if (!tests->problem.empty())
        throw core::Error::harness(tests->problem);
    return false;
}

bool HeadTests::idle() const
{
    return m_asked.empty();
}

void HeadTests::deliver(Files files)
{
    for (auto &[file, tests] : files) {
        m_asked.erase(file);
        m_known[file] = std::move(tests);
    }
    Q_EMIT changed();
}

void HeadTests::work(std::stop_token stop)
{
    std::unique_ptr<core::TestsAtRevision> lookup; // opened on this thread, on the first request
    std::string openProblem;
    for (;;) {
        std::vector<std::string> batch;
        {
            std::unique_lock lock(m_mutex);
            if (!m_wake.wait(lock, stop, [this] { return !m_queue.empty(); }))
                return; // stopped
            batch.assign(m_queue.begin(), m_queue.end());
            m_queue.clear();
        }
        Files found;
        if (!lookup && openProblem.empty()) {
            try {
                // This thread's repository: a PATCH head is applied again, with its cap.
                auto review = std::make_shared<const core::PreparedReview>(
                    core::PreparedReview::reopen(m_target));
                lookup = std::make_unique<core::TestsAtRevision>(
                    std::shared_ptr<const core::Repository>(review, &review->repo()), m_target.head,
                    core::extractorFor(m_target.config, m_target.cacheDir, stop));
            } catch (const core::Error &e) {
                openProblem = "tests at " + m_side + " cannot be looked up: " + e.what();
            }
        }
        if (lookup) {
            found = read(*lookup, batch, stop);
        } else {
            for (const std::string &file : batch)
                found[file].problem = openProblem;
        }
        if (stop.stop_requested())
            return;
        QMetaObject::invokeMethod(
            this, [this, found = std::move(found)]() mutable { deliver(std::move(found)); },
            Qt::QueuedConnection);
    }
}

} // namespace pw::gui
