// Running another program without a shell, with a deadline: the framework check (the
// environment's python), scontrol for Slurm. argv is passed as is, so nothing is ever
// interpreted by a shell. The supervisor is fsio/child.hpp's: the program runs in its own
// process group, which is killed at the deadline and when it ends (no orphans).
#ifndef ENVCHECK_FSIO_PROCESS_HPP
#define ENVCHECK_FSIO_PROCESS_HPP

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace envcheck::fsio
{
    struct ProcessOptions
    {
        std::chrono::milliseconds timeout{ 30000 };
        std::size_t max_output_bytes = std::size_t{ 16 } << 20; // per stream; the rest is dropped
        // When set, the child's whole environment; otherwise it inherits envcheck's.
        std::optional<std::map<std::string, std::string>> environment;
        std::string working_directory; // empty: inherit
        std::string stdin_text;        // written to the child's stdin, then closed
    };

    struct ProcessResult
    {
        std::optional<int> exit_code; // set when the program exited
        std::optional<int> signal;    // set when a signal ended it
        bool timed_out = false;       // killed (SIGKILL) at the deadline
        std::string out;
        std::string err;
        double seconds = 0.0;
        std::chrono::milliseconds timeout{ 0 }; // the deadline it ran under

        [[nodiscard]] auto succeeded() const -> bool { return exit_code && *exit_code == 0; }
        // "exited with status 3", "was killed by signal 11 (SIGSEGV)", "timed out after 30 s".
        [[nodiscard]] auto describe() const -> std::string;
    };

    // Fails only when the program cannot be started at all (not found, not executable); a
    // program that starts and then fails is a successful Result with its exit status.
    [[nodiscard]] auto run_process(const std::vector<std::string>& argv,
                                   const ProcessOptions& options = {})
      -> util::Result<ProcessResult>;

    // The directories of PATH searched for `name` (no shell); empty when not found.
    [[nodiscard]] auto find_program(const std::string& name, const std::string& path_variable)
      -> std::string;
}

#endif
