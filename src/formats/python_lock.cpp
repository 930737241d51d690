#include "formats/python_lock.hpp"

#include <algorithm>

#include "formats/explicit.hpp"
#include "util/strings.hpp"

namespace envcheck::formats::python_lock
{
    namespace
    {
        constexpr std::string_view pypi_index = "https://pypi.org/simple";

        // The lowest version a requires-python specifier set allows, as far as its >=, ==, ~=
        // and > clauses say; "" when none does.
        auto python_floor(std::string_view requires_python) -> std::string
        {
            for (const auto clause : util::split(requires_python, ','))
            {
                auto text = util::trim(clause);
                for (const std::string_view op : { ">=", "==", "~=", ">" })
                {
                    if (text.starts_with(op))
                    {
                        auto version = util::trim(text.substr(op.size()));
                        if (version.ends_with(".*"))
                        {
                            version.remove_suffix(2);
                        }
                        if (!version.empty() && util::is_digit(version.front()))
                        {
                            return std::string(version);
                        }
                    }
                }
            }
            return {};
        }
    }

    auto error_at(util::ErrorKind kind, std::string_view file_name, const TomlValue& where,
                  std::string message, std::string hint) -> util::Error
    {
        return util::make_error(kind, std::move(message),
                                util::SourceLocation{ std::string(file_name), where.position.line,
                                                      where.position.column },
                                std::move(hint));
    }

    auto target_for(const LockSelection& selection, std::string_view requires_python,
                    std::string_view file_name, std::vector<std::string>& notes)
      -> util::Result<Target>
    {
        std::string python = selection.python_version;
        if (!python.empty() && !selection.python_source.empty())
        {
            notes.push_back(std::string(file_name) + ": no installed environment; markers are " +
                            "evaluated for python " + python + " (" + selection.python_source +
                            ")");
        }
        if (python.empty())
        {
            python = python_floor(requires_python);
            notes.push_back(std::string(file_name) +
                            ": no installed environment names the python version; " +
                            (python.empty() ? std::string("markers on python versions are false")
                                            : "markers are evaluated for python " + python +
                                                ", the lowest requires-python allows") +
                            " (pass --prefix to read them for a venv)");
        }
        auto markers = pypi::marker_environment_for(selection.platform, python);
        if (!markers)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::usage,
              "no PEP 508 marker environment is known for platform '" + selection.platform + "'",
              util::SourceLocation{ std::string(file_name), 0, 0 },
              "pass --platform linux-64, linux-aarch64, osx-arm64, win-64, ..."));
        }
        return Target{ std::move(*markers),
                       selection.platform + (python.empty() ? "" : ", python " + python) };
    }

    auto evaluate(const TomlValue& marker, const pypi::MarkerEnvironment& markers,
                  std::string_view file_name) -> util::Result<bool>
    {
        if (marker.kind != TomlValue::Kind::string)
        {
            return util::unexpected(
              error_at(util::ErrorKind::parse, file_name, marker,
                       "a marker must be a string, not " + std::string(to_string(marker.kind))));
        }
        if (util::trim(marker.text).empty())
        {
            return true;
        }
        // The string's first character, after its opening quote.
        const util::SourceLocation start{ std::string(file_name), marker.position.line,
                                          marker.position.column + 1 };
        const auto parsed = pypi::Marker::parse(marker.text);
        if (!parsed)
        {
            return util::unexpected(util::to_error(parsed.error(), start));
        }
        auto value = parsed->evaluate(markers);
        if (!value)
        {
            return util::unexpected(util::to_error(value.error(), start));
        }
        return *value;
    }

    auto sha256_of_hash(std::string_view hash) -> std::string
    {
        constexpr std::string_view prefix = "sha256:";
        if (!hash.starts_with(prefix))
        {
            return {};
        }
        return util::to_lower(hash.substr(prefix.size()));
    }

    auto representative(const std::vector<Artifact>& wheels, const std::optional<Artifact>& sdist)
      -> std::optional<Artifact>
    {
        if (wheels.size() == 1)
        {
            return wheels.front();
        }
        const auto pure = std::find_if(wheels.begin(), wheels.end(),
                                       [](const Artifact& wheel)
                                       { return wheel.filename.ends_with("-none-any.whl"); });
        if (pure != wheels.end())
        {
            return *pure;
        }
        if (sdist)
        {
            return sdist;
        }
        if (!wheels.empty())
        {
            return wheels.front();
        }
        return std::nullopt;
    }

    void add_index(model::Lock& lock, std::string_view index, bool find_links)
    {
        std::string clean = strip_credentials(index);
        while (clean.ends_with('/'))
        {
            clean.pop_back();
        }
        if (clean.empty() || clean == pypi_index)
        {
            return;
        }
        std::string option;
        if (find_links)
        {
            option = "--find-links " + clean;
        }
        else
        {
            const bool has_index =
              std::any_of(lock.pip_options.begin(), lock.pip_options.end(),
                          [](const std::string& line) { return line.starts_with("--index-url "); });
            option = (has_index ? "--extra-index-url " : "--index-url ") + clean;
            if (std::any_of(lock.pip_options.begin(), lock.pip_options.end(),
                            [&](const std::string& line) { return line.ends_with(" " + clean); }))
            {
                return;
            }
        }
        if (std::find(lock.pip_options.begin(), lock.pip_options.end(), option) ==
            lock.pip_options.end())
        {
            lock.pip_options.push_back(std::move(option));
        }
    }

    auto left_out_note(std::string_view file_name, const Target& target,
                       const std::vector<std::string>& left_out) -> std::string
    {
        return std::string(file_name) + ": left out for " + target.description + ": " +
               util::join(left_out, ", ");
    }

    void finish(model::Lock& lock, std::string_view file_name, const Target& target,
                const std::vector<std::string>& left_out)
    {
        if (!left_out.empty())
        {
            lock.notes.push_back(left_out_note(file_name, target, left_out));
        }
        if (!lock.optional_packages.empty())
        {
            lock.notes.push_back(std::string(file_name) + ": " +
                                 std::to_string(lock.optional_packages.size()) +
                                 " package(s) only in extras or non-default groups: checked when "
                                 "installed, never missing");
        }
        model::sort_packages(lock.packages);
        model::sort_packages(lock.optional_packages);
    }
}
