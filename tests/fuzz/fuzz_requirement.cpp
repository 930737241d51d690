// PEP 508 requirements, markers and pip requirement-file lines: whatever parses must print and
// parse back to the same thing, and markers must evaluate (or report an error) without
// crashing, on Linux and on Windows environments. Wheel and sdist names ride along.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_require.hpp"
#include "pypi/filename.hpp"
#include "pypi/marker.hpp"
#include "pypi/pip_line.hpp"
#include "pypi/requirement.hpp"

using envcheck::pypi::Marker;
using envcheck::pypi::MarkerEnvironment;
using envcheck::pypi::Requirement;

namespace
{
    void evaluate(const Marker& marker)
    {
        for (const char* subdir : { "linux-64", "win-64" })
        {
            auto env = envcheck::pypi::marker_environment_for(subdir, "3.12.1").value();
            env.extra = "Dev";
            env.extras = { "test" };
            const auto result = marker.evaluate(env);
            if (!result)
            {
                ENVCHECK_FUZZ_REQUIRE(result.error().offset <= marker.text().size());
            }
        }
    }

    void check_marker(std::string_view text)
    {
        const auto marker = Marker::parse(text);
        if (!marker)
        {
            ENVCHECK_FUZZ_REQUIRE(marker.error().offset <= text.size());
            return;
        }
        const std::string printed = marker->to_string();
        const auto again = Marker::parse(printed);
        ENVCHECK_FUZZ_REQUIRE(again.has_value());
        ENVCHECK_FUZZ_REQUIRE(again->to_string() == printed);
        evaluate(*marker);
    }

    void check_requirement(std::string_view text)
    {
        const auto req = Requirement::parse(text);
        if (!req)
        {
            ENVCHECK_FUZZ_REQUIRE(req.error().offset <= text.size());
            return;
        }
        const std::string printed = req->to_string();
        const auto again = Requirement::parse(printed);
        ENVCHECK_FUZZ_REQUIRE(again.has_value());
        ENVCHECK_FUZZ_REQUIRE(*again == *req);
        ENVCHECK_FUZZ_REQUIRE(again->to_string() == printed);
        if (req->marker())
        {
            evaluate(*req->marker());
        }
    }

    void check_pip_line(std::string_view text)
    {
        const auto line = envcheck::pypi::parse_pip_line(text);
        if (!line)
        {
            ENVCHECK_FUZZ_REQUIRE(line.error().error.offset <= text.size());
            return;
        }
        (void)line->is_pinned();
        (void)line->is_verifiable();
        if (line->requirement && line->kind == envcheck::pypi::PipLineKind::requirement)
        {
            const std::string printed = line->requirement->to_string();
            // As pip does, a line ending in an archive extension is a file, whatever precedes
            // it: "x===1.tlz" printed from "x===1.tlz,==2" reads back as a path, and "k===1.whl"
            // from "k===1.whl," as a wheel file whose name is refused; so is a line that looks
            // like a path ("k===a/b").
            if (!envcheck::pypi::has_archive_extension(printed))
            {
                const auto again = envcheck::pypi::parse_pip_line(printed);
                ENVCHECK_FUZZ_REQUIRE(again.has_value());
                ENVCHECK_FUZZ_REQUIRE(again->kind == envcheck::pypi::PipLineKind::path ||
                                      again->requirement == line->requirement);
            }
        }
        if (line->marker)
        {
            evaluate(*line->marker);
        }
    }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check_requirement(text);
    check_marker(text);
    check_pip_line(text);
    if (const auto wheel = envcheck::pypi::parse_wheel_filename(text))
    {
        ENVCHECK_FUZZ_REQUIRE(!wheel->name.empty());
    }
    (void)envcheck::pypi::parse_sdist_filename(text);
    return 0;
}
