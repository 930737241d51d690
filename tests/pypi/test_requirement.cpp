#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "pypi/requirement.hpp"
#include "tests/catch.hpp"

using envcheck::pypi::Requirement;

namespace
{
    auto req(std::string_view text) -> Requirement
    {
        auto parsed = Requirement::parse(text);
        INFO("requirement " << text);
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    TEST_CASE("Requirement::parse", "[pypi][Requirement]")
    {
        // Input and packaging's str().
        const std::pair<std::string_view, std::string_view> cases[] = {
            { "numpy", "numpy" },
            { "numpy>=1.26,<2", "numpy<2,>=1.26" },
            { "numpy (>=1.26, <2)", "numpy<2,>=1.26" },
            { " numpy >= 1.26 ", "numpy>=1.26" },
            { "Foo.Bar[Sec,Dev] == 1.0 ; python_version<'3.10'",
              "Foo.Bar[Dev,Sec]==1.0; python_version < \"3.10\"" },
            { "requests[security] @ https://x/requests-2.31.0-py3-none-any.whl ; sys_platform == "
              "'linux'",
              "requests[security] @ https://x/requests-2.31.0-py3-none-any.whl ; sys_platform == "
              "\"linux\"" },
            { "name@https://x/y.tar.gz", "name @ https://x/y.tar.gz" },
            { "pkg>=1.0,", "pkg>=1.0" },
            { "flit-core === 3.9.0", "flit-core===3.9.0" },
            { "pip; extra == 'Dev'", "pip; extra == \"dev\"" },
            { "torch==2.4.0+cu121", "torch==2.4.0+cu121" },
            { "cudf==22.10.*", "cudf==22.10.*" },
            { "a[]", "a" },
            { "numpy===0,!= 1!10dev", "numpy!=1!10dev,===0" }, // one SpecifierSet pass (26.4)
        };
        for (const auto& [text, printed] : cases)
        {
            CAPTURE(text);
            const auto r = req(text);
            CHECK(r.to_string() == printed);
            const auto again = req(r.to_string());
            CHECK(again.to_string() == printed);
            CHECK(again == r);
        }

        const auto r = req("Foo.Bar[Sec,Dev,Sec] (>=1.0,!=1.5) ; os_name == 'nt'");
        CHECK(r.name() == "Foo.Bar");
        CHECK(r.normalized_name() == "foo-bar");
        CHECK(r.extras() == std::vector<std::string>{ "Dev", "Sec" });
        CHECK(r.specifier().specifiers().size() == 2);
        CHECK(r.url().empty());
        REQUIRE(r.marker().has_value());
        CHECK(r.marker()->to_string() == "os_name == \"nt\"");
        CHECK(req("Numpy>=1") == req("numpy >= 1.0"));
        CHECK_FALSE(req("numpy>=1") == req("numpy>=2"));
        CHECK(req("x @ git+https://h/x.git@v1").url() == "git+https://h/x.git@v1");
    }

    TEST_CASE("Requirement::parse negative", "[pypi][Requirement]")
    {
        // The offset points at the offending character.
        const std::pair<std::string_view, std::size_t> cases[] = {
            { "", 0 },
            { "==1.0", 0 },
            { "numpy=1.0", 5 },
            { "numpy>=1.0.*", 10 },
            { "numpy<=1.0+local", 10 },
            { "numpy[dev", 9 },
            { "numpy[dev test]", 10 },
            { "numpy[dev,]", 10 },
            { "numpy @", 7 },
            { "numpy @ https://x junk", 18 },
            { "numpy >=1.0 ; ", 14 },
            { "numpy; python_version", 21 },
            { "numpy ; os_name == 'x' extra", 23 },
            { "numpy (>=1.0", 12 },
            { "numpy>=1.0 <2", 11 },
            { "numpy>=99999999999999999999", 7 },
            { "numpy @ https://x\n", 17 },
            { "numpy===", 5 },
        };
        for (const auto& [text, offset] : cases)
        {
            CAPTURE(text);
            const auto parsed = Requirement::parse(text);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().offset == offset);
            CHECK(parsed.error().input == text);
        }
    }
}
