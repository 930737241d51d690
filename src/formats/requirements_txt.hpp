// requirements.txt (pip's requirements file format) as an environment file with a pip section
// only, so that `check --env requirements.txt` and `lint` judge it as they judge the pip:
// section of an environment.yml. Pure.
//
// Read as pip reads it: `\` at the end of a line joins the next; a `#` at the start of a line or
// after whitespace starts a comment; blank lines are skipped. Every other line (requirements,
// option lines such as `-r other.txt` or `--index-url`, editable and URL lines) becomes one pip
// line at the position of its first character; pip_line.hpp parses it.
#ifndef ENVCHECK_FORMATS_REQUIREMENTS_TXT_HPP
#define ENVCHECK_FORMATS_REQUIREMENTS_TXT_HPP

#include <string_view>

#include "formats/environment_yaml.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    // Fails (ErrorKind::parse, file and line) on a NUL byte or a file that is not UTF-8 text.
    [[nodiscard]] auto parse_requirements_txt(std::string_view text, std::string_view file_name)
      -> util::Result<EnvironmentFile>;

    // Whether a file name reads as a requirements file: *.txt or *.in ("requirements.txt",
    // "requirements-dev.in", "constraints.txt").
    [[nodiscard]] auto is_requirements_file_name(std::string_view file_name) -> bool;
}

#endif
