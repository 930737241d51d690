#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "tests/catch.hpp"
#include "util/boxed.hpp"
#include "util/keep_until_exit.hpp"

using envcheck::util::Boxed;

namespace
{
    struct Url
    {
        std::string text;
        bool editable = false;
        auto operator==(const Url&) const -> bool = default;
    };

    TEST_CASE("Boxed reads as the std::optional it replaces", "[util][boxed]")
    {
        Boxed<Url> none;
        CHECK_FALSE(none.has_value());
        CHECK_FALSE(static_cast<bool>(none));
        CHECK(none == std::nullopt);
        CHECK_THROWS_AS(none.value(), std::bad_optional_access);

        Boxed<Url> some = Url{ "https://example.org/a.whl", true };
        REQUIRE(some.has_value());
        CHECK(some->text == "https://example.org/a.whl");
        CHECK((*some).editable);
        CHECK(some == Url{ "https://example.org/a.whl", true });
        CHECK_FALSE(some == Url{ "https://example.org/a.whl", false });
        CHECK_FALSE(some == none);
        CHECK(some.value().editable);

        const Boxed<Url> from_optional = std::optional<Url>(Url{ "x", false });
        CHECK(from_optional == Url{ "x", false });
        const Boxed<Url> from_empty_optional = std::optional<Url>();
        CHECK(from_empty_optional == none);
    }

    TEST_CASE("Boxed copies its value and compares values", "[util][boxed]")
    {
        Boxed<Url> original = Url{ "a", false };
        Boxed<Url> copy = original;
        copy->text = "b";
        CHECK(original->text == "a"); // a copy, not a shared pointer
        CHECK_FALSE(copy == original);
        copy = original;
        CHECK(copy == original);

        Boxed<Url> moved = std::move(copy);
        CHECK(moved == original);

        moved = std::nullopt;
        CHECK_FALSE(moved.has_value());
        moved.emplace(Url{ "c", true });
        CHECK(moved == Url{ "c", true });
        moved.reset();
        CHECK(moved == Boxed<Url>{});
        moved = Url{ "d", false };
        CHECK(moved->text == "d");
    }

    TEST_CASE("keep_until_exit keeps what it is given", "[util][boxed]")
    {
        // Reachable until the process ends: the sanitizer build's leak checker passes this.
        envcheck::util::keep_until_exit(std::string(1000, 'x'));
        envcheck::util::keep_until_exit(Boxed<Url>(Url{ "kept", false }));
        SUCCEED();
    }
}
