#include "report/bug_report.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace envcheck::report
{
    auto Collected::known(std::string value) -> Collected
    {
        return Collected{ std::move(value), "" };
    }

    auto Collected::unknown(std::string why) -> Collected
    {
        return Collected{ std::nullopt, std::move(why) };
    }

    auto Collected::text() const -> std::string
    {
        return value ? *value : "could not collect: " + why_not;
    }

    auto format_age(std::int64_t seconds) -> std::string
    {
        struct Unit
        {
            std::int64_t seconds;
            std::string_view name;
        };
        constexpr std::array<Unit, 4> units{
            { { 86400, "day" }, { 3600, "hour" }, { 60, "minute" }, { 1, "second" } }
        };
        seconds = std::max<std::int64_t>(seconds, 0);
        for (const auto& unit : units)
        {
            if (seconds >= unit.seconds || unit.seconds == 1)
            {
                const auto count = seconds / unit.seconds;
                return std::to_string(count) + " " + std::string(unit.name) +
                       (count == 1 ? "" : "s");
            }
        }
        return "0 seconds";
    }

    namespace
    {
        auto format_metric(double value) -> std::string
        {
            std::array<char, 64> buffer{};
            const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                              std::chars_format::general, 4);
            return std::string(buffer.data(), result.ptr);
        }

        auto describe(const model::LoadableLibrary& library) -> std::string
        {
            std::string text = library.file.path;
            // A relative path (a relative --prefix) differs from its real path in its
            // directory alone: only links are worth showing.
            if (!library.file.real_path.empty() && library.file.real_path != library.file.path &&
                library.file.path.starts_with('/'))
            {
                text += " -> " + library.file.real_path;
            }
            text += " (" + library.file.found_via;
            if (!library.source.empty())
            {
                text += ", " + library.source;
            }
            if (library.file.version)
            {
                text += ", version " + *library.file.version;
            }
            else if (library.source.empty())
            {
                text += ", version: could not collect: the file name carries none";
            }
            return text + ")";
        }

        class Lines
        {
        public:
            void heading(std::string_view title)
            {
                if (!m_text.empty())
                {
                    m_text += '\n';
                }
                m_text += "== " + std::string(title) + " ==\n";
            }
            void add(std::string_view key, std::string_view value)
            {
                m_text += std::string(key) + ": " + std::string(value) + "\n";
            }
            void line(std::string_view text) { m_text += std::string(text) + "\n"; }
            [[nodiscard]] auto text() const -> const std::string& { return m_text; }

        private:
            std::string m_text;
        };

        void system_sections(const BugReportView& view, Lines& out)
        {
            out.heading("System");
            out.add("OS", view.os.text());
            out.add("Kernel", view.kernel.text());
            out.add("glibc", view.glibc.text());
            out.add("Architecture", view.architecture.text());
            out.add("Container", view.container);

            out.heading("Machine");
            out.add("CPU", view.cpu.text());
            out.add("Logical CPUs", view.cpu_count.text());
            out.add("Memory", view.memory.text());

            out.heading("NVIDIA driver and GPUs");
            out.add("Driver version", view.driver_version.text());
            out.add("CUDA the driver supports", view.cuda_driver_version.text());
            if (view.gpus.empty())
            {
                out.add("GPUs", "none: " + view.gpus_why_none);
            }
            for (const auto& gpu : view.gpus)
            {
                out.add("GPU " + std::to_string(gpu.index),
                        gpu.name + ", memory " + gpu.memory.text() + ", compute capability " +
                          gpu.compute_capability.text() + ", bus " + gpu.pci_bus_id);
            }
        }

        void environment_sections(const BugReportView& view, Lines& out)
        {
            out.heading("Environment");
            out.add("Prefix", view.environment.text());
            if (view.environment.value)
            {
                out.add("Found by", view.located_by);
                out.add("Kind", view.kind);
                out.add("Python", view.python.text());
                std::string packages = std::to_string(view.conda_packages) + " conda, " +
                                       std::to_string(view.pip_packages) + " pip";
                if (view.unreadable_records != 0)
                {
                    packages += ", " + std::to_string(view.unreadable_records) + " unreadable";
                }
                out.add("Packages", packages);
                if (!view.channels.empty())
                {
                    std::string channels;
                    for (const auto& channel : view.channels)
                    {
                        channels += (channels.empty() ? "" : ", ") + channel;
                    }
                    out.add("Channels", channels);
                }
            }

            out.heading("Frameworks");
            if (view.frameworks.empty())
            {
                out.line(view.environment.value
                           ? "none of torch, jax, tensorflow, cupy, paddlepaddle, onnxruntime-gpu"
                           : "could not collect: no environment");
            }
            for (const auto& framework : view.frameworks)
            {
                std::string build = framework.cuda_build.text();
                if (framework.cuda_build.value)
                {
                    build += " (" + framework.cuda_build_from + ")";
                }
                out.add(framework.name, framework.package + " " + framework.version + " (" +
                                          framework.manager + "), CUDA build " + build);
            }

            out.heading("NVIDIA libraries, as the loader would find them");
            for (const auto& library : view.libraries)
            {
                if (!library.loaded)
                {
                    out.add(library.library, "not found");
                    continue;
                }
                out.add(library.file, describe(*library.loaded));
                for (const auto& other : library.passed_over)
                {
                    const bool theirs = other.file.found_via == "environment";
                    out.line(std::string(theirs && library.environment_shadowed
                                           ? "  SHADOWS the environment's copy: "
                                           : "  passed over: ") +
                             describe(other));
                }
            }
        }

        void result_sections(const BugReportView& view, Lines& out)
        {
            out.heading("Doctor");
            out.add("Verdict", view.doctor_verdict.text());
            if (!view.doctor_message.empty())
            {
                out.add("Why", view.doctor_message);
            }
            if (!view.doctor_fix.empty())
            {
                out.add("Fix", view.doctor_fix);
            }

            out.heading("Smoke figures");
            out.add("Source", view.smoke_source.text());
            for (const auto& device : view.smoke)
            {
                std::string metrics;
                for (const auto& metric : device.metrics)
                {
                    metrics += (metrics.empty() ? "" : ", ") + metric.name + " " +
                               format_metric(metric.value) +
                               (metric.unit.empty() ? "" : " " + metric.unit);
                }
                out.add("GPU " + std::to_string(device.index) + " " + device.name,
                        metrics.empty() ? "no metrics" : metrics);
            }

            out.heading("Environment variables");
            if (view.variables.empty())
            {
                out.line("none of the reported ones are set");
            }
            for (const auto& variable : view.variables)
            {
                out.line(variable.name + "=" + variable.value);
            }
        }

        // The longest run of backticks in `text`: the fence must be longer.
        auto longest_backtick_run(std::string_view text) -> std::size_t
        {
            std::size_t longest = 0;
            std::size_t run = 0;
            for (const char c : text)
            {
                run = c == '`' ? run + 1 : 0;
                longest = std::max(longest, run);
            }
            return longest;
        }

        auto collected_json(const Collected& collected) -> nlohmann::ordered_json
        {
            if (collected.value)
            {
                return *collected.value;
            }
            return nlohmann::ordered_json{ { "could_not_collect", collected.why_not } };
        }

        auto library_json(const model::LoadableLibrary& library) -> nlohmann::ordered_json
        {
            return { { "path", library.file.path },
                     { "real_path", library.file.real_path },
                     { "found_via", library.file.found_via },
                     { "source", library.source.empty() ? nlohmann::ordered_json(nullptr)
                                                        : nlohmann::ordered_json(library.source) },
                     { "version", library.file.version
                                    ? nlohmann::ordered_json(*library.file.version)
                                    : nlohmann::ordered_json(nullptr) } };
        }
    }

    auto render_bug_report_markdown(const BugReportView& view) -> std::string
    {
        Lines out;
        out.add("envcheck version", view.envcheck_version);
        system_sections(view, out);
        environment_sections(view, out);
        result_sections(view, out);
        const std::string fence(std::max<std::size_t>(3, longest_backtick_run(out.text()) + 1),
                                '`');
        return fence + "text\n" + out.text() + fence + "\n";
    }

    auto bug_report_json(const BugReportView& view) -> nlohmann::ordered_json
    {
        nlohmann::ordered_json json;
        json["schema_version"] = bug_report_schema_version;
        json["envcheck_version"] = view.envcheck_version;
        json["system"] = { { "os", collected_json(view.os) },
                           { "kernel", collected_json(view.kernel) },
                           { "glibc", collected_json(view.glibc) },
                           { "architecture", collected_json(view.architecture) },
                           { "container", view.container } };
        json["machine"] = { { "cpu", collected_json(view.cpu) },
                            { "logical_cpus", collected_json(view.cpu_count) },
                            { "memory", collected_json(view.memory) } };
        auto gpus = nlohmann::ordered_json::array();
        for (const auto& gpu : view.gpus)
        {
            gpus.push_back({ { "index", gpu.index },
                             { "name", gpu.name },
                             { "memory", collected_json(gpu.memory) },
                             { "compute_capability", collected_json(gpu.compute_capability) },
                             { "pci_bus_id", gpu.pci_bus_id } });
        }
        json["driver"] = { { "version", collected_json(view.driver_version) },
                           { "cuda_version", collected_json(view.cuda_driver_version) },
                           { "gpus", gpus },
                           { "gpus_why_none", view.gpus.empty()
                                                ? nlohmann::ordered_json(view.gpus_why_none)
                                                : nlohmann::ordered_json(nullptr) } };
        nlohmann::ordered_json environment;
        environment["prefix"] = collected_json(view.environment);
        if (view.environment.value)
        {
            environment["found_by"] = view.located_by;
            environment["kind"] = view.kind;
            environment["python"] = collected_json(view.python);
            environment["conda_packages"] = view.conda_packages;
            environment["pip_packages"] = view.pip_packages;
            environment["unreadable_records"] = view.unreadable_records;
            environment["channels"] = view.channels;
        }
        json["environment"] = environment;
        auto frameworks = nlohmann::ordered_json::array();
        for (const auto& framework : view.frameworks)
        {
            frameworks.push_back({ { "name", framework.name },
                                   { "package", framework.package },
                                   { "manager", framework.manager },
                                   { "version", framework.version },
                                   { "cuda_build", collected_json(framework.cuda_build) },
                                   { "cuda_build_from", framework.cuda_build_from } });
        }
        json["frameworks"] = frameworks;
        auto libraries = nlohmann::ordered_json::array();
        for (const auto& library : view.libraries)
        {
            auto passed_over = nlohmann::ordered_json::array();
            for (const auto& other : library.passed_over)
            {
                passed_over.push_back(library_json(other));
            }
            libraries.push_back(
              { { "library", library.library },
                { "file", library.file.empty() ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(library.file) },
                { "loaded", library.loaded ? library_json(*library.loaded)
                                           : nlohmann::ordered_json(nullptr) },
                { "passed_over", passed_over },
                { "environment_shadowed", library.environment_shadowed } });
        }
        json["libraries"] = libraries;
        json["doctor"] = { { "verdict", collected_json(view.doctor_verdict) },
                           { "message", view.doctor_message },
                           { "fix", view.doctor_fix } };
        auto devices = nlohmann::ordered_json::array();
        for (const auto& device : view.smoke)
        {
            auto metrics = nlohmann::ordered_json::array();
            for (const auto& metric : device.metrics)
            {
                metrics.push_back(
                  { { "name", metric.name }, { "value", metric.value }, { "unit", metric.unit } });
            }
            devices.push_back(
              { { "index", device.index }, { "name", device.name }, { "metrics", metrics } });
        }
        json["smoke"] = { { "source", collected_json(view.smoke_source) }, { "devices", devices } };
        auto variables = nlohmann::ordered_json::object();
        for (const auto& variable : view.variables)
        {
            variables[variable.name] = variable.value;
        }
        json["variables"] = variables;
        return json;
    }

    auto render_bug_report_json(const BugReportView& view) -> std::string
    {
        return bug_report_json(view).dump(2) + "\n";
    }
}
