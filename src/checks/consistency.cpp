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
            bool counted = false;  // a requirement checked
            bool absent = false;   // no installed package of its name
            bool rejected = false; // the installed package does not match
            // rejected, not_conda_version: the installed package (the message is made for
            // each use that fails: a string here was most of 1 MB of fresh memory, issue 19)
            const model::Package* have = nullptr;
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
                judgement.rejected = true;
                judgement.have = &have;
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

        // The uses of spec texts, in the order findings and notes are reported: the depends of
        // each conda package, then the constrains of installed names. A use is known by its
        // place, the depends of package p from depends_begin[p] on (issue 19: an owner and a
        // text kept for each use were 1 MB of fresh memory at 5,000 records).
        class SpecUses
        {
        public:
            struct Constraint
            {
                const model::Package* owner;
                std::string_view text;
            };

            SpecUses(const model::InstalledEnvironment& installed, const CondaInstalled& conda)
              : m_packages(installed.packages)
              , m_depends_begin(m_packages.size() + 1, 0)
            {
                for (std::size_t p = 0; p < m_packages.size(); ++p)
                {
                    const bool of_conda = m_packages[p].manager == model::Manager::conda;
                    m_depends_begin[p + 1] =
                      m_depends_begin[p] + (of_conda ? m_packages[p].depends.size() : 0);
                }
                for (const auto& [name, constrains] : installed.constrains)
                {
                    if (const auto owner = conda.by_name.find(name); owner != conda.by_name.end())
                    {
                        for (const auto& constraint : constrains)
                        {
                            m_constraints.push_back({ conda.packages[owner->second], constraint });
                        }
                    }
                }
            }

            [[nodiscard]] auto size() const -> std::size_t
            {
                return m_depends_begin.back() + m_constraints.size();
            }
            [[nodiscard]] auto packages() const -> std::size_t { return m_packages.size(); }

            // visit(use, owner, text, depends) for the uses of packages [begin, end), and with
            // `constraints`, then for every constrains.
            template<class Visit>
            void walk(std::size_t begin, std::size_t end, bool constraints,
                      const Visit& visit) const
            {
                for (std::size_t p = begin; p < end; ++p)
                {
                    std::size_t use = m_depends_begin[p];
                    for (const auto text : m_packages[p].depends)
                    {
                        if (use == m_depends_begin[p + 1])
                        {
                            break; // none of a pip package's
                        }
                        visit(use++, m_packages[p], text, true);
                    }
                }
                for (std::size_t c = 0; constraints && c < m_constraints.size(); ++c)
                {
                    visit(m_depends_begin.back() + c, *m_constraints[c].owner,
                          m_constraints[c].text, false);
                }
            }

        private:
            const std::vector<model::Package>& m_packages;
            std::vector<std::size_t> m_depends_begin;
            std::vector<Constraint> m_constraints;
        };

        // The number of each use's text among the distinct texts (numbered in the order they
        // first appear): hashed on the workers, then numbered in order.
        auto number_texts(const SpecUses& uses, DistinctTexts& numbered,
                          const util::ForEachIndex& for_each) -> std::vector<std::uint32_t>
        {
            std::vector<std::size_t> hashes(uses.size());
            const auto hash = [&](std::size_t use, const model::Package&, std::string_view text,
                                  bool) { hashes[use] = std::hash<std::string_view>{}(text); };
            util::for_each_run(for_each, uses.packages(), 256,
                               [&](std::size_t begin, std::size_t end)
                               { uses.walk(begin, end, false, hash); });
            uses.walk(0, 0, true, hash);
            std::vector<std::uint32_t> numbers(uses.size());
            uses.walk(0, uses.packages(), true,
                      [&](std::size_t use, const model::Package&, std::string_view text, bool)
                      { numbers[use] = numbered.number(text, hashes[use]); });
            return numbers;
        }

        // A use's judgement as a note, a finding, or neither.
        void report(const model::Package& owner, std::string_view text, bool depends,
                    const Judgement& judgement, ConsistencyCheck& result, Findings& findings)
        {
            if (judgement.kind == Judgement::Kind::invalid_spec)
            {
                result.notes.push_back(owner.name + ": '" + std::string(text) +
                                       "' is not a valid MatchSpec, not checked");
                return;
            }
            result.requirements_checked += judgement.counted ? 1 : 0;
            if (judgement.kind == Judgement::Kind::not_conda_version)
            {
                result.notes.push_back(judgement.have->name + " " + judgement.have->version +
                                       ": not a conda version, '" + std::string(text) +
                                       "' not checked");
                return;
            }
            if (judgement.rejected)
            {
                const std::string why =
                  "but " + judgement.have->name + " " + label(*judgement.have) + " is installed";
                if (depends)
                {
                    findings.add(owner, model::PackageStatus::broken_dependency,
                                 "depends on '" + std::string(text) + "', " + why);
                }
                else
                {
                    findings.add(owner, model::PackageStatus::conflicting_constraint,
                                 "constrains '" + std::string(text) + "', " + why);
                }
            }
            else if (judgement.absent && depends)
            {
                findings.add(owner, model::PackageStatus::broken_dependency,
                             "depends on '" + std::string(text) + "', which is not installed");
            }
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
            const SpecUses uses(installed, conda);
            DistinctTexts numbered(uses.size());
            const auto numbers = number_texts(uses, numbered, for_each);
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
            uses.walk(
              0, uses.packages(), true,
              [&](std::size_t use, const model::Package& owner, std::string_view text, bool depends)
              { report(owner, text, depends, judgements[numbers[use]], result, findings); });
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
