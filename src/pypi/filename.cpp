#include "pypi/filename.hpp"

#include <algorithm>

#include "pypi/name.hpp"
#include "pypi/text.hpp"

namespace envcheck::pypi
{
    namespace
    {
        auto failure(std::string_view filename, std::size_t offset, std::string message)
          -> util::Unexpected<util::ParseError>
        {
            return util::unexpected(
              util::ParseError{ std::string(filename), offset, std::move(message) });
        }

        auto split_tags(std::string_view text) -> std::vector<std::string>
        {
            std::vector<std::string> out;
            std::size_t start = 0;
            while (start <= text.size())
            {
                const std::size_t end = std::min(text.find('.', start), text.size());
                out.emplace_back(text.substr(start, end - start));
                start = end + 1;
            }
            return out;
        }
    }

    auto parse_wheel_filename(std::string_view filename)
      -> util::Result<WheelFilename, util::ParseError>
    {
        if (!filename.ends_with(".whl"))
        {
            return failure(filename, filename.size(), "a wheel file name ends in '.whl'");
        }
        const std::string_view stem = filename.substr(0, filename.size() - 4);
        const auto dashes = static_cast<std::size_t>(std::count(stem.begin(), stem.end(), '-'));
        if (dashes != 4 && dashes != 5)
        {
            return failure(filename, 0,
                           "a wheel file name has 5 or 6 parts separated by '-' "
                           "(name-version[-build]-python-abi-platform.whl)");
        }
        // Split on the first dashes - 2 dashes; the rest is the three tag parts.
        std::vector<std::string_view> parts;
        std::vector<std::size_t> offsets;
        std::size_t start = 0;
        for (std::size_t i = 0; i < dashes; ++i)
        {
            const std::size_t dash = stem.find('-', start);
            parts.push_back(stem.substr(start, dash - start));
            offsets.push_back(start);
            start = dash + 1;
        }
        parts.push_back(stem.substr(start));
        offsets.push_back(start);

        const std::string_view name = parts[0];
        const bool name_ok = !name.empty() && name.find("__") == std::string_view::npos &&
                             std::all_of(name.begin(), name.end(),
                                         [](char c) { return detail::is_word(c) || c == '.'; });
        if (!name_ok)
        {
            return failure(filename, 0, "invalid project name in wheel file name");
        }
        auto version = Version::parse(parts[1]);
        if (!version || detail::contains_python_space(parts[1]))
        {
            return failure(filename, offsets[1], "invalid version in wheel file name");
        }
        WheelFilename wheel;
        wheel.name = normalize_name(name);
        wheel.version = std::move(*version);
        if (dashes == 5)
        {
            const std::string_view build = parts[2];
            std::size_t digits = 0;
            while (digits < build.size() && detail::is_digit(build[digits]))
            {
                ++digits;
            }
            std::uint64_t number = 0;
            bool fits = digits > 0 && digits <= 19;
            for (std::size_t i = 0; fits && i < digits; ++i)
            {
                number = number * 10 + static_cast<std::uint64_t>(build[i] - '0');
            }
            if (!fits)
            {
                return failure(filename, offsets[2], "a wheel build tag starts with a number");
            }
            wheel.build = WheelBuildTag{ number, std::string(build.substr(digits)) };
        }
        const std::size_t tag_index = parts.size() - 3;
        wheel.python_tags = split_tags(parts[tag_index]);
        wheel.abi_tags = split_tags(parts[tag_index + 1]);
        wheel.platform_tags = split_tags(parts[tag_index + 2]);
        return wheel;
    }

    auto parse_sdist_filename(std::string_view filename)
      -> util::Result<SdistFilename, util::ParseError>
    {
        std::string_view stem;
        if (filename.ends_with(".tar.gz"))
        {
            stem = filename.substr(0, filename.size() - 7);
        }
        else if (filename.ends_with(".zip"))
        {
            stem = filename.substr(0, filename.size() - 4);
        }
        else
        {
            return failure(filename, filename.size(),
                           "an sdist file name ends in '.tar.gz' or '.zip'");
        }
        const std::size_t dash = stem.rfind('-');
        if (dash == std::string_view::npos)
        {
            return failure(filename, 0, "an sdist file name is name-version: no '-' found");
        }
        auto version = Version::parse(stem.substr(dash + 1));
        if (!version || detail::contains_python_space(stem.substr(dash + 1)))
        {
            return failure(filename, dash + 1, "invalid version in sdist file name");
        }
        return SdistFilename{ normalize_name(stem.substr(0, dash)), std::move(*version) };
    }
}
