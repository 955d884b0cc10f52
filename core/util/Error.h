#pragma once

#include <stdexcept>
#include <string>

namespace pw::core {

// Errors a user can cause (wrong path, unknown revision, broken config, missing
// interpreter) are `Input`; a helper process that crashed or produced garbage is
// `Harness`; work stopped at a safe point because a stop was requested (a std::stop_token:
// Ctrl-C in the CLI, Cancel in the workbench) is `Interrupted`. The CLI maps them to exit
// codes 3, 4 and 4 ("interrupted").
class Error : public std::runtime_error
{
public:
    enum class Kind
    {
        Input,
        Harness,
        Interrupted
    };

    Error(Kind kind, const std::string &message) : std::runtime_error(message), m_kind(kind) {}

    Kind kind() const { return m_kind; }

    static Error input(const std::string &message) { return Error(Kind::Input, message); }
    static Error harness(const std::string &message) { return Error(Kind::Harness, message); }
    // `message` says what was stopped ("materialising base main stopped").
    static Error interrupted(const std::string &message)
    {
        return Error(Kind::Interrupted, message);
    }

private:
    Kind m_kind;
};

} // namespace pw::core
