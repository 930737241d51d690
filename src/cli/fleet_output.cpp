#include "cli/fleet_output.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <CLI/CLI.hpp>

#include "util/strings.hpp"

namespace envcheck::cli
{
    namespace
    {
        const std::vector<std::string> fleet_formats = { "junit", "prometheus", "nfd", "markdown",
                                                         "github" };

        auto unix_now() -> std::int64_t
        {
            return std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch())
              .count();
        }
    }

    void add_report_format_options(CLI::App& app, ReportFormatChoice& choice,
                                   const std::vector<std::string>& own_formats)
    {
        std::vector<std::string> names = own_formats;
        for (const auto& name : fleet_formats)
        {
            if (std::find(names.begin(), names.end(), name) == names.end())
            {
                names.push_back(name);
            }
        }
        const std::string listed = util::join(names, "|");
        app
          .add_option(
            "--format", choice.name,
            "Report format: " + util::join(own_formats, ", ") +
              "; for fleet tooling: junit, prometheus (node_exporter textfile), nfd (Node "
              "Feature Discovery), markdown, github")
          ->check(CLI::IsMember(names))
          ->option_text(listed);
        app
          .add_option(
            "--expiry", choice.expiry_seconds,
            "With --format nfd: seconds after which nfd-worker drops the features (default 3600)")
          ->check(CLI::PositiveNumber);
    }

    auto is_fleet_format(std::string_view name) -> bool
    {
        return std::find(fleet_formats.begin(), fleet_formats.end(), name) != fleet_formats.end();
    }

    void RunClock::stamp(model::CheckRun& run) const
    {
        run.duration_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - m_started).count();
        run.finished_unix_seconds = static_cast<double>(unix_now());
    }

    auto node_features_from(const model::MachineFacts& facts) -> report::NodeFeatures
    {
        report::NodeFeatures features;
        features.driver_version = model::driver_version(facts);
        if (const auto cuda = model::driver_cuda_version(facts))
        {
            features.cuda_driver_version = cuda->to_string();
        }
        const auto gpus = model::gpu_summaries(facts);
        if (!gpus.empty())
        {
            features.gpu_count = static_cast<int>(gpus.size());
            features.gpu_model = gpus.front().name;
            // The lowest over the GPUs, as CEP 46's __cuda_arch: what every GPU can run.
            std::optional<std::pair<int, int>> lowest;
            for (const auto& gpu : gpus)
            {
                if (gpu.compute_capability_major && gpu.compute_capability_minor)
                {
                    const std::pair<int, int> capability{ *gpu.compute_capability_major,
                                                          *gpu.compute_capability_minor };
                    lowest = lowest ? std::min(*lowest, capability) : capability;
                }
            }
            if (lowest)
            {
                features.compute_capability =
                  std::to_string(lowest->first) + "." + std::to_string(lowest->second);
            }
        }
        return features;
    }

    void append_github_job_summary(const std::vector<model::CheckRun>& runs)
    {
        if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY");
            summary != nullptr && *summary != '\0')
        {
            std::ofstream(summary, std::ios::app) << report::render_markdown(runs);
        }
    }

    auto render_fleet_report(std::string_view format, const std::vector<model::CheckRun>& runs,
                             const report::NodeFeatures& features, std::int64_t expiry_seconds)
      -> std::string
    {
        if (format == "junit")
        {
            return report::render_junit(runs);
        }
        if (format == "prometheus")
        {
            return report::render_prometheus(runs);
        }
        if (format == "nfd")
        {
            return report::render_nfd(
              runs, features, report::NfdOptions{ "envcheck.io", unix_now(), expiry_seconds });
        }
        if (format == "github")
        {
            append_github_job_summary(runs);
            return report::render_github_annotations(runs);
        }
        return report::render_markdown(runs);
    }
}
