// One line of a pip requirements file, as found in an environment.yml "pip:" section: an
// option ("--extra-index-url URL", "-r other.txt"), an editable install ("-e ./pkg",
// "-e git+https://...#egg=name"), a direct reference (a URL, a VCS URL, a local path) or a
// PEP 508 requirement, with per-requirement options ("--hash=sha256:..."). Read the way pip's
// req_file.py and req/constructors.py read it (pip 26), except that nothing is looked up on
// disk, in the environment or on the network: "./pkg" is a path because it looks like one.
#ifndef ENVCHECK_PYPI_PIP_LINE_HPP
#define ENVCHECK_PYPI_PIP_LINE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypi/marker.hpp"
#include "pypi/requirement.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::pypi
{
    enum class PipLineKind : std::uint8_t
    {
        comment,     // blank or only a comment
        requirement, // PEP 508 "name[extras] specifiers; marker" (no URL)
        option,      // file-level options only: -r, -c, -i, --extra-index-url, --pre, ...
        editable,    // -e <path or VCS URL>
        url,         // an archive URL, or "name @ https://..."
        vcs,         // git+https://...@ref, or "name @ git+https://..."
        path,        // a local directory or archive: ./pkg, ../dist/x.whl, file-less paths
    };

    [[nodiscard]] auto to_string(PipLineKind kind) -> std::string_view;

    struct PipOption
    {
        std::string name;  // the long name, even when written short or abbreviated: "--index-url"
        std::string value; // "" for flags such as --pre
    };

    struct VcsReference
    {
        std::string vcs; // "git", "hg", "svn", "bzr"
        std::string url; // the VCS URL without its @ref and #fragment
        std::string ref; // branch, tag or commit after '@'; "" when none is given

        // A full git/hg commit hash (40 or 64 hex digits): the only ref that cannot move.
        [[nodiscard]] auto ref_is_commit() const -> bool;
    };

    struct PipLine
    {
        PipLineKind kind = PipLineKind::comment;
        std::string text; // the line without its comment, trimmed
        // The project name when the line says it: the requirement's, a wheel's or an sdist's
        // file name, or #egg=; as written. "" when unknown (./pkg, a bare git URL).
        std::string name;
        // What pip installs from, for pip's requirement-like lines; absent for unnamed ones.
        std::optional<Requirement> requirement;
        std::string target; // editable/url/vcs/path: the URL or path as written, no extras
        std::optional<Version> file_version; // the version a wheel's or sdist's file name carries
        std::vector<std::string> extras;     // "./pkg[dev]" and "-e .[test]"
        std::optional<VcsReference> vcs;
        std::optional<Marker> marker;
        std::vector<std::string> hashes;  // "sha256:<hex>", from --hash and from #sha256= URLs
        std::vector<PipOption> options;   // in line order, including per-requirement ones
        std::vector<std::string> ignored; // words pip reads but ignores after the options

        // Whether the line installs one exact version: ==/=== requirements, files whose name
        // carries the version (wheels, sdists), VCS references at a full commit.
        [[nodiscard]] auto is_pinned() const -> bool;
        // A URL, VCS, path or editable reference rather than a name resolved on an index.
        [[nodiscard]] auto is_direct_reference() const -> bool;
        // Whether what is installed can be checked: a hash, or a VCS reference at a commit.
        [[nodiscard]] auto is_verifiable() const -> bool;
        [[nodiscard]] auto option(std::string_view long_name) const -> const PipOption*;
    };

    enum class PipLineErrorKind : std::uint8_t
    {
        unknown_option,      // "--index": option names the closest known one in suggestion
        ambiguous_option,    // "--no": several options start so
        missing_value,       // "--index-url" with nothing after it
        unexpected_value,    // "--pre=yes"
        invalid_value,       // "--hash=md5:..."
        unbalanced_quotes,   // the options part cannot be split like a shell would
        invalid_requirement, // not PEP 508 and not a URL or path
        invalid_reference,   // a malformed URL, VCS URL, wheel name or editable target
    };

    [[nodiscard]] auto to_string(PipLineErrorKind kind) -> std::string_view;

    struct PipLineError
    {
        PipLineErrorKind kind = PipLineErrorKind::invalid_requirement;
        util::ParseError error; // input: the whole line; offset: the offending character
        std::string option;     // the option as written, for option errors
        std::string suggestion; // "--index-url" for "--index-ur", "==" for "name=1.0"; may be ""
    };

    [[nodiscard]] auto parse_pip_line(std::string_view line) -> util::Result<PipLine, PipLineError>;

    // Ends in an archive extension (.whl, .zip, .tar.gz, ...): pip reads such a line as a file,
    // whatever precedes the extension ("x===1.tlz" is a path, "k===1.whl" a wheel file name).
    [[nodiscard]] auto has_archive_extension(std::string_view text) -> bool;

    // The options pip accepts in requirement files (long names), for listings and suggestions.
    [[nodiscard]] auto known_pip_options() -> std::vector<std::string>;
}

#endif
