// Writers for `envcheck export`, from the packages of a lock or a prefix:
//   explicit      an @EXPLICIT file (CEP 23) that `conda create --file` installs as is: one
//                 artifact URL per conda package with #<sha256> (or #<md5>)
//   environment   a fully pinned environment.yml: `name=version=build` for conda packages, the
//                 pip packages pinned with `==` in a pip: section
//   requirements  a requirements.txt of the pip packages (`name==version`, or `name @ url` for
//                 direct-URL installs)
// Pure; what cannot be written (a conda package without URL in an explicit file) is reported
// back for the caller to tell the user.
#ifndef ENVCHECK_FORMATS_EXPORT_HPP
#define ENVCHECK_FORMATS_EXPORT_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/package.hpp"

namespace envcheck::formats
{
    enum class ExportFormat
    {
        explicit_,
        environment,
        requirements,
    };

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
        std::string platform; // "# platform:" line of explicit files
        std::string name;     // environment.yml name; empty: none
        std::string source;   // where the packages came from, for the header comment
        std::string envcheck_version;
        ExportHash hash = ExportHash::sha256;
    };

    struct ExportResult
    {
        std::string text;
        std::vector<std::string> left_out; // "numpy 1.26.4 py311_0: no URL recorded"
    };

    [[nodiscard]] auto render_export(const std::vector<model::Package>& packages,
                                     ExportFormat format, const ExportOptions& options)
      -> ExportResult;
}

#endif
