#include "system/environment.hpp"

#include <algorithm>
#include <array>

#include "util/strings.hpp"
#include "util/url_redaction.hpp"

extern char** environ;

namespace envcheck::system
{
    namespace
    {
        constexpr std::array<std::string_view, 13> reported_prefixes{
            "CUDA_", "NVIDIA_", "CONDA_", "MAMBA_", "PIXI_", "PYTORCH_", "TORCH_",
            "XLA_",  "JAX_",    "TF_",    "NCCL_",  "PIP_",  "UV_",
        };

        constexpr std::array<std::string_view, 13> reported_names{
            "LD_LIBRARY_PATH", "LD_PRELOAD",  "PATH",       "PYTHONPATH",
            "PYTHONHOME",      "VIRTUAL_ENV", "HTTP_PROXY", "HTTPS_PROXY",
            "NO_PROXY",        "ALL_PROXY",   "container",  "KUBERNETES_SERVICE_HOST",
            "SLURM_JOB_ID",
        };

        // Substrings of names that hold secrets; matching is case-insensitive, and too much
        // redaction is the safe side.
        constexpr std::array<std::string_view, 10> secret_words{
            "TOKEN", "SECRET",     "PASSWORD", "PASSWD", "PASSPHRASE",
            "KEY",   "CREDENTIAL", "AUTH",     "COOKIE", "PRIVATE",
        };
    }

    auto read_environment() -> Environment
    {
        Environment environment;
        for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
        {
            const std::string_view text = *entry;
            const auto equals = text.find('=');
            if (equals == std::string_view::npos || equals == 0)
            {
                continue;
            }
            environment.emplace(std::string(text.substr(0, equals)),
                                std::string(text.substr(equals + 1)));
        }
        return environment;
    }

    auto is_secret_name(std::string_view name) -> bool
    {
        const std::string upper = [&]
        {
            std::string out(name);
            std::transform(out.begin(), out.end(), out.begin(),
                           [](char c)
                           { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; });
            return out;
        }();
        return std::any_of(secret_words.begin(), secret_words.end(),
                           [&](std::string_view word)
                           { return upper.find(word) != std::string::npos; });
    }

    auto redact_url_credentials(std::string_view value) -> std::string
    {
        return util::redact_urls(value, util::redaction_marker);
    }

    auto is_reported(std::string_view name) -> bool
    {
        const auto upper_equal = [&](std::string_view known) { return util::iequals(name, known); };
        return std::any_of(reported_names.begin(), reported_names.end(), upper_equal) ||
               std::any_of(reported_prefixes.begin(), reported_prefixes.end(),
                           [&](std::string_view prefix) { return name.starts_with(prefix); });
    }

    auto report_environment(const Environment& environment)
      -> std::vector<model::EnvironmentVariable>
    {
        std::vector<model::EnvironmentVariable> variables;
        for (const auto& [name, value] : environment)
        {
            if (!is_reported(name))
            {
                continue;
            }
            model::EnvironmentVariable variable{ name, value, false };
            if (is_secret_name(name))
            {
                variable.value = std::string(redacted_text);
                variable.redacted = true;
            }
            else if (auto cleaned = redact_url_credentials(value); cleaned != value)
            {
                variable.value = std::move(cleaned);
                variable.redacted = true;
            }
            variables.push_back(std::move(variable));
        }
        return variables;
    }
}
