// envcheck export (app/export.hpp): a lock or an installed environment as an @EXPLICIT file, a
// fully pinned environment.yml or a requirements.txt. Exit 0 when written; 1 when written but a
// package could not be expressed (a `# no URL for:` line marks it, as conda writes it); 2 on bad
// usage or unreadable input (an unreadable conda-meta record included).
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "app/export.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct ExportOptions
        {
            app::ExportRequest request;
            std::string output;
            bool force = false;
        };

        // -o naming the input lock is refused (exit 2); an existing file with other content is
        // replaced only with --force, as lock does. Returns -1 to go on writing, 0 when the file
        // already holds `text`, else the exit code.
        auto existing_output_verdict(const ExportOptions& options, const std::string& text,
                                     app::Files& files) -> int
        {
            if (options.output.empty() || !files.is_regular_file(options.output))
            {
                return -1;
            }
            if (!options.request.lock.empty() &&
                files.same_file(options.output, options.request.lock))
            {
                return report_error(util::make_error(
                  util::ErrorKind::usage, "-o names the input lock: exporting would replace it",
                  util::SourceLocation{ options.output, 0, 0 }, "write to another file"));
            }
            const auto existing = files.read_file(options.output);
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

        auto write_export(const ExportOptions& options, const std::string& text, app::Files& files)
          -> int
        {
            const int verdict = existing_output_verdict(options, text, files);
            if (verdict >= 0)
            {
                return verdict;
            }
            return emit(text, options.output, files,
                        options.force ? app::Files::WriteMode::replace
                                      : app::Files::WriteMode::create_new);
        }

        auto run_export(const ExportOptions& options, app::Ports& ports) -> int
        {
            const auto outcome = app::run_export(options.request, ports);
            if (!outcome)
            {
                return report_error(outcome.error());
            }
            if (outcome->unreadable)
            {
                return report_unreadable_records(
                  *outcome->unreadable, "not exported: records of the environment cannot be read",
                  "reinstall the packages named above, then export again");
            }
            if (const int status = write_export(options, outcome->exported.text, ports.files);
                status != code(Exit::ok))
            {
                return status;
            }
            for (const auto& note : outcome->notes)
            {
                std::cerr << "envcheck: note: " << note << '\n';
            }
            for (const auto& left_out : outcome->exported.left_out)
            {
                std::cerr << "envcheck: warning: left out " << left_out << '\n';
            }
            return code(exit_for(outcome->verdict()));
        }
    }

    auto setup_export(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<ExportOptions>();
        auto& request = options->request;
        add_input_options(app, transfer);
        add_prefix_options(app, request.selection);
        app.add_option("--lock", request.lock,
                       "Export a lock (envcheck's, conda-lock.yml, pixi.lock, @EXPLICIT) instead "
                       "of an environment");
        app.add_option("--environment", request.environment,
                       "The pixi.lock environment (default: default)");
        app.add_option("--category", request.categories,
                       "conda-lock: read only this category (main, dev, an extra); repeat for "
                       "more (default: every category, as conda-lock install does)");
        app.add_option("--platform", request.platform,
                       "The platform of a multi-platform lock (default: this machine's)");
        add_python_option(app, request.python);
        app.add_flag("--with-optional", request.with_optional,
                     "Also export the packages only extras, non-default groups (uv.lock, "
                     "pylock.toml) or other categories (conda-lock) reach");
        // The names bind through strings: CLI11 2.1 cannot bind an enum whose namespace has a
        // to_string() overload returning string_view.
        app
          .add_option_function<std::string>(
            "--format",
            [&request](const std::string& name)
            { request.format = *formats::parse_export_format(name); },
            "explicit (@EXPLICIT for conda create --file), environment (pinned environment.yml) or "
            "requirements (the pip packages)")
          ->transform(
            CLI::IsMember({ "explicit", "environment", "requirements" }, CLI::ignore_case))
          ->option_text("explicit|environment|requirements");
        app
          .add_option_function<std::string>(
            "--hash",
            [&request](const std::string& name) {
                request.hash =
                  name == "md5" ? formats::ExportHash::md5 : formats::ExportHash::sha256;
            },
            "The hash after each URL of an explicit file: sha256 (default) or md5 (for "
            "conda older than 23)")
          ->transform(CLI::IsMember({ "sha256", "md5" }, CLI::ignore_case))
          ->option_text("sha256|md5");
        app.add_option(
          "--env-name", request.name,
          "The name: of an exported environment.yml (default: the prefix's directory name)");
        app.add_option("-o,--output", options->output,
                       "Write to this file (atomically) instead of stdout");
        app.add_flag("--force", options->force, "Replace an existing file that differs");
        return [options](app::Ports& ports, const app::LoadedConfig& /*config*/)
        { return run_export(*options, ports); };
    }
}
