#include "checks/lint_input.hpp"

#include <algorithm>
#include <array>

#include "checks/cuda_driver_table.hpp"
#include "checks/cuda_tables.hpp"
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
            spec.warnings = parsed->warnings();
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
                        for (const auto& extra : line.requirement->extras())
                        {
                            // PEP 685: extras compare with '_' and '.' as '-'.
                            std::string normalized = util::to_lower(extra);
                            std::replace(normalized.begin(), normalized.end(), '_', '-');
                            std::replace(normalized.begin(), normalized.end(), '.', '-');
                            spec.extras.push_back(std::move(normalized));
                        }
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
            CudaClaim claim{ std::move(source),
                             std::move(cuda_spec),
                             position,
                             std::move(selector),
                             {},
                             {},
                             {},
                             {} };
            claim.spec = specs::VersionSpec::parse(claim.cuda_spec).value_or(specs::VersionSpec{});
            claim.lowest = lowest_cuda(claim.spec);
            claim.runtime = claim.lowest;
            return claim;
        }

        // The newest CUDA release the driver table knows that `cuda_spec` admits.
        auto highest_cuda(const specs::VersionSpec& cuda_spec) -> std::optional<model::CudaVersion>
        {
            const auto releases = known_cuda_releases();
            for (auto it = releases.rbegin(); it != releases.rend(); ++it)
            {
                const std::array<specs::VersionSpec, 2> pair{
                    cuda_spec,
                    specs::VersionSpec::parse(it->to_string() + ".*").value_or(specs::VersionSpec{})
                };
                if (conda_satisfiable(pair) == Satisfiable::yes)
                {
                    return *it;
                }
            }
            return std::nullopt;
        }

        // The claim's runtime is what a solver picks: the newest release it admits.
        void solver_picks(CudaClaim& claim, std::string note)
        {
            const auto pick = highest_cuda(claim.spec);
            if (pick && claim.lowest && *pick != *claim.lowest)
            {
                claim.runtime = pick;
                claim.runtime_note = std::move(note);
            }
        }

        auto find_conda(const std::vector<CondaSpec>& conda, std::string_view name)
          -> const CondaSpec*
        {
            for (const auto& spec : conda)
            {
                if (!spec.error && spec.name == name)
                {
                    return &spec;
                }
            }
            return nullptr;
        }

        // pytorch-cuda: the solver picks the newest pytorch-cuda the pytorch channel published
        // for the pytorch versions the file allows.
        void pick_pytorch_cuda(CudaClaim& claim, const CondaSpec& spec,
                               const std::vector<CondaSpec>& conda)
        {
            const CondaSpec* pytorch = find_conda(conda, "pytorch");
            std::optional<model::CudaVersion> pick;
            for (const auto& row : pytorch_cuda_table())
            {
                if (pytorch != nullptr && !pytorch->version.empty())
                {
                    const std::vector<std::string> pair{ pytorch->version,
                                                         std::string(row.pytorch) + ".*" };
                    if (conda_satisfiable(pair) == Satisfiable::no)
                    {
                        continue;
                    }
                }
                for (const auto cuda : row.cuda)
                {
                    const std::vector<std::string> pair{ spec.version, std::string(cuda) + ".*" };
                    const auto version = model::parse_cuda_version(cuda);
                    if (version && conda_satisfiable(pair) != Satisfiable::no &&
                        (!pick || *version > *pick))
                    {
                        pick = version;
                    }
                }
            }
            if (pick && claim.lowest && *pick > *claim.lowest)
            {
                claim.runtime = pick;
                claim.runtime_note = "the solver picks pytorch-cuda " + pick->to_string() +
                                     ", the newest the pytorch channel published for " +
                                     (pytorch != nullptr && !pytorch->version.empty()
                                        ? "'" + pytorch->entry->text + "'"
                                        : std::string("pytorch"));
            }
        }

        auto is_pytorch_index(std::string_view url) -> bool
        {
            return url.find("download.pytorch.org") != std::string_view::npos;
        }

        // The rows of a PyPI release table that a pip specifier allows ("" allows every row).
        auto admitted_rows(std::span<const WheelCudaRow> table, const std::string& specifier)
          -> std::vector<WheelCudaRow>
        {
            std::vector<WheelCudaRow> rows;
            for (const auto& row : table)
            {
                const std::vector<std::string> pair{ specifier,
                                                     "==" + std::string(row.release) + ".*" };
                if (specifier.empty() || pip_satisfiable(pair) != Satisfiable::no)
                {
                    rows.push_back(row);
                }
            }
            return rows;
        }

        // torch or tensorflow[and-cuda] from PyPI: the CUDA of each release line the pin allows;
        // the runtime is that of the newest, which pip picks.
        auto release_table_claim(const PipSpec& spec, std::span<const WheelCudaRow> table,
                                 std::string_view project) -> std::optional<CudaClaim>
        {
            const auto rows = admitted_rows(table, spec.specifier);
            if (rows.empty())
            {
                return std::nullopt;
            }
            std::vector<std::string> specs;
            for (const auto& row : rows)
            {
                if (std::find(specs.begin(), specs.end(), row.cuda) == specs.end())
                {
                    specs.emplace_back(row.cuda);
                }
            }
            std::string cuda_spec;
            for (const auto& one : specs)
            {
                const bool group = specs.size() > 1 && one.find(',') != std::string::npos;
                cuda_spec += (cuda_spec.empty() ? "" : "|") + (group ? "(" + one + ")" : one);
            }
            auto claim =
              make_claim(spec.entry->text, cuda_spec, spec.entry->position, spec.entry->selector);
            const WheelCudaRow& newest = rows.back();
            const auto newest_spec =
              specs::VersionSpec::parse(newest.cuda).value_or(specs::VersionSpec{});
            const auto runtime = highest_cuda(newest_spec);
            if (!runtime)
            {
                return claim;
            }
            claim.runtime = runtime;
            claim.runtime_note =
              (rows.size() > 1
                 ? "pip picks " + std::string(project) + " " + std::string(newest.release) +
                     ", the newest release the pin allows, and "
                 : std::string(project) + " " + std::string(newest.release) + " ") +
              "from PyPI brings CUDA " + runtime->to_string();
            return claim;
        }

        // "12" -> 12: a CUDA major; 0 for anything else.
        auto cuda_major_suffix(std::string_view text) -> int
        {
            const auto major = util::parse_uint(text);
            return major && *major >= 7 && *major <= 99 ? static_cast<int>(*major) : 0;
        }

        // The CUDA release an exact pip pin names in its first two numbers
        // ("==12.4.127" -> "12.4"); "" otherwise.
        auto pinned_release(const std::string& specifier) -> std::string
        {
            if (!specifier.starts_with("==") || specifier.find_first_of(",*+") != std::string::npos)
            {
                return {};
            }
            const auto version = model::parse_cuda_version(std::string_view(specifier).substr(
              2, specifier.find('.', specifier.find('.') + 1) - 2));
            return version ? version->to_string() : std::string();
        }

        // The CUDA wheels and CUDA-tagged projects on PyPI.
        auto pip_package_claim(const PipSpec& spec) -> std::optional<CudaClaim>
        {
            const std::string& name = spec.name;
            auto claim_for = [&](std::string cuda_spec)
            {
                return make_claim(spec.entry->text, std::move(cuda_spec), spec.entry->position,
                                  spec.entry->selector);
            };
            // nvidia-cuda-runtime-cu12==12.4.127, unsuffixed nvidia-cuda-runtime==13.0.96 (CUDA
            // 13 dropped the suffix) and cuda-toolkit==13.0.2 name the CUDA release; the
            // runtime wheels unpinned get the newest of their major.
            const bool runtime_wheel =
              name.starts_with("nvidia-cuda-runtime") || name.starts_with("nvidia-cuda-nvrtc") ||
              name.starts_with("nvidia-cuda-cupti") || name.starts_with("nvidia-cuda-nvcc") ||
              name == "cuda-toolkit";
            const auto dash_cu = name.rfind("-cu");
            const int suffix = name.starts_with("nvidia-") && dash_cu != std::string::npos
                                 ? cuda_major_suffix(std::string_view(name).substr(dash_cu + 3))
                                 : 0;
            if (runtime_wheel)
            {
                if (const auto release = pinned_release(spec.specifier); !release.empty())
                {
                    return claim_for(release + ".*");
                }
                if (suffix != 0)
                {
                    auto claim = claim_for(std::to_string(suffix) + ".*");
                    solver_picks(claim, "pip picks the newest " + name);
                    return claim;
                }
                return std::nullopt;
            }
            if (suffix != 0)
            {
                return claim_for(std::to_string(suffix) + ".*"); // nvidia-cudnn-cu12: some 12.x
            }
            // cupy-cuda12x (any 12.x), cupy-cuda113 (11.3)
            if (name.starts_with("cupy-cuda"))
            {
                std::string_view tag = std::string_view(name).substr(9);
                if (tag.ends_with('x'))
                {
                    const int major = cuda_major_suffix(tag.substr(0, tag.size() - 1));
                    return major != 0 ? std::optional(claim_for(std::to_string(major) + ".*"))
                                      : std::nullopt;
                }
                const std::string cuda = cuda_in_wheel_tag("+cu" + std::string(tag));
                return cuda.empty() ? std::nullopt : std::optional(claim_for(cuda + ".*"));
            }
            // jax-cuda12-plugin, jax-cuda12-pjrt
            if (name.starts_with("jax-cuda"))
            {
                const int major =
                  cuda_major_suffix(std::string_view(name).substr(8, name.find('-', 8) - 8));
                return major != 0 ? std::optional(claim_for(std::to_string(major) + ".*"))
                                  : std::nullopt;
            }
            // jax[cuda12], jax[cuda12_pip]: the plugin and the newest runtime wheels of 12.x;
            // jax[cuda12_local]: the CUDA on the machine, at least 12.0.
            if (name == "jax")
            {
                for (const auto& extra : spec.extras)
                {
                    if (!extra.starts_with("cuda"))
                    {
                        continue;
                    }
                    const std::string_view rest = std::string_view(extra).substr(4);
                    const auto end = rest.find_first_not_of("0123456789");
                    const int major = cuda_major_suffix(rest.substr(0, end));
                    if (major == 0)
                    {
                        continue;
                    }
                    auto claim = claim_for(std::to_string(major) + ".*");
                    if (rest.find("local") == std::string_view::npos)
                    {
                        solver_picks(claim, "pip picks the newest CUDA " + std::to_string(major) +
                                              " runtime wheels for jax[" + extra + "]");
                    }
                    return claim;
                }
            }
            return std::nullopt;
        }

        // The CUDA claims of the conda specs: a CUDA package's version, a build string's CUDA.
        void add_conda_claims(const std::vector<CondaSpec>& conda, std::vector<CudaClaim>& claims)
        {
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
                    claims.back().stack = spec.name == "cuda-version" ? CudaStack::conda_any
                                          : spec.name.starts_with("cudatoolkit")
                                            ? CudaStack::toolkit
                                            : CudaStack::split;
                    if (spec.name == "pytorch-cuda")
                    {
                        pick_pytorch_cuda(claims.back(), spec, conda);
                    }
                }
                const std::string cuda = cuda_build_spec(spec.build);
                if (!cuda.empty())
                {
                    claims.push_back(make_claim(spec.entry->text, cuda, spec.entry->position,
                                                spec.entry->selector));
                    // conda-forge's builds need cudatoolkit (up to 11.x); the pytorch channel's
                    // need cudatoolkit or pytorch-cuda, depending on the release.
                    claims.back().stack =
                      cuda.starts_with(">=") ? CudaStack::toolkit : CudaStack::loose;
                }
            }
        }

        // The CUDA claim of one pip line: an index URL's, a wheel's local version, a package
        // that pulls CUDA wheels. `pytorch_index`: the file names the PyTorch index.
        auto pip_claim(const PipSpec& spec, bool pytorch_index) -> std::optional<CudaClaim>
        {
            if (spec.kind == PipKind::option)
            {
                const std::string cuda =
                  is_pytorch_index(spec.option_value) ? cuda_in_wheel_tag(spec.option_value) : "";
                if (!cuda.empty())
                {
                    auto claim = make_claim(spec.entry->text, cuda + ".*", spec.entry->position,
                                            spec.entry->selector);
                    claim.stack = CudaStack::pip_runtime;
                    return claim;
                }
                return std::nullopt;
            }
            if (spec.kind != PipKind::requirement)
            {
                return std::nullopt;
            }
            // A local version names the build: torch==2.3.1+cu121, jaxlib==0.4.20+cuda12...
            if (spec.specifier.find('+') != std::string::npos)
            {
                const std::string cuda = cuda_in_wheel_tag(spec.specifier);
                if (!cuda.empty())
                {
                    auto claim = make_claim(spec.entry->text, cuda + ".*", spec.entry->position,
                                            spec.entry->selector);
                    claim.stack =
                      is_pytorch_wheel(spec.name) ? CudaStack::pip_runtime : CudaStack::pip_other;
                    return claim;
                }
                return std::nullopt;
            }
            std::optional<CudaClaim> claim;
            if (spec.name == "torch" && !pytorch_index)
            {
                claim = release_table_claim(spec, pypi_torch_cuda_table(), "torch");
            }
            else if (spec.name == "tensorflow" && std::find(spec.extras.begin(), spec.extras.end(),
                                                            "and-cuda") != spec.extras.end())
            {
                claim = release_table_claim(spec, tensorflow_and_cuda_table(), "tensorflow");
            }
            else
            {
                claim = pip_package_claim(spec);
                if (claim &&
                    !(spec.name.starts_with("nvidia-cuda-runtime") || spec.name == "cuda-toolkit"))
                {
                    claim->stack = CudaStack::pip_other;
                }
            }
            if (claim && claim->stack == CudaStack::conda_any)
            {
                claim->stack = CudaStack::pip_runtime;
            }
            return claim;
        }

        auto cuda_claims(const std::vector<CondaSpec>& conda, const std::vector<PipSpec>& pip)
          -> std::vector<CudaClaim>
        {
            std::vector<CudaClaim> claims;
            add_conda_claims(conda, claims);
            for (auto& claim : claims)
            {
                if (claim.lowest && claim.lowest->major >= 12)
                {
                    claim.stack = CudaStack::conda_any; // everything goes through cuda-version
                }
            }
            const bool pytorch_index = std::any_of(pip.begin(), pip.end(),
                                                   [](const PipSpec& spec) {
                                                       return spec.kind == PipKind::option &&
                                                              is_pytorch_index(spec.option_value);
                                                   });
            for (const auto& spec : pip)
            {
                if (auto claim = pip_claim(spec, pytorch_index))
                {
                    claims.push_back(std::move(*claim));
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
        for (const std::string_view marker : { "+cuda", "+cu", "/whl/cu", "/cu" })
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
        for (const auto& release : known_cuda_releases())
        {
            const std::array<specs::VersionSpec, 2> pair{
                cuda_spec,
                specs::VersionSpec::parse(release.to_string() + ".*").value_or(specs::VersionSpec{})
            };
            if (conda_satisfiable(pair) == Satisfiable::yes)
            {
                return release;
            }
        }
        return std::nullopt;
    }

    auto claims_meet(const CudaClaim& a, const CudaClaim& b) -> bool
    {
        const auto is_pip = [](CudaStack stack)
        { return stack == CudaStack::pip_runtime || stack == CudaStack::pip_other; };
        if (is_pip(a.stack) || is_pip(b.stack))
        {
            // The runtime wheels of one CUDA major are one package (nvidia-cuda-runtime-cu12):
            // two pins of it meet; other wheels of different majors live side by side.
            return a.stack == CudaStack::pip_runtime && b.stack == CudaStack::pip_runtime &&
                   a.lowest && b.lowest && a.lowest->major == b.lowest->major;
        }
        if (a.stack == CudaStack::conda_any || b.stack == CudaStack::conda_any)
        {
            return true;
        }
        return a.stack == b.stack && a.stack != CudaStack::loose;
    }

    auto cuda_build_spec(std::string_view build) -> std::string
    {
        const std::string cuda = cuda_in_build(build);
        if (cuda.empty())
        {
            return {};
        }
        const auto dot = cuda.find('.');
        if (dot == std::string::npos)
        {
            return cuda + ".*"; // "cuda12*": any 12.x
        }
        // The pytorch channel writes "cuda11.8" and pins that minor; conda-forge's "cuda118"
        // builds need cudatoolkit/cuda-version >=11.8,<12.
        const std::string lower = util::to_lower(build);
        if (lower.find("cuda" + cuda) != std::string::npos)
        {
            return cuda + ".*";
        }
        const auto major = util::parse_uint(std::string_view(cuda).substr(0, dot));
        return ">=" + cuda + ",<" + std::to_string(major.value_or(0) + 1);
    }

    auto selectors_overlap(std::string_view a, std::string_view b) -> bool
    {
        // The platforms a selector holds on, as bits; unknown selectors hold on all.
        enum : unsigned
        {
            linux_64 = 1U,
            linux_arm = 2U,
            linux_ppc = 4U,
            osx_64 = 8U,
            osx_arm = 16U,
            win_64 = 32U,
            all = 63U,
        };
        auto platforms = [](std::string_view selector) -> unsigned
        {
            std::string text = util::to_lower(util::trim(selector));
            bool negate = false;
            if (text.starts_with("not "))
            {
                negate = true;
                text = std::string(util::trim(std::string_view(text).substr(4)));
            }
            static const std::array<std::pair<std::string_view, unsigned>, 14> names{ {
              { "linux", linux_64 | linux_arm | linux_ppc },
              { "linux64", linux_64 },
              { "linux-64", linux_64 },
              { "aarch64", linux_arm },
              { "linux-aarch64", linux_arm },
              { "ppc64le", linux_ppc },
              { "linux-ppc64le", linux_ppc },
              { "osx", osx_64 | osx_arm },
              { "osx64", osx_64 },
              { "osx-64", osx_64 },
              { "arm64", osx_arm },
              { "osx-arm64", osx_arm },
              { "win", win_64 },
              { "unix", all & ~static_cast<unsigned>(win_64) },
            } };
            unsigned bits = all;
            for (const auto& [name, set] : names)
            {
                if (text == name)
                {
                    bits = set;
                }
            }
            if (text == "win64" || text == "win-64")
            {
                bits = win_64;
            }
            return negate && bits != all ? all & ~bits : bits;
        };
        if (util::trim(a).empty() || util::trim(b).empty())
        {
            return true;
        }
        return (platforms(a) & platforms(b)) != 0;
    }

    auto is_anaconda_channel(std::string_view channel) -> bool
    {
        std::string text = util::to_lower(util::trim(channel));
        while (text.ends_with('/'))
        {
            text.pop_back();
        }
        for (const std::string_view prefix :
             { "https://repo.anaconda.com/", "http://repo.anaconda.com/",
               "https://conda.anaconda.org/", "http://conda.anaconda.org/" })
        {
            if (text.starts_with(prefix))
            {
                text = text.substr(prefix.size());
                break;
            }
        }
        return text == "defaults" || text == "anaconda" || text == "pkgs/main" ||
               text == "pkgs/r" || text == "main";
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
