#include "app/export.hpp"

#include <utility>
#include <vector>

#include "app/marker_python.hpp"
#include "app/version.hpp"
#include "formats/lock.hpp"
#include "util/strings.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::app
{
    namespace
    {
        // The last component of a path, as std::filesystem::path::filename() gives it ("" after
        // a trailing slash).
        auto file_name(const std::string& path) -> std::string
        {
            const auto slash = path.rfind('/');
            return slash == std::string::npos ? path : path.substr(slash + 1);
        }

        struct Source
        {
            std::vector<model::Package> packages;
            std::string platform;
            std::string source;
            std::string name; // the default name of an exported environment.yml
            std::optional<UnreadableRecords> unreadable;
            // A lock's pip options (pixi's indexes, uv.lock's and pylock.toml's): the
            // requirements and pip: sections install from where the lock did.
            std::vector<std::string> pip_options{};
            std::vector<std::string> notes{};
        };

        auto from_lock(const ExportRequest& request, Ports& ports) -> util::Result<Source>
        {
            const auto text = ports.files.read_input(request.lock);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            const std::string platform =
              request.platform.empty() ? ports.machine.platform() : request.platform;
            formats::LockSelection selection{ platform, request.environment, request.categories };
            MarkerPython(request.python, ports.frameworks).apply(*text, request.lock, selection);
            auto lock = formats::parse_any_lock(*text, request.lock, selection);
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            if (!formats::selects_by_python(lock->format))
            {
                lock->notes.clear(); // how a conda lock was read is check's to say, not export's
            }
            auto& optional = lock->optional_packages;
            if (request.with_optional)
            {
                lock->packages.insert(lock->packages.end(), optional.begin(), optional.end());
                model::sort_packages(lock->packages);
            }
            else if (!optional.empty())
            {
                std::vector<std::string> names;
                names.reserve(optional.size());
                for (const auto& package : optional)
                {
                    names.push_back(package.name + " " + package.version);
                }
                lock->notes.push_back("not exported: " + std::to_string(optional.size()) +
                                      " package(s) of " + request.lock +
                                      " that only extras, non-default groups or other "
                                      "categories reach (--with-optional exports them): " +
                                      util::join(names, ", "));
            }
            return Source{ std::move(lock->packages),
                           lock->machine.platform.value_or(platform),
                           request.lock,
                           "",
                           std::nullopt,
                           std::move(lock->pip_options),
                           std::move(lock->notes) };
        }

        auto from_prefix(const ExportRequest& request, Ports& ports) -> util::Result<Source>
        {
            const auto located = ports.prefixes.locate(request.selection);
            if (!located)
            {
                return util::unexpected(located.error());
            }
            auto installed = ports.prefixes.read(located->path, PrefixReadOptions{});
            if (!installed)
            {
                return util::unexpected(installed.error());
            }
            Source source{ std::move(installed->packages),
                           ports.machine.platform(),
                           located->path,
                           file_name(located->path),
                           std::nullopt,
                           {} };
            if (!installed->problems.empty())
            {
                source.unreadable = UnreadableRecords{ located->path, installed->problems };
            }
            return source;
        }
    }

    namespace
    {
        auto export_text(const ExportRequest& request, Ports& ports) -> util::Result<ExportOutcome>
        {
            auto source =
              request.lock.empty() ? from_prefix(request, ports) : from_lock(request, ports);
            if (!source)
            {
                return util::unexpected(source.error());
            }
            if (source->unreadable)
            {
                return ExportOutcome{ {}, std::move(source->unreadable), {} };
            }
            formats::ExportOptions options;
            options.envcheck_version = std::string(envcheck_version());
            options.hash = request.hash;
            options.name = request.name.empty() ? source->name : request.name;
            options.platform = source->platform;
            options.source = source->source;
            options.pip_options = source->pip_options;
            return ExportOutcome{ formats::render_export(source->packages, request.format, options),
                                  std::nullopt, std::move(source->notes) };
        }

        // As lock does: a file that already holds the export is left alone; one that differs is
        // replaced only with force; the input lock never.
        auto write_output(const ExportRequest& request, std::string_view text, Files& files)
          -> util::Result<void>
        {
            const std::string content = util::safe_output(text);
            const util::SourceLocation where{ request.output, 0, 0 };
            if (files.is_regular_file(request.output))
            {
                if (!request.lock.empty() && files.same_file(request.output, request.lock))
                {
                    return util::unexpected(util::make_error(
                      util::ErrorKind::usage, "-o names the input lock: exporting would replace it",
                      where, "write to another file"));
                }
                if (const auto existing = files.read_file(request.output);
                    existing && *existing == content)
                {
                    return {};
                }
                if (!request.force)
                {
                    return util::unexpected(util::make_error(util::ErrorKind::usage,
                                                             "exists and differs; not replaced",
                                                             where, "pass --force to replace it"));
                }
            }
            return files.write_atomic(request.output, content,
                                      request.force ? Files::WriteMode::replace
                                                    : Files::WriteMode::create_new);
        }
    }

    auto ExportOutcome::verdict() const -> Verdict
    {
        if (unreadable)
        {
            return Verdict::usage;
        }
        return exported.left_out.empty() ? Verdict::clean : Verdict::findings;
    }

    auto run_export(const ExportRequest& request, Ports& ports) -> util::Result<ExportOutcome>
    {
        auto outcome = export_text(request, ports);
        if (!outcome || outcome->unreadable || request.output.empty() || request.output == "-")
        {
            return outcome;
        }
        if (auto written = write_output(request, outcome->exported.text, ports.files); !written)
        {
            return util::unexpected(written.error());
        }
        return outcome;
    }
}
