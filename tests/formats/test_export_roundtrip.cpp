// Export loses nothing: every lock of ../shared/corpus/locks and tests/data/locks, each platform
// and environment, and 300 generated locks, exported in every format and read back with the
// readers users would use (parse_explicit; the environment.yml loader with MatchSpec; pip's
// requirement grammar), give the same packages: name, version, build and source.
//
// What "source" means per format: an @EXPLICIT line is an artifact URL and its hash; an
// environment.yml entry pins name, version and build from a channel; a pip line names a PyPI
// release, or keeps the URL, the VCS commit or the local path it came from. A VCS or local
// pip line carries no version (pip reads it from the source at that commit or path), and a
// relative local path no name; there those two are not compared. What a format cannot hold is
// reported in left_out, never dropped silently.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "formats/explicit.hpp"
#include "formats/export.hpp"
#include "formats/lock.hpp"
#include "formats/pip_reference.hpp"
#include "pypi/name.hpp"
#include "pypi/version.hpp"
#include "specs/channel.hpp"
#include "specs/match_spec.hpp"
#include "tests/catch.hpp"
#include "tests/random.hpp"
#include "util/strings.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    using Identities = std::multiset<std::string>;

    auto read_file(const fs::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    auto normal_version(const std::string& version) -> std::string
    {
        const auto parsed = pypi::Version::parse(version);
        return parsed ? parsed->to_string() : version;
    }

    auto is_artifact(const model::Package& package) -> bool
    {
        const auto slash = package.url.find_last_of('/');
        return !package.url.empty() &&
               formats::parse_artifact_name(
                 slash == std::string::npos ? package.url : package.url.substr(slash + 1))
                 .has_value();
    }

    auto is_virtual(const model::Package& package) -> bool
    {
        return package.manager == model::Manager::conda && package.name.starts_with("__");
    }

    // --- identities ----------------------------------------------------------------------

    auto explicit_conda_identity(const model::Package& package) -> std::string
    {
        const std::string& hash = package.sha256.empty() ? package.md5 : package.sha256;
        return "conda " + package.name + " " + package.version + " " + package.build + " " +
               package.url + " #" + hash;
    }

    // Channels compare as conda reads them in a spec (pkgs/main::x is defaults::x).
    auto canonical_channel(const std::string& channel) -> std::string
    {
        const auto parsed = specs::Channel::parse(channel);
        return parsed ? parsed->for_spec().canonical_name() : channel;
    }

    auto environment_conda_identity(const std::string& name, const std::string& version,
                                    const std::string& build, const std::string& channel)
      -> std::string
    {
        return "conda " + name + "=" + version + "=" + build + " from " +
               canonical_channel(channel);
    }

    auto pip_identity(const model::Package& package) -> std::string
    {
        const std::string name = pypi::normalize_name(package.name);
        if (package.direct_url && !package.direct_url->vcs.empty())
        {
            const auto& url = *package.direct_url;
            return "pip " + name + " " + url.vcs + "+" + url.url + "@" +
                   (url.commit_id.empty() ? url.requested_revision : url.commit_id);
        }
        if (package.direct_url && formats::is_local_path(package.direct_url->url))
        {
            const auto& url = *package.direct_url;
            const bool named = url.url.starts_with("file:") && !url.editable;
            return "pip " + (named ? name + " " : std::string()) + "path " + url.url +
                   (url.editable ? " editable" : "");
        }
        // An archive URL pins the file (and its hash); pip reads the version from it.
        const std::string location = package.direct_url ? package.direct_url->url : package.url;
        if (!location.empty() && !formats::is_pypi_file_url(location))
        {
            const std::string& hash =
              package.direct_url && !package.direct_url->archive_sha256.empty()
                ? package.direct_url->archive_sha256
                : package.sha256;
            return "pip " + name + " " + location.substr(0, location.find('#')) + " #" + hash;
        }
        return "pip " + name + " " + normal_version(package.version) + " from PyPI";
    }

    // --- what a lock should export -----------------------------------------------------------

    struct Expected
    {
        Identities packages;
        std::size_t left_out = 0;
        std::size_t unnamed = 0; // pip lines of local projects that name no package
    };

    // A relative local project ("./", "-e ../pkg") is written as its path, which names no
    // package: an @EXPLICIT reader notes it instead of comparing it.
    auto is_unnamed(const model::Package& package) -> bool
    {
        if (package.manager != model::Manager::pip)
        {
            return false;
        }
        const std::string& location = package.direct_url ? package.direct_url->url : package.url;
        return formats::is_local_path(location) && !formats::vcs_direct_url(location) &&
               (!location.starts_with("file:") ||
                (package.direct_url && package.direct_url->editable));
    }

    auto expected(const model::Lock& lock, formats::ExportFormat format) -> Expected
    {
        Expected out;
        for (const auto& package : lock.packages)
        {
            if (is_virtual(package))
            {
                continue;
            }
            if (package.manager == model::Manager::pip)
            {
                if (format == formats::ExportFormat::explicit_ && is_unnamed(package))
                {
                    ++out.unnamed;
                    continue;
                }
                out.packages.insert(pip_identity(package));
                continue;
            }
            if (format == formats::ExportFormat::requirements)
            {
                continue;
            }
            const bool source_built = !package.url.empty() && !is_artifact(package);
            if (format == formats::ExportFormat::explicit_)
            {
                if (is_artifact(package))
                {
                    out.packages.insert(explicit_conda_identity(package));
                }
                else
                {
                    ++out.left_out;
                }
                continue;
            }
            if (source_built || package.version.empty())
            {
                ++out.left_out;
                continue;
            }
            out.packages.insert(environment_conda_identity(package.name, package.version,
                                                           package.build,
                                                           formats::channel_name(package.channel)));
        }
        return out;
    }

    // --- reading exports back ------------------------------------------------------------------

    struct ReadBack
    {
        Identities packages;
        std::vector<std::string> pip_options;
    };

    auto read_pip_line(const std::string& line, ReadBack& out)
    {
        const auto trimmed = std::string(util::trim(line));
        if (trimmed.starts_with("--"))
        {
            out.pip_options.push_back(trimmed);
            return;
        }
        if (trimmed.empty() || trimmed.starts_with('#'))
        {
            return;
        }
        const auto package = formats::package_from_pip_line(trimmed);
        INFO("pip line: " << trimmed);
        REQUIRE(package.has_value());
        out.packages.insert(pip_identity(*package));
    }

    auto read_back(const std::string& text, formats::ExportFormat format, std::size_t unnamed)
      -> ReadBack
    {
        ReadBack out;
        if (format == formats::ExportFormat::explicit_)
        {
            const auto lock = formats::parse_explicit(text, "exported.txt");
            INFO(text.substr(0, 2000));
            REQUIRE(lock.has_value());
            CHECK(lock->notes.size() == unnamed);
            for (const auto& note : lock->notes)
            {
                CHECK(note.find("installs a local project without naming it") != std::string::npos);
            }
            for (const auto& package : lock->packages)
            {
                out.packages.insert(package.manager == model::Manager::conda
                                      ? explicit_conda_identity(package)
                                      : pip_identity(package));
            }
            return out;
        }
        if (format == formats::ExportFormat::requirements)
        {
            for (const auto line : util::split_lines(text))
            {
                read_pip_line(std::string(line), out);
            }
            return out;
        }
        const auto file = formats::parse_environment_yaml(text, "exported.yml");
        INFO(text.substr(0, 2000));
        REQUIRE(file.has_value());
        for (const auto& diagnostic : file->diagnostics)
        {
            INFO(diagnostic.rule << ": " << diagnostic.message);
            CHECK(diagnostic.severity != model::Severity::error);
        }
        const std::string only_channel =
          file->channels.size() == 1 ? file->channels.front().value : std::string();
        for (const auto& dependency : file->dependencies)
        {
            INFO("dependency: " << dependency.text);
            const auto spec = specs::MatchSpec::parse(dependency.text);
            REQUIRE(spec.has_value());
            std::string version = spec->version().to_string();
            if (version.starts_with("=="))
            {
                version = version.substr(2);
            }
            const std::string channel =
              spec->channel() ? spec->channel()->canonical_name() : only_channel;
            out.packages.insert(environment_conda_identity(spec->name().to_string(), version,
                                                           spec->build().to_string(), channel));
        }
        for (const auto& line : file->pip)
        {
            read_pip_line(line.text, out);
        }
        return out;
    }

    // Exports `lock` in every format and reads each back.
    void check_round_trip(const model::Lock& lock, const std::string& what)
    {
        for (const auto format :
             { formats::ExportFormat::explicit_, formats::ExportFormat::environment,
               formats::ExportFormat::requirements })
        {
            INFO(what << " as " << formats::to_string(format));
            const auto exported = formats::render_lock_export(lock, format, {});
            const Expected want = expected(lock, format);
            CHECK(exported.left_out.size() == want.left_out);
            const ReadBack back = read_back(exported.text, format, want.unnamed);
            const Identities& got = back.packages;
            std::vector<std::string> missing;
            std::vector<std::string> extra;
            std::set_difference(want.packages.begin(), want.packages.end(), got.begin(), got.end(),
                                std::back_inserter(missing));
            std::set_difference(got.begin(), got.end(), want.packages.begin(), want.packages.end(),
                                std::back_inserter(extra));
            missing.resize(std::min<std::size_t>(missing.size(), 4));
            extra.resize(std::min<std::size_t>(extra.size(), 4));
            INFO("lost: " << util::join(missing, " | "));
            INFO("gained: " << util::join(extra, " | "));
            CHECK(got.size() == want.packages.size());
            CHECK(missing.empty());
            const bool has_pip = std::any_of(lock.packages.begin(), lock.packages.end(),
                                             [](const model::Package& package)
                                             { return package.manager == model::Manager::pip; });
            if (format != formats::ExportFormat::explicit_ && has_pip)
            {
                CHECK(back.pip_options == lock.pip_options);
            }
        }
    }

    // Every platform and environment of a lock file.
    auto selections_of(const formats::LockOutline& outline) -> std::vector<formats::LockSelection>
    {
        std::vector<formats::LockSelection> out;
        const std::vector<std::string> platforms =
          outline.platforms.empty() ? std::vector<std::string>{ "linux-64" } : outline.platforms;
        const std::vector<std::string> environments = outline.environments.empty()
                                                        ? std::vector<std::string>{ "default" }
                                                        : outline.environments;
        for (const auto& environment : environments)
        {
            for (const auto& platform : platforms)
            {
                out.push_back(formats::LockSelection{ platform, environment, {} });
            }
        }
        return out;
    }

    // Files of the corpus that are no lock or a broken one, each refused with a message.
    const std::set<std::string> not_locks{
        "AaradhyaVerma__Pylot_OpenPCDet__package-list.txt",                  // conda list --export
        "conda__conda-lock__tests_test-lockfile-with-auth_test.lock",        // URLs, no @EXPLICIT
        "conda__rattler__test-data_conda-lock_forward-compatible-lock.yml",  // version 1000
        "mamba-org__mamba__libmamba_tests_data_env_file_issue_4274.env.txt", // spec list
        "mamba-org__mamba__libmamba_tests_data_env_lockfile_bad_package-lock.yaml",
        "mamba-org__mamba__libmamba_tests_data_env_lockfile_bad_version-lock.yaml",
        "mamba-org__mamba__micromamba_tests_spec_file_1.txt", // spec list
    };

    TEST_CASE("export round trip: every lock of the corpus and the fixtures",
              "[formats][Export][roundtrip]")
    {
        std::size_t locks = 0;
        std::size_t selections = 0;
        std::size_t packages = 0;
        for (const auto& folder : { fs::path(ENVCHECK_SHARED_DIR) / "corpus/locks",
                                    fs::path(ENVCHECK_TEST_DATA_DIR) / "locks" })
        {
            for (const auto& entry : fs::directory_iterator(folder))
            {
                const std::string name = entry.path().filename().string();
                if (name.ends_with(".md"))
                {
                    continue;
                }
                CAPTURE(name);
                const std::string text = read_file(entry.path());
                const auto outline = formats::outline_lock(text, name);
                if (not_locks.count(name) > 0)
                {
                    CHECK_FALSE(outline.has_value());
                    continue;
                }
                CAPTURE(outline.has_value() ? std::string() : outline.error().to_string());
                REQUIRE(outline.has_value());
                ++locks;
                for (const auto& selection : selections_of(*outline))
                {
                    const auto lock = formats::parse_any_lock(text, name, selection);
                    if (!lock && lock.error().kind == util::ErrorKind::usage)
                    {
                        continue; // an environment without this platform
                    }
                    CAPTURE(selection.platform, selection.environment);
                    REQUIRE(lock.has_value());
                    ++selections;
                    packages += lock->packages.size();
                    check_round_trip(*lock,
                                     name + " " + selection.environment + "/" + selection.platform);
                }
            }
        }
        CHECK(locks >= 50);
        CHECK(selections >= 100);
        CHECK(packages >= 20000);
    }

    // --- generated locks ---------------------------------------------------------------------

    using tests::Random;

    auto conda_name(Random& random) -> std::string
    {
        std::string name =
          random.word("abcdefghijklmnopqrstuvwxyz0123456789_",
                      "abcdefghijklmnopqrstuvwxyz0123456789-_.", 1 + random.below(14));
        // conda names have no "--" or ".." (MatchSpec refuses them) and end in a letter, digit
        // or '_'.
        for (std::size_t at = 1; at < name.size();)
        {
            const bool punctuation = name[at] == '-' || name[at] == '.';
            const bool after = name[at - 1] == '-' || name[at - 1] == '.';
            if (punctuation && after)
            {
                name.erase(at, 1);
                continue;
            }
            ++at;
        }
        while (name.back() == '-' || name.back() == '.')
        {
            name.pop_back();
        }
        return name.empty() ? "x" : name;
    }

    auto conda_version(Random& random) -> std::string
    {
        std::string version = std::to_string(random.below(3000));
        for (std::size_t parts = random.below(4); parts > 0; --parts)
        {
            version += '.';
            version += std::to_string(random.below(100));
        }
        switch (random.below(6))
        {
            case 0:
                return version +
                       random.pick(std::vector<std::string>{ "a", "rc1", ".post1", "b2" });
            case 1:
                return "1!" + version;
            default:
                return version;
        }
    }

    auto conda_build(Random& random) -> std::string
    {
        switch (random.below(4))
        {
            case 0:
                return "h" + random.hex(7) + "_" + std::to_string(random.below(20));
            case 1:
                return "py3" + std::to_string(random.below(14)) + "h" + random.hex(7) + "_" +
                       std::to_string(random.below(5));
            case 2:
                return "cuda12" + std::to_string(random.below(9)) + "_py311h" + random.hex(7) +
                       "_" + std::to_string(random.below(3));
            default:
                return std::to_string(random.below(30));
        }
    }

    auto pip_name(Random& random) -> std::string
    {
        std::string name =
          random.word("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                      "abcdefghijklmnopqrstuvwxyz0123456789-_.", 1 + random.below(12));
        while (name.size() > 1 && (name.back() == '-' || name.back() == '.' || name.back() == '_'))
        {
            name.pop_back();
        }
        return name;
    }

    auto pip_version(Random& random) -> std::string
    {
        std::string version = std::to_string(random.below(30));
        version += '.';
        version += std::to_string(random.below(30));
        if (random.below(2) == 0)
        {
            version += '.';
            version += std::to_string(random.below(30));
        }
        return version + random.pick(std::vector<std::string>{ "", "", "", "rc1", ".post2", ".dev3",
                                                               "+cu121", "+cpu" });
    }

    auto wheel_name(const std::string& name, const std::string& version) -> std::string
    {
        std::string stem = pypi::normalize_name(name);
        std::replace(stem.begin(), stem.end(), '-', '_');
        return stem + "-" + util::replace_all(version, "+", "%2B") + "-py3-none-any.whl";
    }

    auto random_lock(Random& random) -> model::Lock
    {
        const std::vector<std::string> channels{
            "https://conda.anaconda.org/conda-forge",
            "https://conda.anaconda.org/nvidia/label/cuda-12.4.0",
            "https://repo.anaconda.com/pkgs/main",
            "https://conda.anaconda.org/pytorch",
            "https://my.server.example/conda/internal",
        };
        model::Lock lock;
        lock.format = model::LockFormat::conda_lock;
        lock.machine.platform = random.pick(std::vector<std::string>{ "linux-64", "osx-arm64" });
        std::set<std::string> names;
        const std::size_t channel_count = 1 + random.below(3);
        for (std::size_t i = random.below(25); i > 0; --i)
        {
            model::Package package;
            package.name = conda_name(random);
            if (!names.insert("conda:" + package.name).second)
            {
                continue;
            }
            package.version = conda_version(random);
            package.build = conda_build(random);
            package.subdir = random.below(3) == 0 ? "noarch" : *lock.machine.platform;
            package.channel = channels[random.below(channel_count)];
            const std::string extension = random.below(2) == 0 ? ".conda" : ".tar.bz2";
            if (random.below(15) != 0)
            {
                package.url = package.channel + "/" + package.subdir + "/" + package.name + "-" +
                              package.version + "-" + package.build + extension;
                package.filename = package.url.substr(package.url.rfind('/') + 1);
            }
            if (random.below(3) != 0)
            {
                package.sha256 = random.hex(64);
            }
            package.md5 = random.hex(32);
            package.category = random.pick(std::vector<std::string>{ "main", "main", "dev", "" });
            lock.packages.push_back(std::move(package));
        }
        for (std::size_t i = random.below(10); i > 0; --i)
        {
            model::Package package;
            package.manager = model::Manager::pip;
            package.name = pip_name(random);
            if (!names.insert("pip:" + pypi::normalize_name(package.name)).second)
            {
                continue;
            }
            package.version = pip_version(random);
            switch (random.below(6))
            {
                case 0: // a release resolved on PyPI
                    break;
                case 1: // the same, with the file URL a lock records
                    package.url = "https://files.pythonhosted.org/packages/" + random.hex(2) + "/" +
                                  random.hex(2) + "/" + wheel_name(package.name, package.version);
                    package.sha256 = random.hex(64);
                    break;
                case 2: // a wheel from another index
                    package.url = "https://download.pytorch.org/whl/cu121/" +
                                  wheel_name(package.name, package.version);
                    package.sha256 = random.hex(64);
                    break;
                case 3: // version control
                    package.direct_url =
                      model::DirectUrl{ "https://github.com/org/" + package.name + ".git",
                                        "git",
                                        random.hex(40),
                                        "main",
                                        "",
                                        false };
                    break;
                case 4: // an editable local project
                    package.direct_url =
                      model::DirectUrl{ random.pick(std::vector<std::string>{
                                          "./", "../pkgs/x", "file:///home/u/proj" }),
                                        "",
                                        "",
                                        "",
                                        "",
                                        true };
                    break;
                default: // a local archive
                    package.direct_url = model::DirectUrl{
                        "file:///tmp/dist/" + wheel_name(package.name, package.version),
                        "",
                        "",
                        "",
                        random.hex(64),
                        false
                    };
                    break;
            }
            lock.packages.push_back(std::move(package));
        }
        if (random.below(2) == 0)
        {
            lock.pip_options = { "--index-url https://pypi.org/simple",
                                 "--extra-index-url https://download.pytorch.org/whl/cu121" };
        }
        return lock;
    }

    TEST_CASE("export round trip: generated locks", "[formats][Export][roundtrip]")
    {
        Random random(20261201);
        for (int i = 0; i < 300; ++i)
        {
            const model::Lock lock = random_lock(random);
            check_round_trip(lock, "generated lock " + std::to_string(i));
        }
    }
}
