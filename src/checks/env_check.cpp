#include "checks/env_check.hpp"

#include <map>
#include <unordered_map>

#include "pypi/marker.hpp"
#include "pypi/name.hpp"
#include "pypi/pip_line.hpp"
#include "pypi/version.hpp"
#include "specs/match_spec.hpp"
#include "specs/package_record.hpp"
#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        auto location(std::string_view file_name, const formats::TextPosition& position)
          -> util::SourceLocation
        {
            return util::SourceLocation{ std::string(file_name), position.line, position.column };
        }

        auto label(const model::Package& package) -> std::string
        {
            return package.build.empty() ? package.version : package.version + " " + package.build;
        }

        class Checker
        {
        public:
            Checker(std::string_view file_name, const model::InstalledEnvironment& installed,
                    std::string_view platform, std::string_view state)
              : m_file_name(file_name)
              , m_platform(platform)
              , m_state(state)
            {
                for (const auto& package : installed.packages)
                {
                    if (package.manager == model::Manager::conda)
                    {
                        m_conda.push_back(&package);
                    }
                    else
                    {
                        m_pip.emplace(pypi::normalize_name(package.name), &package);
                    }
                }
                for (const auto& package : installed.conda_owned_distributions)
                {
                    m_pip.emplace(pypi::normalize_name(package.name), &package);
                }
                if (installed.python_version)
                {
                    m_markers = pypi::marker_environment_for(platform, *installed.python_version);
                }
                // A venv has no conda record of its python; its pyvenv.cfg says which it is, and a
                // `python=3.12` in the environment file is about that.
                if (installed.kind == model::PrefixKind::venv && installed.python_version)
                {
                    m_venv_python.name = "python";
                    m_venv_python.version = *installed.python_version;
                    m_venv_python.source = "pyvenv.cfg";
                    m_conda.push_back(&m_venv_python);
                }
                for (std::size_t i = 0; i < m_conda.size(); ++i)
                {
                    m_conda_lowered.push_back(util::to_lower(m_conda[i]->name));
                    m_conda_by_name[m_conda_lowered.back()].push_back(i);
                }
            }

            // The conda packages a name can match, in their order: those of its name where it is
            // one name (nearly always), else all. A scan of every package per spec, lowercasing
            // each name, made a 2,000-spec check quadratic (issue 19).
            [[nodiscard]] auto conda_candidates(const specs::StringMatcher& name) const
              -> std::vector<std::size_t>
            {
                if (name.is_exact())
                {
                    const auto found = m_conda_by_name.find(util::to_lower(name.text()));
                    return found == m_conda_by_name.end() ? std::vector<std::size_t>{}
                                                          : found->second;
                }
                std::vector<std::size_t> all(m_conda.size());
                for (std::size_t i = 0; i < all.size(); ++i)
                {
                    all[i] = i;
                }
                return all;
            }

            Checker(const Checker&) = delete;
            auto operator=(const Checker&) -> Checker& = delete;

            auto applies(const std::string& selector, const std::string& text) -> bool
            {
                if (selector.empty())
                {
                    return true;
                }
                const auto verdict = selector_applies(selector, m_platform);
                if (!verdict)
                {
                    m_result.notes.push_back("selector [" + selector + "] of '" + text +
                                             "' is not understood; the entry is checked");
                    return true;
                }
                return *verdict;
            }

            auto conda(const formats::EnvDependency& dependency) -> util::Result<void>
            {
                if (!applies(dependency.selector, dependency.text))
                {
                    return {};
                }
                const auto spec = specs::MatchSpec::parse(dependency.text);
                if (!spec)
                {
                    return util::unexpected(
                      util::to_error(spec.error(), location(m_file_name, dependency.position)));
                }
                model::PackageFinding finding;
                finding.manager = model::Manager::conda;
                finding.name = spec->name().text();
                finding.spec = dependency.text;
                finding.spec_location = location(m_file_name, dependency.position);
                const model::Package* closest = nullptr;
                for (const std::size_t index : conda_candidates(spec->name()))
                {
                    const auto* package = m_conda[index];
                    if (!spec->name().matches(m_conda_lowered[index]))
                    {
                        continue;
                    }
                    const auto record = package_record_of(*package);
                    if (record && spec->matches(*record))
                    {
                        finding.installed = *package;
                        finding.name = package->name;
                        m_result.packages.push_back(std::move(finding));
                        return {};
                    }
                    closest = closest != nullptr ? closest : package;
                }
                if (closest == nullptr)
                {
                    finding.status = model::PackageStatus::missing;
                    finding.reason = "no " + m_state + " package matches '" + dependency.text + "'";
                }
                else
                {
                    finding.installed = *closest;
                    finding.name = closest->name;
                    finding.status = model::PackageStatus::unsatisfied;
                    finding.reason = m_state + " " + label(*closest) + " does not satisfy '" +
                                     dependency.text + "'";
                }
                m_result.packages.push_back(std::move(finding));
                return {};
            }

            auto pip(const formats::EnvPipLine& entry) -> util::Result<void>
            {
                if (!applies(entry.selector, entry.text))
                {
                    return {};
                }
                const auto line = pypi::parse_pip_line(entry.text);
                if (!line)
                {
                    return util::unexpected(
                      util::to_error(line.error().error, location(m_file_name, entry.position)));
                }
                switch (line->kind)
                {
                    case pypi::PipLineKind::comment:
                        return {};
                    case pypi::PipLineKind::option:
                        if (const auto* file = line->option("--requirement"); file != nullptr)
                        {
                            m_result.notes.push_back("not checked: -r " + file->value +
                                                     " (requirements files are not followed)");
                        }
                        return {};
                    default:
                        break;
                }
                if (line->marker && !marker_applies(*line->marker, entry.text))
                {
                    return {};
                }
                model::PackageFinding finding;
                finding.manager = model::Manager::pip;
                finding.spec = entry.text;
                finding.spec_location = location(m_file_name, entry.position);
                finding.name = line->name;
                if (line->name.empty())
                {
                    m_result.notes.push_back("not checked: '" + entry.text +
                                             "' does not name its project");
                    return {};
                }
                const auto found = m_pip.find(pypi::normalize_name(line->name));
                if (found == m_pip.end())
                {
                    finding.status = model::PackageStatus::missing;
                    finding.reason = "no " + m_state + " distribution named " + line->name;
                    m_result.packages.push_back(std::move(finding));
                    return {};
                }
                const model::Package& installed = *found->second;
                finding.name = installed.name;
                finding.installed = installed;
                finding.reason = unsatisfied_reason(*line, installed, m_state);
                finding.status = finding.reason.empty() ? model::PackageStatus::ok
                                                        : model::PackageStatus::unsatisfied;
                m_result.packages.push_back(std::move(finding));
                return {};
            }

            auto result() -> EnvironmentFileCheck { return std::move(m_result); }

        private:
            auto marker_applies(const pypi::Marker& marker, const std::string& text) -> bool
            {
                if (!m_markers)
                {
                    m_result.notes.push_back(
                      "the marker of '" + text +
                      "' was not evaluated (the environment's python version is unknown)");
                    return true;
                }
                const auto verdict = marker.evaluate(*m_markers);
                return !verdict || *verdict;
            }

            static auto unsatisfied_reason(const pypi::PipLine& line,
                                           const model::Package& installed,
                                           const std::string& state) -> std::string
            {
                const std::string have = state + " " + installed.version;
                if (line.requirement && !line.requirement->specifier().empty() &&
                    !line.requirement->specifier().contains(installed.version, std::nullopt, true))
                {
                    return have + " does not satisfy '" +
                           line.requirement->specifier().to_string() + "'";
                }
                if (line.file_version)
                {
                    const auto version = pypi::Version::parse(installed.version);
                    if (!version || !(*version == *line.file_version))
                    {
                        return have + ", the line installs " + line.file_version->to_string();
                    }
                }
                if (line.vcs && line.vcs->ref_is_commit() && installed.direct_url &&
                    !installed.direct_url->commit_id.empty() &&
                    installed.direct_url->commit_id != line.vcs->ref)
                {
                    return "installed from commit " + installed.direct_url->commit_id +
                           ", the line asks for " + line.vcs->ref;
                }
                return {};
            }

            std::string m_file_name;
            std::string m_platform;
            std::string m_state; // "installed", or "locked" when the packages are a lock's
            model::Package m_venv_python;
            std::vector<const model::Package*> m_conda;
            std::vector<std::string> m_conda_lowered; // m_conda's names, lowercase
            std::unordered_map<std::string, std::vector<std::size_t>> m_conda_by_name;
            std::multimap<std::string, const model::Package*> m_pip;
            std::optional<pypi::MarkerEnvironment> m_markers;
            EnvironmentFileCheck m_result;
        };
    }

    auto selector_applies(std::string_view selector, std::string_view platform)
      -> std::optional<bool>
    {
        auto text = util::trim(selector);
        bool negate = false;
        if (text.starts_with("not "))
        {
            negate = true;
            text = util::trim(text.substr(4));
        }
        const bool is_linux = platform.starts_with("linux-");
        const bool is_osx = platform.starts_with("osx-");
        const bool is_win = platform.starts_with("win-");
        const bool is_64 = platform.ends_with("-64");
        const std::map<std::string_view, bool> known{
            { "linux", is_linux },
            { "osx", is_osx },
            { "win", is_win },
            { "unix", is_linux || is_osx },
            { "linux64", is_linux && is_64 },
            { "osx64", is_osx && is_64 },
            { "win64", is_win && is_64 },
            { "aarch64", platform.ends_with("aarch64") },
            { "arm64", platform.ends_with("arm64") },
            { "ppc64le", platform.ends_with("ppc64le") },
        };
        if (const auto found = known.find(text); found != known.end())
        {
            return found->second != negate;
        }
        if (text == platform)
        {
            return !negate;
        }
        return std::nullopt;
    }

    auto conda_build_number(const model::Package& package) -> std::uint64_t
    {
        return package.build_number && *package.build_number > 0
                 ? static_cast<std::uint64_t>(*package.build_number)
                 : 0;
    }

    auto package_record_of(const model::Package& package) -> std::optional<specs::PackageRecord>
    {
        auto version = specs::Version::parse(package.version);
        if (!version)
        {
            return std::nullopt;
        }
        std::optional<specs::PackageRecord> record(std::in_place);
        record->name = package.name;
        record->version = std::move(*version);
        record->build = package.build;
        record->build_number = conda_build_number(package);
        record->channel = package.channel;
        record->subdir = package.subdir;
        record->md5 = package.md5;
        record->sha256 = package.sha256;
        record->url = package.url;
        record->fn = package.filename;
        // Not the depends: no MatchSpec field reads them, and copying a record's dozen strings
        // was a third of this at 5,000 records (issue 19).
        return record;
    }

    auto check_environment_file(const formats::EnvironmentFile& file, std::string_view file_name,
                                const model::InstalledEnvironment& installed,
                                std::string_view platform, std::string_view state)
      -> util::Result<EnvironmentFileCheck>
    {
        Checker checker(file_name, installed, platform, state);
        for (const auto& dependency : file.dependencies)
        {
            if (auto checked = checker.conda(dependency); !checked)
            {
                return util::unexpected(checked.error());
            }
        }
        for (const auto& entry : file.pip)
        {
            if (auto checked = checker.pip(entry); !checked)
            {
                return util::unexpected(checked.error());
            }
        }
        return checker.result();
    }
}
