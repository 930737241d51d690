#include "wire/json_fields.hpp"

#include <limits>

namespace envcheck::wire::detail
{
    auto assign(const json& value, std::string& out) -> bool
    {
        if (!value.is_string())
        {
            return false;
        }
        out = value.get<std::string>();
        return true;
    }

    auto assign(const json& value, bool& out) -> bool
    {
        if (!value.is_boolean())
        {
            return false;
        }
        out = value.get<bool>();
        return true;
    }

    auto assign(const json& value, int& out) -> bool
    {
        if (value.is_number_unsigned())
        {
            const auto number = value.get<std::uint64_t>();
            if (number > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
            {
                return false;
            }
            out = static_cast<int>(number);
            return true;
        }
        if (!value.is_number_integer())
        {
            return false;
        }
        const auto number = value.get<std::int64_t>();
        if (number < std::numeric_limits<int>::min() || number > std::numeric_limits<int>::max())
        {
            return false;
        }
        out = static_cast<int>(number);
        return true;
    }

    auto assign(const json& value, std::uint64_t& out) -> bool
    {
        if (!value.is_number_unsigned())
        {
            return false;
        }
        out = value.get<std::uint64_t>();
        return true;
    }

    auto assign(const json& value, double& out) -> bool
    {
        if (value.is_null())
        {
            out = std::numeric_limits<double>::quiet_NaN();
            return true;
        }
        if (!value.is_number())
        {
            return false;
        }
        out = value.get<double>();
        return true;
    }

    auto assign(const json& value, std::vector<std::string>& out) -> bool
    {
        if (!value.is_array())
        {
            return false;
        }
        out.clear();
        for (const auto& item : value)
        {
            if (!item.is_string())
            {
                return false;
            }
            out.push_back(item.get<std::string>());
        }
        return true;
    }

    auto Reader::object(const char* key) -> const json*
    {
        if (!m_error.empty())
        {
            return nullptr;
        }
        const auto found = m_object.find(key);
        if (found == m_object.end() || found->is_null())
        {
            return nullptr;
        }
        if (!found->is_object())
        {
            m_error = std::string("field '") + key + "' is not an object";
            return nullptr;
        }
        return &*found;
    }

    auto Reader::objects(const char* key) -> std::vector<const json*>
    {
        std::vector<const json*> items;
        if (!m_error.empty())
        {
            return items;
        }
        const auto found = m_object.find(key);
        if (found == m_object.end() || found->is_null())
        {
            return items;
        }
        if (!found->is_array())
        {
            m_error = std::string("field '") + key + "' is not a list";
            return items;
        }
        for (const auto& item : *found)
        {
            if (!item.is_object())
            {
                m_error = std::string("an entry of '") + key + "' is not an object";
                return {};
            }
            items.push_back(&item);
        }
        return items;
    }
}
