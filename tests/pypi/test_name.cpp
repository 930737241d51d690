#include <string_view>
#include <utility>

#include "pypi/name.hpp"
#include "tests/catch.hpp"

using envcheck::pypi::is_normalized_name;
using envcheck::pypi::is_valid_name;
using envcheck::pypi::normalize_name;

namespace
{
    TEST_CASE("normalize_name", "[pypi][name]")
    {
        // PEP 503: lowercase, runs of '-', '_', '.' become one '-'.
        const std::pair<std::string_view, std::string_view> cases[] = {
            { "Django", "django" },
            { "oslo.concurrency", "oslo-concurrency" },
            { "Foo__Bar", "foo-bar" },
            { "a-_.b", "a-b" },
            { "FOO--bar", "foo-bar" },
            { "typing_extensions", "typing-extensions" },
            { "requests", "requests" },
            { "Pillow", "pillow" },
            { "zope.interface", "zope-interface" },
        };
        for (const auto& [name, normalized] : cases)
        {
            CAPTURE(name);
            CHECK(normalize_name(name) == normalized);
            CHECK(normalize_name(normalized) == normalized);
            CHECK(is_normalized_name(normalized));
        }
        CHECK_FALSE(is_normalized_name("Django"));
        CHECK_FALSE(is_normalized_name("foo_bar"));
    }

    TEST_CASE("is_valid_name", "[pypi][name]")
    {
        for (const std::string_view name : { "a", "A1", "foo.bar", "foo_bar-baz", "1password" })
        {
            CAPTURE(name);
            CHECK(is_valid_name(name));
        }
        for (const std::string_view name :
             { "", "-foo", "foo-", "foo.", "_foo", "foo bar", "foo/bar", "f\xc3\xa9" })
        {
            CAPTURE(name);
            CHECK_FALSE(is_valid_name(name));
        }
    }
}
