#include "formats/requirements_txt.hpp"

#include <string>

#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        // pip's COMMENT_RE: "(^|\s+)#.*$".
        auto strip_comment(std::string_view line) -> std::string_view
        {
            for (std::size_t i = 0; i < line.size(); ++i)
            {
                if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
                {
                    return line.substr(0, i);
                }
            }
            return line;
        }
    }

    auto is_requirements_file_name(std::string_view file_name) -> bool
    {
        return file_name.ends_with(".txt") || file_name.ends_with(".in");
    }

    auto parse_requirements_txt(std::string_view text, std::string_view file_name)
      -> util::Result<EnvironmentFile>
    {
        EnvironmentFile file;
        file.has_dependencies = true;
        if (text.starts_with("\xEF\xBB\xBF"))
        {
            text.remove_prefix(3); // a UTF-8 byte order mark, as pip accepts
        }
        std::string joined;
        TextPosition start;
        std::size_t line_number = 0;
        for (auto line : util::split_lines(text))
        {
            ++line_number;
            if (line.ends_with('\r'))
            {
                line.remove_suffix(1);
            }
            if (line.find('\0') != std::string_view::npos)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::parse, "a NUL byte: this is not a requirements file",
                  util::SourceLocation{ std::string(file_name), line_number, 1 }));
            }
            if (joined.empty())
            {
                const auto first = line.find_first_not_of(" \t");
                start =
                  TextPosition{ line_number, first == std::string_view::npos ? 1 : first + 1 };
            }
            const bool continued = line.ends_with('\\');
            if (continued)
            {
                line.remove_suffix(1);
            }
            joined += line;
            if (continued)
            {
                continue;
            }
            const auto content = util::trim(strip_comment(joined));
            if (!content.empty())
            {
                if (file.pip.empty())
                {
                    file.pip_position = start;
                }
                file.pip.push_back(EnvPipLine{ std::string(content), start, {} });
            }
            joined.clear();
        }
        const auto content = util::trim(strip_comment(joined));
        if (!content.empty())
        {
            file.pip.push_back(EnvPipLine{ std::string(content), start, {} });
        }
        return file;
    }
}
