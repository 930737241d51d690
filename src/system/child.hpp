// Runs a function in a forked child process under a deadline. The child writes lines to a
// pipe; the parent collects them and kills the child (SIGKILL) at the deadline. Whatever the
// child does (hang in a driver call on a wedged GPU, crash inside a library), the parent gets a
// value back: NVML and the CUDA driver are only ever touched in such a child.
#ifndef ENVCHECK_SYSTEM_CHILD_HPP
#define ENVCHECK_SYSTEM_CHILD_HPP

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::system
{
    using LineWriter = std::function<void(std::string_view line)>;
    // The child's work: writes lines (no '\n' inside) and returns its exit status.
    using ChildBody = std::function<int(const LineWriter& write_line)>;

    struct ChildResult
    {
        std::vector<std::string> lines;
        bool timed_out = false;
        std::optional<int> exit_code;
        std::optional<int> signal;
        std::string start_error; // fork() or pipe() failed
        std::chrono::milliseconds elapsed{ 0 };

        // "timed out after 20 s", "was killed by signal 11 (Segmentation fault)", "exited with 3".
        [[nodiscard]] auto describe(std::chrono::milliseconds timeout) const -> std::string;
    };

    // "20" for whole seconds, "0.5" otherwise.
    [[nodiscard]] auto format_seconds(std::chrono::milliseconds duration) -> std::string;

    [[nodiscard]] auto run_in_child(const ChildBody& body, std::chrono::milliseconds timeout)
      -> ChildResult;
}

#endif
