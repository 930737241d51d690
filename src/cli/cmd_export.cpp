// envcheck export (app/export.hpp): a lock or an installed environment as an @EXPLICIT file, a
// fully pinned environment.yml or a requirements.txt. Exit 0 when written; 1 when written but a
// package could not be expressed (a `# no URL for:` line marks it, as conda writes it); 2 on bad
// usage or unreadable input (an unreadable conda-meta record included).
#include "app/export.hpp"
#include "cli/commands.hpp"

namespace envcheck::cli
{
    namespace
    {
        auto export_and_report(const app::ExportRequest& request, app::Ports& ports) -> int
        {
            const auto outcome = app::run_export(request, ports);
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
            if (request.output.empty() || request.output == "-")
            {
                (void)emit(outcome->exported.text, "", ports.files); // stdout: cannot fail
            }
            for (const auto& note : outcome->notes)
            {
                warn("envcheck: note: " + note + "\n");
            }
            for (const auto& left_out : outcome->exported.left_out)
            {
                warn("envcheck: warning: left out " + left_out + "\n");
            }
            return code(exit_for(outcome->verdict()));
        }
    }

    auto setup_export(CLI::App& app, TransferOptions& transfer) -> Run
    {
        auto options = std::make_shared<app::ExportRequest>();
        auto& request = *options;
        add_input_options(app, transfer);
        add_prefix_options(app, request.selection);
        app.add_option("--lock", request.lock,
                       "Export a lock (envcheck's, conda-lock.yml, pixi.lock, @EXPLICIT) instead "
                       "of an environment");
        add_lock_part_options(app, request.platform, request.environment, request.categories,
                              request.python);
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
        app.add_option("-o,--output", request.output,
                       "Write to this file (atomically) instead of stdout");
        app.add_flag("--force", request.force, "Replace an existing file that differs");
        return [options](app::Ports& ports, const app::LoadedConfig& /*config*/)
        { return export_and_report(*options, ports); };
    }
}
