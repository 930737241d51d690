#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/lock.hpp"
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

    auto package(Manager manager, std::string name, std::string version) -> Package
    {
        Package result;
        result.manager = manager;
        result.name = std::move(name);
        result.version = std::move(version);
        return result;
    }

    TEST_CASE("package_key_less orders packages as their package_keys do", "[model][Package]")
    {
        // Names whose keys tie, prefix one another, or differ only in case, separators or a
        // byte past ASCII, under both managers.
        const std::vector<std::string> names{ "a",   "A",   "a-",   "a-b",   "a_b",  "a..b",
                                              "a-B", "ab",  "a-bc", "-a",    "_",    "",
                                              "-",   "a-_", "Zz",   "z\xe9", "z\x7f" };
        std::vector<Package> packages;
        for (const auto manager : { Manager::conda, Manager::pip })
        {
            for (const auto& name : names)
            {
                packages.push_back(package(manager, name, "1"));
            }
        }
        for (const auto& a : packages)
        {
            for (const auto& b : packages)
            {
                CAPTURE(to_string(a.manager), a.name, to_string(b.manager), b.name);
                CHECK(package_key_less(a, b) == (package_key(a) < package_key(b)));
            }
        }
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

    auto labels(const std::vector<Package>& packages) -> std::vector<std::string>
    {
        std::vector<std::string> result;
        for (const auto& each : packages)
        {
            result.push_back(std::string(to_string(each.manager)) + " " + each.name + " " +
                             each.version);
        }
        return result;
    }

    TEST_CASE("sort_packages: conda first, then by key; equal keys keep their order",
              "[model][Package]")
    {
        struct Case
        {
            std::vector<Package> input;
            std::vector<std::string> sorted;
        };
        const std::vector<Case> cases{
            { {}, {} },
            // Already in order (a prefix's records in file-name order): unchanged.
            { { package(Manager::conda, "libgcc", "14"), package(Manager::conda, "numpy", "2"),
                package(Manager::pip, "torch", "2.5") },
              { "conda libgcc 14", "conda numpy 2", "pip torch 2.5" } },
            { { package(Manager::pip, "Torch", "2.5"), package(Manager::conda, "numpy", "2"),
                package(Manager::conda, "LibGCC", "14") },
              { "conda LibGCC 14", "conda numpy 2", "pip Torch 2.5" } },
            // Case-insensitive for conda, PEP 503 for pip; a stable sort keeps equal keys.
            { { package(Manager::pip, "typing_extensions", "4"),
                package(Manager::pip, "Typing.Extensions", "5"),
                package(Manager::pip, "attrs", "1"), package(Manager::conda, "b", "1"),
                package(Manager::conda, "B", "2") },
              { "conda b 1", "conda B 2", "pip attrs 1", "pip typing_extensions 4",
                "pip Typing.Extensions 5" } },
        };
        for (const auto& [input, sorted] : cases)
        {
            auto packages = input;
            sort_packages(packages);
            CHECK(labels(packages) == sorted);
            sort_packages(packages); // sorting again changes nothing
            CHECK(labels(packages) == sorted);
        }
    }

    TEST_CASE("PackageRef reads like an optional package and compares by value", "[model][Package]")
    {
        Package numpy;
        numpy.name = "numpy";
        numpy.version = "1.26.4";
        Package scipy = numpy;
        scipy.name = "scipy";
        const auto list = std::make_shared<const std::vector<Package>>(std::vector{ numpy, scipy });

        const PackageRef none;
        const PackageRef from_nullopt = std::nullopt;
        const PackageRef own = numpy;     // a package of its own
        const PackageRef shared(list, 1); // scipy, in the list
        CHECK_FALSE(none.has_value());
        CHECK_FALSE(from_nullopt);
        CHECK(none == std::nullopt);
        CHECK_THROWS_AS(none.value(), std::bad_optional_access);
        CHECK(own->name == "numpy");
        CHECK((*shared).name == "scipy");
        CHECK(&shared.value() == &(*list)[1]); // the list's own package, not a copy
        CHECK(own == numpy);
        CHECK(PackageRef(list, 0) == own); // equal by value, wherever each lives
        CHECK_FALSE(shared == own);
        CHECK_FALSE(none == own);
        CHECK(none == from_nullopt);
        CHECK_THROWS_AS(PackageRef(list, 2), std::out_of_range);
    }
}
