// The one reader of typed fields out of JSON objects (nlohmann::json), for every module that
// reads JSON it wrote or that a user hands in: the probe children's wire events, locks,
// performance baselines. It remembers the first problem, named by the field's JSON path and what
// was expected ("packages[0].name: missing", "metrics[1].value: expected a number"). A value of
// the wrong type, or an integer that does not fit, is an error, never a guess.
#ifndef ENVCHECK_JSON_FIELDS_READER_HPP
#define ENVCHECK_JSON_FIELDS_READER_HPP

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace envcheck::json_fields
{
    using nlohmann::json;

    // Each assign() takes `value` into `out` when it has that type (and fits); what() says what
    // the type is, in words, for the error.
    [[nodiscard]] auto assign(const json& value, std::string& out) -> bool;
    [[nodiscard]] auto assign(const json& value, bool& out) -> bool;
    [[nodiscard]] auto assign(const json& value, double& out) -> bool;
    [[nodiscard]] auto assign(const json& value, std::vector<std::string>& out) -> bool;

    [[nodiscard]] auto what(const std::string*) -> const char*;
    [[nodiscard]] auto what(const bool*) -> const char*;
    [[nodiscard]] auto what(const double*) -> const char*;
    [[nodiscard]] auto what(const std::vector<std::string>*) -> const char*;

    // Any integer type: the value must be an integer that fits it.
    template<std::integral Integer>
    requires(!std::same_as<Integer, bool>)
      [[nodiscard]] auto assign(const json& value, Integer& out) -> bool
    {
        if (value.is_number_unsigned())
        {
            const auto number = value.get<std::uint64_t>();
            if (!std::in_range<Integer>(number))
            {
                return false;
            }
            out = static_cast<Integer>(number);
            return true;
        }
        if (!value.is_number_integer())
        {
            return false;
        }
        const auto number = value.get<std::int64_t>();
        if (!std::in_range<Integer>(number))
        {
            return false;
        }
        out = static_cast<Integer>(number);
        return true;
    }

    template<std::integral Integer>
    requires(!std::same_as<Integer, bool>) [[nodiscard]] auto what(const Integer*) -> const char*
    {
        return std::is_signed_v<Integer> ? "an integer" : "a non-negative integer";
    }

    // The path of a member or an item under `parent` ("" is the document itself).
    [[nodiscard]] auto member_path(std::string_view parent, std::string_view key) -> std::string;
    [[nodiscard]] auto item_path(std::string_view parent, std::size_t index) -> std::string;

    class Reader
    {
    public:
        // `path` names `object` in errors ("" for the document). Anything but an object is an
        // error ("machine: expected an object").
        Reader(const json& object, std::string path);
        // The reader keeps a reference: a temporary would be gone before the first field.
        Reader(json&&, std::string) = delete;

        // The field must be there, with the type of `out`.
        template<class T>
        auto required(const char* key, T& out) -> Reader&
        {
            if (const json* value = find(key))
            {
                take(key, *value, out);
            }
            else if (ok())
            {
                fail_at(key, "missing");
            }
            return *this;
        }

        // Absent or null: nullopt; otherwise it must have the type of `out`.
        template<class T>
        auto optional(const char* key, std::optional<T>& out) -> Reader&
        {
            if (!ok())
            {
                return *this;
            }
            out.reset();
            const json* value = find(key);
            if (value == nullptr || value->is_null())
            {
                return *this;
            }
            T taken{};
            if (take(key, *value, taken))
            {
                out = std::move(taken);
            }
            return *this;
        }

        // Absent or null: `out` keeps its value; otherwise it must have the type of `out`.
        template<class T>
        auto defaulted(const char* key, T& out) -> Reader&
        {
            const json* value = find(key);
            if (value != nullptr && !value->is_null())
            {
                take(key, *value, out);
            }
            return *this;
        }

        // A measured number that must be there: NaN and infinities travel as null (JSON has no
        // spelling for them) and read back as NaN.
        auto measured(const char* key, double& out) -> Reader&;

        // The object under `key` (absent or null: nullptr), or an error when it is not one.
        auto object(const char* key) -> const json*;
        // The list under `key`: absent or null is an empty list when `required` is false.
        auto list(const char* key, bool required = false) -> const json*;
        // The objects of the list under `key` (absent or null: none); an item that is not an
        // object is an error.
        auto objects(const char* key) -> std::vector<const json*>;

        // Records a problem found by the caller: at a field ("mode", "unknown smoke mode 'x'"
        // gives "path.mode: unknown smoke mode 'x'"), or whole (a nested reader's error).
        void fail_at(std::string_view key, std::string_view problem);
        void fail(std::string error);

        [[nodiscard]] auto ok() const -> bool { return m_error.empty(); }
        [[nodiscard]] auto error() const -> const std::string& { return m_error; }
        [[nodiscard]] auto path() const -> const std::string& { return m_path; }
        [[nodiscard]] auto path(std::string_view key) const -> std::string
        {
            return member_path(m_path, key);
        }

    private:
        // The field under `key`, or nullptr when it is absent or an error came first.
        [[nodiscard]] auto find(const char* key) const -> const json*;

        template<class T>
        auto take(const char* key, const json& value, T& out) -> bool
        {
            if (assign(value, out))
            {
                return true;
            }
            fail_at(key, std::string("expected ") + what(&out));
            return false;
        }

        const json& m_object;
        std::string m_path;
        std::string m_error;
    };
}

#endif
