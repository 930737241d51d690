// Writers for `envcheck export`, from the packages of a lock or a prefix:
//   explicit      an @EXPLICIT file (CEP 23) that `conda create --file` installs as is: one
//                 artifact URL per conda package with #<sha256> (or #<md5>), then conda-lock's
//                 `# pip <requirement>` line per pip package (installed by micromamba and
//                 conda-lock install; conda ignores comments)
//   environment   a fully pinned environment.yml: `name=version=build` for conda packages
//                 (`channel::name=version=build` when they come from several channels), the pip
//                 options and packages in a pip: section
//   requirements  a requirements.txt of the pip packages: the pip options, then one line each
// Pip packages are written by formats/pip_reference.hpp, which keeps where each came from
// (`name @ URL`, `git+URL@<commit>`, local paths). Pure; what cannot be written (a conda package
// without URL in an explicit file) is reported back for the caller to tell the user.
#ifndef ENVCHECK_FORMATS_EXPORT_HPP
#define ENVCHECK_FORMATS_EXPORT_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/lock.hpp"
#include "model/package.hpp"

namespace envcheck::formats
{
    enum class ExportFormat
    {
        explicit_,
        environment,
        requirements,
    };

    // A channel URL as an environment file names it: "https://conda.anaconda.org/conda-forge/"
    // -> "conda-forge", "https://repo.anaconda.com/pkgs/main" -> "pkgs/main"; others as they are.
    [[nodiscard]] auto channel_name(std::string_view channel) -> std::string;

    // "explicit", "environment", "requirements".
    [[nodiscard]] auto to_string(ExportFormat format) -> std::string_view;
    [[nodiscard]] auto parse_export_format(std::string_view text) -> std::optional<ExportFormat>;

    enum class ExportHash
    {
        sha256, // #<sha256> when known, else #<md5> (CEP 23; conda 23.x and newer)
        md5,    // #<md5> when known (what older conda understands), else #<sha256>
    };

    struct ExportOptions
    {
        std::string platform; // "# platform:" line of explicit files: a conda subdir
        std::string name;     // environment.yml name; empty: none
        std::string source;   // where the packages came from, for the header comment
        std::string envcheck_version;
        ExportHash hash = ExportHash::sha256;
        // Requirement-file option lines for the pip packages ("--extra-index-url URL"),
        // written before them exactly as given.
        std::vector<std::string> pip_options;
    };

    struct ExportResult
    {
        std::string text;
        std::vector<std::string> left_out; // "numpy 1.26.4 py311_0: no URL recorded"
    };

    [[nodiscard]] auto render_export(const std::vector<model::Package>& packages,
                                     ExportFormat format, const ExportOptions& options)
      -> ExportResult;

    // A lock's packages (without the conda-lock categories --category left out), with its pip
    // options; the platform is the lock's unless options name one.
    [[nodiscard]] auto render_lock_export(const model::Lock& lock, ExportFormat format,
                                          ExportOptions options) -> ExportResult;
}

#endif
