#include "checks/consistency.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

        // The findings, each naming its installed package: one shared copy of a package
        // however many findings it has. A copy per finding held the package's depends each
        // time: the `anaconda` metapackage's ~500 are 10 KB, and a prefix with 20 broken
        // copies of it took 58 MB for them.
        class Findings
        {
        public:
            explicit Findings(std::vector<model::PackageFinding>& out)
              : m_out(out)
            {
            }

            void add(const model::Package& package, model::PackageStatus status, std::string reason)
            {
                auto& shared = m_packages[&package];
                if (!shared)
                {
                    shared = model::PackageRef(package);
                }
                model::PackageFinding& finding = m_out.emplace_back();
                finding.name = package.name;
                finding.manager = package.manager;
                finding.installed = shared;
                finding.status = status;
                finding.reason = std::move(reason);
            }

        private:
            std::vector<model::PackageFinding>& m_out;
            std::unordered_map<const model::Package*, model::PackageRef> m_packages;
        };

        struct ParsedRequirement
        {
            pypi::Requirement requirement;
            std::string text;
        };

        class PipConsistency
        {
        public:
            PipConsistency(const model::InstalledEnvironment& installed, std::string_view platform,
                           ConsistencyCheck& result, Findings& findings)
              : m_result(result)
              , m_findings(findings)
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
                            m_result.notes.push_back(package->name + ": Requires-Dist '" +
                                                     std::string(text) +
                                                     "' is not a valid requirement, not checked");
                            continue;
                        }
                        parsed.push_back(
                          ParsedRequirement{ std::move(*requirement), std::string(text) });
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
                            m_findings.add(*package, model::PackageStatus::broken_dependency,
                                           "requires '" + text + "', which is not installed");
                            continue;
                        }
                        const auto& have = *found->second;
                        if (!requirement.specifier().empty() &&
                            !requirement.specifier().contains(have.version, std::nullopt, true))
                        {
                            m_findings.add(*package, model::PackageStatus::broken_dependency,
                                           "requires '" + text + "', but " + have.name + " " +
                                             have.version + " is installed");
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
            Findings& m_findings;
            std::multimap<std::string, const model::Package*> m_installed;
            std::vector<const model::Package*> m_checked;
            std::map<const model::Package*, std::vector<ParsedRequirement>> m_requirements;
            std::map<std::string, std::set<std::string>> m_extras;
            std::optional<pypi::MarkerEnvironment> m_markers;
        };

        // One spec text against the installed record of its name, whoever asks: conda-forge's
        // records repeat the same few specs ("libgcc >=13", "python_abi 3.12.* *_cp312")
        // thousands of times, so each distinct text is parsed and judged once, and the distinct
        // texts are judged independently of one another (bench_check_scaling).
        struct Judgement
        {
            enum class Kind
            {
                judged,
                invalid_spec,      // not a MatchSpec: a note names each asker
                not_conda_version, // the installed record's version is not conda's: a note
            };
            Kind kind = Kind::judged;
            bool counted = false;                 // a requirement checked
            bool absent = false;                  // no installed package of its name
            std::optional<std::string> why;       // unmet: why
            const model::Package* have = nullptr; // not_conda_version: the installed package
        };

        // A use of a spec text: a conda package's depends, or a constrains of an installed name.
        struct SpecUse
        {
            const model::Package* owner = nullptr;
            std::string_view text;
            std::uint32_t distinct = 0; // index of the text among the distinct ones
            bool depends = true;        // depends (must exist) or constrains
        };

        // The distinct texts of the uses, numbered in the order they first appear: open
        // addressing over hashes the workers made (issue 19: hashing every use and a node per
        // distinct text in an std::unordered_map, serially, were a third of the consistency
        // check of 5,000 records). 32-bit numbers: 2^31 uses would be 64 GiB of strings.
        class DistinctTexts
        {
        public:
            explicit DistinctTexts(std::size_t uses)
              : m_slots(std::bit_ceil(std::max<std::size_t>(16, uses * 2)), empty)
              , m_mask(m_slots.size() - 1)
            {
                m_texts.reserve(uses);
                m_hashes.reserve(uses);
            }

            // The number of `text`, whose hash is `hash`; the next number when it is new.
            auto number(std::string_view text, std::size_t hash) -> std::uint32_t
            {
                for (std::size_t slot = hash & m_mask;; slot = (slot + 1) & m_mask)
                {
                    const std::uint32_t at = m_slots[slot];
                    if (at == empty)
                    {
                        m_slots[slot] = static_cast<std::uint32_t>(m_texts.size());
                        m_texts.push_back(text);
                        m_hashes.push_back(hash);
                        return m_slots[slot];
                    }
                    if (m_hashes[at] == hash && m_texts[at] == text)
                    {
                        return at;
                    }
                }
            }

            [[nodiscard]] auto texts() const -> const std::vector<std::string_view>&
            {
                return m_texts;
            }

        private:
            static constexpr std::uint32_t empty = UINT32_MAX;
            std::vector<std::uint32_t> m_slots;
            std::size_t m_mask;
            std::vector<std::string_view> m_texts;
            std::vector<std::size_t> m_hashes;
        };

        // The installed conda packages, the first of each name, with their records as MatchSpec
        // sees them.
        struct CondaInstalled
        {
            std::vector<const model::Package*> packages;
            std::unordered_map<std::string_view, std::size_t> by_name; // index into `packages`
            // Each package's parsed version, which with its name, build and build number is
            // all a spec that does not read a record's details is matched against (issue 19:
            // whole records were 3.4 MB of fresh memory at 5,000 packages); nullopt: not a
            // conda version.
            std::vector<std::optional<specs::Version>> versions;
        };

        // The installed package of `name` against a spec; `rejects(have, version)` is the
        // spec's verdict on it.
        template<class Rejects>
        auto judge_installed(std::string_view name, const CondaInstalled& conda,
                             const Rejects& rejects) -> Judgement
        {
            Judgement judgement;
            if (name.starts_with("__"))
            {
                return judgement; // a virtual package: the machine's, not the prefix's
            }
            judgement.counted = true;
            const auto found = conda.by_name.find(name);
            if (found == conda.by_name.end())
            {
                judgement.absent = true;
                return judgement;
            }
            const model::Package& have = *conda.packages[found->second];
            const auto& version = conda.versions[found->second];
            if (!version)
            {
                judgement.kind = Judgement::Kind::not_conda_version;
                judgement.have = &have;
            }
            else if (rejects(have, *version))
            {
                judgement.why = "but " + std::string(name) + " " + label(have) + " is installed";
            }
            return judgement;
        }

        auto judge(std::string_view text, const CondaInstalled& conda,
                   specs::VersionSpecCache& versions) -> Judgement
        {
            // The common shape (nearly every record's depends) without a MatchSpec made: the
            // same verdict (specs::CommonSpec).
            if (const auto common = specs::CommonSpec::parse(text, versions))
            {
                return judge_installed(
                  common->name(), conda,
                  [&](const model::Package& have, const specs::Version& version)
                  { return !common->matches_identity(version, have.build); });
            }
            const auto spec = specs::MatchSpec::parse(text, versions);
            if (!spec)
            {
                Judgement judgement;
                judgement.kind = Judgement::Kind::invalid_spec;
                return judgement;
            }
            if (!spec->name().is_exact())
            {
                return {};
            }
            return judge_installed(spec->name().text(), conda,
                                   [&](const model::Package& have, const specs::Version& version)
                                   {
                                       return spec->reads_record_details()
                                                ? !spec->matches(package_record_of(have).value())
                                                : !spec->matches_identity(have.name, version,
                                                                          have.build,
                                                                          conda_build_number(have));
                                   });
        }

        void check_conda(const model::InstalledEnvironment& installed, ConsistencyCheck& result,
                         Findings& findings, const util::ForEachIndex& for_each)
        {
            CondaInstalled conda;
            conda.packages.reserve(installed.packages.size());
            conda.by_name.reserve(installed.packages.size());
            for (const auto& package : installed.packages)
            {
                if (package.manager == model::Manager::conda &&
                    conda.by_name.emplace(package.name, conda.packages.size()).second)
                {
                    conda.packages.push_back(&package);
                }
            }
            // Every use, in the order findings and notes are reported.
            std::vector<SpecUse> uses;
            // Sized once: growing it was most of this serial part at 10,000 records.
            std::size_t use_count = 0;
            for (const auto& package : installed.packages)
            {
                use_count += package.depends.size();
            }
            uses.reserve(use_count);
            const auto use = [&](const model::Package& owner, std::string_view text, bool depends) {
                uses.push_back(SpecUse{ &owner, text, 0, depends });
            };
            for (const auto& package : installed.packages)
            {
                if (package.manager == model::Manager::conda)
                {
                    for (const auto depends : package.depends)
                    {
                        use(package, depends, true);
                    }
                }
            }
            for (const auto& [name, constrains] : installed.constrains)
            {
                if (const auto owner = conda.by_name.find(name); owner != conda.by_name.end())
                {
                    for (const auto& constraint : constrains)
                    {
                        use(*conda.packages[owner->second], constraint, false);
                    }
                }
            }
            // The distinct texts: each use's hashed on the workers, then numbered in order.
            std::vector<std::size_t> hashes(uses.size());
            util::for_each_run(for_each, uses.size(), 1024,
                               [&](std::size_t begin, std::size_t end)
                               {
                                   for (std::size_t i = begin; i < end; ++i)
                                   {
                                       hashes[i] = std::hash<std::string_view>{}(uses[i].text);
                                   }
                               });
            DistinctTexts numbered(uses.size());
            for (std::size_t i = 0; i < uses.size(); ++i)
            {
                uses[i].distinct = numbered.number(uses[i].text, hashes[i]);
            }
            const auto& distinct = numbered.texts();
            // The installed records, and each distinct text's judgement: independent items.
            conda.versions.resize(conda.packages.size());
            util::for_each_if_worth(for_each, conda.packages.size(), 1,
                                    [&](std::size_t index)
                                    {
                                        if (auto version =
                                              specs::Version::parse(conda.packages[index]->version))
                                        {
                                            conda.versions[index] = std::move(*version);
                                        }
                                    });
            // In runs of texts, each run with its own cache of version specs (a cache is not
            // shared between threads).
            std::vector<Judgement> judgements(distinct.size());
            util::for_each_run(for_each, distinct.size(), 256,
                               [&](std::size_t begin, std::size_t end)
                               {
                                   specs::VersionSpecCache versions;
                                   for (std::size_t index = begin; index < end; ++index)
                                   {
                                       judgements[index] = judge(distinct[index], conda, versions);
                                   }
                               });
            for (const auto& [owner, text, index, depends] : uses)
            {
                const Judgement& judgement = judgements[index];
                if (judgement.kind == Judgement::Kind::invalid_spec)
                {
                    result.notes.push_back(owner->name + ": '" + std::string(text) +
                                           "' is not a valid MatchSpec, not checked");
                    continue;
                }
                result.requirements_checked += judgement.counted ? 1 : 0;
                if (judgement.kind == Judgement::Kind::not_conda_version)
                {
                    result.notes.push_back(judgement.have->name + " " + judgement.have->version +
                                           ": not a conda version, '" + std::string(text) +
                                           "' not checked");
                    continue;
                }
                const auto why = judgement.absent
                                   ? (depends ? std::optional<std::string>("which is not installed")
                                              : std::nullopt)
                                   : judgement.why;
                if (why)
                {
                    if (depends)
                    {
                        findings.add(*owner, model::PackageStatus::broken_dependency,
                                     "depends on '" + std::string(text) + "', " + *why);
                    }
                    else
                    {
                        findings.add(*owner, model::PackageStatus::conflicting_constraint,
                                     "constrains '" + std::string(text) + "', " + *why);
                    }
                }
            }
        }
    }

    auto check_consistency(const model::InstalledEnvironment& installed, std::string_view platform,
                           const util::ForEachIndex& for_each) -> ConsistencyCheck
    {
        ConsistencyCheck result;
        Findings findings(result.packages);
        check_conda(installed, result, findings, for_each);
        PipConsistency(installed, platform, result, findings).run();
        return result;
    }
}
