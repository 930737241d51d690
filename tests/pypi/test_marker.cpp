#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "pypi/marker.hpp"
#include "tests/catch.hpp"

using envcheck::pypi::Marker;
using envcheck::pypi::MarkerEnvironment;
using envcheck::pypi::MarkerVariable;

namespace
{
    auto marker(std::string_view text) -> Marker
    {
        auto parsed = Marker::parse(text);
        INFO("marker " << text);
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    auto linux_cpython_311() -> MarkerEnvironment
    {
        auto env = envcheck::pypi::marker_environment_for("linux-64", "3.11.4");
        REQUIRE(env.has_value());
        env->platform_release = "6.8.0-45-generic";
        return *env;
    }

    TEST_CASE("Marker::parse", "[pypi][Marker]")
    {
        // Input and packaging's printed form.
        const std::pair<std::string_view, std::string_view> cases[] = {
            { "python_version>\"3.6\"", "python_version > \"3.6\"" },
            { "os.name == 'posix'", "os_name == \"posix\"" },
            { "python_implementation=='CPython'", "platform_python_implementation == \"CPython\"" },
            { "python_version >= '3.8' and (sys_platform == 'linux' or sys_platform == 'darwin')",
              "python_version >= \"3.8\" and (sys_platform == \"linux\" or sys_platform == "
              "\"darwin\")" },
            { "(python_version >= '3.8')", "python_version >= \"3.8\"" },
            { "((os_name == 'nt'))and(sys_platform=='win32')",
              "os_name == \"nt\" and sys_platform == \"win32\"" },
            { "extra == 'Foo_Bar'", "extra == \"foo-bar\"" },
            { "'linux' in sys_platform", "\"linux\" in sys_platform" },
            { "python_version not in '2.7, 3.4'", "python_version not in \"2.7, 3.4\"" },
            { "platform_version == 'a\"b'", "platform_version == 'a\"b'" },
            { "'dev' in extras", "\"dev\" in extras" },
        };
        for (const auto& [text, printed] : cases)
        {
            CAPTURE(text);
            const auto m = marker(text);
            CHECK(m.to_string() == printed);
            CHECK(marker(m.to_string()).to_string() == printed);
            CHECK(marker(m.to_string()) == m);
        }
    }

    TEST_CASE("Marker::parse negative", "[pypi][Marker]")
    {
        const std::pair<std::string_view, std::size_t> cases[] = {
            { "python_version", 14 },
            { "python_version >", 16 },
            { "foo == '1'", 0 },
            { "python_version == \"3.8", 18 },
            { "(python_version == '3.8'", 24 },
            { "python_version == '3.8' and", 27 },
            { "python_version notin 'x'", 15 },
            { "python_version == '3.8' xor os_name == 'nt'", 24 },
            { "python_version not'in'", 18 },
            { "", 0 },
        };
        for (const auto& [text, offset] : cases)
        {
            CAPTURE(text);
            const auto parsed = Marker::parse(text);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().offset == offset);
        }
        const std::string deep = std::string(300, '(') + "os_name == 'nt'" + std::string(300, ')');
        CHECK_FALSE(Marker::parse(deep).has_value());
    }

    TEST_CASE("Marker::evaluate", "[pypi][Marker]")
    {
        auto env = linux_cpython_311();
        env.extras = { "Dev" };
        const std::pair<std::string_view, bool> cases[] = {
            { "python_version >= '3.8'", true },
            { "python_version < '3.10'", false }, // a version comparison, not "3.11" < "3.10"
            { "python_version > '3.11'", false },
            { "python_version > '3.1'", true },
            { "python_version == '3.11'", true },
            { "python_full_version == '3.11.*'", true },
            { "python_version ~= '3.8'", true },
            { "'3.9' <= python_version", true },
            { "sys_platform == 'linux'", true },
            { "sys_platform != 'win32'", true },
            { "'linux' in sys_platform", true },
            { "platform_machine in 'x86_64 aarch64'", true },
            { "platform_machine not in 'x86_64 aarch64'", false },
            { "os_name < 'z'", false },     // strings: < and > are always false
            { "os_name <= 'posix'", true }, // and <=, >= mean equality
            { "os_name >= 'a'", false },
            { "implementation_name == 'cpython'", true },
            { "platform_python_implementation == 'CPython'", true },
            { "platform_release >= '5'", false }, // "6.8.0-45-generic" is not a version
            { "extra == 'test'", false },
            { "'dev' in extras", true },
            { "'test' not in extras", true },
            { "sys_platform == 'win32' or python_version >= '3' and os_name == 'nt'", false },
            { "sys_platform == 'win32' or python_version >= '3' and os_name == 'posix'", true },
            { "(sys_platform == 'win32' or python_version >= '3') and os_name == 'nt'", false },
        };
        for (const auto& [text, expected] : cases)
        {
            CAPTURE(text);
            const auto result = marker(text).evaluate(env);
            REQUIRE(result.has_value());
            CHECK(*result == expected);
        }

        env.extra = "Dev_Tools";
        CHECK(marker("extra == 'dev-tools'").evaluate(env).value());
        CHECK(marker("extra == 'DEV.tools'").evaluate(env).value());
        env.python_full_version = "3.13.0+"; // an untagged CPython build
        CHECK(marker("python_full_version >= '3.13'").evaluate(env).value());
    }

    TEST_CASE("Marker::evaluate negative", "[pypi][Marker]")
    {
        const auto env = linux_cpython_311();
        const std::pair<std::string_view, std::size_t> cases[] = {
            { "os_name ~= 'posix'", 0 },
            { "os_name === 'posix'", 0 },
            { "'a' == 'b'", 0 },
            { "python_version >= '3' and extras == 'dev'", 26 },
            // Evaluated in full, like packaging: the error after a decided "or" still counts.
            { "python_version >= '3' or os_name ~= 'x'", 25 },
        };
        for (const auto& [text, offset] : cases)
        {
            CAPTURE(text);
            const auto result = marker(text).evaluate(env);
            REQUIRE_FALSE(result.has_value());
            CHECK(result.error().offset == offset);
            CHECK(result.error().input == text);
        }
    }

    TEST_CASE("marker_environment_for", "[pypi][MarkerEnvironment]")
    {
        const auto mac = envcheck::pypi::marker_environment_for("osx-arm64", "3.12.1");
        REQUIRE(mac.has_value());
        CHECK(mac->sys_platform == "darwin");
        CHECK(mac->platform_system == "Darwin");
        CHECK(mac->platform_machine == "arm64");
        CHECK(mac->os_name == "posix");
        CHECK(mac->python_version == "3.12");
        CHECK(mac->python_full_version == "3.12.1");
        CHECK(mac->value(MarkerVariable::implementation_name) == "cpython");
        const auto win = envcheck::pypi::marker_environment_for("win-64", "3.10");
        REQUIRE(win.has_value());
        CHECK(win->sys_platform == "win32");
        CHECK(win->platform_machine == "AMD64");
        CHECK(win->python_version == "3.10");
        CHECK_FALSE(envcheck::pypi::marker_environment_for("noarch", "3.12").has_value());
        CHECK(envcheck::pypi::parse_marker_variable("os.name") == MarkerVariable::os_name);
        CHECK_FALSE(envcheck::pypi::parse_marker_variable("os-name").has_value());
    }
}
