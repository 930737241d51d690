#include "checks/diff.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "checks/lint_input.hpp"
#include "specs/match_spec.hpp"
#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        auto without_spaces(std::string_view text) -> std::string
        {
            std::string out;
            for (const char c : text)
            {
                if (!util::is_space(c))
                {
                    out += c;
                }
            }
            return out;
        }

        // The version a spec pins or starts from: "=2.0.1" -> "2.0.1", ">=1.26,<2" -> "1.26",
        // "2.1.*" -> "2.1", "==2.3.1+cu121" -> "2.3.1+cu121"; upper bounds and exclusions alone
        // name no version.
        auto named_version(std::string_view spec) -> std::string
        {
            const std::string_view first = spec.substr(0, spec.find('|'));
            for (const auto part : util::split(first, ','))
            {
                std::string_view constraint = util::trim(part);
                if (constraint.starts_with("<") || constraint.starts_with("!="))
                {
                    continue;
                }
                constraint.remove_prefix(
                  std::min(constraint.find_first_not_of("=<>~! "), constraint.size()));
                const std::size_t end = constraint.find_first_of(" =");
                constraint = constraint.substr(0, end);
                while (constraint.ends_with('*') || constraint.ends_with('.'))
                {
                    constraint.remove_suffix(1);
                }
                if (!constraint.empty() && util::is_digit(constraint.front()))
                {
                    return std::string(constraint);
                }
            }
            return {};
        }

        // Leading numeric components: "2.0.1" -> {2, 0, 1}, "3.10.*" -> {3, 10}, "1.13.1+cu117" ->
        // {1, 13, 1}.
        auto numbers_of(std::string_view version) -> std::vector<unsigned long long>
        {
            std::vector<unsigned long long> numbers;
            for (const auto piece : util::split(version.substr(0, version.find('+')), '.'))
            {
                const auto number = util::parse_uint(piece);
                if (!number)
                {
                    break;
                }
                numbers.push_back(*number);
            }
            return numbers;
        }

        auto major_minor(std::string_view version) -> std::string
        {
            const auto numbers = numbers_of(version);
            if (numbers.empty())
            {
                return {};
            }
            std::string out = std::to_string(numbers[0]);
            if (numbers.size() > 1)
            {
                out += "." + std::to_string(numbers[1]);
            }
            return out;
        }

        auto cuda_of(const PackageEntry& entry) -> std::string
        {
            if (entry.manager == model::Manager::conda)
            {
                if (is_cuda_package(util::to_lower(entry.name)))
                {
                    return major_minor(entry.version);
                }
                return cuda_in_build(entry.build);
            }
            return cuda_in_wheel_tag(entry.text);
        }

        // The CUDA version a package set names, from its most telling entry.
        auto cuda_of(const PackageSet& set) -> std::string
        {
            static constexpr std::array<std::string_view, 3> preferred{ "cuda-version",
                                                                        "pytorch-cuda",
                                                                        "cudatoolkit" };
            for (const auto name : preferred)
            {
                for (const auto& entry : set.packages)
                {
                    if (entry.manager == model::Manager::conda &&
                        util::to_lower(entry.name) == name)
                    {
                        const std::string cuda = major_minor(entry.version);
                        if (!cuda.empty())
                        {
                            return cuda;
                        }
                    }
                }
            }
            for (const auto& entry : set.packages)
            {
                const std::string cuda = cuda_of(entry);
                if (!cuda.empty())
                {
                    return cuda;
                }
            }
            return {};
        }

        auto is_framework(std::string_view name) -> bool
        {
            static constexpr std::array<std::string_view, 9> frameworks{
                "pytorch", "torch", "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "jax",
                "jaxlib",  "numpy", "cupy"
            };
            return std::find(frameworks.begin(), frameworks.end(), name) != frameworks.end();
        }

        auto framework_risk(const PackageEntry& older, const PackageEntry& newer)
          -> std::optional<Risk>
        {
            const auto old_numbers = numbers_of(older.version);
            const auto new_numbers = numbers_of(newer.version);
            if (old_numbers.empty() || new_numbers.empty())
            {
                return std::nullopt;
            }
            const bool major = old_numbers[0] != new_numbers[0];
            // Below 1.0 (jax 0.4 -> 0.5) a minor release breaks like a major one.
            const bool zero_minor = !major && old_numbers[0] == 0 && old_numbers.size() > 1 &&
                                    new_numbers.size() > 1 && old_numbers[1] != new_numbers[1];
            if (!major && !zero_minor)
            {
                return std::nullopt;
            }
            return Risk{ RiskKind::framework, newer.name + " " + major_minor(older.version) +
                                                " -> " + major_minor(newer.version) +
                                                (major ? " (major)" : " (0.x minor)") };
        }

        void add_risks(PackageChange& change, const std::string& old_cuda,
                       const std::string& new_cuda)
        {
            const bool names_cuda = (change.old_entry && !cuda_of(*change.old_entry).empty()) ||
                                    (change.new_entry && !cuda_of(*change.new_entry).empty());
            if (names_cuda && old_cuda != new_cuda)
            {
                change.risks.push_back(
                  Risk{ RiskKind::cuda, "CUDA " + (old_cuda.empty() ? "unpinned" : old_cuda) +
                                          " -> " + (new_cuda.empty() ? "unpinned" : new_cuda) });
            }
            if (change.kind != ChangeKind::changed)
            {
                return;
            }
            const PackageEntry& older = *change.old_entry;
            const PackageEntry& newer = *change.new_entry;
            const std::string name = util::to_lower(newer.name);
            if (name == "python")
            {
                const std::string from = major_minor(older.version);
                const std::string to = major_minor(newer.version);
                if (!from.empty() && !to.empty() && from != to)
                {
                    change.risks.push_back(
                      Risk{ RiskKind::python, "python " + from + " -> " + to });
                }
            }
            else if (is_framework(name))
            {
                if (auto risk = framework_risk(older, newer))
                {
                    change.risks.push_back(std::move(*risk));
                }
            }
        }

        // Whether two entries pin the same thing: conda specs compare as MatchSpecs, so that
        // "numpy=1.26" and "numpy 1.26.*" agree; everything else by its canonical text.
        auto same_pin(const PackageEntry& a, const PackageEntry& b) -> bool
        {
            if (a.channel != b.channel)
            {
                return false;
            }
            if (a.manager == model::Manager::conda && b.manager == model::Manager::conda)
            {
                const auto left = specs::MatchSpec::parse(a.text);
                const auto right = specs::MatchSpec::parse(b.text);
                if (left && right)
                {
                    return *left == *right;
                }
            }
            return a.canonical == b.canonical;
        }

        auto keyed(const PackageSet& set) -> std::map<std::string, PackageEntry>
        {
            std::map<std::string, PackageEntry> out;
            for (const auto& entry : set.packages)
            {
                const auto [found, inserted] = out.emplace(entry.key, entry);
                if (!inserted)
                {
                    // Listed twice: the set holds both constraints.
                    found->second.text += ", " + entry.text;
                    found->second.canonical += "," + entry.canonical;
                }
            }
            return out;
        }

        auto channel_changes(const std::vector<std::string>& older,
                             const std::vector<std::string>& newer) -> ChannelChanges
        {
            ChannelChanges changes;
            auto contains = [](const std::vector<std::string>& list, const std::string& item)
            { return std::find(list.begin(), list.end(), item) != list.end(); };
            std::vector<std::string> old_common;
            std::vector<std::string> new_common;
            for (const auto& channel : older)
            {
                (contains(newer, channel) ? old_common : changes.removed).push_back(channel);
            }
            for (const auto& channel : newer)
            {
                (contains(older, channel) ? new_common : changes.added).push_back(channel);
            }
            changes.reordered = old_common != new_common;
            return changes;
        }

        auto entry_from(const CondaSpec& spec) -> PackageEntry
        {
            const std::string& selector = spec.entry->selector;
            PackageEntry entry;
            entry.manager = model::Manager::conda;
            entry.text = spec.entry->text;
            if (spec.error)
            {
                entry.name = spec.entry->text;
                entry.key = "conda-line:" + without_spaces(spec.entry->text);
                entry.canonical = without_spaces(spec.entry->text);
                return entry;
            }
            entry.name = spec.name;
            entry.key = model::package_key(model::Manager::conda, spec.name) +
                        (selector.empty() ? "" : " # [" + selector + "]");
            entry.canonical = spec.canonical;
            entry.channel = spec.channel;
            entry.version = named_version(spec.version);
            entry.build = spec.build;
            return entry;
        }

        auto entry_from(const PipSpec& spec) -> PackageEntry
        {
            const std::string& selector = spec.entry->selector;
            PackageEntry entry;
            entry.manager = model::Manager::pip;
            entry.text = spec.entry->text;
            entry.canonical =
              spec.canonical.empty() ? without_spaces(spec.entry->text) : spec.canonical;
            if (spec.name.empty())
            {
                // Options and unnamed lines are identified by what they say.
                entry.name = spec.entry->text;
                entry.key = "pip-line:" + entry.canonical;
                return entry;
            }
            entry.name = spec.name;
            entry.key = model::package_key(model::Manager::pip, spec.name) +
                        (selector.empty() ? "" : " # [" + selector + "]");
            entry.version = named_version(spec.specifier);
            return entry;
        }
    }

    auto to_string(RiskKind kind) -> std::string_view
    {
        switch (kind)
        {
            case RiskKind::cuda:
                return "cuda";
            case RiskKind::python:
                return "python";
            case RiskKind::framework:
                return "framework";
        }
        return "framework";
    }

    auto PackageChange::entry() const -> const PackageEntry&
    {
        return new_entry ? *new_entry : *old_entry;
    }

    auto PackageSetDiff::equal() const -> bool
    {
        return packages.empty() && channels.added.empty() && channels.removed.empty() &&
               !channels.reordered;
    }

    auto package_set_from(const formats::EnvironmentFile& file) -> PackageSet
    {
        const LintInput input = make_lint_input(file, LintOptions{});
        PackageSet set;
        for (const auto& channel : file.channels)
        {
            set.channels.push_back(channel.value);
        }
        for (const auto& spec : input.conda)
        {
            set.packages.push_back(entry_from(spec));
        }
        for (const auto& spec : input.pip)
        {
            set.packages.push_back(entry_from(spec));
        }
        return set;
    }

    auto package_set_from(const model::Lock& lock) -> PackageSet
    {
        PackageSet set;
        for (const auto& package : lock.packages)
        {
            PackageEntry entry;
            entry.manager = package.manager;
            entry.name = package.name;
            entry.key = model::package_key(package);
            entry.version = package.version;
            entry.build = package.build;
            entry.channel = package.channel;
            if (package.manager == model::Manager::conda)
            {
                entry.text = package.name + "=" + package.version +
                             (package.build.empty() ? "" : "=" + package.build);
            }
            else
            {
                entry.text = package.name + "==" + package.version;
            }
            // The artifact's hash is part of what is compared, not of what is shown.
            entry.canonical =
              entry.text + " " + (package.sha256.empty() ? package.md5 : package.sha256);
            if (!package.channel.empty() && std::find(set.channels.begin(), set.channels.end(),
                                                      package.channel) == set.channels.end())
            {
                set.channels.push_back(package.channel);
            }
            set.packages.push_back(std::move(entry));
        }
        return set;
    }

    auto diff_package_sets(const PackageSet& older, const PackageSet& newer) -> PackageSetDiff
    {
        PackageSetDiff diff;
        diff.old_channels = older.channels;
        diff.new_channels = newer.channels;
        diff.channels = channel_changes(older.channels, newer.channels);
        const auto old_entries = keyed(older);
        const auto new_entries = keyed(newer);
        const std::string old_cuda = cuda_of(older);
        const std::string new_cuda = cuda_of(newer);
        for (const auto& [key, entry] : old_entries)
        {
            const auto found = new_entries.find(key);
            PackageChange change;
            if (found == new_entries.end())
            {
                change.kind = ChangeKind::removed;
                change.old_entry = entry;
            }
            else if (!same_pin(entry, found->second))
            {
                change.kind = ChangeKind::changed;
                change.old_entry = entry;
                change.new_entry = found->second;
            }
            else
            {
                continue;
            }
            add_risks(change, old_cuda, new_cuda);
            diff.packages.push_back(std::move(change));
        }
        for (const auto& [key, entry] : new_entries)
        {
            if (old_entries.find(key) == old_entries.end())
            {
                PackageChange change;
                change.kind = ChangeKind::added;
                change.new_entry = entry;
                add_risks(change, old_cuda, new_cuda);
                diff.packages.push_back(std::move(change));
            }
        }
        std::stable_sort(diff.packages.begin(), diff.packages.end(),
                         [](const PackageChange& a, const PackageChange& b)
                         {
                             const auto a_name = util::to_lower(a.entry().name);
                             const auto b_name = util::to_lower(b.entry().name);
                             if (a_name != b_name)
                             {
                                 return a_name < b_name;
                             }
                             return a.entry().manager < b.entry().manager;
                         });
        return diff;
    }
}
