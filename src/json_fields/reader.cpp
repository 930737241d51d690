#include "json_fields/reader.hpp"

#include <limits>
#include <utility>

namespace envcheck::json_fields
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

    auto assign(const json& value, double& out) -> bool
    {
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
        std::vector<std::string> items;
        items.reserve(value.size());
        for (const auto& item : value)
        {
            if (!item.is_string())
            {
                return false;
            }
            items.push_back(item.get<std::string>());
        }
        out = std::move(items);
        return true;
    }

    auto what(const std::string*) -> const char*
    {
        return "a string";
    }
    auto what(const bool*) -> const char*
    {
        return "true or false";
    }
    auto what(const double*) -> const char*
    {
        return "a number";
    }
    auto what(const std::vector<std::string>*) -> const char*
    {
        return "a list of strings";
    }

    auto member_path(std::string_view parent, std::string_view key) -> std::string
    {
        std::string path(parent);
        if (!path.empty())
        {
            path += '.';
        }
        path += key;
        return path;
    }

    auto item_path(std::string_view parent, std::size_t index) -> std::string
    {
        return std::string(parent) + "[" + std::to_string(index) + "]";
    }

    Reader::Reader(const json& object, std::string path)
      : m_object(object)
      , m_path(std::move(path))
    {
        if (!object.is_object())
        {
            m_error =
              (m_path.empty() ? std::string("the document") : m_path) + ": expected an object";
        }
    }

    auto Reader::find(const char* key) const -> const json*
    {
        if (!ok())
        {
            return nullptr;
        }
        const auto found = m_object.find(key);
        return found == m_object.end() ? nullptr : &*found;
    }

    auto Reader::measured(const char* key, double& out) -> Reader&
    {
        const json* value = find(key);
        if (value != nullptr && value->is_null())
        {
            out = std::numeric_limits<double>::quiet_NaN();
            return *this;
        }
        return required(key, out);
    }

    auto Reader::object(const char* key) -> const json*
    {
        const json* value = find(key);
        if (value == nullptr || value->is_null())
        {
            return nullptr;
        }
        if (!value->is_object())
        {
            fail_at(key, "expected an object");
            return nullptr;
        }
        return value;
    }

    auto Reader::list(const char* key, bool required) -> const json*
    {
        static const json empty = json::array();
        const json* value = find(key);
        if (!ok())
        {
            return &empty;
        }
        if (value == nullptr || value->is_null())
        {
            if (required)
            {
                fail_at(key, value == nullptr ? "missing" : "expected a list");
            }
            return &empty;
        }
        if (!value->is_array())
        {
            fail_at(key, "expected a list");
            return &empty;
        }
        return value;
    }

    auto Reader::objects(const char* key) -> std::vector<const json*>
    {
        std::vector<const json*> items;
        const json* values = list(key);
        for (std::size_t i = 0; i < values->size() && ok(); ++i)
        {
            const json& item = (*values)[i];
            if (!item.is_object())
            {
                fail(item_path(path(key), i) + ": expected an object");
                break;
            }
            items.push_back(&item);
        }
        return ok() ? items : std::vector<const json*>{};
    }

    void Reader::fail_at(std::string_view key, std::string_view problem)
    {
        fail(path(key) + ": " + std::string(problem));
    }

    void Reader::fail(std::string error)
    {
        if (m_error.empty())
        {
            m_error = std::move(error);
        }
    }
}
