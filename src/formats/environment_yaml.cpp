#include "formats/environment_yaml.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "formats/yaml_document.hpp"
#include "formats/yaml_text.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        namespace rule
        {
            constexpr std::string_view syntax = "yaml.syntax";
            constexpr std::string_view tab_indentation = "yaml.tab-indentation";
            constexpr std::string_view merge_conflict = "yaml.merge-conflict";
            constexpr std::string_view template_syntax = "yaml.template";
            constexpr std::string_view invalid_utf8 = "yaml.invalid-utf8";
            constexpr std::string_view empty = "yaml.empty";
            constexpr std::string_view too_large = "yaml.too-large";
            constexpr std::string_view multiple_documents = "yaml.multiple-documents";
            constexpr std::string_view duplicate_key = "yaml.duplicate-key";
            constexpr std::string_view not_a_mapping = "yaml.not-a-mapping";
            constexpr std::string_view wrong_type = "yaml.wrong-type";
            constexpr std::string_view python_tag = "yaml.python-tag";
            constexpr std::string_view unknown_key = "env.unknown-key";
            constexpr std::string_view extension_key = "env.extension-key";
            constexpr std::string_view missing_dependencies = "env.missing-dependencies";
            constexpr std::string_view unknown_subsection = "env.unknown-subsection";
            constexpr std::string_view micromamba_selector = "env.micromamba-selector";
            constexpr std::string_view invalid_name = "env.invalid-name";
        }

        constexpr std::array<LoaderRule, 18> rule_table{ {
          { rule::syntax, model::Severity::error, "The text is not valid YAML.",
            "Fix the YAML at the position shown: indentation, quotes, or a stray ':'." },
          { rule::tab_indentation, model::Severity::error,
            "A tab in indentation; YAML allows only spaces there.", "Indent with spaces." },
          { rule::merge_conflict, model::Severity::error,
            "An unresolved git merge-conflict marker.",
            "Resolve the conflict: keep one side and delete the <<<<<<<, ======= and >>>>>>> "
            "lines." },
          { rule::template_syntax, model::Severity::error,
            "Jinja template syntax ({{ }} or {% %}), which only conda-build renders.",
            "Replace the template with what it renders to (a package spec)." },
          { rule::invalid_utf8, model::Severity::error, "Bytes that are not UTF-8.",
            "Save the file as UTF-8." },
          { rule::empty, model::Severity::error, "The file has no content.",
            "Write name, channels and dependencies keys." },
          { rule::too_large, model::Severity::error,
            "Over 8 MiB: environment files are a few KiB, so this is not one (nothing is parsed).",
            "Lint the environment file itself; a list of thousands of packages belongs in a "
            "lock." },
          { rule::multiple_documents, model::Severity::error,
            "More than one YAML document ('---'); conda reads exactly one.",
            "Keep one document per environment file." },
          { rule::duplicate_key, model::Severity::error,
            "A key appears twice in one mapping; conda refuses the file.",
            "Delete the repeated key or merge the two entries." },
          { rule::not_a_mapping, model::Severity::error,
            "The top level is not a mapping of name, channels and dependencies.",
            "Put the package list under a 'dependencies:' key." },
          { rule::wrong_type, model::Severity::error,
            "A value of the wrong type: a number, list, mapping or nothing where a string belongs, "
            "or "
            "a string where a list belongs.",
            "Quote the value, or write the spec as one string such as 'python=3.10'." },
          { rule::python_tag, model::Severity::warning,
            "A !!python/... tag (written by old conda exports); safe YAML readers reject it.",
            "Delete the tag." },
          { rule::unknown_key, model::Severity::warning,
            "A top-level key conda does not know; conda ignores it.",
            "Rename the key to one of name, prefix, channels, dependencies, variables, or delete "
            "it." },
          { rule::extension_key, model::Severity::info,
            "A key that other tools read (conda-lock: platforms, category) but conda ignores.",
            "Nothing to do for conda-lock users; conda ignores the key." },
          { rule::missing_dependencies, model::Severity::error,
            "No 'dependencies' key (CEP 24 requires it).", "Add a 'dependencies:' list." },
          { rule::unknown_subsection, model::Severity::error,
            "A mapping in dependencies other than 'pip:'; conda fails on unknown installers.",
            "Write the entry as a string such as '- python=3.10', or move it under '- pip:'." },
          { rule::micromamba_selector, model::Severity::warning,
            "A '- sel(...):' entry, which only micromamba understands; conda fails on it.",
            "Use a comment selector ('# [linux]') with conda-lock, or one file per platform." },
          { rule::invalid_name, model::Severity::error,
            "An environment name with '/', ' ', ':' or '#', or the reserved 'base' or 'root'.",
            "Choose a name of letters, digits, '-', '_' and '.'." },
        } };

        auto find_rule(std::string_view id) -> const LoaderRule&
        {
            const auto* found = std::find_if(rule_table.begin(), rule_table.end(),
                                             [&](const LoaderRule& row) { return row.id == id; });
            // Every id used below is a row of the table; the test of loader_rules() checks it.
            return found != rule_table.end() ? *found : rule_table.front();
        }

        auto make_diagnostic(std::string_view rule_id, std::string message, TextPosition position,
                             std::string fix = {}) -> EnvDiagnostic
        {
            const LoaderRule& row = find_rule(rule_id);
            return EnvDiagnostic{ row.severity, std::string(row.id), std::move(message), position,
                                  fix.empty() ? std::string(row.fix) : std::move(fix) };
        }

        // --- text helpers ------------------------------------------------------------------

        struct Line
        {
            std::string_view text; // without the line break and a trailing \r
            std::size_t offset = 0;
        };

        auto split_into_lines(std::string_view text) -> std::vector<Line>
        {
            std::vector<Line> lines;
            std::size_t start = 0;
            while (start <= text.size())
            {
                const std::size_t end = text.find('\n', start);
                std::string_view line = text.substr(
                  start, end == std::string_view::npos ? std::string_view::npos : end - start);
                if (!line.empty() && line.back() == '\r')
                {
                    line.remove_suffix(1);
                }
                lines.push_back(Line{ line, start });
                if (end == std::string_view::npos)
                {
                    break;
                }
                start = end + 1;
            }
            return lines;
        }

        // Index of the '#' that starts a comment (at the line start or after a space, outside
        // quotes), searching from `from`; npos when the line has none.
        auto comment_start(std::string_view line, std::size_t from = 0) -> std::size_t
        {
            char quote = '\0';
            for (std::size_t i = from; i < line.size(); ++i)
            {
                const char c = line[i];
                if (quote != '\0')
                {
                    if (c == quote)
                    {
                        quote = '\0';
                    }
                    continue;
                }
                const bool token_start = i == 0 || util::is_space(line[i - 1]);
                if ((c == '"' || c == '\'') &&
                    (token_start || line[i - 1] == '[' || line[i - 1] == ','))
                {
                    quote = c;
                }
                else if (c == '#' && token_start)
                {
                    return i;
                }
            }
            return std::string_view::npos;
        }

        auto is_conflict_marker(std::string_view line) -> bool
        {
            for (const std::string_view marker : { "<<<<<<<", ">>>>>>>", "|||||||" })
            {
                if (line.starts_with(marker) && (line.size() == 7 || line[7] == ' '))
                {
                    return true;
                }
            }
            return util::trim_right(line) == "=======";
        }

        // Where a ',' starts a token outside every flow collection ("- a\n,", "&a ,", "[],",
        // "\"a\","). YAML allows ',' only inside flow collections and plain scalars, and
        // yaml-cpp 0.7 loops forever, allocating, on such a comma (found by fuzzing), so it is
        // found here first. A light scan: quotes, flow collections, comments, block scalars,
        // node properties and plain scalars (continued on more indented lines).
        // find_stray_comma's scan, one line at a time; its state carries over to the next line.
        class StrayCommaScan
        {
        public:
            // The column (0-based) of a stray ',' on this line, if there is one.
            auto line(std::string_view text) -> std::optional<std::size_t>
            {
                const std::size_t first = text.find_first_not_of(" \t");
                const std::size_t indent = first == std::string_view::npos ? text.size() : first;
                if (inside_block_scalar(first, indent) ||
                    (m_quote == '\0' && first == std::string_view::npos))
                {
                    return std::nullopt;
                }
                std::size_t i = m_quote == '\0' ? start_line(text, indent) : 0;
                const bool continued = m_plain_open && !m_token_start;
                for (; i < text.size(); ++i)
                {
                    const char c = text[i];
                    if (m_quote != '\0')
                    {
                        i = in_quote(text, i);
                        continue;
                    }
                    const char next = i + 1 < text.size() ? text[i + 1] : ' ';
                    if (c == '#' && (i == 0 || util::is_space(text[i - 1])))
                    {
                        break; // a comment
                    }
                    if (util::is_space(c))
                    {
                        continue;
                    }
                    if (m_depth > 0)
                    {
                        in_flow(c, next);
                        continue;
                    }
                    if (!m_token_start)
                    {
                        m_token_start = c == ':' && util::is_space(next); // the end of a key
                        continue;
                    }
                    if (c == ',')
                    {
                        return i;
                    }
                    if (!token(text, i, indent, next))
                    {
                        break;
                    }
                }
                end_line(indent, continued);
                return std::nullopt;
            }

        private:
            // A line inside a block scalar (more indented than the line that opened it) is
            // skipped; a less indented one ends it.
            auto inside_block_scalar(std::size_t first, std::size_t indent) -> bool
            {
                if (m_block_scalar_indent == outside_block_scalar)
                {
                    return false;
                }
                if (first == std::string_view::npos || indent > m_block_scalar_indent)
                {
                    return true;
                }
                m_block_scalar_indent = outside_block_scalar;
                return false;
            }

            // Where the scan of a line outside quotes starts: after its indent, or after a
            // document marker; a directive line is skipped.
            auto start_line(std::string_view text, std::size_t indent) -> std::size_t
            {
                const std::string_view rest = text.substr(indent);
                const bool marker = indent == 0 &&
                                    (rest.starts_with("---") || rest.starts_with("...")) &&
                                    (rest.size() == 3 || util::is_space(rest[3]));
                if (marker || (indent == 0 && rest.starts_with('%')))
                {
                    m_depth = 0;
                    m_token_start = true;
                    m_plain_open = false;
                    return marker ? 3 : text.size();
                }
                if (m_depth == 0)
                {
                    m_token_start = !(m_plain_open && indent > m_plain_indent);
                }
                return indent;
            }

            // Inside a quoted scalar: escapes and doubled single quotes stay inside; returns
            // the index of the last character read.
            auto in_quote(std::string_view text, std::size_t i) -> std::size_t
            {
                const char c = text[i];
                if (m_quote == '"' && c == '\\')
                {
                    return i + 1;
                }
                if (c == m_quote && m_quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'')
                {
                    return i + 1;
                }
                if (c == m_quote)
                {
                    m_quote = '\0';
                    m_token_start = m_depth == 0;
                }
                return i;
            }

            // Inside a flow collection, where ',' separates entries.
            void in_flow(char c, char next)
            {
                const bool flow_indicator_next =
                  next == ',' || next == '[' || next == ']' || next == '{' || next == '}';
                if ((c == '"' || c == '\'') && m_token_start)
                {
                    m_quote = c;
                }
                else if (c == '[' || c == '{')
                {
                    ++m_depth;
                    m_token_start = true;
                }
                else if (c == ']' || c == '}')
                {
                    --m_depth;
                    m_token_start = m_depth == 0;
                }
                else
                {
                    m_token_start = c == ',' || c == '?' ||
                                    (c == ':' && (util::is_space(next) || flow_indicator_next));
                }
            }

            // The first character of a block-context token (not ','). False when the rest of
            // the line is a block scalar's header.
            auto token(std::string_view text, std::size_t& i, std::size_t indent, char next) -> bool
            {
                const char c = text[i];
                if (c == '"' || c == '\'')
                {
                    m_quote = c;
                }
                else if (c == '[' || c == '{')
                {
                    m_depth = 1;
                }
                else if (c == '|' || c == '>')
                {
                    m_block_scalar_indent = indent;
                    return false;
                }
                else if (c == '&' || c == '!' || c == '*')
                {
                    // A node property stays before its node; an alias is a whole node.
                    const std::size_t end = text.find_first_of(" \t,[]{}", i + 1);
                    m_token_start = c != '*';
                    i = (end == std::string_view::npos ? text.size() : end) - 1;
                }
                else if ((c == '-' || c == '?' || c == ':') && util::is_space(next))
                {
                    m_token_start = true;
                }
                else
                {
                    m_token_start = false;
                }
                return true;
            }

            // A plain scalar left open may continue on a more indented line.
            void end_line(std::size_t indent, bool continued)
            {
                if (m_quote == '\0' && m_depth == 0 &&
                    m_block_scalar_indent == outside_block_scalar)
                {
                    m_plain_open = !m_token_start;
                    if (m_plain_open && !continued)
                    {
                        m_plain_indent = indent;
                    }
                }
            }

            std::size_t m_depth = 0;
            char m_quote = '\0';
            bool m_token_start = true;
            // Of the line that opened a block scalar. Not a std::optional: g++ 12 at -O3 warns
            // of reading a disengaged one after the check (-Wmaybe-uninitialized).
            static constexpr std::size_t outside_block_scalar = std::string_view::npos;
            std::size_t m_block_scalar_indent = outside_block_scalar;
            bool m_plain_open = false;      // a plain scalar may continue
            std::size_t m_plain_indent = 0; // of the line that started it
        };

        auto find_stray_comma(const std::vector<Line>& lines) -> std::optional<TextPosition>
        {
            StrayCommaScan scan;
            for (std::size_t number = 0; number < lines.size(); ++number)
            {
                if (const auto column = scan.line(lines[number].text))
                {
                    return TextPosition{ number + 1, *column + 1 };
                }
            }
            return std::nullopt;
        }

        // Problems yaml-cpp reports late, confusingly or not at all; the first one found wins.
        auto prescan(const std::vector<Line>& lines) -> std::optional<EnvDiagnostic>
        {
            for (std::size_t index = 0; index < lines.size(); ++index)
            {
                const std::string_view line = lines[index].text;
                const std::size_t line_number = index + 1;
                if (is_conflict_marker(line))
                {
                    return make_diagnostic(
                      rule::merge_conflict,
                      "unresolved merge-conflict marker '" + std::string(line.substr(0, 7)) +
                        "': the file was committed in the middle of a git merge",
                      { line_number, 1 });
                }
                const std::size_t content = line.find_first_not_of(" \t");
                if (content == std::string_view::npos)
                {
                    continue;
                }
                const std::size_t tab = line.substr(0, content).find('\t');
                if (tab != std::string_view::npos)
                {
                    return make_diagnostic(
                      rule::tab_indentation,
                      "tab character in indentation; YAML indents with spaces only",
                      { line_number, tab + 1 });
                }
                const std::string_view code = line.substr(0, comment_start(line));
                for (const std::string_view opener : { "{{", "{%" })
                {
                    const std::size_t found = code.find(opener);
                    if (found != std::string_view::npos)
                    {
                        return make_diagnostic(rule::template_syntax,
                                               "Jinja template '" + std::string(opener) +
                                                 "' is conda-build recipe syntax; conda cannot "
                                                 "read it in an environment file",
                                               { line_number, found + 1 });
                    }
                }
            }
            return std::nullopt;
        }

        // How PyYAML (YAML 1.1, what conda reads with) types a plain scalar.
        enum class PlainType
        {
            string,
            integer,
            floating,
            boolean,
            null,
        };

        auto is_digits(std::string_view text, std::string_view allowed) -> bool
        {
            return !text.empty() && text.find_first_not_of(allowed) == std::string_view::npos;
        }

        // YAML 1.1 integers after the sign: 0x.., 0b.., or decimal digits (with '_').
        auto is_integer_body(std::string_view body) -> bool
        {
            if (body.starts_with("0x"))
            {
                return is_digits(body.substr(2), "0123456789abcdefABCDEF_");
            }
            if (body.starts_with("0b"))
            {
                return is_digits(body.substr(2), "01_");
            }
            return is_digits(body, "0123456789_") && util::is_digit(body.front());
        }

        // [0-9][0-9_]*.[0-9_]*([eE][-+][0-9]+)?  or  .[0-9_]+([eE][-+][0-9]+)?
        auto is_decimal_body(std::string_view body) -> bool
        {
            const std::size_t dot = body.find('.');
            if (dot == std::string_view::npos)
            {
                return false;
            }
            std::string_view whole = body.substr(0, dot);
            std::string_view fraction = body.substr(dot + 1);
            const std::size_t exponent = fraction.find_first_of("eE");
            if (exponent != std::string_view::npos)
            {
                const std::string_view power = fraction.substr(exponent + 1);
                if (power.size() < 2 || (power[0] != '-' && power[0] != '+') ||
                    !is_digits(power.substr(1), "0123456789"))
                {
                    return false;
                }
                fraction = fraction.substr(0, exponent);
            }
            const bool whole_ok =
              whole.empty() ? !fraction.empty() && util::is_digit(fraction.front())
                            : util::is_digit(whole.front()) && is_digits(whole, "0123456789_");
            const bool fraction_ok = fraction.empty() || is_digits(fraction, "0123456789_");
            return whole_ok && fraction_ok;
        }

        auto plain_type(std::string_view text) -> PlainType
        {
            static constexpr std::array<std::string_view, 5> nulls{ "", "~", "null", "Null",
                                                                    "NULL" };
            static constexpr std::array<std::string_view, 18> booleans{
                "yes",   "Yes",   "YES",   "no", "No", "NO", "true", "True", "TRUE",
                "false", "False", "FALSE", "on", "On", "ON", "off",  "Off",  "OFF"
            };
            static constexpr std::array<std::string_view, 3> infinities{ ".inf", ".Inf", ".INF" };
            static constexpr std::array<std::string_view, 3> nans{ ".nan", ".NaN", ".NAN" };
            const auto in = [](const auto& table, std::string_view value)
            { return std::find(table.begin(), table.end(), value) != table.end(); };
            if (in(nulls, text))
            {
                return PlainType::null;
            }
            if (in(booleans, text))
            {
                return PlainType::boolean;
            }
            std::string_view body = text;
            if (body.starts_with('-') || body.starts_with('+'))
            {
                body.remove_prefix(1);
            }
            if (in(infinities, body) || in(nans, text))
            {
                return PlainType::floating;
            }
            if (is_integer_body(body))
            {
                return PlainType::integer;
            }
            return is_decimal_body(body) ? PlainType::floating : PlainType::string;
        }

        auto describe(PlainType type) -> std::string_view
        {
            switch (type)
            {
                case PlainType::integer:
                case PlainType::floating:
                    return "a number";
                case PlainType::boolean:
                    return "a boolean";
                case PlainType::null:
                    return "nothing";
                case PlainType::string:
                    return "a string";
            }
            return "a string";
        }

        template<class YamlNode>
        auto describe(const YamlNode& node) -> std::string
        {
            if (node.is_sequence())
            {
                return "a list";
            }
            if (node.is_map())
            {
                return "a mapping";
            }
            if (node.is_scalar())
            {
                return node.tag() == "?" ? std::string(describe(plain_type(node.scalar())))
                                         : std::string("a string");
            }
            return "nothing";
        }

        // yaml-cpp's messages name parser states; say what the user did instead.
        auto explain_yaml_error(const std::string& message) -> std::string
        {
            if (message == YAML::ErrorMsg::END_OF_MAP || message == YAML::ErrorMsg::END_OF_SEQ)
            {
                return "bad indentation: this line does not line up with the entries above it (" +
                       message + ")";
            }
            if (message == YAML::ErrorMsg::MAP_VALUE)
            {
                return "a ':' where no mapping value is allowed; quote a value that contains ': ' "
                       "(" +
                       message + ")";
            }
            if (message == YAML::ErrorMsg::END_OF_MAP_FLOW ||
                message == YAML::ErrorMsg::END_OF_SEQ_FLOW)
            {
                return "an unclosed '{' or '[' (" + message + ")";
            }
            if (message.find("end of string") != std::string::npos ||
                message == YAML::ErrorMsg::EOF_IN_SCALAR)
            {
                return "unterminated quoted string (" + message + ")";
            }
            return "invalid YAML: " + message;
        }

        auto to_position(const YAML::Mark& mark) -> TextPosition
        {
            if (mark.is_null() || mark.line < 0 || mark.column < 0)
            {
                return {};
            }
            return { static_cast<std::size_t>(mark.line) + 1,
                     static_cast<std::size_t>(mark.column) + 1 };
        }

        // The Loader reads either parser's tree through the same few questions, asked in
        // yaml-cpp's terms: tag() is "?" for a plain scalar or a collection without a tag and
        // "!" for a quoted or block scalar without one; a null is not a scalar; mark() is where
        // the node starts, its column counted in bytes.
        class YamlCppNode
        {
        public:
            explicit YamlCppNode(const YAML::Node& node)
              : m_node(node)
            {
            }

            auto is_scalar() const -> bool { return m_node.IsScalar(); }
            auto is_sequence() const -> bool { return m_node.IsSequence(); }
            auto is_map() const -> bool { return m_node.IsMap(); }
            auto is_null() const -> bool { return m_node.IsNull(); }
            auto scalar() const -> std::string_view { return m_node.Scalar(); }
            auto tag() const -> std::string_view { return m_node.Tag(); }
            auto mark() const -> TextPosition { return to_position(m_node.Mark()); }

            auto items() const -> std::vector<YamlCppNode>
            {
                return { m_node.begin(), m_node.end() };
            }

            auto pairs() const -> std::vector<std::pair<YamlCppNode, YamlCppNode>>
            {
                std::vector<std::pair<YamlCppNode, YamlCppNode>> pairs;
                for (const auto& entry : m_node)
                {
                    pairs.emplace_back(YamlCppNode(entry.first), YamlCppNode(entry.second));
                }
                return pairs;
            }

        private:
            YAML::Node m_node;
        };

        // libyaml counts columns in characters, yaml-cpp (and so every position the loader has
        // ever reported) in bytes: the same on ASCII lines.
        auto byte_column(std::string_view line, std::size_t character_column) -> std::size_t
        {
            std::size_t byte = 0;
            for (std::size_t character = 1; character < character_column; ++character)
            {
                if (byte >= line.size())
                {
                    return byte + 1 + (character_column - character);
                }
                const auto lead = static_cast<unsigned char>(line[byte]);
                byte += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
            }
            return byte + 1;
        }

        // What the nodes of one libyaml reading share.
        struct LibyamlReading
        {
            const std::vector<Line>* lines = nullptr; // for byte columns; null for ASCII text
            // A mapping had an empty key ("? " or ": x"), whose position libyaml gives after
            // the indicator and yaml-cpp at the next token: leave the file to yaml-cpp.
            bool empty_key = false;
            // The text ends without a line break, and this is its last line: yaml-cpp places an
            // empty value there (a last "-" or "key:") at the token before it, libyaml at its
            // indicator. A position asked of such a value leaves the file to yaml-cpp.
            std::size_t unterminated_last_line = 0; // 0: the text ends in a line break
            bool empty_at_end = false;
        };

        class LibyamlNode
        {
        public:
            LibyamlNode(yaml::Node node, LibyamlReading* reading)
              : m_node(node)
              , m_reading(reading)
            {
            }

            auto is_scalar() const -> bool { return m_node.is_scalar() && !is_null(); }
            auto is_sequence() const -> bool { return m_node.is_sequence(); }
            auto is_map() const -> bool { return m_node.is_mapping(); }
            // yaml-cpp reads a plain null as null only without a tag (so does YAML).
            auto is_null() const -> bool { return m_node.is_null() && m_node.tag().empty(); }
            auto scalar() const -> std::string_view { return m_node.scalar_text(); }

            auto tag() const -> std::string_view
            {
                if (!m_node.tag().empty())
                {
                    return m_node.tag();
                }
                return m_node.is_scalar() && m_node.style() != yaml::ScalarStyle::plain ? "!" : "?";
            }

            auto mark() const -> TextPosition
            {
                TextPosition position{ m_node.line(), m_node.column() };
                if (position.line == m_reading->unterminated_last_line && is_null() &&
                    m_node.scalar_text().empty())
                {
                    m_reading->empty_at_end = true;
                }
                const std::vector<Line>* lines = m_reading->lines;
                if (lines != nullptr && position.line >= 1 && position.line <= lines->size())
                {
                    position.column =
                      byte_column((*lines)[position.line - 1].text, position.column);
                }
                return position;
            }

            auto items() const -> std::vector<LibyamlNode>
            {
                std::vector<LibyamlNode> items;
                items.reserve(m_node.size());
                for (std::size_t i = 0; i < m_node.size(); ++i)
                {
                    items.emplace_back(m_node.item(i), m_reading);
                }
                return items;
            }

            auto pairs() const -> std::vector<std::pair<LibyamlNode, LibyamlNode>>
            {
                std::vector<std::pair<LibyamlNode, LibyamlNode>> pairs;
                pairs.reserve(m_node.size());
                for (std::size_t i = 0; i < m_node.size(); ++i)
                {
                    const yaml::Node key = m_node.key(i);
                    if (key.is_scalar() && key.style() == yaml::ScalarStyle::plain &&
                        key.tag().empty() && key.scalar_text().empty())
                    {
                        m_reading->empty_key = true;
                    }
                    pairs.emplace_back(LibyamlNode(key, m_reading),
                                       LibyamlNode(m_node.value(i), m_reading));
                }
                return pairs;
            }

        private:
            yaml::Node m_node;
            LibyamlReading* m_reading;
        };

        constexpr std::array<std::string_view, 5> known_keys{ "name", "prefix", "channels",
                                                              "dependencies", "variables" };
        constexpr std::array<std::string_view, 4> extension_keys{ "platforms", "category",
                                                                  "pip-repositories",
                                                                  "allow-pypi-requests" };

        // Builds the EnvironmentFile from either parser's tree (YamlCppNode or LibyamlNode).
        template<class YamlNode>
        class Loader
        {
        public:
            Loader(std::string_view text, const std::vector<Line>& lines)
              : m_text(text)
              , m_lines(lines)
            {
            }

            auto load(const YamlNode& root) -> std::optional<EnvDiagnostic>
            {
                if (root.is_scalar())
                {
                    const std::string head(util::trim(root.scalar()).substr(0, 40));
                    return make_diagnostic(
                      rule::not_a_mapping,
                      "the file is plain text ('" + head +
                        "...'), not a mapping with name, channels and dependencies keys",
                      start_of(root),
                      "Write 'dependencies:' and list the packages under it as '- name' entries.");
                }
                if (root.is_sequence())
                {
                    return make_diagnostic(
                      rule::not_a_mapping,
                      "the top level is a list; an environment file is a mapping "
                      "with name, channels and dependencies keys",
                      start_of(root));
                }
                if (!root.is_map())
                {
                    return make_diagnostic(rule::empty, "the file has no content", { 1, 1 });
                }
                if (auto duplicate = find_duplicate_key(root))
                {
                    return duplicate;
                }
                for (const auto& entry : root.pairs())
                {
                    check_quote(entry.first);
                    if (auto failure = load_key(entry.first, entry.second))
                    {
                        return failure;
                    }
                    if (m_failure)
                    {
                        return m_failure;
                    }
                }
                if (!m_file.has_dependencies)
                {
                    add(rule::missing_dependencies,
                        "no 'dependencies' key: the environment installs nothing", start_of(root));
                }
                return std::nullopt;
            }

            auto take() -> EnvironmentFile { return std::move(m_file); }

        private:
            auto line_at(TextPosition position) const -> std::string_view
            {
                return position.line >= 1 && position.line <= m_lines.size()
                         ? m_lines[position.line - 1].text
                         : std::string_view{};
            }

            auto start_of(const YamlNode& node) const -> TextPosition
            {
                const TextPosition position = node.mark();
                return position.line == 0 ? TextPosition{ 1, 1 } : position;
            }

            auto offset_of(TextPosition position) const -> std::size_t
            {
                return m_lines[position.line - 1].offset + position.column - 1;
            }

            // Where the value's text begins: after an anchor, a tag and an opening quote.
            auto value_position(const YamlNode& node) const -> TextPosition
            {
                TextPosition position = node.mark();
                const std::string_view line = line_at(position);
                while (position.column >= 1 && position.column <= line.size() &&
                       (line[position.column - 1] == '&' || line[position.column - 1] == '!'))
                {
                    const std::size_t end = line.find_first_of(" \t", position.column - 1);
                    const std::size_t next = end == std::string_view::npos
                                               ? std::string_view::npos
                                               : line.find_first_not_of(" \t", end);
                    if (next == std::string_view::npos)
                    {
                        break;
                    }
                    position.column = next + 1;
                }
                if (position.column >= 1 && position.column <= line.size())
                {
                    const char first = line[position.column - 1];
                    if (node.tag() == "!" && (first == '"' || first == '\''))
                    {
                        ++position.column;
                    }
                }
                return position;
            }

            // yaml-cpp marks an empty sequence entry at the token after it; the entry's '-' is
            // the last token before that.
            auto previous_token(TextPosition mark) const -> TextPosition
            {
                std::size_t line = mark.line == 0 ? m_lines.size() : mark.line;
                std::size_t limit = mark.line == 0 ? std::string_view::npos : mark.column - 1;
                for (; line >= 1; --line, limit = std::string_view::npos)
                {
                    const std::string_view text = m_lines[line - 1].text;
                    std::string_view code = text.substr(0, std::min(limit, text.size()));
                    code = util::trim_right(code.substr(0, comment_start(code)));
                    if (!code.empty())
                    {
                        return { line, code.size() };
                    }
                }
                return { 1, 1 };
            }

            // yaml-cpp reads an unterminated quoted scalar to the end of the file without an
            // error; PyYAML (and so conda) rejects it.
            void check_quote(const YamlNode& node)
            {
                if (m_failure || !node.is_scalar() || node.tag() != "!")
                {
                    return;
                }
                TextPosition position = value_position(node);
                if (position.column < 2 || position.line == 0)
                {
                    return;
                }
                --position.column;
                const std::size_t open = offset_of(position);
                const char quote = m_text[open];
                if (quote != '"' && quote != '\'')
                {
                    return;
                }
                for (std::size_t i = open + 1; i < m_text.size(); ++i)
                {
                    if (quote == '"' && m_text[i] == '\\')
                    {
                        ++i;
                    }
                    else if (m_text[i] == quote)
                    {
                        if (quote == '\'' && i + 1 < m_text.size() && m_text[i + 1] == '\'')
                        {
                            ++i;
                            continue;
                        }
                        return;
                    }
                }
                m_failure = make_diagnostic(rule::syntax,
                                            std::string("unterminated quoted string: no closing ") +
                                              quote + " before the end of the file",
                                            position, "Close the quote.");
            }

            // conda-lock's "# [linux]" selector in the comment after an entry.
            auto comment_selector(TextPosition position) const -> std::string
            {
                const std::string_view line = line_at(position);
                if (position.column == 0 || position.column > line.size())
                {
                    return {};
                }
                const std::size_t hash = comment_start(line, position.column - 1);
                if (hash == std::string_view::npos)
                {
                    return {};
                }
                const std::string_view comment = util::trim(line.substr(hash + 1));
                if (comment.size() < 2 || comment.front() != '[' || comment.back() != ']')
                {
                    return {};
                }
                return std::string(util::trim(comment.substr(1, comment.size() - 2)));
            }

            void add(std::string_view rule_id, std::string message, TextPosition position,
                     std::string fix = {})
            {
                m_file.diagnostics.push_back(
                  make_diagnostic(rule_id, std::move(message), position, std::move(fix)));
            }

            auto find_duplicate_key(const YamlNode& map) const -> std::optional<EnvDiagnostic>
            {
                std::vector<std::pair<std::string, TextPosition>> seen;
                for (const auto& entry : map.pairs())
                {
                    if (!entry.first.is_scalar())
                    {
                        continue;
                    }
                    const std::string key(entry.first.scalar());
                    const TextPosition position = start_of(entry.first);
                    const auto first =
                      std::find_if(seen.begin(), seen.end(),
                                   [&](const auto& item) { return item.first == key; });
                    if (first != seen.end())
                    {
                        return make_diagnostic(rule::duplicate_key,
                                               "duplicate key '" + key + "' (first at line " +
                                                 std::to_string(first->second.line) + ", column " +
                                                 std::to_string(first->second.column) + ")",
                                               position);
                    }
                    seen.emplace_back(key, position);
                }
                return std::nullopt;
            }

            void check_tag(const YamlNode& node)
            {
                if (node.tag().starts_with("tag:yaml.org,2002:python/"))
                {
                    add(rule::python_tag,
                        "'!!" + std::string(node.tag().substr(18)) +
                          "' tag: PyYAML's safe loader and other tools reject it",
                        start_of(node));
                }
            }

            // A string value, or a yaml.wrong-type diagnostic and nullopt.
            auto string_value(const YamlNode& node, std::string_view what, TextPosition fallback)
              -> std::optional<EnvString>
            {
                const bool plain_non_string = node.is_scalar() && node.tag() == "?" &&
                                              plain_type(node.scalar()) != PlainType::string;
                if (!node.is_scalar() || plain_non_string)
                {
                    const TextPosition position = node.is_null() ? fallback : start_of(node);
                    std::string message =
                      std::string(what) + " must be a string, found " + describe(node);
                    if (node.is_scalar())
                    {
                        message += " ('" + std::string(node.scalar()) + "')";
                    }
                    add(rule::wrong_type, std::move(message), position);
                    return std::nullopt;
                }
                check_quote(node);
                if (util::trim(node.scalar()).empty())
                {
                    add(rule::wrong_type, std::string(what) + " must not be empty",
                        value_position(node));
                    return std::nullopt;
                }
                return EnvString{ std::string(node.scalar()), value_position(node) };
            }

            auto load_key(const YamlNode& key_node, const YamlNode& value)
              -> std::optional<EnvDiagnostic>
            {
                const TextPosition key_position = start_of(key_node);
                if (!key_node.is_scalar())
                {
                    add(rule::wrong_type,
                        "a top-level key must be a string, found " + describe(key_node),
                        key_position);
                    return std::nullopt;
                }
                const std::string key(key_node.scalar());
                if (key == "name" || key == "prefix")
                {
                    auto text = string_value(value, "'" + key + "'", key_position);
                    if (text && key == "name")
                    {
                        check_name(*text);
                    }
                    (key == "name" ? m_file.name : m_file.prefix) = std::move(text);
                }
                else if (key == "channels")
                {
                    m_file.has_channels = true;
                    m_file.channels_position = key_position;
                    load_channels(value);
                }
                else if (key == "dependencies")
                {
                    m_file.has_dependencies = true;
                    m_file.dependencies_position = key_position;
                    return load_dependencies(value);
                }
                else if (key == "variables")
                {
                    return load_variables(value);
                }
                else if (std::find(extension_keys.begin(), extension_keys.end(), key) !=
                         extension_keys.end())
                {
                    add(rule::extension_key,
                        "'" + key + "' is read by conda-lock; conda ignores it", key_position);
                }
                else
                {
                    check_quote(value);
                    std::vector<std::string> candidates(known_keys.begin(), known_keys.end());
                    const auto suggestion = util::closest_match(key, candidates);
                    add(rule::unknown_key, "unknown key '" + key + "'; conda ignores it",
                        key_position,
                        suggestion ? "Did you mean '" + *suggestion + "'?" : std::string{});
                }
                return std::nullopt;
            }

            void check_name(const EnvString& name)
            {
                const std::size_t bad = name.value.find_first_of("/ :#");
                if (bad != std::string::npos)
                {
                    add(rule::invalid_name,
                        "environment name '" + name.value + "' contains '" + name.value[bad] +
                          "', which conda does not allow in a name",
                        { name.position.line, name.position.column + bad });
                }
                else if (name.value == "base" || name.value == "root")
                {
                    add(rule::invalid_name,
                        "'" + name.value + "' is conda's reserved name for its own environment",
                        name.position);
                }
            }

            void load_channels(const YamlNode& value)
            {
                if (value.is_null())
                {
                    return;
                }
                if (!value.is_sequence())
                {
                    add(rule::wrong_type, "'channels' must be a list, found " + describe(value),
                        start_of(value),
                        "Write each channel on its own line as '  - conda-forge'.");
                    return;
                }
                check_tag(value);
                for (const auto& item : value.items())
                {
                    if (auto channel = string_value(item, "a channel", previous_token(item.mark())))
                    {
                        m_file.channels.push_back(std::move(*channel));
                    }
                }
            }

            auto load_dependencies(const YamlNode& value) -> std::optional<EnvDiagnostic>
            {
                if (value.is_null())
                {
                    return std::nullopt;
                }
                if (!value.is_sequence())
                {
                    add(rule::wrong_type, "'dependencies' must be a list, found " + describe(value),
                        start_of(value), "Write each package on its own line as '  - numpy=1.26'.");
                    return std::nullopt;
                }
                check_tag(value);
                for (const auto& item : value.items())
                {
                    if (item.is_map())
                    {
                        if (auto failure = load_subsections(item))
                        {
                            return failure;
                        }
                        continue;
                    }
                    if (item.is_scalar() && item.tag() == "?" &&
                        plain_type(item.scalar()) != PlainType::string)
                    {
                        add(rule::wrong_type,
                            "'" + std::string(item.scalar()) + "' is read as " +
                              std::string(describe(plain_type(item.scalar()))) +
                              ", not a package spec",
                            start_of(item),
                            "Write the package name too, as in 'python=" +
                              std::string(item.scalar()) + "', or quote the value.");
                        continue;
                    }
                    if (auto spec = string_value(item, "a dependency", previous_token(item.mark())))
                    {
                        std::string selector = comment_selector(spec->position);
                        m_file.dependencies.push_back(EnvDependency{
                          std::move(spec->value), spec->position, std::move(selector) });
                    }
                }
                return std::nullopt;
            }

            auto load_subsections(const YamlNode& map) -> std::optional<EnvDiagnostic>
            {
                if (auto duplicate = find_duplicate_key(map))
                {
                    return duplicate;
                }
                for (const auto& entry : map.pairs())
                {
                    const TextPosition key_position = start_of(entry.first);
                    const std::string key =
                      entry.first.is_scalar() ? std::string(entry.first.scalar()) : std::string{};
                    if (key == "pip")
                    {
                        if (m_file.pip_position.line == 0)
                        {
                            m_file.pip_position = key_position;
                        }
                        load_pip(entry.second);
                    }
                    else if (key.starts_with("sel(") && key.ends_with(")"))
                    {
                        const std::string selector = key.substr(4, key.size() - 5);
                        add(rule::micromamba_selector,
                            "'" + key +
                              "' is micromamba's selector syntax; conda fails on this entry",
                            key_position);
                        if (auto spec = string_value(entry.second, "a dependency", key_position))
                        {
                            m_file.dependencies.push_back(
                              EnvDependency{ std::move(spec->value), spec->position, selector });
                        }
                    }
                    else if (entry.second.is_scalar() && !key.empty())
                    {
                        add(rule::unknown_subsection,
                            "'" + key + ": " + std::string(entry.second.scalar()) +
                              "' is a mapping; conda reads mappings in dependencies as installer "
                              "subsections and knows only 'pip'",
                            key_position,
                            "Write it as one string: '- " + key + "=" +
                              std::string(entry.second.scalar()) + "'.");
                    }
                    else
                    {
                        add(rule::unknown_subsection,
                            "unknown subsection '" + (key.empty() ? describe(entry.first) : key) +
                              "' in dependencies; conda knows only 'pip'",
                            key_position);
                    }
                }
                return std::nullopt;
            }

            void load_pip(const YamlNode& value)
            {
                if (value.is_null())
                {
                    return;
                }
                if (!value.is_sequence())
                {
                    add(rule::wrong_type,
                        "'pip' must be a list of requirement lines, found " + describe(value),
                        start_of(value),
                        "Write each requirement on its own line as '    - requests==2.32.3'.");
                    return;
                }
                for (const auto& item : value.items())
                {
                    if (auto line = string_value(item, "a pip line", previous_token(item.mark())))
                    {
                        std::string selector = comment_selector(line->position);
                        m_file.pip.push_back(EnvPipLine{ std::move(line->value), line->position,
                                                         std::move(selector) });
                    }
                }
            }

            auto load_variables(const YamlNode& value) -> std::optional<EnvDiagnostic>
            {
                if (value.is_null())
                {
                    return std::nullopt;
                }
                if (!value.is_map())
                {
                    add(rule::wrong_type,
                        "'variables' must be a mapping of names to values, found " +
                          describe(value),
                        start_of(value), "Write each variable as '  NAME: value'.");
                    return std::nullopt;
                }
                if (auto duplicate = find_duplicate_key(value))
                {
                    return duplicate;
                }
                for (const auto& entry : value.pairs())
                {
                    if (!entry.first.is_scalar())
                    {
                        add(rule::wrong_type,
                            "a variable name must be a string, found " + describe(entry.first),
                            start_of(entry.first));
                        continue;
                    }
                    check_quote(entry.first);
                    check_quote(entry.second);
                    EnvString name{ std::string(entry.first.scalar()),
                                    value_position(entry.first) };
                    if (entry.second.is_null())
                    {
                        EnvString empty{ {}, name.position };
                        m_file.variables.push_back(
                          EnvVariable{ std::move(name), std::move(empty) });
                    }
                    else if (entry.second.is_scalar())
                    {
                        // conda writes values with str(): numbers and booleans are fine here.
                        m_file.variables.push_back(EnvVariable{
                          std::move(name), EnvString{ std::string(entry.second.scalar()),
                                                      value_position(entry.second) } });
                    }
                    else
                    {
                        add(rule::wrong_type,
                            "variable '" + name.value + "' must have a string value, found " +
                              describe(entry.second),
                            start_of(entry.second));
                    }
                }
                return std::nullopt;
            }

            std::string_view m_text;
            const std::vector<Line>& m_lines;
            EnvironmentFile m_file;
            std::optional<EnvDiagnostic> m_failure; // set by check_quote
        };

        auto has_content(const std::vector<Line>& lines) -> bool
        {
            return std::any_of(lines.begin(), lines.end(),
                               [](const Line& line)
                               {
                                   const std::string_view code =
                                     util::trim(line.text.substr(0, comment_start(line.text)));
                                   return !code.empty() && code != "---" && code != "...";
                               });
        }

        // The text with the checks that come before any parser passed: a byte order mark
        // removed, and its lines.
        struct CheckedText
        {
            std::string_view text;
            std::vector<Line> lines;
        };

        auto check_text(std::string_view text) -> util::Result<CheckedText, EnvDiagnostic>
        {
            // A UTF-8 byte order mark is invisible to users and to YAML; positions start after it.
            constexpr std::string_view bom = "\xEF\xBB\xBF";
            if (text.starts_with(bom))
            {
                text.remove_prefix(bom.size());
            }
            if (const auto bad = util::find_invalid_utf8(text))
            {
                const auto where = util::line_column_at(text, *bad);
                return util::unexpected(
                  make_diagnostic(rule::invalid_utf8,
                                  "byte 0x" + util::to_hex(text.substr(*bad, 1)) +
                                    " is not valid UTF-8 (is the file UTF-16 or Latin-1?)",
                                  { where.line, where.column }));
            }
            // Said here, before either YAML reader: yaml-cpp's LoadAll never returned on a NUL
            // byte (found by fuzz_environment_yaml: "\0,\0~\0." grew past 2 GB).
            if (const auto control = find_non_printable(text))
            {
                const auto where = util::line_column_at(text, control->offset);
                return util::unexpected(make_diagnostic(
                  rule::syntax, describe_non_printable(*control), { where.line, where.column },
                  "Delete the character, or save the file as text."));
            }
            // Bounded time and memory: a 1 GiB file of comments took 170 s and 3.9 GB to read.
            if (text.size() > environment_file_size_limit)
            {
                return util::unexpected(make_diagnostic(
                  rule::too_large,
                  "the file is " + std::to_string(text.size()) + " bytes, over the " +
                    std::to_string(environment_file_size_limit >> 20) +
                    " MiB an environment file can be: this is not an environment file",
                  { 1, 1 }));
            }
            std::vector<Line> lines = split_into_lines(text);
            if (auto problem = prescan(lines))
            {
                return util::unexpected(std::move(*problem));
            }
            if (const auto comma = find_stray_comma(lines))
            {
                return util::unexpected(make_diagnostic(
                  rule::syntax,
                  "a ',' outside any [...] or {...}: YAML reads it as neither a list entry nor "
                  "text",
                  *comma, "Remove the ',' or put the values in a flow list such as '[a, b]'."));
            }
            if (!has_content(lines))
            {
                return util::unexpected(make_diagnostic(
                  rule::empty,
                  text.empty() ? "the file is empty" : "the file has only comments and blank lines",
                  { 1, 1 }));
            }
            return CheckedText{ text, std::move(lines) };
        }

        // Line breaks that libyaml knows (YAML 1.1) and yaml-cpp and split_into_lines do not:
        // a lone CR, NEL, LS and PS.
        auto has_other_line_breaks(std::string_view text) -> bool
        {
            for (std::size_t cr = text.find('\r'); cr != std::string_view::npos;
                 cr = text.find('\r', cr + 1))
            {
                if (cr + 1 == text.size() || text[cr + 1] != '\n')
                {
                    return true;
                }
            }
            return text.find("\xC2\x85") != std::string_view::npos ||
                   text.find("\xE2\x80\xA8") != std::string_view::npos ||
                   text.find("\xE2\x80\xA9") != std::string_view::npos;
        }

        // A byte order mark after the start: libyaml skips one at the start of any line (so
        // that what follows it is indented by a column), yaml-cpp and PyYAML read it as a
        // character of the scalar it stands in.
        auto has_inner_byte_order_mark(std::string_view text) -> bool
        {
            return text.find("\xEF\xBB\xBF", 1) != std::string_view::npos;
        }

        // An anchor or alias name followed by one of ? : % @ `: libyaml ends the name there,
        // yaml-cpp takes them into it (`&a::` is an anchored key ":" to one, an anchored empty
        // document to the other).
        auto has_anchor_read_two_ways(std::string_view text) -> bool
        {
            for (std::size_t at = text.find_first_of("&*"); at != std::string_view::npos;
                 at = text.find_first_of("&*", at + 1))
            {
                std::size_t end = at + 1;
                while (end < text.size() &&
                       (util::is_alnum(text[end]) || text[end] == '_' || text[end] == '-'))
                {
                    ++end;
                }
                if (end > at + 1 && end < text.size() &&
                    std::string_view("?:%@`").find(text[end]) != std::string_view::npos)
                {
                    return true;
                }
            }
            return false;
        }

        // A plain scalar over several lines whose first line has a property (a tag or an anchor,
        // `- !x a` or `&a a` and then `b`): libyaml folds it into one scalar, yaml-cpp ends it
        // at the line break and reads the next line as something else (in a sequence or at the
        // top level).
        auto is_folded_after_property(const yaml::Node& node, const std::vector<Line>& lines)
          -> bool
        {
            if (!node.is_scalar() || node.style() != yaml::ScalarStyle::plain || node.line() == 0 ||
                node.line() > lines.size())
            {
                return false;
            }
            // Folding joins the lines with a space (or a line break for an empty line).
            const std::string_view text = node.scalar_text();
            const std::string_view first_line = lines[node.line() - 1].text;
            return text.find_first_of(" \n") != std::string_view::npos &&
                   first_line.find(text) == std::string_view::npos &&
                   first_line.find_first_of("!&") != std::string_view::npos;
        }

        auto is_ascii(std::string_view text) -> bool
        {
            return std::all_of(text.begin(), text.end(),
                               [](char c) { return static_cast<unsigned char>(c) < 0x80; });
        }

        // A tag yaml-cpp reads as libyaml does: `!` and a local name, or `!!` and a core one,
        // of name characters. Others (`!!python!tuple`, which yaml-cpp refuses as two tags;
        // verbatim `!<...>`; handles) are left to yaml-cpp, so that they read as before.
        auto is_plain_tag(std::string_view tag) -> bool
        {
            constexpr std::string_view core = "tag:yaml.org,2002:";
            std::string_view name;
            if (tag.starts_with(core) && tag.size() > core.size())
            {
                name = tag.substr(core.size());
            }
            else if (tag.starts_with('!'))
            {
                name = tag.substr(1);
            }
            else
            {
                return false;
            }
            return std::all_of(name.begin(), name.end(),
                               [](char c) {
                                   return util::is_alnum(c) || c == '-' || c == '_' || c == '.' ||
                                          c == '/';
                               });
        }

        // libyaml's reading, or nullopt where it leaves the file to yaml-cpp: where libyaml
        // fails (yaml-cpp's message and position are the ones users and the goldens know), the
        // document is empty (yaml-cpp's null, even with a tag), or the reading would need a
        // position that libyaml gives elsewhere than yaml-cpp (an empty key), or the text holds
        // what the two read differently (other line breaks, an inner byte order mark, an anchor
        // name ending in a character only yaml-cpp takes, a tag that is_plain_tag refuses, a
        // tag or anchor before a plain scalar folded over lines).
        auto read_with_libyaml(const CheckedText& checked)
          -> std::optional<util::Result<EnvironmentFile, EnvDiagnostic>>
        {
            if (has_other_line_breaks(checked.text) || has_inner_byte_order_mark(checked.text) ||
                has_anchor_read_two_ways(checked.text))
            {
                return std::nullopt;
            }
            auto document = yaml::parse(checked.text, {});
            if (!document)
            {
                return std::nullopt;
            }
            const yaml::Node root = document->root();
            const bool both_read_alike = document->all_nodes(
              [&](const yaml::Node& node)
              {
                  return (node.tag().empty() || is_plain_tag(node.tag())) &&
                         !is_folded_after_property(node, checked.lines);
              });
            if (!root.exists() || (root.is_scalar() && root.scalar_text().empty()) ||
                !both_read_alike)
            {
                return std::nullopt;
            }
            LibyamlReading reading{ is_ascii(checked.text) ? nullptr : &checked.lines };
            if (!checked.text.empty() && checked.text.back() != '\n')
            {
                reading.unterminated_last_line = checked.lines.size();
            }
            Loader<LibyamlNode> loader(checked.text, checked.lines);
            auto failure = loader.load(LibyamlNode(root, &reading));
            if (reading.empty_key || reading.empty_at_end)
            {
                return std::nullopt;
            }
            if (failure)
            {
                return util::unexpected(std::move(*failure));
            }
            return loader.take();
        }

        // yaml-cpp's reading: the only one before libyaml, and still the one of every file
        // libyaml fails on.
        auto read_with_yaml_cpp(const CheckedText& checked)
          -> util::Result<EnvironmentFile, EnvDiagnostic>
        {
            try
            {
                const std::vector<YAML::Node> documents = YAML::LoadAll(std::string(checked.text));
                if (documents.empty() || documents.front().IsNull())
                {
                    return util::unexpected(
                      make_diagnostic(rule::empty, "the file has no content", { 1, 1 }));
                }
                for (std::size_t i = 1; i < documents.size(); ++i)
                {
                    if (!documents[i].IsNull())
                    {
                        TextPosition position = to_position(documents[i].Mark());
                        return util::unexpected(make_diagnostic(
                          rule::multiple_documents,
                          "a second YAML document starts here; conda reads one document per file",
                          position.line == 0 ? TextPosition{ 1, 1 } : position));
                    }
                }
                Loader<YamlCppNode> loader(checked.text, checked.lines);
                if (auto failure = loader.load(YamlCppNode(documents.front())))
                {
                    return util::unexpected(std::move(*failure));
                }
                return loader.take();
            }
            catch (const YAML::Exception& error)
            {
                TextPosition position = to_position(error.mark);
                return util::unexpected(
                  make_diagnostic(rule::syntax, explain_yaml_error(error.msg),
                                  position.line == 0 ? TextPosition{ 1, 1 } : position));
            }
            catch (const std::exception& error)
            {
                return util::unexpected(make_diagnostic(
                  rule::syntax, std::string("the YAML reader failed: ") + error.what(), { 1, 1 }));
            }
        }
    }

    auto loader_rules() -> std::span<const LoaderRule>
    {
        return rule_table;
    }

    auto load_environment_yaml(std::string_view text)
      -> util::Result<EnvironmentFile, EnvDiagnostic>
    {
        auto checked = check_text(text);
        if (!checked)
        {
            return util::unexpected(std::move(checked).error());
        }
        if (auto read = read_with_libyaml(*checked))
        {
            return std::move(*read);
        }
        return read_with_yaml_cpp(*checked);
    }

    auto read_environment_yaml_with_libyaml(std::string_view text)
      -> std::optional<util::Result<EnvironmentFile, EnvDiagnostic>>
    {
        auto checked = check_text(text);
        if (!checked)
        {
            return util::unexpected(std::move(checked).error());
        }
        return read_with_libyaml(*checked);
    }

    auto read_environment_yaml_with_yaml_cpp(std::string_view text)
      -> util::Result<EnvironmentFile, EnvDiagnostic>
    {
        auto checked = check_text(text);
        if (!checked)
        {
            return util::unexpected(std::move(checked).error());
        }
        return read_with_yaml_cpp(*checked);
    }

    auto parse_environment_yaml(std::string_view text, std::string_view file_name)
      -> util::Result<EnvironmentFile>
    {
        auto loaded = load_environment_yaml(text);
        if (!loaded)
        {
            const EnvDiagnostic& failure = loaded.error();
            return util::unexpected(
              util::make_error(util::ErrorKind::parse, failure.message + " [" + failure.rule + "]",
                               util::SourceLocation{ std::string(file_name), failure.position.line,
                                                     failure.position.column },
                               failure.fix));
        }
        return std::move(loaded).value();
    }

    auto has_errors(const EnvironmentFile& file) -> bool
    {
        return std::any_of(file.diagnostics.begin(), file.diagnostics.end(),
                           [](const EnvDiagnostic& diagnostic)
                           { return diagnostic.severity == model::Severity::error; });
    }
}
