// Escaping for the markup envcheck writes (JUnit XML, HTML with inline SVG): text that comes
// from the environment (package names, paths, messages) must never become markup.
#ifndef ENVCHECK_REPORT_MARKUP_HPP
#define ENVCHECK_REPORT_MARKUP_HPP

#include <string>
#include <string_view>

namespace envcheck::report
{
    // & < > " ' as entities, and C0 control characters other than tab, newline and return as a
    // space (XML 1.0 forbids them; HTML shows nothing useful for them). Safe in element text and
    // in quoted attribute values of both XML and HTML.
    [[nodiscard]] auto xml_escape(std::string_view text) -> std::string;

    // xml_escape, and newline and return as character references: XML parsers normalize them to
    // spaces in attribute values.
    [[nodiscard]] auto xml_attribute(std::string_view text) -> std::string;
}

#endif
