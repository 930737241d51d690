#include "tests/bench/bench_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fsio/files.hpp"
#include "fsio/process.hpp"

namespace envcheck::bench
{
    auto read_flags(int argc, char** argv, const std::vector<Flag>& flags)
      -> std::optional<std::string>
    {
        for (int i = 1; i + 1 < argc; i += 2)
        {
            const std::string name = argv[i];
            const auto flag = std::find_if(flags.begin(), flags.end(),
                                           [&](const Flag& known) { return known.name == name; });
            if (flag == flags.end())
            {
                return name;
            }
            flag->set(argv[i + 1]);
        }
        return std::nullopt;
    }

    auto run_python(const std::string& python, const std::vector<std::string>& arguments,
                    std::chrono::seconds timeout, std::size_t error_characters) -> std::string
    {
        fsio::ProcessOptions options;
        options.timeout = timeout;
        const char* path_variable = std::getenv("PATH");
        const std::string program =
          python.find('/') != std::string::npos
            ? python
            : fsio::find_program(python, path_variable != nullptr ? path_variable : "");
        if (program.empty())
        {
            return "unavailable: " + python + " not found";
        }
        std::vector<std::string> command{ program };
        command.insert(command.end(), arguments.begin(), arguments.end());
        auto done = fsio::run_process(command, options);
        if (!done)
        {
            return "unavailable: " + done.error().message;
        }
        if (!done->succeeded())
        {
            return "unavailable: " + done->describe() + ": " +
                   done->err.substr(0, error_characters);
        }
        return done->out;
    }

    auto run_python_script(const std::string& python, const std::string& script,
                           const std::filesystem::path& work,
                           const std::vector<std::string>& arguments, std::chrono::seconds timeout,
                           std::size_t error_characters) -> std::string
    {
        const std::filesystem::path file = work / "peer.py";
        std::ofstream(file) << script;
        std::vector<std::string> script_and_arguments{ file.string() };
        script_and_arguments.insert(script_and_arguments.end(), arguments.begin(), arguments.end());
        return run_python(python, script_and_arguments, timeout, error_characters);
    }

    auto cpu_model() -> std::string
    {
        auto text = fsio::read_file("/proc/cpuinfo");
        if (!text)
        {
            return "unknown CPU";
        }
        std::istringstream lines(*text);
        for (std::string line; std::getline(lines, line);)
        {
            if (line.starts_with("model name"))
            {
                return line.substr(line.find(':') + 2);
            }
        }
        return "unknown CPU";
    }
}
