#include "checks/lock_check.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "pypi/name.hpp"
#include "pypi/version.hpp"
#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        auto short_hash(const std::string& hash) -> std::string
        {
            return hash.size() > 12 ? hash.substr(0, 12) + "..." : hash;
        }

        auto conda_label(const model::Package& package) -> std::string
        {
            return package.build.empty() ? package.version : package.version + " " + package.build;
        }

        auto same_pip_version(const std::string& a, const std::string& b) -> bool
        {
            const auto left = pypi::Version::parse(a);
            const auto right = pypi::Version::parse(b);
            if (left && right)
            {
                return *left == *right;
            }
            return a == b;
        }

        auto pip_key(std::string_view name) -> std::string
        {
            return pypi::normalize_name(name);
        }

        // Conda names as they are; pip names normalized (PEP 503). A conda package and a pip
        // distribution of the same project share the pip form (for cross-manager matches).
        // `project`: pip_key(package.name), which the caller has made already.
        auto key_of(const model::Package& package, std::string_view project) -> std::string
        {
            std::string key(model::to_string(package.manager));
            key += ':';
            if (package.manager == model::Manager::pip)
            {
                key += project;
            }
            else
            {
                key += util::to_lower(package.name);
            }
            return key;
        }

        auto is_virtual(const model::Package& package) -> bool
        {
            return package.manager == model::Manager::conda && package.name.starts_with("__");
        }

        auto conda_difference(const model::Package& locked, const model::Package& installed)
          -> std::string
        {
            const bool version_differs =
              !locked.version.empty() && locked.version != installed.version;
            const bool build_differs = !locked.build.empty() && locked.build != installed.build;
            std::string what;
            if (version_differs || build_differs)
            {
                what = "installed " + conda_label(installed) + ", locked " + conda_label(locked);
            }
            const auto hash_note = [&](const char* kind, const std::string& a, const std::string& b)
            {
                if (!what.empty())
                {
                    return what + " (" + kind + " differs)";
                }
                std::string note = std::string("same version and build, but the ") + kind +
                                   " differs (locked " + short_hash(a) + ", installed " +
                                   short_hash(b) + ")";
                const auto extension = [](const std::string& file) {
                    return file.ends_with(".conda")     ? ".conda"
                           : file.ends_with(".tar.bz2") ? ".tar.bz2"
                                                        : "";
                };
                if (std::string_view(extension(locked.filename)) != extension(installed.filename) &&
                    !locked.filename.empty() && !installed.filename.empty())
                {
                    note += ": another artifact format (" +
                            std::string(extension(installed.filename)) + " instead of " +
                            extension(locked.filename) + ")";
                }
                else
                {
                    note += ": another artifact (rebuilt, or from another channel)";
                }
                return note;
            };
            if (!locked.sha256.empty() && !installed.sha256.empty())
            {
                return locked.sha256 == installed.sha256
                         ? std::string()
                         : hash_note("sha256", locked.sha256, installed.sha256);
            }
            if (!locked.md5.empty() && !installed.md5.empty())
            {
                return locked.md5 == installed.md5 ? std::string()
                                                   : hash_note("md5", locked.md5, installed.md5);
            }
            return what;
        }

        auto pip_difference(const model::Package& locked, const model::Package& installed)
          -> std::string
        {
            if (!locked.version.empty() && !same_pip_version(locked.version, installed.version))
            {
                return "installed " + installed.version + ", locked " + locked.version;
            }
            if (locked.direct_url && installed.direct_url)
            {
                const auto& want = *locked.direct_url;
                const auto& have = *installed.direct_url;
                if (!want.commit_id.empty() && want.commit_id != have.commit_id)
                {
                    return "installed from commit " + short_hash(have.commit_id) + ", locked at " +
                           short_hash(want.commit_id);
                }
                if (!want.archive_sha256.empty() && !have.archive_sha256.empty() &&
                    want.archive_sha256 != have.archive_sha256)
                {
                    return "installed archive sha256 " + short_hash(have.archive_sha256) +
                           ", locked " + short_hash(want.archive_sha256);
                }
            }
            else if (locked.direct_url && !locked.direct_url->commit_id.empty())
            {
                return "locked at commit " + short_hash(locked.direct_url->commit_id) +
                       ", installed from an index";
            }
            return {};
        }

        auto outcome(std::string id, model::Status status, std::string message,
                     std::string fix = {}) -> model::CheckOutcome
        {
            model::CheckOutcome result;
            result.id = std::move(id);
            result.status = status;
            result.message = std::move(message);
            result.fix = std::move(fix);
            return result;
        }

        auto unknown(const std::string& id, bool locked_known) -> model::CheckOutcome
        {
            return outcome(id, model::Status::skip,
                           locked_known ? "not known on this machine"
                                        : "the lock does not record it");
        }

        // Exact text comparison: platform, python.
        auto compare_exact(const std::string& id, const std::optional<std::string>& locked,
                           const std::optional<std::string>& current, const std::string& what,
                           const std::string& fix) -> model::CheckOutcome
        {
            if (!locked || !current)
            {
                return unknown(id, locked.has_value());
            }
            if (*locked == *current)
            {
                return outcome(id, model::Status::pass, what + " " + *current);
            }
            return outcome(id, model::Status::fail,
                           what + " is " + *current + ", locked " + *locked, fix);
        }

        // Newer is a warning, older a failure.
        auto compare_ordered(const std::string& id, const std::optional<std::string>& locked,
                             const std::optional<std::string>& current, const std::string& what,
                             const std::string& fix) -> model::CheckOutcome
        {
            if (!locked || !current)
            {
                return unknown(id, locked.has_value());
            }
            const auto order = compare_dotted(*current, *locked);
            if (*locked == *current || (order && *order == 0))
            {
                return outcome(id, model::Status::pass, what + " " + *current);
            }
            if (order && *order > 0)
            {
                return outcome(id, model::Status::warn,
                               what + " is " + *current + ", newer than the locked " + *locked);
            }
            return outcome(id, model::Status::fail,
                           what + " is " + *current + ", locked " + *locked, fix);
        }

        auto compare_gpus(const std::optional<std::vector<model::LockedGpu>>& locked,
                          const std::optional<std::vector<model::LockedGpu>>& current)
          -> model::CheckOutcome
        {
            const std::string id = "machine.gpus";
            if (!locked || !current)
            {
                return unknown(id, locked.has_value());
            }
            const auto describe = [](const std::vector<model::LockedGpu>& gpus)
            {
                std::vector<std::string> names;
                names.reserve(gpus.size());
                for (const auto& gpu : gpus)
                {
                    names.push_back(
                      gpu.name.value_or("unknown GPU") +
                      (gpu.compute_capability ? " (sm " + *gpu.compute_capability + ")" : ""));
                }
                return names.empty() ? std::string("no GPU") : util::join(names, ", ");
            };
            if (locked->size() != current->size())
            {
                return outcome(
                  id, model::Status::fail,
                  std::to_string(current->size()) + " GPU(s) here (" + describe(*current) +
                    "), locked with " + std::to_string(locked->size()) + " (" + describe(*locked) +
                    ")",
                  "run on a machine like the one locked, or re-lock here (envcheck lock --force)");
            }
            std::vector<std::string> other_cards;
            for (std::size_t i = 0; i < locked->size(); ++i)
            {
                const auto& want = (*locked)[i];
                const auto& have = (*current)[i];
                if ((want.name && have.name && *want.name != *have.name) ||
                    (want.compute_capability && have.compute_capability &&
                     *want.compute_capability != *have.compute_capability))
                {
                    return outcome(id, model::Status::fail,
                                   "GPU " + std::to_string(have.index) + " is " +
                                     describe({ have }) + ", locked " + describe({ want }),
                                   "run on a machine like the one locked, or re-lock here "
                                   "(envcheck lock --force)");
                }
                if (want.uuid && have.uuid && *want.uuid != *have.uuid)
                {
                    other_cards.push_back(std::to_string(have.index));
                }
            }
            if (!other_cards.empty())
            {
                return outcome(id, model::Status::warn,
                               describe(*current) +
                                 ": the same model(s), but other cards than locked (GPU " +
                                 util::join(other_cards, ", ") + ")");
            }
            return outcome(id, model::Status::pass, describe(*current));
        }
    }

    namespace
    {
        // conda first, then pip; by lowercase name. Keys are computed once: findings are large.
        void sort_findings(std::vector<model::PackageFinding>& findings)
        {
            std::vector<std::pair<std::string, std::size_t>> order;
            order.reserve(findings.size());
            for (std::size_t i = 0; i < findings.size(); ++i)
            {
                order.emplace_back((findings[i].manager == model::Manager::conda ? "0" : "1") +
                                     util::to_lower(findings[i].name),
                                   i);
            }
            const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
            if (std::is_sorted(order.begin(), order.end(), by_key))
            {
                return; // the lock's own order, the common case: nothing to move
            }
            std::stable_sort(order.begin(), order.end(), by_key);
            // In place, one cycle of the permutation at a time: a sorted copy doubled the peak
            // memory of checking 10,000 packages (a finding holds two packages).
            std::vector<bool> placed(findings.size(), false);
            for (std::size_t start = 0; start < findings.size(); ++start)
            {
                if (placed[start] || order[start].second == start)
                {
                    continue; // placed, or already in its place
                }
                model::PackageFinding first = std::move(findings[start]);
                std::size_t at = start;
                while (order[at].second != start)
                {
                    findings[at] = std::move(findings[order[at].second]);
                    placed[at] = true;
                    at = order[at].second;
                }
                findings[at] = std::move(first);
                placed[at] = true;
            }
        }
    }

    auto channel_name(std::string_view channel) -> std::string
    {
        std::string name(channel);
        while (name.ends_with('/'))
        {
            name.pop_back();
        }
        for (const std::string_view host : { std::string_view("https://conda.anaconda.org/"),
                                             std::string_view("http://conda.anaconda.org/"),
                                             std::string_view("https://repo.anaconda.com/"),
                                             std::string_view("https://prefix.dev/") })
        {
            if (name.starts_with(host))
            {
                return name.substr(host.size());
            }
        }
        return name;
    }

    auto identity_difference(const model::Package& locked, const model::Package& installed)
      -> std::string
    {
        if (locked.manager == model::Manager::conda && installed.manager == model::Manager::pip &&
            installed.installer == "conda")
        {
            return "its conda-meta record is gone; only its Python distribution, installed by "
                   "conda, remains";
        }
        if (locked.manager != installed.manager)
        {
            return std::string("locked as a ") + std::string(model::to_string(locked.manager)) +
                   " package, installed by " + std::string(model::to_string(installed.manager));
        }
        return locked.manager == model::Manager::conda ? conda_difference(locked, installed)
                                                       : pip_difference(locked, installed);
    }

    auto source_notes(const model::Package& locked, const model::Package& installed)
      -> std::vector<std::string>
    {
        std::vector<std::string> notes;
        if (locked.manager != model::Manager::conda || installed.manager != model::Manager::conda)
        {
            return notes;
        }
        // The same text names the same channel: most pairs need no name made (issue 19).
        if (locked.channel != installed.channel)
        {
            const std::string locked_channel = channel_name(locked.channel);
            const std::string installed_channel = channel_name(installed.channel);
            if (!locked_channel.empty() && !installed_channel.empty() &&
                locked_channel != installed_channel)
            {
                notes.push_back("channel " + installed_channel + ", locked " + locked_channel);
            }
        }
        if (!locked.subdir.empty() && !installed.subdir.empty() &&
            locked.subdir != installed.subdir)
        {
            notes.push_back("subdir " + installed.subdir + ", locked " + locked.subdir);
        }
        // The same artifact from another location (a mirror); another file name is another
        // artifact, which the identity already reports.
        const auto file_name = [](const std::string& url)
        { return url.substr(url.find_last_of('/') + 1); };
        if (notes.empty() && !locked.url.empty() && !installed.url.empty() &&
            locked.url != installed.url && file_name(locked.url) == file_name(installed.url))
        {
            notes.push_back("url " + installed.url + ", locked " + locked.url);
        }
        return notes;
    }

    auto compare_to_lock(const model::Lock& lock, const model::InstalledEnvironment& installed)
      -> std::vector<model::PackageFinding>
    {
        return compare_to_lock(lock.packages, lock.optional_packages, installed.packages);
    }

    auto compare_to_lock(std::vector<model::Package> locked_packages,
                         std::vector<model::Package> optional_packages,
                         std::vector<model::Package> installed_packages,
                         const util::ForEachIndex& for_each) -> std::vector<model::PackageFinding>
    {
        auto draft = draft_lock_findings(std::move(locked_packages), std::move(optional_packages),
                                         installed_packages, for_each);
        return finish_lock_findings(std::move(draft), std::move(installed_packages));
    }

    auto draft_lock_findings(std::vector<model::Package> locked_packages,
                             std::vector<model::Package> optional_packages,
                             const std::vector<model::Package>& packages,
                             const util::ForEachIndex& for_each) -> LockFindingsDraft
    {
        // The lock's packages, required then optional, as one list; kept whole, each finding
        // points at its own.
        const auto required =
          std::make_shared<const std::vector<model::Package>>(std::move(locked_packages));
        const auto optional =
          std::make_shared<const std::vector<model::Package>>(std::move(optional_packages));
        const std::size_t required_count = required->size();
        const auto locked_at = [&](std::size_t i) -> const model::Package&
        { return i < required_count ? (*required)[i] : (*optional)[i - required_count]; };
        const auto locked_ref = [&](std::size_t i)
        {
            return i < required_count ? model::PackageRef(required, i)
                                      : model::PackageRef(optional, i - required_count);
        };
        const std::size_t locked_count = required_count + optional->size();

        // Every key, made on the workers: the matching below only hashes and compares them.
        std::vector<std::string> installed_keys(packages.size());
        std::vector<std::string> installed_projects(packages.size());
        std::vector<std::string> locked_keys(locked_count);
        std::vector<std::string> locked_projects(locked_count);
        util::for_each_if_worth(for_each, packages.size() + locked_count, 1,
                                [&](std::size_t i)
                                {
                                    if (i < packages.size())
                                    {
                                        installed_projects[i] = pip_key(packages[i].name);
                                        installed_keys[i] =
                                          key_of(packages[i], installed_projects[i]);
                                        return;
                                    }
                                    const model::Package& locked = locked_at(i - packages.size());
                                    auto& project = locked_projects[i - packages.size()];
                                    project = pip_key(locked.name);
                                    locked_keys[i - packages.size()] = key_of(locked, project);
                                });

        // Installed packages by key, and by their pip-normalized name for cross-manager matches;
        // hashed, and whether each is matched yet kept by its index (issue 19: ordered maps of
        // keys and a map of pointers were most of comparing 10,000 packages).
        std::unordered_map<std::string_view, std::size_t> by_key;
        std::unordered_map<std::string_view, std::vector<std::size_t>> by_project;
        by_key.reserve(packages.size());
        by_project.reserve(packages.size());
        for (std::size_t i = 0; i < packages.size(); ++i)
        {
            by_key.emplace(installed_keys[i], i);
            by_project[installed_projects[i]].push_back(i);
        }

        // Which installed package each locked one is, in the lock's order: the first unmatched
        // one of its key, else of its project under the other manager. Serial: a match is
        // taken from the packages the next one may match.
        constexpr std::size_t none = LockFindingsDraft::not_installed;
        struct Pairing
        {
            std::size_t locked = 0;    // index into the lock's list
            std::size_t installed = 0; // none: missing
        };
        std::vector<Pairing> pairings;
        pairings.reserve(locked_count);
        std::vector<bool> consumed(packages.size(), false);
        for (std::size_t i = 0; i < locked_count; ++i)
        {
            const model::Package& locked = locked_at(i);
            if (is_virtual(locked))
            {
                continue;
            }
            std::size_t matched = none;
            if (const auto found = by_key.find(locked_keys[i]);
                found != by_key.end() && !consumed[found->second])
            {
                matched = found->second;
            }
            else if (const auto project = by_project.find(locked_projects[i]);
                     project != by_project.end())
            {
                for (const std::size_t candidate : project->second)
                {
                    if (!consumed[candidate] && packages[candidate].manager != locked.manager)
                    {
                        matched = candidate;
                        break;
                    }
                }
            }
            if (matched == none && i >= required_count)
            {
                continue; // an optional package not installed
            }
            if (matched != none)
            {
                consumed[matched] = true;
            }
            pairings.push_back(Pairing{ i, matched });
        }
        for (std::size_t i = 0; i < packages.size(); ++i)
        {
            if (!consumed[i])
            {
                pairings.push_back(Pairing{ none, i }); // extra
            }
        }

        // The findings, each on its own packages, on the workers; the packages are only read.
        LockFindingsDraft draft;
        draft.findings.resize(pairings.size());
        draft.installed.resize(pairings.size(), none);
        util::for_each_if_worth(
          for_each, pairings.size(), 1,
          [&](std::size_t i)
          {
              const auto [locked_index, installed_index] = pairings[i];
              model::PackageFinding& finding = draft.findings[i];
              draft.installed[i] = installed_index;
              if (locked_index == none)
              {
                  const model::Package& package = packages[installed_index];
                  finding.name = package.name;
                  finding.manager = package.manager;
                  finding.status = model::PackageStatus::extra;
                  finding.reason =
                    "installed " +
                    (package.manager == model::Manager::conda ? conda_label(package)
                                                              : package.version) +
                    (package.manager == model::Manager::pip && !package.installer.empty()
                       ? " by " + package.installer
                       : std::string()) +
                    ", not in the lock";
                  return;
              }
              const model::Package& locked = locked_at(locked_index);
              finding.name = locked.name;
              finding.manager = locked.manager;
              if (installed_index == none)
              {
                  finding.status = model::PackageStatus::missing;
                  finding.reason = "locked " +
                                   (locked.manager == model::Manager::conda ? conda_label(locked)
                                                                            : locked.version) +
                                   ", not installed";
                  finding.expected = locked_ref(locked_index);
                  return;
              }
              const model::Package& match = packages[installed_index];
              finding.reason = identity_difference(locked, match);
              finding.status =
                finding.reason.empty() ? model::PackageStatus::ok : model::PackageStatus::changed;
              finding.notes = source_notes(locked, match);
              finding.expected = locked_ref(locked_index);
          });
        return draft;
    }

    auto finish_lock_findings(LockFindingsDraft draft,
                              std::vector<model::Package> installed_packages)
      -> std::vector<model::PackageFinding>
    {
        const auto installed =
          std::make_shared<const std::vector<model::Package>>(std::move(installed_packages));
        for (std::size_t i = 0; i < draft.findings.size(); ++i)
        {
            if (draft.installed[i] != LockFindingsDraft::not_installed)
            {
                draft.findings[i].installed = model::PackageRef(installed, draft.installed[i]);
            }
        }
        sort_findings(draft.findings);
        return std::move(draft.findings);
    }

    auto merge_findings(std::vector<model::PackageFinding> from_environment_file,
                        std::vector<model::PackageFinding> from_lock)
      -> std::vector<model::PackageFinding>
    {
        const auto finding_key = [](const model::PackageFinding& finding)
        {
            return std::string(model::to_string(finding.manager)) + ":" +
                   (finding.manager == model::Manager::pip ? pip_key(finding.name)
                                                           : util::to_lower(finding.name));
        };
        if (from_environment_file.empty())
        {
            return from_lock;
        }
        std::vector<model::PackageFinding> merged = std::move(from_lock);
        std::map<std::string, std::size_t> index;
        for (std::size_t i = 0; i < merged.size(); ++i)
        {
            index.emplace(finding_key(merged[i]), i);
        }
        // The lock's findings whose status an environment finding has taken: a package's
        // further problems (a second broken dependency) become notes beside the first, in
        // order. Each used to push the one before it to the front of the notes, labelled
        // "lock:" though not the lock's, in time quadratic in their number.
        std::vector<bool> taken(merged.size(), false);
        for (auto& finding : from_environment_file)
        {
            const auto found = index.find(finding_key(finding));
            if (found == index.end())
            {
                merged.push_back(std::move(finding));
                continue;
            }
            auto& joined = merged[found->second];
            if (finding.spec)
            {
                joined.spec = std::move(finding.spec);
                joined.spec_location = std::move(finding.spec_location);
            }
            if (finding.status == model::PackageStatus::ok)
            {
                continue;
            }
            if (taken[found->second])
            {
                joined.notes.push_back(std::move(finding.reason));
                continue;
            }
            taken[found->second] = true;
            if (joined.status != model::PackageStatus::ok && !joined.reason.empty())
            {
                joined.notes.insert(joined.notes.begin(), "lock: " + joined.reason);
            }
            joined.status = finding.status;
            joined.reason = std::move(finding.reason);
        }
        sort_findings(merged);
        return merged;
    }

    auto compare_dotted(std::string_view a, std::string_view b) -> std::optional<int>
    {
        const auto parts_a = util::split(a, '.');
        const auto parts_b = util::split(b, '.');
        for (std::size_t i = 0; i < std::max(parts_a.size(), parts_b.size()); ++i)
        {
            const auto left = i < parts_a.size() ? util::parse_uint(parts_a[i])
                                                 : std::optional<unsigned long long>(0);
            const auto right = i < parts_b.size() ? util::parse_uint(parts_b[i])
                                                  : std::optional<unsigned long long>(0);
            if (!left || !right)
            {
                return std::nullopt;
            }
            if (*left != *right)
            {
                return *left < *right ? -1 : 1;
            }
        }
        return 0;
    }

    auto compare_machine(const model::LockedMachine& locked, const model::LockedMachine& current)
      -> std::vector<model::CheckOutcome>
    {
        const std::string relock =
          "re-lock on this machine if the change is intended (envcheck lock --force)";
        return {
            compare_exact("machine.platform", locked.platform, current.platform, "platform",
                          "use an environment locked for this platform"),
            compare_exact("machine.python", locked.python, current.python, "python", relock),
            compare_ordered(
              "machine.glibc", locked.glibc, current.glibc, "glibc",
              "packages locked on a newer glibc may not load here; use a machine with glibc " +
                locked.glibc.value_or("") + " or newer"),
            compare_ordered("machine.driver_version", locked.driver_version, current.driver_version,
                            "NVIDIA driver", "install the locked driver or a newer one"),
            compare_ordered("machine.cuda_driver_version", locked.cuda_driver_version,
                            current.cuda_driver_version, "CUDA supported by the driver",
                            "update the NVIDIA driver to one that supports CUDA " +
                              locked.cuda_driver_version.value_or("")),
            compare_gpus(locked.gpus, current.gpus),
        };
    }
}
