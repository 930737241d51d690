#include "model/package.hpp"
#include "tests/catch.hpp"

using namespace envcheck::model;

namespace
{
    TEST_CASE("package_key normalizes pip names per PEP 503", "[model][Package]")
    {
        CHECK(package_key(Manager::pip, "Foo.Bar__baz") == "pip:foo-bar-baz");
        CHECK(package_key(Manager::pip, "typing_extensions") == "pip:typing-extensions");
        CHECK(package_key(Manager::pip, "A-._B") == "pip:a-b");
        CHECK(package_key(Manager::conda, "PyYAML") == "conda:pyyaml");
        CHECK(package_key(Manager::conda, "typing_extensions") == "conda:typing_extensions");
    }

    TEST_CASE("parse_manager round trip", "[model][Package]")
    {
        for (const auto manager : { Manager::conda, Manager::pip })
        {
            CHECK(parse_manager(to_string(manager)) == manager);
        }
        CHECK(parse_manager("pypi") == Manager::pip);
        CHECK_FALSE(parse_manager("npm"));
    }
}
