// envcheck export: a lock or an installed environment as an @EXPLICIT file, a fully pinned
// environment.yml or a requirements.txt (formats/export.hpp).
//
// Exit codes: 0 written; 1 written, but some package could not be expressed (a conda package
// with no URL in an explicit file: a `# no URL for:` line marks it, as conda writes it); 2 bad
// usage or unreadable input (including an unreadable conda-meta record).
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/cmd_check.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/output.hpp"
#include "formats/export.hpp"
#include "formats/lock.hpp"
#include "fsio/files.hpp"
#include "prefix/reader.hpp"

namespace envcheck::cli
{
    namespace
    {
        // Local mirrors of the formats enums: CLI11 2.1 cannot bind an enum whose namespace has a
        // to_string() overload returning string_view.
        enum class Format
        {
            explicit_,
            environment,
            requirements,
        };

        enum class Hash
        {
            sha256,
            md5,
        };

        struct ExportOptions
        {
            PrefixSelection selection;
            std::string lock;
            std::string environment = "default";
            std::string platform;
            Format format = Format::explicit_;
            Hash hash = Hash::sha256;
            std::string name;
            std::string output;
            bool force = false;
        };

        // -o naming the input lock, or an existing file with other content: refused (exit 2)
        // unless --force, as lock does. Returns -1 to go on writing, 0 when the file already
        // holds `text`, else the exit code.
        auto existing_output_verdict(const ExportOptions& options, const std::string& text) -> int
        {
            if (options.output.empty() ||
                fsio::path_kind(options.output) != fsio::PathKind::regular)
            {
                return -1;
            }
            if (!options.lock.empty() && fsio::same_file(options.output, options.lock))
            {
                return report_error(util::make_error(
                  util::ErrorKind::usage, "-o names the input lock: exporting would replace it",
                  util::SourceLocation{ options.output, 0, 0 }, "write to another file"));
            }
            const auto existing = fsio::read_file(options.output);
            if (existing && *existing == safe_output(text))
            {
                return code(Exit::ok);
            }
            if (options.force)
            {
                return -1;
            }
            return report_error(util::make_error(
              util::ErrorKind::usage, "exists and differs; not replaced",
              util::SourceLocation{ options.output, 0, 0 }, "pass --force to replace it"));
        }

        auto run_export(const ExportOptions& options) -> int
        {
            formats::ExportOptions export_options;
            export_options.envcheck_version = ENVCHECK_VERSION;
            export_options.hash =
              options.hash == Hash::md5 ? formats::ExportHash::md5 : formats::ExportHash::sha256;
            export_options.name = options.name;
            std::vector<model::Package> packages;
            if (!options.lock.empty())
            {
                const auto text = read_input(options.lock);
                if (!text)
                {
                    return report_error(text.error());
                }
                const std::string platform =
                  options.platform.empty() ? prefix::current_platform() : options.platform;
                auto lock =
                  formats::parse_any_lock(*text, options.lock, { platform, options.environment });
                if (!lock)
                {
                    return report_error(lock.error());
                }
                packages = std::move(lock->packages);
                export_options.platform = lock->machine.platform.value_or(platform);
                export_options.source = options.lock;
            }
            else
            {
                const auto located =
                  locate_environment(options.selection, system::read_environment());
                if (!located)
                {
                    return report_error(located.error());
                }
                auto installed = prefix::read_prefix(located->path);
                if (!installed)
                {
                    return report_error(installed.error());
                }
                if (!installed->problems.empty())
                {
                    for (const auto& problem : installed->problems)
                    {
                        std::cerr << "envcheck: error: " << problem.to_string() << '\n';
                    }
                    return report_error(
                      util::make_error(util::ErrorKind::parse,
                                       "not exported: records of the environment cannot be read",
                                       util::SourceLocation{ located->path, 0, 0 },
                                       "reinstall the packages named above, then export again"));
                }
                packages = std::move(installed->packages);
                export_options.platform = prefix::current_platform();
                export_options.source = located->path;
                if (export_options.name.empty())
                {
                    export_options.name = std::filesystem::path(located->path).filename().string();
                }
            }
            const auto format =
              options.format == Format::environment    ? formats::ExportFormat::environment
              : options.format == Format::requirements ? formats::ExportFormat::requirements
                                                       : formats::ExportFormat::explicit_;
            const auto exported = formats::render_export(packages, format, export_options);
            if (const int verdict = existing_output_verdict(options, exported.text); verdict > 0)
            {
                return verdict;
            }
            else if (verdict < 0)
            {
                if (const int status =
                      emit(exported.text, options.output,
                           options.force ? fsio::WriteMode::replace : fsio::WriteMode::create_new);
                    status != code(Exit::ok))
                {
                    return status;
                }
            }
            for (const auto& left_out : exported.left_out)
            {
                std::cerr << "envcheck: warning: left out " << left_out << '\n';
            }
            return exported.left_out.empty() ? code(Exit::ok) : code(Exit::findings);
        }
    }

    auto setup_export(CLI::App& app) -> Run
    {
        auto options = std::make_shared<ExportOptions>();
        add_input_options(app);
        add_prefix_options(app, options->selection);
        app.add_option("--lock", options->lock,
                       "Export a lock (envcheck's, conda-lock.yml, pixi.lock, @EXPLICIT) instead "
                       "of an environment");
        app.add_option("--environment", options->environment,
                       "The pixi.lock environment (default: default)");
        app.add_option("--platform", options->platform,
                       "The platform of a multi-platform lock (default: this machine's)");
        const std::map<std::string, Format> formats{ { "explicit", Format::explicit_ },
                                                     { "environment", Format::environment },
                                                     { "requirements", Format::requirements } };
        app
          .add_option(
            "--format", options->format,
            "explicit (@EXPLICIT for conda create --file), environment (pinned environment.yml) or "
            "requirements (the pip packages)")
          ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case))
          ->option_text("explicit|environment|requirements");
        const std::map<std::string, Hash> hashes{ { "sha256", Hash::sha256 },
                                                  { "md5", Hash::md5 } };
        app
          .add_option("--hash", options->hash,
                      "The hash after each URL of an explicit file: sha256 (default) or md5 (for "
                      "conda older than 23)")
          ->transform(CLI::CheckedTransformer(hashes, CLI::ignore_case))
          ->option_text("sha256|md5");
        app.add_option(
          "--env-name", options->name,
          "The name: of an exported environment.yml (default: the prefix's directory name)");
        app.add_option("-o,--output", options->output,
                       "Write to this file (atomically) instead of stdout");
        app.add_flag("--force", options->force, "Replace an existing file that differs");
        return [options] { return run_export(*options); };
    }
}
