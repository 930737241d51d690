#include "checks/consistency.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "checks/env_check.hpp"
#include "pypi/marker.hpp"
#include "pypi/name.hpp"
#include "pypi/requirement.hpp"
#include "specs/match_spec.hpp"

namespace envcheck::checks
{
    namespace
    {
        auto label(const model::Package& package) -> std::string
        {
            return package.build.empty() ? package.version : package.version + " " + package.build;
        }

        auto finding(const model::Package& package, model::PackageStatus status, std::string reason)
          -> model::PackageFinding
        {
            model::PackageFinding result;
            result.name = package.name;
            result.manager = package.manager;
            result.installed = package;
            result.status = status;
            result.reason = std::move(reason);
            return result;
        }

        struct ParsedRequirement
        {
            pypi::Requirement requirement;
            std::string text;
        };

        class PipConsistency
        {
        public:
            PipConsistency(const model::InstalledEnvironment& installed, std::string_view platform,
                           ConsistencyCheck& result)
              : m_result(result)
            {
                for (const auto& package : installed.packages)
                {
                    if (package.manager == model::Manager::pip)
                    {
                        m_installed.emplace(pypi::normalize_name(package.name), &package);
                        m_checked.push_back(&package);
                    }
                }
                for (const auto& package : installed.conda_owned_distributions)
                {
                    m_installed.emplace(pypi::normalize_name(package.name), &package);
                }
                if (installed.python_version)
                {
                    m_markers = pypi::marker_environment_for(platform, *installed.python_version);
                }
                for (const auto* package : m_checked)
                {
                    auto& parsed = m_requirements[package];
                    for (const auto& text : package->depends)
                    {
                        auto requirement = pypi::Requirement::parse(text);
                        if (!requirement)
                        {
                            m_result.notes.push_back(package->name + ": Requires-Dist '" + text +
                                                     "' is not a valid requirement, not checked");
                            continue;
                        }
                        parsed.push_back(ParsedRequirement{ std::move(*requirement), text });
                    }
                }
            }

            void run()
            {
                collect_requested_extras();
                for (const auto* package : m_checked)
                {
                    for (const auto& [requirement, text] : m_requirements[package])
                    {
                        if (!applies(*package, requirement, text))
                        {
                            continue;
                        }
                        ++m_result.requirements_checked;
                        const auto found = m_installed.find(requirement.normalized_name());
                        if (found == m_installed.end())
                        {
                            m_result.packages.push_back(
                              finding(*package, model::PackageStatus::broken_dependency,
                                      "requires '" + text + "', which is not installed"));
                            continue;
                        }
                        const auto& have = *found->second;
                        if (!requirement.specifier().empty() &&
                            !requirement.specifier().contains(have.version, std::nullopt, true))
                        {
                            m_result.packages.push_back(
                              finding(*package, model::PackageStatus::broken_dependency,
                                      "requires '" + text + "', but " + have.name + " " +
                                        have.version + " is installed"));
                        }
                    }
                }
            }

        private:
            // The extras of each distribution that installed distributions ask for, to a fixed
            // point (an extra's requirements may ask for further extras).
            void collect_requested_extras()
            {
                for (std::size_t round = 0; round <= m_checked.size(); ++round)
                {
                    bool grew = false;
                    for (const auto* package : m_checked)
                    {
                        for (const auto& [requirement, text] : m_requirements[package])
                        {
                            if (requirement.extras().empty() ||
                                !applies(*package, requirement, text, false))
                            {
                                continue;
                            }
                            auto& extras = m_extras[requirement.normalized_name()];
                            for (const auto& extra : requirement.extras())
                            {
                                grew = extras.insert(pypi::normalize_name(extra)).second || grew;
                            }
                        }
                    }
                    if (!grew)
                    {
                        return;
                    }
                }
            }

            // The marker is true with no extra, or with one of the extras asked of `package`.
            auto applies(const model::Package& package, const pypi::Requirement& requirement,
                         const std::string& text, bool note = true) -> bool
            {
                if (!requirement.marker())
                {
                    return true;
                }
                if (!m_markers)
                {
                    if (note)
                    {
                        m_result.notes.push_back(
                          package.name + ": the marker of Requires-Dist '" + text +
                          "' was not evaluated (the environment's python version is unknown)");
                    }
                    return false;
                }
                auto environment = *m_markers;
                environment.extra.clear();
                const auto evaluate = [&]() -> bool
                {
                    const auto verdict = requirement.marker()->evaluate(environment);
                    return verdict && *verdict;
                };
                if (evaluate())
                {
                    return true;
                }
                const auto asked = m_extras.find(pypi::normalize_name(package.name));
                if (asked == m_extras.end())
                {
                    return false;
                }
                for (const auto& extra : asked->second)
                {
                    environment.extra = extra;
                    if (evaluate())
                    {
                        return true;
                    }
                }
                return false;
            }

            ConsistencyCheck& m_result;
            std::multimap<std::string, const model::Package*> m_installed;
            std::vector<const model::Package*> m_checked;
            std::map<const model::Package*, std::vector<ParsedRequirement>> m_requirements;
            std::map<std::string, std::set<std::string>> m_extras;
            std::optional<pypi::MarkerEnvironment> m_markers;
        };

        void check_conda(const model::InstalledEnvironment& installed, ConsistencyCheck& result)
        {
            std::unordered_map<std::string, const model::Package*> by_name;
            std::unordered_map<std::string, std::optional<specs::PackageRecord>> records;
            for (const auto& package : installed.packages)
            {
                if (package.manager == model::Manager::conda)
                {
                    by_name.emplace(package.name, &package);
                }
            }
            const auto record =
              [&](const model::Package& package) -> const std::optional<specs::PackageRecord>&
            {
                auto found = records.find(package.name);
                if (found == records.end())
                {
                    found = records.emplace(package.name, package_record_of(package)).first;
                }
                return found->second;
            };
            // One spec against the installed record of its name, whoever asks: conda-forge's
            // records repeat the same few specs ("libgcc >=13", "python_abi 3.12.* *_cp312")
            // thousands of times, so each text is parsed and judged once (bench_check_scaling).
            struct Judgement
            {
                bool counted = false;           // a requirement checked
                bool absent = false;            // no installed package of its name
                std::optional<std::string> why; // unmet: why
            };
            std::unordered_map<std::string_view, Judgement> judged;
            // nullopt when the judgement depends on who asks (a note names the owner).
            const auto evaluate = [&](const model::Package& owner,
                                      const std::string& text) -> std::optional<Judgement>
            {
                auto spec = specs::MatchSpec::parse(text);
                if (!spec)
                {
                    result.notes.push_back(owner.name + ": '" + text +
                                           "' is not a valid MatchSpec, not checked");
                    return std::nullopt;
                }
                if (!spec->name().is_exact())
                {
                    return Judgement{};
                }
                const std::string name = spec->name().to_string();
                if (name.starts_with("__"))
                {
                    return Judgement{}; // a virtual package: the machine's, not the prefix's
                }
                const auto found = by_name.find(name);
                if (found == by_name.end())
                {
                    return Judgement{ true, true, std::nullopt };
                }
                const auto& have = record(*found->second);
                if (!have)
                {
                    result.notes.push_back(found->second->name + " " + found->second->version +
                                           ": not a conda version, '" + text + "' not checked");
                    ++result.requirements_checked;
                    return std::nullopt;
                }
                if (spec->matches(*have))
                {
                    return Judgement{ true, false, std::nullopt };
                }
                return Judgement{ true, false,
                                  "but " + name + " " + label(*found->second) + " is installed" };
            };
            // nullopt when met (or not judged), else why not.
            const auto judge = [&](const model::Package& owner, const std::string& text,
                                   bool must_exist) -> std::optional<std::string>
            {
                auto known = judged.find(text);
                if (known == judged.end())
                {
                    const auto judgement = evaluate(owner, text);
                    if (!judgement)
                    {
                        return std::nullopt;
                    }
                    known = judged.emplace(text, *judgement).first;
                }
                const Judgement& judgement = known->second;
                result.requirements_checked += judgement.counted ? 1 : 0;
                if (judgement.absent)
                {
                    return must_exist ? std::optional<std::string>("which is not installed")
                                      : std::nullopt;
                }
                return judgement.why;
            };
            for (const auto& package : installed.packages)
            {
                if (package.manager != model::Manager::conda)
                {
                    continue;
                }
                for (const auto& depends : package.depends)
                {
                    if (const auto why = judge(package, depends, true))
                    {
                        result.packages.push_back(finding(package,
                                                          model::PackageStatus::broken_dependency,
                                                          "depends on '" + depends + "', " + *why));
                    }
                }
            }
            for (const auto& [name, constrains] : installed.constrains)
            {
                const auto owner = by_name.find(name);
                if (owner == by_name.end())
                {
                    continue;
                }
                for (const auto& constraint : constrains)
                {
                    if (const auto why = judge(*owner->second, constraint, false))
                    {
                        result.packages.push_back(
                          finding(*owner->second, model::PackageStatus::conflicting_constraint,
                                  "constrains '" + constraint + "', " + *why));
                    }
                }
            }
        }
    }

    auto check_consistency(const model::InstalledEnvironment& installed, std::string_view platform)
      -> ConsistencyCheck
    {
        ConsistencyCheck result;
        check_conda(installed, result);
        PipConsistency(installed, platform, result).run();
        return result;
    }
}
