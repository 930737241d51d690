#include "checks/lint_rules.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>

#include "checks/cuda_tables.hpp"
#include "pypi/name.hpp"
#include "util/strings.hpp"

namespace envcheck::checks::rules
{
    namespace
    {
        auto line_of(const formats::TextPosition& position) -> std::string
        {
            return "line " + std::to_string(position.line);
        }

        auto quoted(std::string_view text) -> std::string
        {
            return "'" + std::string(text) + "'";
        }

        // A package is identified by its name and the platform selector it carries: the same
        // name twice under "# [linux]" and "# [win]" is two entries, not a duplicate.
        auto conda_key(const CondaSpec& spec) -> std::string
        {
            return spec.name + "#" + spec.entry->selector;
        }

        // Entries under different platform selectors or PEP 508 markers apply to different
        // environments ("oldpy<2; python_version < '3.11'" and "oldpy>=2; python_version >=
        // '3.11'", as pyproject.toml files write): they are neither duplicates nor a conflict.
        auto pip_key(const PipSpec& spec) -> std::string
        {
            const std::string& text = spec.entry->text;
            const auto semicolon = text.find(';');
            const std::string_view marker =
              semicolon == std::string::npos
                ? std::string_view()
                : util::trim(std::string_view(text).substr(semicolon + 1));
            return spec.name + "#" + spec.entry->selector + ";" + std::string(marker);
        }

        auto parsed_conda(const LintInput& input) -> std::vector<const CondaSpec*>
        {
            std::vector<const CondaSpec*> out;
            for (const auto& spec : input.conda)
            {
                if (!spec.error)
                {
                    out.push_back(&spec);
                }
            }
            return out;
        }

        auto pip_requirements(const LintInput& input) -> std::vector<const PipSpec*>
        {
            std::vector<const PipSpec*> out;
            for (const auto& spec : input.pip)
            {
                if (!spec.name.empty() && spec.kind != PipKind::option &&
                    spec.kind != PipKind::invalid)
                {
                    out.push_back(&spec);
                }
            }
            return out;
        }

        auto find_conda(const LintInput& input, std::string_view name) -> const CondaSpec*
        {
            for (const auto& spec : input.conda)
            {
                if (!spec.error && spec.name == name)
                {
                    return &spec;
                }
            }
            return nullptr;
        }

        auto is_any_version(std::string_view version) -> bool
        {
            const std::string_view trimmed = util::trim(version);
            return trimmed.empty() || trimmed == "*" || trimmed == "=*";
        }

        // conda package names whose pip distribution has another name.
        auto pip_name_of(std::string_view conda_name) -> std::string
        {
            static const std::map<std::string_view, std::string_view> aliases{
                { "pytorch", "torch" },           { "pytorch-gpu", "torch" },
                { "pytorch-cpu", "torch" },       { "pytables", "tables" },
                { "py-opencv", "opencv-python" }, { "matplotlib-base", "matplotlib" },
                { "py-xgboost", "xgboost" },      { "pyqt", "pyqt5" },
                { "msgpack-python", "msgpack" },  { "python-graphviz", "graphviz" },
            };
            const auto found = aliases.find(conda_name);
            if (found != aliases.end())
            {
                return std::string(found->second);
            }
            return pypi::normalize_name(conda_name);
        }

        // Packages whose version carries no meaning worth pinning.
        auto exempt_from_pinning(std::string_view name) -> bool
        {
            return name == "cpuonly" || name == "nomkl";
        }

        auto channel_name(std::string_view channel) -> std::string
        {
            // "https://conda.anaconda.org/conda-forge/" names conda-forge.
            std::string_view trimmed = util::trim(channel);
            while (trimmed.ends_with('/'))
            {
                trimmed.remove_suffix(1);
            }
            const std::size_t slash = trimmed.rfind('/');
            return util::to_lower(slash == std::string_view::npos ? trimmed
                                                                  : trimmed.substr(slash + 1));
        }

        auto find_channel(const LintInput& input, std::string_view name)
          -> const formats::EnvString*
        {
            for (const auto& channel : input.file->channels)
            {
                if (channel_name(channel.value) == name)
                {
                    return &channel;
                }
            }
            return nullptr;
        }

        // "py39", "py310", "py3.9" in a build string -> "3.9", "3.10".
        auto python_tag(std::string_view build) -> std::string
        {
            for (std::size_t at = build.find("py"); at != std::string_view::npos;
                 at = build.find("py", at + 1))
            {
                std::size_t i = at + 2;
                if (i >= build.size() || build[i] != '3')
                {
                    continue;
                }
                ++i;
                if (i < build.size() && build[i] == '.')
                {
                    ++i;
                }
                const std::size_t start = i;
                while (i < build.size() && util::is_digit(build[i]))
                {
                    ++i;
                }
                if (i > start && i - start <= 2)
                {
                    return "3." + std::string(build.substr(start, i - start));
                }
            }
            return {};
        }

        auto mentions_cuda_build(const CondaSpec& spec) -> bool
        {
            return util::to_lower(spec.build).find("cuda") != std::string::npos;
        }

        auto mentions_cpu_build(const CondaSpec& spec) -> bool
        {
            return util::to_lower(spec.build).find("cpu") != std::string::npos;
        }

        // "=12.1" and "11.8.*" name CUDA "12.1" and "11.8", "12.*" CUDA 12.x, a build's
        // ">=11.2,<12" CUDA 11.2 or newer 11.x; other ranges stay as written.
        auto cuda_words(const CudaClaim& claim) -> std::string
        {
            std::string_view spec = util::trim(claim.cuda_spec);
            if (spec.starts_with('=') && !spec.starts_with("=="))
            {
                spec.remove_prefix(1);
            }
            const auto comma = spec.find(",<");
            if (spec.starts_with(">=") && comma != std::string_view::npos &&
                spec.find_first_of("|(") == std::string_view::npos)
            {
                const std::string_view from = spec.substr(2, comma - 2);
                const std::string_view major = from.substr(0, from.find('.'));
                if (spec.substr(comma + 2) ==
                    std::to_string(util::parse_uint(major).value_or(0) + 1))
                {
                    return "CUDA " + std::string(from) + " or a newer " + std::string(major) + ".x";
                }
            }
            if (spec.ends_with(".*") && spec.find_first_of(",|(") == std::string_view::npos)
            {
                spec.remove_suffix(2);
                return spec.find('.') == std::string_view::npos ? "CUDA " + std::string(spec) + ".x"
                                                                : "CUDA " + std::string(spec);
            }
            return "CUDA " + std::string(spec);
        }

        // Where the pytorch package comes from.
        enum class PytorchSource
        {
            pytorch_channel, // pytorch::pytorch, or 'pytorch' is the first channel publishing it
            other_channel,   // conda-forge::pytorch, or conda-forge or Anaconda's listed first
            unknown,         // no channels, or none of these listed
        };

        auto pytorch_source(const LintInput& input, const CondaSpec& pytorch) -> PytorchSource
        {
            if (!pytorch.channel.empty())
            {
                return channel_name(pytorch.channel) == "pytorch" ? PytorchSource::pytorch_channel
                                                                  : PytorchSource::other_channel;
            }
            for (const auto& channel : input.file->channels)
            {
                const std::string name = channel_name(channel.value);
                if (name == "pytorch")
                {
                    return PytorchSource::pytorch_channel;
                }
                if (name == "conda-forge" || is_anaconda_channel(channel.value))
                {
                    return PytorchSource::other_channel;
                }
            }
            return PytorchSource::unknown;
        }

        // The index of the spec that makes the first `count` of a name's specs unsatisfiable
        // together, given `unsatisfiable(n)` for the first n; nullopt when all of them are not.
        // Adding a spec never makes an empty set of versions non-empty, so the first is found
        // by halving: judging every prefix in turn was quadratic (issue 19: 10,000 pins of two
        // names took 7 s to lint).
        template<class Unsatisfiable>
        auto first_contradiction(std::size_t count, const Unsatisfiable& unsatisfiable)
          -> std::optional<std::size_t>
        {
            if (count == 0 || !unsatisfiable(count))
            {
                return std::nullopt;
            }
            // By hand: std::ranges::partition_point over views::iota is what this is, but clang
            // 14 (clang-tidy in CI) cannot compile libstdc++ 12's ranges.
            std::size_t low = 1; // the first `high` are unsatisfiable, the first low - 1 not
            std::size_t high = count;
            while (low < high)
            {
                const std::size_t middle = low + (high - low) / 2;
                if (unsatisfiable(middle))
                {
                    high = middle;
                }
                else
                {
                    low = middle + 1;
                }
            }
            return high - 1;
        }

        // "no version of 'x' satisfies '<2'", and with which earlier spec of its name.
        auto contradiction(std::string_view name, std::string_view text, std::size_t at,
                           std::string_view first_text, const formats::TextPosition& first_position)
          -> std::string
        {
            std::string message = "no version of " + quoted(name) + " satisfies " + quoted(text);
            if (at > 0)
            {
                message +=
                  " together with " + quoted(first_text) + " (" + line_of(first_position) + ")";
            }
            return message;
        }

        // The first channel before 'pytorch' that publishes its own pytorch builds.
        auto shadowing_channel(const LintInput& input) -> const formats::EnvString*
        {
            for (const auto& channel : input.file->channels)
            {
                const std::string name = channel_name(channel.value);
                if (name == "pytorch")
                {
                    return nullptr;
                }
                if (name == "conda-forge" || is_anaconda_channel(channel.value))
                {
                    return &channel;
                }
            }
            return nullptr;
        }
    }

    void matchspec_syntax(const LintInput& input, Findings& findings)
    {
        for (const auto& spec : input.conda)
        {
            if (spec.error)
            {
                add_finding(findings, "syntax.matchspec",
                            quoted(spec.entry->text) +
                              " is not a MatchSpec: " + spec.error->message,
                            spec.position_at(spec.error->offset));
            }
        }
    }

    void matchspec_lenient(const LintInput& input, Findings& findings)
    {
        for (const auto& spec : input.conda)
        {
            for (const auto& warning : spec.warnings)
            {
                add_finding(findings, "syntax.matchspec-lenient",
                            quoted(spec.entry->text) + ": " + warning.message,
                            spec.position_at(warning.offset));
            }
        }
    }

    void pip_line_syntax(const LintInput& input, Findings& findings)
    {
        for (const auto& spec : input.pip)
        {
            if (spec.kind != PipKind::invalid)
            {
                continue;
            }
            const std::size_t offset = spec.error ? spec.error->offset : 0;
            std::string message = quoted(spec.entry->text) + " is not a pip requirement or option";
            if (spec.error)
            {
                message += ": " + spec.error->message;
            }
            std::string fix;
            const std::string& text = spec.entry->text;
            const std::size_t equals = text.find('=');
            if (spec.suggestion == "==" && equals != std::string::npos)
            {
                // conda's "name=1.2" in a pip list.
                fix = "pip pins with '==': write '" + text.substr(0, equals) + "=" +
                      text.substr(equals) + "'.";
            }
            else if (!spec.suggestion.empty())
            {
                fix = "Did you mean '" + spec.suggestion + "'?";
            }
            add_finding(findings, "syntax.pip-line", std::move(message), spec.position_at(offset),
                        std::move(fix));
        }
    }

    void duplicate_package(const LintInput& input, Findings& findings)
    {
        std::map<std::string, const CondaSpec*> conda_seen;
        for (const CondaSpec* spec : parsed_conda(input))
        {
            const auto [first, inserted] = conda_seen.emplace(conda_key(*spec), spec);
            if (!inserted)
            {
                add_finding(findings, "duplicate.package",
                            quoted(spec->name) + " is listed twice (first at " +
                              line_of(first->second->entry->position) + ")",
                            spec->entry->position);
            }
        }
        std::map<std::string, const PipSpec*> pip_seen;
        for (const PipSpec* spec : pip_requirements(input))
        {
            const auto [first, inserted] = pip_seen.emplace(pip_key(*spec), spec);
            if (!inserted)
            {
                add_finding(findings, "duplicate.package",
                            quoted(spec->name) + " is listed twice in pip (first at " +
                              line_of(first->second->entry->position) + ")",
                            spec->entry->position);
            }
        }
    }

    void unsatisfiable(const LintInput& input, Findings& findings)
    {
        std::map<std::string, std::vector<const CondaSpec*>> conda_groups;
        for (const CondaSpec* spec : parsed_conda(input))
        {
            if (!is_any_version(spec->version))
            {
                conda_groups[conda_key(*spec)].push_back(spec);
            }
        }
        for (const auto& [key, specs] : conda_groups)
        {
            std::vector<specs::VersionSpec> versions;
            for (const CondaSpec* spec : specs)
            {
                versions.push_back(spec->version_spec);
            }
            const auto at = first_contradiction(
              specs.size(), [&](std::size_t count)
              { return conda_satisfiable(std::span(versions).first(count)) == Satisfiable::no; });
            if (at)
            {
                const CondaSpec& spec = *specs[*at];
                add_finding(findings, "conflict.unsatisfiable",
                            contradiction(spec.name, spec.version, *at, specs.front()->version,
                                          specs.front()->entry->position),
                            spec.version_position());
            }
        }
        std::map<std::string, std::vector<const PipSpec*>> pip_groups;
        for (const PipSpec* spec : pip_requirements(input))
        {
            if (!spec->specifier.empty())
            {
                pip_groups[pip_key(*spec)].push_back(spec);
            }
        }
        for (const auto& [key, specs] : pip_groups)
        {
            std::vector<std::string> specifiers;
            for (const PipSpec* spec : specs)
            {
                specifiers.push_back(spec->specifier);
            }
            const auto at = first_contradiction(
              specs.size(), [&](std::size_t count)
              { return pip_satisfiable(std::span(specifiers).first(count)) == Satisfiable::no; });
            if (at)
            {
                const PipSpec& spec = *specs[*at];
                add_finding(findings, "conflict.unsatisfiable",
                            contradiction(spec.name, spec.specifier, *at, specs.front()->specifier,
                                          specs.front()->entry->position),
                            spec.position_at(spec.specifier_offset));
            }
        }
    }

    void conda_and_pip(const LintInput& input, Findings& findings)
    {
        // The first conda spec of each pip name, made once: a scan of the conda specs per pip
        // requirement was two thirds of linting a 2,000-dependency file (issue 19).
        std::unordered_map<std::string, const CondaSpec*> conda_by_pip_name;
        for (const CondaSpec* conda : parsed_conda(input))
        {
            if (conda->name != "pip")
            {
                conda_by_pip_name.emplace(pip_name_of(conda->name), conda);
            }
        }
        for (const PipSpec* spec : pip_requirements(input))
        {
            const auto found = conda_by_pip_name.find(spec->name);
            if (found == conda_by_pip_name.end())
            {
                continue;
            }
            const CondaSpec* conda = found->second;
            add_finding(findings, "conflict.conda-and-pip",
                        quoted(spec->name) + " comes from pip and from conda (" +
                          quoted(conda->entry->text) + ", " + line_of(conda->entry->position) +
                          "): pip overwrites conda's files and conda no longer knows what is "
                          "installed",
                        spec->entry->position);
        }
    }

    void unpinned(const LintInput& input, Findings& findings)
    {
        for (const CondaSpec* spec : parsed_conda(input))
        {
            if (is_any_version(spec->version) && !exempt_from_pinning(spec->name))
            {
                add_finding(
                  findings, "repro.unpinned",
                  quoted(spec->name) + " has no version: every solve may pick a newer one",
                  spec->entry->position, "Pin a version, such as '" + spec->name + "=<version>'.");
            }
        }
        for (const PipSpec* spec : pip_requirements(input))
        {
            if (spec->kind == PipKind::requirement && spec->specifier.empty())
            {
                add_finding(findings, "repro.unpinned",
                            quoted(spec->name) + " has no version: pip installs the newest release",
                            spec->entry->position,
                            "Pin a version, such as '" + spec->name + "==<version>'.");
            }
        }
    }

    void pip_url_unpinned(const LintInput& input, Findings& findings)
    {
        for (const auto& spec : input.pip)
        {
            if (spec.kind == PipKind::vcs && !spec.has_commit && !spec.has_hash)
            {
                add_finding(findings, "repro.pip-url-unpinned",
                            quoted(spec.url) +
                              " installs whatever the branch or tag points to today",
                            spec.entry->position, "Pin the full commit hash: '...@<40-hex sha>'.");
            }
            else if (spec.kind == PipKind::url && !spec.has_hash)
            {
                add_finding(findings, "repro.pip-url-unpinned",
                            quoted(spec.url) +
                              " is downloaded without a hash: its content can change",
                            spec.entry->position,
                            "Add the archive's hash: '" + spec.url + "#sha256=<hash>'.");
            }
        }
    }

    void no_channels(const LintInput& input, Findings& findings)
    {
        if (!input.file->channels.empty() || input.options.pip_only)
        {
            return;
        }
        const formats::TextPosition position =
          input.file->has_channels ? input.file->channels_position : formats::TextPosition{ 1, 1 };
        add_finding(findings, "repro.no-channels",
                    input.file->has_channels
                      ? "'channels' is empty: the solver uses whatever .condarc lists"
                      : "no 'channels': the solver uses whatever the machine's .condarc lists",
                    position);
    }

    void defaults_mixed(const LintInput& input, Findings& findings)
    {
        const formats::EnvString* defaults = nullptr;
        for (const auto& channel : input.file->channels)
        {
            if (is_anaconda_channel(channel.value))
            {
                defaults = &channel;
                break;
            }
        }
        const formats::EnvString* conda_forge = find_channel(input, "conda-forge");
        if (defaults == nullptr || conda_forge == nullptr)
        {
            return;
        }
        const formats::EnvString* later =
          defaults->position.line > conda_forge->position.line ? defaults : conda_forge;
        const std::string anaconda =
          channel_name(defaults->value) == "defaults"
            ? std::string("'defaults'")
            : quoted(util::trim(defaults->value)) + " (Anaconda's packages, as in defaults)";
        add_finding(findings, "repro.defaults-mixed",
                    anaconda +
                      " and 'conda-forge' together: their packages are built against different "
                      "libraries and break each other",
                    later->position);
    }

    void nodefaults(const LintInput& input, Findings& findings)
    {
        if (input.file->channels.empty() || find_channel(input, "nodefaults") != nullptr ||
            find_channel(input, "defaults") != nullptr)
        {
            return;
        }
        add_finding(
          findings, "repro.nodefaults",
          "channels do not end with 'nodefaults': conda appends the default channels from .condarc",
          input.file->channels_position);
    }

    void cuda_version_mismatch(const LintInput& input, Findings& findings)
    {
        // Each claim is checked against the earlier claims that were not themselves reported,
        // so that one odd entry is reported once instead of every entry after it.
        const auto& claims = input.cuda_claims;
        std::vector<bool> reported(claims.size(), false);
        for (std::size_t later = 1; later < claims.size(); ++later)
        {
            for (std::size_t earlier = 0; earlier < later; ++earlier)
            {
                const bool same_platform =
                  selectors_overlap(claims[earlier].selector, claims[later].selector);
                if (reported[earlier] || !same_platform ||
                    !claims_meet(claims[earlier], claims[later]) ||
                    claims[earlier].cuda_spec == claims[later].cuda_spec)
                {
                    continue;
                }
                const std::array<specs::VersionSpec, 2> pair{ claims[earlier].spec,
                                                              claims[later].spec };
                if (conda_satisfiable(pair) == Satisfiable::no)
                {
                    add_finding(findings, "cuda.version-mismatch",
                                quoted(claims[later].source) + " names " +
                                  cuda_words(claims[later]) + ", but " +
                                  quoted(claims[earlier].source) + " (" +
                                  line_of(claims[earlier].position) + ") names " +
                                  cuda_words(claims[earlier]),
                                claims[later].position);
                    reported[later] = true;
                    break;
                }
            }
        }
    }

    void gpu_build_with_cpuonly(const LintInput& input, Findings& findings)
    {
        // What forces CPU builds: cpuonly, or a CPU build of pytorch; each on its platforms.
        std::vector<std::pair<const CondaSpec*, std::string>> cpu_sources;
        for (const CondaSpec* spec : parsed_conda(input))
        {
            if (spec->name == "cpuonly")
            {
                cpu_sources.emplace_back(spec, "'cpuonly'");
            }
            else if (spec->name == "pytorch" && mentions_cpu_build(*spec))
            {
                cpu_sources.emplace_back(spec, "the CPU build " + quoted(spec->entry->text));
            }
        }
        auto cpu_for = [&](const CondaSpec& spec) -> const std::pair<const CondaSpec*, std::string>*
        {
            for (const auto& source : cpu_sources)
            {
                if (selectors_overlap(source.first->entry->selector, spec.entry->selector))
                {
                    return &source;
                }
            }
            return nullptr;
        };
        for (const CondaSpec* spec : parsed_conda(input))
        {
            const auto* cpu = cpu_for(*spec);
            if (cpu == nullptr)
            {
                continue;
            }
            const std::string because =
              cpu->second + " (" + line_of(cpu->first->entry->position) + ") forces CPU builds";
            if (mentions_cuda_build(*spec))
            {
                add_finding(findings, "cuda.gpu-build-with-cpuonly",
                            quoted(spec->entry->text) + " asks for a CUDA build, but " + because,
                            spec->build_position());
            }
            else if (spec->name == "pytorch-cuda")
            {
                add_finding(findings, "cuda.gpu-build-with-cpuonly",
                            quoted(spec->entry->text) + " selects CUDA builds of PyTorch, but " +
                              because,
                            spec->entry->position);
            }
        }
    }

    void pytorch_cuda_needs_nvidia(const LintInput& input, Findings& findings)
    {
        const CondaSpec* spec = find_conda(input, "pytorch-cuda");
        if (spec == nullptr || find_channel(input, "nvidia") != nullptr)
        {
            return;
        }
        add_finding(
          findings, "cuda.pytorch-cuda-needs-nvidia",
          quoted(spec->entry->text) +
            " depends on CUDA libraries published in the nvidia channel, which is not listed",
          spec->entry->position);
    }

    namespace
    {
        // The rows of a pytorch table that a pytorch version spec allows, and the CUDA minors
        // they were published for.
        struct Published
        {
            bool pytorch_in_table = false;
            bool cuda_published = false;
            std::vector<std::string> cuda; // every CUDA minor of the allowed rows
        };

        auto published(const std::vector<PytorchCudaRow>& table, const std::string& pytorch,
                       const std::string& cuda_spec) -> Published
        {
            Published out;
            for (const auto& row : table)
            {
                const std::vector<std::string> pytorch_pair{ pytorch,
                                                             std::string(row.pytorch) + ".*" };
                if (conda_satisfiable(pytorch_pair) == Satisfiable::no)
                {
                    continue;
                }
                out.pytorch_in_table = true;
                for (const auto cuda : row.cuda)
                {
                    const std::vector<std::string> cuda_pair{ cuda_spec, std::string(cuda) + ".*" };
                    out.cuda_published =
                      out.cuda_published || conda_satisfiable(cuda_pair) != Satisfiable::no;
                    if (std::find(out.cuda.begin(), out.cuda.end(), cuda) == out.cuda.end())
                    {
                        out.cuda.emplace_back(cuda);
                    }
                }
            }
            return out;
        }
    }

    void pytorch_cuda_unpublished(const LintInput& input, Findings& findings)
    {
        const CondaSpec* pytorch = find_conda(input, "pytorch");
        if (pytorch == nullptr || is_any_version(pytorch->version))
        {
            return;
        }
        const PytorchSource source = pytorch_source(input, *pytorch);
        const CondaSpec* pytorch_cuda = find_conda(input, "pytorch-cuda");
        if (pytorch_cuda != nullptr)
        {
            // pytorch-cuda exists only in the pytorch channel; pytorch from elsewhere is
            // cuda.pytorch-cuda-shadowed's finding.
            if (is_any_version(pytorch_cuda->version) || source == PytorchSource::other_channel)
            {
                return;
            }
            const Published found =
              published(pytorch_cuda_table(), pytorch->version, pytorch_cuda->version);
            if (found.cuda_published)
            {
                return;
            }
            const std::string message =
              found.pytorch_in_table
                ? "the pytorch channel published " + quoted(pytorch->entry->text) +
                    " with pytorch-cuda " + util::join(found.cuda, ", ") + ", not " +
                    quoted(pytorch_cuda->entry->text)
                : "the pytorch channel published pytorch-cuda builds only for PyTorch 1.13 to "
                  "2.5, not " +
                    quoted(pytorch->entry->text);
            add_finding(findings, "cuda.pytorch-cuda-unpublished", message,
                        pytorch_cuda->version_position());
            return;
        }
        // Before pytorch-cuda (1.0 to 1.12) the channel's GPU builds depended on cudatoolkit;
        // cudatoolkit is in every channel, so this holds only for pytorch from the pytorch
        // channel.
        const CondaSpec* cudatoolkit = find_conda(input, "cudatoolkit");
        if (cudatoolkit == nullptr || is_any_version(cudatoolkit->version) ||
            source != PytorchSource::pytorch_channel ||
            !selectors_overlap(pytorch->entry->selector, cudatoolkit->entry->selector))
        {
            return;
        }
        const Published found =
          published(pytorch_cudatoolkit_table(), pytorch->version, cudatoolkit->version);
        if (!found.pytorch_in_table || found.cuda_published)
        {
            return;
        }
        add_finding(findings, "cuda.pytorch-cuda-unpublished",
                    "the pytorch channel published " + quoted(pytorch->entry->text) +
                      " for cudatoolkit " + util::join(found.cuda, ", ") + ", not " +
                      quoted(cudatoolkit->entry->text) +
                      ": with it the solver finds only a CPU build there",
                    cudatoolkit->version_position());
    }

    void pytorch_cuda_shadowed(const LintInput& input, Findings& findings)
    {
        const CondaSpec* pytorch = find_conda(input, "pytorch");
        const CondaSpec* pytorch_cuda = find_conda(input, "pytorch-cuda");
        if (pytorch == nullptr || pytorch_cuda == nullptr || !pytorch->channel.empty() ||
            find_channel(input, "pytorch") == nullptr)
        {
            return;
        }
        const formats::EnvString* first = shadowing_channel(input);
        if (first == nullptr)
        {
            return;
        }
        add_finding(findings, "cuda.pytorch-cuda-shadowed",
                    "channels list " + quoted(util::trim(first->value)) +
                      " before 'pytorch': with strict channel priority the solver takes " +
                      quoted(pytorch->entry->text) + " from " + quoted(util::trim(first->value)) +
                      ", whose builds do not use pytorch-cuda, and the CUDA stack that " +
                      quoted(pytorch_cuda->entry->text) + " (" +
                      line_of(pytorch_cuda->entry->position) + ") brings goes unused",
                    pytorch->entry->position,
                    "Write 'pytorch::pytorch' (and pytorch::torchvision, ...), or list 'pytorch' "
                    "before " +
                      quoted(util::trim(first->value)) + ".");
    }

    void python_build_mismatch(const LintInput& input, Findings& findings)
    {
        std::vector<const CondaSpec*> pythons;
        for (const CondaSpec* spec : parsed_conda(input))
        {
            if (spec->name == "python" && !is_any_version(spec->version))
            {
                pythons.push_back(spec);
            }
        }
        for (const CondaSpec* spec : parsed_conda(input))
        {
            if (spec->name == "python" || spec->build.empty())
            {
                continue;
            }
            const std::string tag = python_tag(spec->build);
            if (tag.empty())
            {
                continue;
            }
            for (const CondaSpec* python : pythons)
            {
                const std::vector<std::string> pair{ python->version, tag + ".*" };
                if (!selectors_overlap(python->entry->selector, spec->entry->selector) ||
                    conda_satisfiable(pair) != Satisfiable::no)
                {
                    continue;
                }
                add_finding(findings, "python.build-mismatch",
                            "the build " + quoted(spec->build) + " of " + quoted(spec->name) +
                              " is for Python " + tag + ", but " + quoted(python->entry->text) +
                              " (" + line_of(python->entry->position) + ") pins another Python",
                            spec->build_position());
                break;
            }
        }
    }

    namespace
    {
        struct DriverVerdict
        {
            const CudaClaim* claim = nullptr;
            model::CudaVersion runtime;
            DriverSupport support = DriverSupport::full;
            DriverRequirement requirement;
            std::string fleet; // "driver 520.61.05", "a driver for CUDA 12.2"
        };

        // " (the solver picks pytorch-cuda 12.4, ...): it" where the runtime is a pick.
        auto note_of(const CudaClaim& claim) -> std::string
        {
            return claim.runtime_note.empty() ? std::string() : " (" + claim.runtime_note + ")";
        }

        auto driver_verdict(const LintInput& input) -> std::optional<DriverVerdict>
        {
            if (!input.options.target_driver && !input.options.target_cuda)
            {
                return std::nullopt;
            }
            // The fleet runs Linux: claims for other platforms only do not count.
            const CudaClaim* needing = nullptr;
            std::optional<model::CudaVersion> runtime;
            for (const auto& claim : input.cuda_claims)
            {
                const auto& candidate = claim.runtime;
                if (candidate && selectors_overlap(claim.selector, "linux") &&
                    (!runtime || *candidate > *runtime))
                {
                    runtime = candidate;
                    needing = &claim;
                }
            }
            if (!runtime)
            {
                return std::nullopt;
            }
            const auto requirement = driver_requirement(*runtime);
            const auto support = input.options.target_driver
                                   ? driver_support(*runtime, *input.options.target_driver)
                                   : driver_support(*runtime, *input.options.target_cuda);
            if (!requirement || !support)
            {
                return std::nullopt;
            }
            const std::string fleet =
              input.options.target_driver
                ? "driver " + input.options.target_driver->to_string()
                : "a driver for CUDA " + input.options.target_cuda->to_string();
            return DriverVerdict{ needing, *runtime, *support, *requirement, fleet };
        }
    }

    void driver_too_old(const LintInput& input, Findings& findings)
    {
        const auto verdict = driver_verdict(input);
        if (!verdict || verdict->support != DriverSupport::unsupported)
        {
            return;
        }
        add_finding(findings, "cuda.driver-too-old",
                    quoted(verdict->claim->source) + note_of(*verdict->claim) + " needs CUDA " +
                      verdict->runtime.to_string() + ", which needs driver " +
                      verdict->requirement.full.to_string() + " (at least " +
                      verdict->requirement.family.to_string() +
                      " with minor-version compatibility); the fleet has " + verdict->fleet,
                    verdict->claim->position);
    }

    void driver_minor_compat(const LintInput& input, Findings& findings)
    {
        const auto verdict = driver_verdict(input);
        if (!verdict || verdict->support != DriverSupport::minor_compat)
        {
            return;
        }
        add_finding(findings, "cuda.driver-minor-compat",
                    quoted(verdict->claim->source) + note_of(*verdict->claim) + " needs CUDA " +
                      verdict->runtime.to_string() + " (driver " +
                      verdict->requirement.full.to_string() + "); " + verdict->fleet +
                      " runs it only under minor-version compatibility, without JIT of newer PTX",
                    verdict->claim->position);
    }
}
