// Internal to wire: reading typed fields out of one JSON object, remembering the first problem
// ("missing field 'name'", "field 'count' has the wrong type"), and writing optional fields.
// A value of the wrong type, or an integer that does not fit, is an error, never a guess.
#ifndef ENVCHECK_WIRE_JSON_FIELDS_HPP
#define ENVCHECK_WIRE_JSON_FIELDS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace envcheck::wire::detail
{
    using nlohmann::json;

    [[nodiscard]] auto assign(const json& value, std::string& out) -> bool;
    [[nodiscard]] auto assign(const json& value, bool& out) -> bool;
    [[nodiscard]] auto assign(const json& value, int& out) -> bool;
    [[nodiscard]] auto assign(const json& value, std::uint64_t& out) -> bool;
    // NaN and infinities travel as null (JSON has no spelling for them).
    [[nodiscard]] auto assign(const json& value, double& out) -> bool;
    [[nodiscard]] auto assign(const json& value, std::vector<std::string>& out) -> bool;

    class Reader
    {
    public:
        explicit Reader(const json& object)
          : m_object(object)
        {
        }

        // The field must be there, with the type of `out`.
        template<class T>
        auto required(const char* key, T& out) -> Reader&
        {
            if (!m_error.empty())
            {
                return *this;
            }
            const auto found = m_object.find(key);
            if (found == m_object.end())
            {
                m_error = std::string("missing field '") + key + "'";
            }
            else if (!assign(*found, out))
            {
                m_error = std::string("field '") + key + "' has the wrong type";
            }
            return *this;
        }

        // Absent or null: nullopt; otherwise it must have the type of `out`.
        template<class T>
        auto optional(const char* key, std::optional<T>& out) -> Reader&
        {
            if (!m_error.empty())
            {
                return *this;
            }
            out.reset();
            const auto found = m_object.find(key);
            if (found == m_object.end() || found->is_null())
            {
                return *this;
            }
            T value{};
            if (!assign(*found, value))
            {
                m_error = std::string("field '") + key + "' has the wrong type";
                return *this;
            }
            out = std::move(value);
            return *this;
        }

        // The object under `key` (absent or null: nullptr), or an error when it is not one.
        auto object(const char* key) -> const json*;
        // The objects of the list under `key` (absent or null: none).
        auto objects(const char* key) -> std::vector<const json*>;

        // Records a problem found by the caller (an unknown enum name, a nested error).
        void fail(std::string error)
        {
            if (m_error.empty())
            {
                m_error = std::move(error);
            }
        }

        [[nodiscard]] auto error() const -> const std::string& { return m_error; }

    private:
        const json& m_object;
        std::string m_error;
    };

    template<class T>
    void put(json& out, const char* key, const std::optional<T>& value)
    {
        if (value)
        {
            out[key] = *value;
        }
    }
}

#endif
