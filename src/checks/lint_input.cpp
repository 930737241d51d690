#include "checks/lint_input.hpp"

#include <algorithm>
#include <array>

#include "checks/cuda_driver_table.hpp"
#include "pypi/name.hpp"
#include "pypi/pip_line.hpp"
#include "pypi/specifier.hpp"
#include "specs/match_spec.hpp"
#include "specs/version_spec.hpp"
#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        // Every CUDA release the driver table knows, oldest first; lowest_cuda() walks them.
        constexpr std::array<model::CudaVersion, 31> cuda_releases{ {
          { 7, 0 },  { 7, 5 },  { 8, 0 },  { 9, 0 },  { 9, 1 },  { 9, 2 },  { 10, 0 }, { 10, 1 },
          { 10, 2 }, { 11, 0 }, { 11, 1 }, { 11, 2 }, { 11, 3 }, { 11, 4 }, { 11, 5 }, { 11, 6 },
          { 11, 7 }, { 11, 8 }, { 12, 0 }, { 12, 1 }, { 12, 2 }, { 12, 3 }, { 12, 4 }, { 12, 5 },
          { 12, 6 }, { 12, 8 }, { 12, 9 }, { 13, 0 }, { 13, 1 }, { 13, 2 }, { 13, 3 },
        } };

        // "118" -> "11.8", "92" -> "9.2", "120" -> "12.0"; a two-digit run that a glob follows
        // ("cuda12*") names only the major.
        auto cuda_from_digits(std::string_view digits, bool glob_follows) -> std::string
        {
            if (digits.size() == 3)
            {
                return std::string(digits.substr(0, 2)) + "." + std::string(digits.substr(2));
            }
            if (digits.size() == 2)
            {
                if (glob_follows)
                {
                    return std::string(digits);
                }
                return digits.front() == '1'
                         ? std::string(digits)
                         : std::string(digits.substr(0, 1)) + "." + std::string(digits.substr(1));
            }
            return {};
        }

        // The CUDA version after `marker` ("cuda" in build strings, "cu" in wheel tags).
        auto cuda_after(std::string_view text, std::string_view marker) -> std::string
        {
            const std::string lower = util::to_lower(text);
            for (std::size_t at = lower.find(marker); at != std::string::npos;
                 at = lower.find(marker, at + 1))
            {
                std::size_t i = at + marker.size();
                std::size_t start = i;
                while (i < lower.size() && util::is_digit(lower[i]))
                {
                    ++i;
                }
                if (i == start)
                {
                    continue;
                }
                // "cuda11.8" (pytorch channel builds): a dotted major.minor.
                if (i < lower.size() && lower[i] == '.' && i + 1 < lower.size() &&
                    util::is_digit(lower[i + 1]))
                {
                    std::size_t end = i + 1;
                    while (end < lower.size() && util::is_digit(lower[end]))
                    {
                        ++end;
                    }
                    return lower.substr(start, end - start);
                }
                const bool glob_follows = i < lower.size() && lower[i] == '*';
                std::string cuda =
                  cuda_from_digits(std::string_view(lower).substr(start, i - start), glob_follows);
                if (!cuda.empty())
                {
                    return cuda;
                }
            }
            return {};
        }

        auto position_in(const formats::TextPosition& start, std::size_t offset)
          -> formats::TextPosition
        {
            if (start.line == 0)
            {
                return { 1, 1 };
            }
            return { start.line, start.column + offset };
        }

        auto parse_conda(const formats::EnvDependency& entry) -> CondaSpec
        {
            CondaSpec spec;
            spec.entry = &entry;
            auto parsed = specs::MatchSpec::parse(entry.text);
            if (!parsed)
            {
                spec.error = parsed.error();
                return spec;
            }
            spec.name = parsed->name().text();
            if (parsed->channel() && !parsed->channel()->is_free())
            {
                spec.channel = parsed->channel()->to_string();
            }
            if (!parsed->version().is_free())
            {
                spec.version = parsed->version().to_string();
                spec.version_spec = parsed->version();
                if (const auto span = parsed->span(specs::SpecField::version))
                {
                    spec.version_offset = span->offset;
                }
            }
            if (!parsed->build().is_free())
            {
                spec.build = parsed->build().text();
                if (const auto span = parsed->span(specs::SpecField::build))
                {
                    spec.build_offset = span->offset;
                }
            }
            spec.canonical = parsed->to_string();
            return spec;
        }

        // Where the version specifier of a requirement line starts: after the name and extras.
        auto specifier_offset(std::string_view text, std::string_view name) -> std::size_t
        {
            const std::size_t at = text.find(name);
            std::size_t i = at == std::string_view::npos ? 0 : at + name.size();
            if (util::trim_left(text.substr(i)).starts_with('['))
            {
                i = text.find(']', i);
                i = i == std::string_view::npos ? text.size() : i + 1;
            }
            const std::size_t op = text.find_first_of("<>=!~(", i);
            if (op == std::string_view::npos)
            {
                return 0;
            }
            return text[op] == '(' ? op + 1 : op;
        }

        auto collapse_spaces(std::string_view text) -> std::string
        {
            std::string out;
            for (const char c : util::trim(text))
            {
                if (util::is_space(c))
                {
                    if (!out.empty() && out.back() != ' ')
                    {
                        out += ' ';
                    }
                    continue;
                }
                out += c;
            }
            return out;
        }

        auto parse_pip(const formats::EnvPipLine& entry) -> std::optional<PipSpec>
        {
            PipSpec spec;
            spec.entry = &entry;
            auto parsed = pypi::parse_pip_line(entry.text);
            if (!parsed)
            {
                spec.kind = PipKind::invalid;
                spec.error = parsed.error().error;
                spec.suggestion = parsed.error().suggestion;
                spec.canonical = collapse_spaces(entry.text);
                return spec;
            }
            const pypi::PipLine& line = *parsed;
            spec.canonical = collapse_spaces(line.text);
            spec.has_hash = !line.hashes.empty();
            spec.has_commit = line.vcs && line.vcs->ref_is_commit();
            if (!line.name.empty())
            {
                spec.name = pypi::normalize_name(line.name);
            }
            switch (line.kind)
            {
                case pypi::PipLineKind::comment:
                    return std::nullopt;
                case pypi::PipLineKind::requirement:
                    spec.kind = PipKind::requirement;
                    if (line.requirement)
                    {
                        spec.name = line.requirement->normalized_name();
                        spec.specifier = line.requirement->specifier().to_string();
                        if (!spec.specifier.empty())
                        {
                            spec.specifier_offset =
                              specifier_offset(entry.text, line.requirement->name());
                        }
                        spec.canonical = line.requirement->to_string();
                    }
                    return spec;
                case pypi::PipLineKind::option:
                    spec.kind = PipKind::option;
                    if (!line.options.empty())
                    {
                        spec.option = line.options.front().name;
                        spec.option_value = line.options.front().value;
                    }
                    return spec;
                case pypi::PipLineKind::editable:
                case pypi::PipLineKind::url:
                case pypi::PipLineKind::vcs:
                case pypi::PipLineKind::path:
                    break;
            }
            spec.editable = line.kind == pypi::PipLineKind::editable;
            spec.url = line.target;
            const bool remote = line.target.find("://") != std::string::npos &&
                                !util::istarts_with(line.target, "file:");
            if (line.vcs)
            {
                spec.kind = PipKind::vcs;
            }
            else if (line.kind == pypi::PipLineKind::url || (spec.editable && remote))
            {
                spec.kind = PipKind::url;
            }
            else
            {
                spec.kind = PipKind::path;
            }
            return spec;
        }

        // A CUDA package pinned to one version names the release of its first two components:
        // cuda-cudart=11.8.89 and cuda-runtime=11.8.0 both say CUDA 11.8. Ranges stay as they are.
        auto cuda_release_spec(const std::string& version_spec) -> std::string
        {
            auto parsed = specs::VersionSpec::parse(version_spec);
            if (!parsed || parsed->constraints().size() != 1)
            {
                return version_spec;
            }
            const specs::VersionConstraint& only = parsed->constraints().front();
            if (only.op != specs::VersionOperator::equal &&
                only.op != specs::VersionOperator::starts_with)
            {
                return version_spec;
            }
            const auto components = util::split(only.version.text(), '.');
            if (components.size() < 2 || !util::parse_uint(components[0]) ||
                !util::parse_uint(components[1]))
            {
                return version_spec;
            }
            return std::string(components[0]) + "." + std::string(components[1]) + ".*";
        }

        auto is_pytorch_wheel(std::string_view name) -> bool
        {
            return name == "torch" || name == "torchvision" || name == "torchaudio";
        }

        auto make_claim(std::string source, std::string cuda_spec, formats::TextPosition position,
                        std::string selector) -> CudaClaim
        {
            CudaClaim claim{
                std::move(source), std::move(cuda_spec), position, std::move(selector), {}, {}
            };
            claim.spec = specs::VersionSpec::parse(claim.cuda_spec).value_or(specs::VersionSpec{});
            claim.lowest = lowest_cuda(claim.spec);
            return claim;
        }

        auto cuda_claims(const std::vector<CondaSpec>& conda, const std::vector<PipSpec>& pip)
          -> std::vector<CudaClaim>
        {
            std::vector<CudaClaim> claims;
            for (const auto& spec : conda)
            {
                if (spec.error)
                {
                    continue;
                }
                if (is_cuda_package(spec.name) && !spec.version.empty())
                {
                    claims.push_back(make_claim(spec.entry->text, cuda_release_spec(spec.version),
                                                spec.entry->position, spec.entry->selector));
                }
                const std::string cuda = cuda_in_build(spec.build);
                if (!cuda.empty())
                {
                    claims.push_back(make_claim(spec.entry->text, cuda + ".*", spec.entry->position,
                                                spec.entry->selector));
                }
            }
            for (const auto& spec : pip)
            {
                std::string cuda;
                if (spec.kind == PipKind::requirement && is_pytorch_wheel(spec.name))
                {
                    cuda = cuda_in_wheel_tag(spec.specifier);
                }
                else if (spec.kind == PipKind::option &&
                         spec.option_value.find("download.pytorch.org") != std::string::npos)
                {
                    cuda = cuda_in_wheel_tag(spec.option_value);
                }
                if (!cuda.empty())
                {
                    claims.push_back(make_claim(spec.entry->text, cuda + ".*", spec.entry->position,
                                                spec.entry->selector));
                }
            }
            return claims;
        }

    }

    auto CondaSpec::position_at(std::size_t offset) const -> formats::TextPosition
    {
        return position_in(entry->position, offset);
    }

    auto CondaSpec::version_position() const -> formats::TextPosition
    {
        return position_at(version_offset);
    }

    auto CondaSpec::build_position() const -> formats::TextPosition
    {
        return position_at(build_offset);
    }

    auto PipSpec::position_at(std::size_t offset) const -> formats::TextPosition
    {
        return position_in(entry->position, offset);
    }

    auto is_cuda_package(std::string_view conda_name) -> bool
    {
        // Packages versioned like the CUDA release they belong to. Not cuda-python (bindings
        // that serve every minor of a major) nor the libcu* libraries (their own numbering).
        static constexpr std::array<std::string_view, 16> names{
            "cudatoolkit",
            "cudatoolkit-dev",
            "cuda-version",
            "pytorch-cuda",
            "cuda",
            "cuda-toolkit",
            "cuda-runtime",
            "cuda-cudart",
            "cuda-cudart-dev",
            "cuda-libraries",
            "cuda-libraries-dev",
            "cuda-nvcc",
            "cuda-compiler",
            "cuda-nvrtc",
            "cuda-cupti",
            "cuda-nvtx",
        };
        return std::find(names.begin(), names.end(), conda_name) != names.end();
    }

    auto cuda_in_build(std::string_view build) -> std::string
    {
        return cuda_after(build, "cuda");
    }

    auto cuda_in_wheel_tag(std::string_view text) -> std::string
    {
        const std::string lower = util::to_lower(text);
        for (const std::string_view marker : { "+cu", "/whl/cu", "/cu" })
        {
            const std::size_t at = lower.find(marker);
            if (at == std::string::npos)
            {
                continue;
            }
            std::size_t i = at + marker.size();
            const std::size_t start = i;
            while (i < lower.size() && util::is_digit(lower[i]))
            {
                ++i;
            }
            std::string cuda =
              cuda_from_digits(std::string_view(lower).substr(start, i - start), false);
            if (!cuda.empty())
            {
                return cuda;
            }
        }
        return {};
    }

    auto lowest_cuda(std::string_view cuda_spec) -> std::optional<model::CudaVersion>
    {
        auto parsed = specs::VersionSpec::parse(cuda_spec);
        return parsed ? lowest_cuda(*parsed) : std::nullopt;
    }

    auto lowest_cuda(const specs::VersionSpec& cuda_spec) -> std::optional<model::CudaVersion>
    {
        static const std::vector<specs::VersionSpec> releases = []
        {
            std::vector<specs::VersionSpec> out;
            for (const auto& release : cuda_releases)
            {
                out.push_back(specs::VersionSpec::parse(release.to_string() + ".*")
                                .value_or(specs::VersionSpec{}));
            }
            return out;
        }();
        for (std::size_t i = 0; i < releases.size(); ++i)
        {
            const std::array<specs::VersionSpec, 2> pair{ cuda_spec, releases[i] };
            if (conda_satisfiable(pair) == Satisfiable::yes)
            {
                return cuda_releases[i];
            }
        }
        return std::nullopt;
    }

    auto make_lint_input(const formats::EnvironmentFile& file, const LintOptions& options)
      -> LintInput
    {
        LintInput input;
        input.file = &file;
        input.options = options;
        for (const auto& entry : file.dependencies)
        {
            input.conda.push_back(parse_conda(entry));
        }
        for (const auto& entry : file.pip)
        {
            if (auto spec = parse_pip(entry))
            {
                input.pip.push_back(std::move(*spec));
            }
        }
        input.cuda_claims = cuda_claims(input.conda, input.pip);
        return input;
    }

    auto conda_satisfiable(std::span<const std::string> version_specs) -> Satisfiable
    {
        std::vector<specs::VersionSpec> parsed;
        for (const auto& text : version_specs)
        {
            auto spec = specs::VersionSpec::parse(text);
            if (!spec)
            {
                return Satisfiable::unknown;
            }
            parsed.push_back(std::move(*spec));
        }
        return conda_satisfiable(parsed);
    }

    auto conda_satisfiable(std::span<const specs::VersionSpec> version_specs) -> Satisfiable
    {
        switch (specs::satisfiability_of(version_specs))
        {
            case specs::Satisfiability::satisfiable:
                return Satisfiable::yes;
            case specs::Satisfiability::unsatisfiable:
                return Satisfiable::no;
            case specs::Satisfiability::unknown:
                return Satisfiable::unknown;
        }
        return Satisfiable::unknown;
    }

    auto pip_satisfiable(std::span<const std::string> specifiers) -> Satisfiable
    {
        // PEP 440 specifier sets are conjunctions: one set holds them all.
        const std::vector<std::string> parts(specifiers.begin(), specifiers.end());
        auto set = pypi::SpecifierSet::parse(util::join(parts, ","));
        if (!set)
        {
            return Satisfiable::unknown;
        }
        return set->is_satisfiable() ? Satisfiable::yes : Satisfiable::no;
    }
}
