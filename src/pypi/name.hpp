// Project names (PEP 503 normalization, core-metadata validity). The one place envcheck
// compares pip project names: "Foo.Bar", "foo_bar" and "FOO--bar" are the same project.
#ifndef ENVCHECK_PYPI_NAME_HPP
#define ENVCHECK_PYPI_NAME_HPP

#include <compare>
#include <string>
#include <string_view>

namespace envcheck::pypi
{
    // Lowercase, every run of '-', '_' and '.' becomes one '-' (PEP 503).
    [[nodiscard]] auto normalize_name(std::string_view name) -> std::string;
    // A valid project or extra name: ASCII letters and digits, with '.', '_', '-' inside.
    [[nodiscard]] auto is_valid_name(std::string_view name) -> bool;
    // Whether normalize_name would return the name unchanged.
    [[nodiscard]] auto is_normalized_name(std::string_view name) -> bool;
    // normalize_name(a) <=> normalize_name(b), without making either.
    [[nodiscard]] auto compare_normalized(std::string_view a, std::string_view b)
      -> std::strong_ordering;
}

#endif
