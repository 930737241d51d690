// @EXPLICIT files (CEP 23: `conda list --explicit`, conda-lock's explicit render) as text -> a
// lock, and the conda artifact URL helpers the other lock readers share.
//
// Every line after the @EXPLICIT marker is a URL or path of a .conda / .tar.bz2 artifact with
// an optional #<md5> or #[sha256:]<sha256> fragment; `# platform: X` before the marker names
// the platform; conda-lock's `# pip <requirement>` comment lines (`name @ url#sha256=...`, VCS
// URLs; formats/pip_reference.hpp) are read as pip packages. Credentials in URLs (user:password@,
// anaconda.org /t/<token>/) are dropped: a lock check never needs them and reports must not show
// them.
#ifndef ENVCHECK_FORMATS_EXPLICIT_HPP
#define ENVCHECK_FORMATS_EXPLICIT_HPP

#include <optional>
#include <string>
#include <string_view>

#include "model/lock.hpp"
#include "model/package.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    struct ArtifactName
    {
        std::string name;
        std::string version;
        std::string build;
        std::string extension; // ".conda" or ".tar.bz2"
    };

    // "numpy-1.26.4-py311h64a7726_0.conda" -> numpy, 1.26.4, py311h64a7726_0.
    [[nodiscard]] auto parse_artifact_name(std::string_view filename)
      -> std::optional<ArtifactName>;

    // A conda package from its artifact URL: name, version, build, filename, subdir, channel
    // (the URL up to the subdir) and url; credentials removed.
    [[nodiscard]] auto package_from_url(std::string_view url) -> std::optional<model::Package>;

    // The same in place: fills the conda fields of `package` (the readers of long locks build
    // each package once); false, leaving it unspecified, when the URL is no artifact's.
    [[nodiscard]] auto read_artifact_url(std::string_view url, model::Package& package) -> bool;

    // The URL without user:password@ and without an anaconda.org "/t/<token>" segment.
    [[nodiscard]] auto strip_credentials(std::string_view url) -> std::string;

    // Whether the text is an @EXPLICIT file (a line that holds only "@EXPLICIT").
    [[nodiscard]] auto is_explicit_file(std::string_view text) -> bool;

    [[nodiscard]] auto parse_explicit(std::string_view text, std::string_view file_name)
      -> util::Result<model::Lock>;
}

#endif
