// The one JSON field reader: typed fields in, the first problem out, named by the field's JSON
// path and what was expected.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json_fields/reader.hpp"
#include "tests/catch.hpp"

using envcheck::json_fields::json;
using envcheck::json_fields::Reader;

namespace
{
    struct Fields
    {
        std::string name;
        int count = 0;
        std::optional<std::uint64_t> size;
        std::optional<bool> flag;
        std::vector<std::string> tags;
        std::string channel = "unchanged";
        double value = 0;
    };

    auto read(const std::string& text, Fields& fields) -> std::string
    {
        const json document = json::parse(text);
        Reader reader(document, "packages[2]");
        reader.required("name", fields.name)
          .required("count", fields.count)
          .optional("size", fields.size)
          .optional("flag", fields.flag)
          .required("tags", fields.tags)
          .defaulted("channel", fields.channel)
          .measured("value", fields.value);
        return reader.error();
    }
}

TEST_CASE("json_fields::Reader reads typed fields", "[json_fields]")
{
    Fields fields;
    REQUIRE(read(R"({"name": "numpy", "count": -3, "size": 18446744073709551615, "flag": null,)"
                 R"( "tags": ["a", "b"], "channel": null, "value": 2.5})",
                 fields)
              .empty());
    CHECK(fields.name == "numpy");
    CHECK(fields.count == -3);
    CHECK(fields.size == 18446744073709551615ULL);
    CHECK_FALSE(fields.flag);
    CHECK(fields.tags == std::vector<std::string>{ "a", "b" });
    CHECK(fields.channel == "unchanged");
    CHECK(fields.value == 2.5);

    REQUIRE(read(R"({"name": "", "count": 0, "tags": [], "channel": "c", "value": null})", fields)
              .empty());
    CHECK(fields.channel == "c");
    CHECK(std::isnan(fields.value));
}

TEST_CASE("json_fields::Reader names the path and what was expected", "[json_fields]")
{
    const std::pair<std::string, std::string> cases[] = {
        { R"([])", "packages[2]: expected an object" },
        { R"({"count": 1, "tags": [], "value": 1})", "packages[2].name: missing" },
        { R"({"name": 1, "count": 1, "tags": [], "value": 1})",
          "packages[2].name: expected a string" },
        { R"({"name": null, "count": 1, "tags": [], "value": 1})",
          "packages[2].name: expected a string" },
        { R"({"name": "", "count": 2147483648, "tags": [], "value": 1})",
          "packages[2].count: expected an integer" },
        { R"({"name": "", "count": 1.5, "tags": [], "value": 1})",
          "packages[2].count: expected an integer" },
        { R"({"name": "", "count": 1, "size": -1, "tags": [], "value": 1})",
          "packages[2].size: expected a non-negative integer" },
        { R"({"name": "", "count": 1, "flag": "yes", "tags": [], "value": 1})",
          "packages[2].flag: expected true or false" },
        { R"({"name": "", "count": 1, "tags": ["a", 1], "value": 1})",
          "packages[2].tags: expected a list of strings" },
        { R"({"name": "", "count": 1, "tags": [], "channel": 3, "value": 1})",
          "packages[2].channel: expected a string" },
        { R"({"name": "", "count": 1, "tags": [], "value": "fast"})",
          "packages[2].value: expected a number" },
        { R"({"name": "", "count": 1, "tags": []})", "packages[2].value: missing" },
        // Only the first problem is kept.
        { R"({"name": 1, "count": "x", "tags": [], "value": 1})",
          "packages[2].name: expected a string" },
    };
    for (const auto& [text, expected] : cases)
    {
        CAPTURE(text);
        Fields fields;
        CHECK(read(text, fields) == expected);
    }
}

TEST_CASE("json_fields::Reader reads nested objects and lists", "[json_fields]")
{
    const json document = json::parse(R"({"machine": {"gpus": [{"index": 0}, 3]}, "list": 1})");
    Reader reader(document, "");
    const json* machine = reader.object("machine");
    REQUIRE(machine != nullptr);
    CHECK(reader.object("absent") == nullptr);
    CHECK(reader.ok());

    Reader machine_reader(*machine, reader.path("machine"));
    CHECK(machine_reader.objects("gpus").empty());
    CHECK(machine_reader.error() == "machine.gpus[1]: expected an object");

    Reader list_reader(document, "");
    CHECK(list_reader.list("absent")->empty());
    CHECK(list_reader.ok());
    list_reader.list("list");
    CHECK(list_reader.error() == "list: expected a list");

    Reader required_reader(document, "");
    required_reader.list("absent", true);
    CHECK(required_reader.error() == "absent: missing");

    Reader object_reader(document, "");
    object_reader.object("list");
    CHECK(object_reader.error() == "list: expected an object");

    Reader failing(document, "lock");
    failing.fail_at("mode", "must be quick or full, not 'slow'");
    failing.fail("a later problem");
    CHECK(failing.error() == "lock.mode: must be quick or full, not 'slow'");
}
