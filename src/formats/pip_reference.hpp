// A pip package's reference, both ways: the requirement line that installs exactly that package
// (export's requirements and pip: sections, the `# pip` lines of @EXPLICIT files), and the
// package a requirement line names (those `# pip` lines read back). The two are inverses on
// name, version and source, which tests/formats/test_export_roundtrip.cpp checks on every lock.
//
// Where a package came from decides its line:
//   a release from PyPI (no URL, or a files.pythonhosted.org URL)  name==version
//   an archive from any other host (another index, a release page) name @ URL#sha256=<hash>
//   version control (direct_url.vcs, git+ URLs, pixi's #<commit>)  name @ git+URL@<commit>
//   a local project or archive                                    -e PATH (editable), PATH, or
//                                                                  name @ file:///path
#ifndef ENVCHECK_FORMATS_PIP_REFERENCE_HPP
#define ENVCHECK_FORMATS_PIP_REFERENCE_HPP

#include <optional>
#include <string>
#include <string_view>

#include "model/package.hpp"

namespace envcheck::formats
{
    [[nodiscard]] auto pip_requirement(const model::Package& package) -> std::string;

    // The package a requirement line names: name, version (from == or ===, or the wheel's or
    // sdist's file name), url and sha256 of an archive, direct_url for version control and local
    // paths (editable for -e). nullopt for comments, options and lines pip cannot read.
    // A "#md5=None" or "#sha256=None" fragment (old conda-lock renders) is dropped.
    [[nodiscard]] auto package_from_pip_line(std::string_view line)
      -> std::optional<model::Package>;

    // Whether a URL is a file on PyPI's file host (https://files.pythonhosted.org/...).
    [[nodiscard]] auto is_pypi_file_url(std::string_view url) -> bool;

    // A version-control locator as the lock formats write it ("git+https://host/r.git@<sha>",
    // pixi's "git+https://host/r.git?rev=main#<sha>") as PEP 610 data: vcs "git", url without
    // the "git+" prefix, the query and the revision, commit_id when the revision is a full
    // commit hash (else requested_revision). nullopt when `locator` is not a VCS URL.
    [[nodiscard]] auto vcs_direct_url(std::string_view locator) -> std::optional<model::DirectUrl>;

    // Whether a locator is a local path (relative, absolute, Windows) or a file: URL.
    [[nodiscard]] auto is_local_path(std::string_view locator) -> bool;
}

#endif
