#include "formats/toml_document.hpp"

#include <sstream>

// toml++ header-only, without exceptions: parse() returns a parse_result.
#define TOML_EXCEPTIONS 0
#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h> // toml++ 3.3 (Debian 12) names its header toml.h
#endif

namespace envcheck::formats
{
    namespace
    {
        auto position_of(const toml::node& node) -> TextPosition
        {
            const auto& begin = node.source().begin;
            return TextPosition{ static_cast<std::size_t>(begin.line),
                                 static_cast<std::size_t>(begin.column) };
        }

        auto convert(const toml::node& node) -> TomlValue
        {
            TomlValue value;
            value.position = position_of(node);
            if (const auto* table = node.as_table())
            {
                value.kind = TomlValue::Kind::table;
                for (const auto& [key, member] : *table)
                {
                    value.members.push_back(TomlMember{ std::string(key.str()), convert(member) });
                }
            }
            else if (const auto* array = node.as_array())
            {
                value.kind = TomlValue::Kind::array;
                for (const auto& item : *array)
                {
                    value.items.push_back(convert(item));
                }
            }
            else if (const auto* text = node.as_string())
            {
                value.kind = TomlValue::Kind::string;
                value.text = text->get();
            }
            else if (const auto* integer = node.as_integer())
            {
                value.kind = TomlValue::Kind::integer;
                value.text = std::to_string(integer->get());
            }
            else if (const auto* floating = node.as_floating_point())
            {
                value.kind = TomlValue::Kind::floating;
                std::ostringstream out;
                out << floating->get();
                value.text = out.str();
            }
            else if (const auto* boolean = node.as_boolean())
            {
                value.kind = TomlValue::Kind::boolean;
                value.text = boolean->get() ? "true" : "false";
            }
            else
            {
                value.kind = TomlValue::Kind::date_time;
                std::ostringstream out;
                if (const auto* date = node.as_date())
                {
                    out << date->get().year << '-' << int{ date->get().month } << '-'
                        << int{ date->get().day };
                }
                value.text = out.str();
            }
            return value;
        }
    }

    auto TomlValue::find(std::string_view key) const -> const TomlValue*
    {
        for (const auto& [name, member] : members)
        {
            if (name == key)
            {
                return &member;
            }
        }
        return nullptr;
    }

    auto to_string(TomlValue::Kind kind) -> std::string_view
    {
        switch (kind)
        {
            case TomlValue::Kind::string:
                return "a string";
            case TomlValue::Kind::integer:
                return "an integer";
            case TomlValue::Kind::floating:
                return "a float";
            case TomlValue::Kind::boolean:
                return "a boolean";
            case TomlValue::Kind::date_time:
                return "a date or time";
            case TomlValue::Kind::array:
                return "an array";
            case TomlValue::Kind::table:
                return "a table";
        }
        return "a value";
    }

    auto parse_toml(std::string_view text, std::string_view file_name) -> util::Result<TomlValue>
    {
        auto parsed = toml::parse(text, file_name);
        if (!parsed)
        {
            const auto& error = parsed.error();
            const auto& begin = error.source().begin;
            return util::unexpected(util::make_error(
              util::ErrorKind::parse, "not valid TOML: " + std::string(error.description()),
              util::SourceLocation{ std::string(file_name), static_cast<std::size_t>(begin.line),
                                    static_cast<std::size_t>(begin.column) }));
        }
        return convert(parsed.table());
    }
}
