#include "formats/lock.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "formats/explicit.hpp"
#include "formats/lock_json.hpp"
#include "formats/lock_packages.hpp"
#include "formats/lock_yaml.hpp"
#include "formats/pixi_lock.hpp"
#include "formats/pylock.hpp"
#include "formats/uv_lock.hpp"
#include "json_fields/reader.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        using json = nlohmann::ordered_json;
        // Locks are written in a fixed key order (ordered_json) and read with the one field
        // reader, over nlohmann::json.
        using ReadJson = json_fields::json;
        using json_fields::Reader;

        auto text_or_null(const std::string& value) -> json
        {
            return value.empty() ? json(nullptr) : json(value);
        }

        template<class T>
        auto optional_or_null(const std::optional<T>& value) -> json
        {
            return value ? json(*value) : json(nullptr);
        }

        auto number(double value) -> json
        {
            return std::isfinite(value) ? json(value) : json(nullptr);
        }

        auto direct_url_json(const model::DirectUrl& url) -> json
        {
            return json{ { "url", url.url },
                         { "vcs", text_or_null(url.vcs) },
                         { "commit_id", text_or_null(url.commit_id) },
                         { "requested_revision", text_or_null(url.requested_revision) },
                         { "archive_sha256", text_or_null(url.archive_sha256) },
                         { "editable", url.editable } };
        }

        auto package_json(const model::Package& package) -> json
        {
            return json{ { "manager", model::to_string(package.manager) },
                         { "name", package.name },
                         { "version", package.version },
                         { "build", text_or_null(package.build) },
                         { "build_number", optional_or_null(package.build_number) },
                         { "channel", text_or_null(package.channel) },
                         { "subdir", text_or_null(package.subdir) },
                         { "url", text_or_null(package.url) },
                         { "filename", text_or_null(package.filename) },
                         { "sha256", text_or_null(package.sha256) },
                         { "md5", text_or_null(package.md5) },
                         { "size", optional_or_null(package.size) },
                         { "requested", package.requested },
                         { "installer", text_or_null(package.installer) },
                         { "direct_url", package.direct_url ? direct_url_json(*package.direct_url)
                                                            : json(nullptr) } };
        }

        auto machine_json(const model::LockedMachine& machine) -> json
        {
            json gpus = nullptr;
            if (machine.gpus)
            {
                gpus = json::array();
                for (const auto& gpu : *machine.gpus)
                {
                    gpus.push_back(
                      json{ { "index", gpu.index },
                            { "name", optional_or_null(gpu.name) },
                            { "uuid", optional_or_null(gpu.uuid) },
                            { "pci_bus_id", optional_or_null(gpu.pci_bus_id) },
                            { "compute_capability", optional_or_null(gpu.compute_capability) },
                            { "memory_total_bytes", optional_or_null(gpu.memory_total_bytes) } });
                }
            }
            return json{ { "platform", optional_or_null(machine.platform) },
                         { "glibc", optional_or_null(machine.glibc) },
                         { "python", optional_or_null(machine.python) },
                         { "driver_version", optional_or_null(machine.driver_version) },
                         { "cuda_driver_version", optional_or_null(machine.cuda_driver_version) },
                         { "gpus", std::move(gpus) } };
        }

        // A device's performance baseline, as schemas/lock.schema.json has it.
        auto baseline_json(const model::PerfBaseline& baseline) -> json
        {
            json metrics = json::array();
            for (const auto& metric : baseline.metrics)
            {
                json item{ { "probe", metric.probe },
                           { "name", metric.name },
                           { "value", number(metric.value) },
                           { "spread", number(metric.spread) },
                           { "samples", metric.samples },
                           { "unit", metric.unit },
                           { "direction", model::to_string(metric.direction) } };
                if (!metric.informational.empty())
                {
                    item["informational"] = metric.informational;
                }
                metrics.push_back(std::move(item));
            }
            return json{ { "device_index", baseline.device_index },
                         { "device_name", baseline.device_name },
                         { "device_uuid", baseline.device_uuid },
                         { "pci_bus_id", baseline.pci_bus_id },
                         { "mode", model::to_string(baseline.mode) },
                         { "metrics", std::move(metrics) } };
        }

        auto lock_error(std::string_view file_name, std::string message) -> util::Error
        {
            return util::make_error(
              util::ErrorKind::parse, std::move(message),
              util::SourceLocation{ std::string(file_name), 0, 0 },
              "the lock does not follow schemas/lock.schema.json; rewrite it with envcheck lock");
        }

        auto read_package(const ReadJson& object, std::string path, model::Package& package)
          -> std::string
        {
            std::string manager;
            Reader reader(object, std::move(path));
            reader.required("manager", manager)
              .required("name", package.name)
              .required("version", package.version)
              .defaulted("build", package.build)
              .optional("build_number", package.build_number)
              .defaulted("channel", package.channel)
              .defaulted("subdir", package.subdir)
              .defaulted("url", package.url)
              .defaulted("filename", package.filename)
              .defaulted("sha256", package.sha256)
              .defaulted("md5", package.md5)
              .optional("size", package.size)
              .defaulted("requested", package.requested)
              .defaulted("installer", package.installer);
            if (!reader.ok())
            {
                return reader.error();
            }
            const auto parsed = model::parse_manager(manager);
            if (!parsed)
            {
                reader.fail_at("manager", "expected conda or pip, not '" + manager + "'");
                return reader.error();
            }
            package.manager = *parsed;
            if (const ReadJson* url = reader.object("direct_url"))
            {
                model::DirectUrl direct;
                Reader url_reader(*url, reader.path("direct_url"));
                url_reader.required("url", direct.url)
                  .defaulted("vcs", direct.vcs)
                  .defaulted("commit_id", direct.commit_id)
                  .defaulted("requested_revision", direct.requested_revision)
                  .defaulted("archive_sha256", direct.archive_sha256)
                  .defaulted("editable", direct.editable);
                if (!url_reader.ok())
                {
                    return url_reader.error();
                }
                package.direct_url = std::move(direct);
            }
            return reader.error();
        }

        auto read_machine(const ReadJson& object, model::LockedMachine& machine) -> std::string
        {
            Reader reader(object, "machine");
            reader.optional("platform", machine.platform)
              .optional("glibc", machine.glibc)
              .optional("python", machine.python)
              .optional("driver_version", machine.driver_version)
              .optional("cuda_driver_version", machine.cuda_driver_version);
            const auto gpus = object.is_object() ? object.find("gpus") : object.end();
            if (!reader.ok() || gpus == object.end() || gpus->is_null())
            {
                return reader.error();
            }
            const ReadJson& list = *reader.list("gpus");
            if (!reader.ok())
            {
                return reader.error();
            }
            machine.gpus.emplace();
            for (std::size_t i = 0; i < list.size(); ++i)
            {
                model::LockedGpu gpu;
                std::optional<int> index;
                Reader gpu_reader(list[i], json_fields::item_path("machine.gpus", i));
                gpu_reader.optional("index", index)
                  .optional("name", gpu.name)
                  .optional("uuid", gpu.uuid)
                  .optional("pci_bus_id", gpu.pci_bus_id)
                  .optional("compute_capability", gpu.compute_capability)
                  .optional("memory_total_bytes", gpu.memory_total_bytes);
                if (!gpu_reader.ok())
                {
                    return gpu_reader.error();
                }
                gpu.index = index.value_or(static_cast<int>(i));
                machine.gpus->push_back(std::move(gpu));
            }
            return {};
        }

        auto read_baseline(const ReadJson& object, std::string path, model::PerfBaseline& baseline)
          -> std::string
        {
            std::optional<int> index;
            std::string mode;
            Reader reader(object, std::move(path));
            reader.optional("device_index", index)
              .defaulted("device_name", baseline.device_name)
              .defaulted("device_uuid", baseline.device_uuid)
              .defaulted("pci_bus_id", baseline.pci_bus_id)
              .required("mode", mode);
            if (!reader.ok())
            {
                return reader.error();
            }
            baseline.device_index = index.value_or(0);
            const auto parsed_mode = model::parse_smoke_mode(mode);
            if (!parsed_mode)
            {
                reader.fail_at("mode", "expected quick or full, not '" + mode + "'");
                return reader.error();
            }
            baseline.mode = *parsed_mode;
            const ReadJson& metrics = *reader.list("metrics", true);
            for (std::size_t i = 0; i < metrics.size(); ++i)
            {
                model::BaselineMetric metric;
                std::string direction;
                std::optional<int> samples;
                Reader metric_reader(metrics[i], json_fields::item_path(reader.path("metrics"), i));
                metric_reader.required("probe", metric.probe)
                  .required("name", metric.name)
                  .defaulted("unit", metric.unit)
                  .required("direction", direction)
                  .optional("samples", samples)
                  .required("value", metric.value)
                  .required("spread", metric.spread)
                  .defaulted("informational", metric.informational);
                if (!metric_reader.ok())
                {
                    return metric_reader.error();
                }
                metric.samples = samples.value_or(1);
                const auto parsed_direction = model::parse_metric_direction(direction);
                if (!parsed_direction)
                {
                    metric_reader.fail_at("direction",
                                          "expected a known direction, not '" + direction + "'");
                    return metric_reader.error();
                }
                metric.direction = *parsed_direction;
                baseline.metrics.push_back(std::move(metric));
            }
            return reader.error();
        }

        // What tells the formats apart, from one pass over the lines (a lock can be 10 MB).
        struct Markers
        {
            bool explicit_marker = false; // a line reading @EXPLICIT
            bool environments = false;    // top-level keys
            bool package = false;
            bool metadata = false;
            bool version = false;
            bool toml_version = false;      // `version = ...` (uv.lock)
            bool toml_package = false;      // a `[[package]]` header (uv.lock)
            bool toml_lock_version = false; // `lock-version = ...` (pylock.toml)
        };

        auto scan_markers(std::string_view text) -> Markers
        {
            Markers found;
            const auto key = [](std::string_view line, std::string_view name)
            { return line.starts_with(name) && line.substr(name.size()).starts_with(":"); };
            const auto toml_key = [](std::string_view line, std::string_view name) {
                return line.starts_with(name) &&
                       util::trim_left(line.substr(name.size())).starts_with("=");
            };
            for (const auto line : util::split_lines(text))
            {
                if (line.size() < 40 && util::trim(line) == "@EXPLICIT")
                {
                    found.explicit_marker = true;
                    continue;
                }
                found.toml_package = found.toml_package || util::trim(line) == "[[package]]";
                if (line.empty() || !util::is_alpha(line.front()))
                {
                    continue; // nested YAML, list items and comments name no top-level key
                }
                found.environments = found.environments || key(line, "environments");
                found.package = found.package || key(line, "package");
                found.metadata = found.metadata || key(line, "metadata");
                found.version = found.version || key(line, "version");
                found.toml_version = found.toml_version || toml_key(line, "version");
                found.toml_lock_version = found.toml_lock_version || toml_key(line, "lock-version");
            }
            return found;
        }
    }

    auto is_export_list(std::string_view text) -> bool
    {
        // `conda list --export`: name=version=build lines.
        for (const auto line : util::split_lines(text))
        {
            const auto trimmed = util::trim(line);
            if (trimmed.empty() || trimmed.front() == '#')
            {
                continue;
            }
            return std::count(trimmed.begin(), trimmed.end(), '=') == 2 &&
                   trimmed.find(' ') == std::string_view::npos;
        }
        return false;
    }

    auto render_lock(const model::Lock& lock) -> std::string
    {
        std::vector<model::Package> packages = lock.packages;
        model::sort_packages(packages);
        json package_list = json::array();
        for (const auto& package : packages)
        {
            package_list.push_back(package_json(package));
        }
        json performance = nullptr;
        if (lock.performance)
        {
            performance = json::array();
            for (const auto& baseline : *lock.performance)
            {
                performance.push_back(baseline_json(baseline));
            }
        }
        json environment_file = nullptr;
        if (lock.environment_file)
        {
            environment_file = json{ { "path", lock.environment_file->path },
                                     { "sha256", lock.environment_file->sha256 } };
        }
        const json document{ { "schema_version", lock_schema_version },
                             { "envcheck_version", lock.envcheck_version },
                             { "created_at", lock.created_at },
                             { "environment_file", std::move(environment_file) },
                             { "machine", machine_json(lock.machine) },
                             { "performance", std::move(performance) },
                             { "packages", std::move(package_list) } };
        return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    }

    namespace
    {
        auto parse_document(std::string_view text, std::string_view file_name)
          -> util::Result<ReadJson>
        {
            try
            {
                return ReadJson::parse(text);
            }
            catch (const json::exception& error)
            {
                const auto failure = json_failure(error, text);
                const auto position = util::line_column_at(text, failure.offset);
                return util::unexpected(util::make_error(
                  util::ErrorKind::parse, "invalid JSON: " + failure.message,
                  util::SourceLocation{ std::string(file_name), position.line, position.column }));
            }
        }

        auto read_lock_document(const ReadJson& document, std::string_view file_name)
          -> util::Result<model::Lock>;
    }

    auto parse_lock(std::string_view text, std::string_view file_name) -> util::Result<model::Lock>
    {
        // The packages without a document when the lock is as `envcheck lock` writes it; the
        // rest (machine, performance) is small and read as a document. Anything unusual, errors
        // included, is read the general way below.
        if (auto scanned = scan_lock_packages(text))
        {
            std::string rest;
            rest.reserve(text.size() - (scanned->end - scanned->begin) + 2);
            rest.append(text.substr(0, scanned->begin))
              .append("[]")
              .append(text.substr(scanned->end));
            if (const auto document = parse_document(rest, file_name))
            {
                if (auto lock = read_lock_document(*document, file_name))
                {
                    lock->packages = std::move(scanned->packages);
                    for (auto& package : lock->packages)
                    {
                        package.source = std::string(file_name);
                    }
                    return lock;
                }
            }
        }
        const auto document = parse_document(text, file_name);
        if (!document)
        {
            return util::unexpected(document.error());
        }
        return read_lock_document(*document, file_name);
    }

    namespace
    {
        auto read_lock_document(const ReadJson& document, std::string_view file_name)
          -> util::Result<model::Lock>
        {
            if (!document.is_object())
            {
                return util::unexpected(
                  lock_error(file_name, "an envcheck lock must be a JSON object"));
            }
            const auto schema = document.find("schema_version");
            if (schema == document.end() || !schema->is_number_integer())
            {
                return util::unexpected(
                  lock_error(file_name, "not an envcheck lock: no integer schema_version"));
            }
            if (schema->get<long long>() != lock_schema_version)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::unsupported,
                  "envcheck lock schema_version " + std::to_string(schema->get<long long>()) +
                    " is not supported (this envcheck reads " +
                    std::to_string(lock_schema_version) + ")",
                  util::SourceLocation{ std::string(file_name), 0, 0 }));
            }
            model::Lock lock;
            lock.format = model::LockFormat::envcheck;
            lock.format_version = std::to_string(lock_schema_version);
            Reader reader(document, "");
            reader.defaulted("envcheck_version", lock.envcheck_version)
              .defaulted("created_at", lock.created_at);
            if (const ReadJson* file = reader.object("environment_file"))
            {
                model::LockedEnvironmentFile locked;
                Reader file_reader(*file, reader.path("environment_file"));
                file_reader.required("path", locked.path).required("sha256", locked.sha256);
                if (!file_reader.ok())
                {
                    return util::unexpected(lock_error(file_name, file_reader.error()));
                }
                lock.environment_file = std::move(locked);
            }
            if (const ReadJson* machine = reader.object("machine"))
            {
                if (auto problem = read_machine(*machine, lock.machine); !problem.empty())
                {
                    return util::unexpected(lock_error(file_name, problem));
                }
            }
            if (const auto performance = document.find("performance");
                performance != document.end() && !performance->is_null())
            {
                const ReadJson& baselines = *reader.list("performance");
                lock.performance.emplace();
                for (std::size_t i = 0; i < baselines.size(); ++i)
                {
                    model::PerfBaseline baseline;
                    if (auto problem = read_baseline(
                          baselines[i], json_fields::item_path("performance", i), baseline);
                        !problem.empty())
                    {
                        return util::unexpected(lock_error(file_name, problem));
                    }
                    lock.performance->push_back(std::move(baseline));
                }
            }
            const ReadJson& packages = *reader.list("packages", true);
            if (!reader.ok())
            {
                return util::unexpected(lock_error(file_name, reader.error()));
            }
            lock.packages.reserve(packages.size());
            for (std::size_t i = 0; i < packages.size(); ++i)
            {
                model::Package package;
                if (auto problem =
                      read_package(packages[i], json_fields::item_path("packages", i), package);
                    !problem.empty())
                {
                    return util::unexpected(lock_error(file_name, problem));
                }
                package.source = std::string(file_name);
                lock.packages.push_back(std::move(package));
            }
            return lock;
        }
    }

    namespace
    {
        auto read_envcheck(std::string_view text, std::string_view file_name,
                           const LockSelection& /*selection*/) -> util::Result<model::Lock>
        {
            return parse_lock(text, file_name);
        }

        auto read_explicit(std::string_view text, std::string_view file_name,
                           const LockSelection& /*selection*/) -> util::Result<model::Lock>
        {
            return parse_explicit(text, file_name);
        }

        constexpr std::array<std::string_view, 1> envcheck_names{ "*.lock.json" };
        constexpr std::array<std::string_view, 2> conda_lock_names{ "conda-lock.yml",
                                                                    "*.conda-lock.yml" };
        constexpr std::array<std::string_view, 1> pixi_names{ "pixi.lock" };
        constexpr std::array<std::string_view, 1> explicit_names{ "conda-*.lock" };
        constexpr std::array<std::string_view, 1> uv_names{ "uv.lock" };
        constexpr std::array<std::string_view, 2> pylock_names{ "pylock.toml", "pylock.*.toml" };

        // The lock-format registry, in the order a project's locks are preferred when several
        // lie beside its environment file (app::find_project_files).
        const std::array<LockFormatInfo, 6> lock_format_table{ {
          { model::LockFormat::envcheck, "an envcheck lock", envcheck_names, read_envcheck },
          { model::LockFormat::pixi, "a pixi.lock", pixi_names, parse_pixi_lock },
          { model::LockFormat::conda_lock, "a conda-lock file", conda_lock_names,
            parse_conda_lock },
          { model::LockFormat::explicit_, "an @EXPLICIT file", explicit_names, read_explicit },
          { model::LockFormat::uv, "a uv.lock", uv_names, parse_uv_lock },
          { model::LockFormat::pylock, "a pylock.toml (PEP 751)", pylock_names, parse_pylock },
        } };
    }

    auto lock_formats() -> std::span<const LockFormatInfo>
    {
        return lock_format_table;
    }

    auto lock_format_info(model::LockFormat format) -> const LockFormatInfo&
    {
        for (const auto& row : lock_format_table)
        {
            if (row.format == format)
            {
                return row;
            }
        }
        return lock_format_table.front();
    }

    auto selects_by_python(model::LockFormat format) -> bool
    {
        return format == model::LockFormat::uv || format == model::LockFormat::pylock;
    }

    auto lock_format_by_file_name(std::string_view file_name) -> std::optional<model::LockFormat>
    {
        if (const auto slash = file_name.rfind('/'); slash != std::string_view::npos)
        {
            file_name.remove_prefix(slash + 1);
        }
        for (const auto& row : lock_format_table)
        {
            for (const auto pattern : row.file_names)
            {
                if (pattern.find('*') == std::string_view::npos
                      ? pattern == file_name
                      : util::glob_match(pattern, file_name))
                {
                    return row.format;
                }
            }
        }
        return std::nullopt;
    }

    auto detect_lock_format(std::string_view text, std::string_view file_name)
      -> util::Result<model::LockFormat>
    {
        if (text.starts_with("\xEF\xBB\xBF"))
        {
            text.remove_prefix(3);
        }
        const auto trimmed = util::trim(text);
        if (trimmed.starts_with("{"))
        {
            return model::LockFormat::envcheck;
        }
        const Markers markers = scan_markers(text);
        if (markers.explicit_marker)
        {
            return model::LockFormat::explicit_;
        }
        // The TOML locks: by their file name, else by their keys.
        if (const auto named = lock_format_by_file_name(file_name);
            named == model::LockFormat::uv || named == model::LockFormat::pylock)
        {
            return *named;
        }
        if (markers.toml_lock_version)
        {
            return model::LockFormat::pylock;
        }
        if (markers.toml_version && markers.toml_package)
        {
            return model::LockFormat::uv;
        }
        if (markers.environments)
        {
            return model::LockFormat::pixi;
        }
        if (markers.package || markers.metadata)
        {
            return model::LockFormat::conda_lock;
        }
        const util::SourceLocation where{ std::string(file_name), 0, 0 };
        if (is_export_list(text))
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::unsupported,
              "not a lock: this is a `conda list --export` list (name=version=build lines), which "
              "records no URLs "
              "or hashes",
              where, "use `conda list --explicit --sha256` or `envcheck lock` to write a lock"));
        }
        if (markers.version)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::unsupported,
              "unknown lock format: a YAML file with a version but neither 'package' "
              "(conda-lock) nor 'environments' (pixi)",
              where));
        }
        return util::unexpected(util::make_error(
          util::ErrorKind::unsupported,
          "not a lock envcheck reads: expected an envcheck lock (JSON), conda-lock.yml, pixi.lock, "
          "an @EXPLICIT file, uv.lock or pylock.toml",
          where, "a plain list of specs is an environment file; check it with --env"));
    }

    auto parse_any_lock(std::string_view text, std::string_view file_name,
                        const LockSelection& selection) -> util::Result<model::Lock>
    {
        const auto format = detect_lock_format(text, file_name);
        if (!format)
        {
            return util::unexpected(format.error());
        }
        if (!selection.categories.empty() && *format != model::LockFormat::conda_lock &&
            *format != model::LockFormat::pixi)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::usage,
              "--category selects conda-lock categories; " + std::string(file_name) + " is " +
                std::string(lock_format_info(*format).description) + ", which has none",
              util::SourceLocation{ std::string(file_name), 0, 0 }));
        }
        return lock_format_info(*format).read(text, file_name, selection);
    }

    namespace
    {
        // uv.lock and pylock.toml: read once for a Linux x86-64 target, which checks every entry
        // and marker; the count is of every entry.
        auto outline_python_lock(std::string_view text, std::string_view file_name,
                                 model::LockFormat format) -> util::Result<LockOutline>
        {
            // A pylock.toml whose environments exclude that target (usage) still outlines.
            auto lock =
              parse_any_lock(text, file_name, LockSelection{ "linux-64", "default", {}, "3" });
            if (!lock && lock.error().kind != util::ErrorKind::usage)
            {
                return util::unexpected(lock.error());
            }
            auto entries = format == model::LockFormat::uv ? count_uv_lock_entries(text, file_name)
                                                           : count_pylock_entries(text, file_name);
            if (!entries)
            {
                return util::unexpected(entries.error());
            }
            LockOutline outline;
            outline.format = format;
            outline.format_version = lock ? lock->format_version : std::string();
            outline.packages = *entries;
            return outline;
        }
    }

    auto outline_lock(std::string_view text, std::string_view file_name)
      -> util::Result<LockOutline>
    {
        const auto format = detect_lock_format(text, file_name);
        if (!format)
        {
            return util::unexpected(format.error());
        }
        LockOutline outline;
        outline.format = *format;
        const auto add = [](std::vector<std::string>& list, std::string_view item)
        {
            if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end())
            {
                list.emplace_back(item);
            }
        };
        if (selects_by_python(*format))
        {
            return outline_python_lock(text, file_name, *format);
        }
        if (*format == model::LockFormat::envcheck || *format == model::LockFormat::explicit_)
        {
            auto lock = *format == model::LockFormat::envcheck ? parse_lock(text, file_name)
                                                               : parse_explicit(text, file_name);
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            outline.format_version = lock->format_version;
            add(outline.platforms, lock->machine.platform.value_or(std::string()));
            outline.packages = lock->packages.size();
            return outline;
        }
        const auto loaded = lock_yaml::load_mapping(
          text, file_name,
          *format == model::LockFormat::pixi ? "a pixi.lock" : "a conda-lock file");
        if (!loaded)
        {
            return util::unexpected(loaded.error());
        }
        const yaml::Node root = loaded->root();
        outline.format_version = std::string(root.text("version"));
        std::vector<LockSelection> selections;
        if (*format == model::LockFormat::conda_lock)
        {
            const yaml::Node listed = root.get("metadata").get("platforms");
            for (std::size_t i = 0; i < listed.size(); ++i)
            {
                add(outline.platforms, listed.item(i).text());
            }
            const yaml::Node packages = root.get("package");
            for (std::size_t i = 0; i < packages.size(); ++i)
            {
                add(outline.platforms, packages.item(i).text("platform"));
                add(outline.categories, packages.item(i).text("category"));
            }
            for (const auto& platform : outline.platforms)
            {
                selections.push_back(LockSelection{ platform, "default", {} });
            }
        }
        else
        {
            const yaml::Node environments = root.get("environments");
            for (std::size_t e = 0; e < environments.size(); ++e)
            {
                const auto name = environments.key(e).text();
                add(outline.environments, name);
                const yaml::Node by_platform = environments.value(e).get("packages");
                for (std::size_t p = 0; p < by_platform.size(); ++p)
                {
                    const auto platform = by_platform.key(p).text();
                    add(outline.platforms, platform);
                    selections.push_back(
                      LockSelection{ std::string(platform), std::string(name), {} });
                }
            }
        }
        if (selections.empty())
        {
            // Still read it once: a wrong version or a broken header is an error here too.
            selections.push_back(LockSelection{
              "linux-64",
              outline.environments.empty() ? std::string("default") : outline.environments.front(),
              {} });
        }
        std::vector<util::Result<model::Lock>> locks;
        if (*format == model::LockFormat::pixi)
        {
            locks = read_pixi_locks(root, file_name, selections);
        }
        else
        {
            for (const auto& selection : selections)
            {
                locks.push_back(read_conda_lock(root, file_name, selection));
            }
        }
        for (const auto& lock : locks)
        {
            if (!lock && lock.error().kind != util::ErrorKind::usage)
            {
                return util::unexpected(lock.error());
            }
            if (lock)
            {
                outline.format = lock->format; // pixi's versions 2 and 3 look like conda-lock
                outline.packages += lock->packages.size() + lock->optional_packages.size();
            }
        }
        return outline;
    }

    auto default_lock_path(std::string_view environment_file) -> std::string
    {
        if (environment_file.empty())
        {
            return "environment.lock.json";
        }
        const auto slash = environment_file.rfind('/');
        const std::string_view directory = slash == std::string_view::npos
                                             ? std::string_view()
                                             : environment_file.substr(0, slash + 1);
        std::string_view name =
          slash == std::string_view::npos ? environment_file : environment_file.substr(slash + 1);
        if (const auto dot = name.rfind('.'); dot != std::string_view::npos && dot > 0)
        {
            name = name.substr(0, dot);
        }
        return std::string(directory) + std::string(name) + ".lock.json";
    }

    auto same_content(const model::Lock& a, const model::Lock& b) -> bool
    {
        model::Lock left = a;
        model::Lock right = b;
        for (auto* lock : { &left, &right })
        {
            // What the JSON does not hold, or holds by definition.
            lock->created_at.clear();
            lock->envcheck_version.clear();
            lock->format_version.clear();
            lock->notes.clear();
            model::sort_packages(lock->packages);
            for (auto& package : lock->packages)
            {
                package.source.clear();
                package.depends.clear();
            }
        }
        return left == right;
    }
}
