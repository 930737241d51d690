// PEP 508 dependency specifiers ("numpy[dev]>=1.26,<2; python_version >= '3.10'",
// "torch @ https://.../torch-2.4.0-cp312-cp312-linux_x86_64.whl") parsed with the grammar of
// packaging 26.x's hand-written parser: the same tokens, the same accepted inputs.
#ifndef ENVCHECK_PYPI_REQUIREMENT_HPP
#define ENVCHECK_PYPI_REQUIREMENT_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypi/marker.hpp"
#include "pypi/specifier.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::pypi
{
    class Requirement
    {
    public:
        // Errors point at the offending character of `text`.
        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<Requirement, util::ParseError>;

        // As written; compare with normalized_name().
        [[nodiscard]] auto name() const -> const std::string& { return m_name; }
        [[nodiscard]] auto normalized_name() const -> std::string;
        // As written, sorted and without duplicates.
        [[nodiscard]] auto extras() const -> const std::vector<std::string>& { return m_extras; }
        [[nodiscard]] auto specifier() const -> const SpecifierSet& { return m_specifier; }
        // The direct reference of "name @ url", empty otherwise.
        [[nodiscard]] auto url() const -> const std::string& { return m_url; }
        [[nodiscard]] auto marker() const -> const std::optional<Marker>& { return m_marker; }

        // pip reads a requirement line's marker separately (after "; "), then attaches it.
        void set_marker(std::optional<Marker> marker) { m_marker = std::move(marker); }

        // packaging's form: "name[a,b]!=1.3,>=1.0; python_version < \"3.10\"",
        // "name @ https://host/x.whl ; sys_platform == \"linux\"".
        [[nodiscard]] auto to_string() const -> std::string;

        // Names compare normalized; extras, specifiers, URL and marker as packaging does.
        friend auto operator==(const Requirement& a, const Requirement& b) -> bool;

    private:
        std::string m_name;
        std::vector<std::string> m_extras;
        SpecifierSet m_specifier;
        std::string m_url;
        std::optional<Marker> m_marker;
    };
}

#endif
