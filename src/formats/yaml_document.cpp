#include "formats/yaml_document.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <unordered_map>
#include <yaml.h>

#include "util/strings.hpp"

namespace envcheck::formats::yaml
{
    namespace
    {
        constexpr std::uint32_t no_index = std::numeric_limits<std::uint32_t>::max();

        auto style_of(yaml_scalar_style_t style) -> ScalarStyle
        {
            switch (style)
            {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE:
                    return ScalarStyle::single_quoted;
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
                    return ScalarStyle::double_quoted;
                case YAML_LITERAL_SCALAR_STYLE:
                    return ScalarStyle::literal;
                case YAML_FOLDED_SCALAR_STYLE:
                    return ScalarStyle::folded;
                default:
                    return ScalarStyle::plain;
            }
        }

        auto narrow(std::size_t value) -> std::uint32_t
        {
            return value >= no_index ? no_index - 1 : static_cast<std::uint32_t>(value);
        }

        struct ParserDeleter
        {
            void operator()(yaml_parser_t* parser) const
            {
                yaml_parser_delete(parser);
                delete parser;
            }
        };

        // An event that deletes itself.
        struct Event
        {
            yaml_event_t event{};
            bool held = false;

            Event() = default;
            Event(const Event&) = delete;
            auto operator=(const Event&) -> Event& = delete;
            ~Event() { release(); }

            void release()
            {
                if (held)
                {
                    yaml_event_delete(&event);
                    held = false;
                }
            }
        };
    }

    // Turns libyaml's events into a Document: a stack of open containers, each collecting the
    // indices of its children in `pending`, moved into Document::m_children when it closes.
    class Builder
    {
    public:
        Builder(Document& document, std::string_view file_name)
          : m_document(document)
          , m_file_name(file_name)
        {
        }

        auto run(std::string_view text) -> util::Result<void>
        {
            if (text.size() >= no_index / 2)
            {
                return fail("the text is larger than 2 GiB", 0, 0);
            }
            std::unique_ptr<yaml_parser_t, ParserDeleter> parser(new yaml_parser_t{});
            if (yaml_parser_initialize(parser.get()) == 0)
            {
                return util::unexpected(util::make_error(util::ErrorKind::internal,
                                                         "libyaml could not initialize a parser"));
            }
            yaml_parser_set_input_string(
              parser.get(), reinterpret_cast<const unsigned char*>(text.data()), text.size());
            m_document.m_nodes.reserve(text.size() / 24);
            m_document.m_children.reserve(text.size() / 24);
            m_document.m_text.reserve(text.size() / 2);
            int documents = 0;
            while (true)
            {
                Event event;
                if (yaml_parser_parse(parser.get(), &event.event) == 0)
                {
                    return parser_error(*parser, text);
                }
                event.held = true;
                const yaml_event_t& e = event.event;
                switch (e.type)
                {
                    case YAML_STREAM_END_EVENT:
                        return {};
                    case YAML_DOCUMENT_START_EVENT:
                        if (++documents > 1)
                        {
                            return fail("more than one YAML document ('---'); expected one",
                                        e.start_mark.line, e.start_mark.column);
                        }
                        break;
                    case YAML_SCALAR_EVENT:
                    {
                        const auto index = add_node(Kind::scalar, e.start_mark, e.data.scalar.tag);
                        auto& node = m_document.m_nodes[index];
                        node.style = style_of(e.data.scalar.style);
                        node.offset = narrow(m_document.m_text.size());
                        node.size = narrow(e.data.scalar.length);
                        m_document.m_text.append(reinterpret_cast<const char*>(e.data.scalar.value),
                                                 e.data.scalar.length);
                        remember_anchor(e.data.scalar.anchor, index);
                        attach(index);
                        break;
                    }
                    case YAML_SEQUENCE_START_EVENT:
                    case YAML_MAPPING_START_EVENT:
                    {
                        if (m_open.size() >= max_depth)
                        {
                            return fail("nesting deeper than " + std::to_string(max_depth) +
                                          " levels",
                                        e.start_mark.line, e.start_mark.column);
                        }
                        const bool sequence = e.type == YAML_SEQUENCE_START_EVENT;
                        const auto* tag =
                          sequence ? e.data.sequence_start.tag : e.data.mapping_start.tag;
                        const auto index =
                          add_node(sequence ? Kind::sequence : Kind::mapping, e.start_mark, tag);
                        remember_anchor(sequence ? e.data.sequence_start.anchor
                                                 : e.data.mapping_start.anchor,
                                        index);
                        open(index);
                        break;
                    }
                    case YAML_SEQUENCE_END_EVENT:
                    case YAML_MAPPING_END_EVENT:
                        attach(close());
                        break;
                    case YAML_ALIAS_EVENT:
                    {
                        const std::string anchor(
                          reinterpret_cast<const char*>(e.data.alias.anchor));
                        const auto found = m_anchors.find(anchor);
                        if (found == m_anchors.end())
                        {
                            return fail("alias *" + anchor + " refers to no anchor",
                                        e.start_mark.line, e.start_mark.column);
                        }
                        if (is_open(found->second))
                        {
                            return fail("alias *" + anchor +
                                          " refers to a node that contains it (a cycle)",
                                        e.start_mark.line, e.start_mark.column);
                        }
                        attach(found->second);
                        break;
                    }
                    default:
                        break;
                }
            }
        }

    private:
        struct Open
        {
            std::uint32_t index;
            std::size_t first_pending; // where this container's children start in m_pending
        };

        auto add_node(Kind kind, const yaml_mark_t& mark, const yaml_char_t* tag) -> std::uint32_t
        {
            Document::NodeData node;
            node.kind = kind;
            node.line = narrow(mark.line + 1);
            node.column = narrow(mark.column + 1);
            if (tag != nullptr)
            {
                const std::string_view tag_text(reinterpret_cast<const char*>(tag));
                node.tag_offset = narrow(m_document.m_text.size());
                node.tag_size = narrow(tag_text.size());
                m_document.m_text.append(tag_text);
            }
            m_document.m_nodes.push_back(node);
            return narrow(m_document.m_nodes.size() - 1);
        }

        void remember_anchor(const yaml_char_t* anchor, std::uint32_t index)
        {
            if (anchor != nullptr)
            {
                m_anchors[std::string(reinterpret_cast<const char*>(anchor))] = index;
            }
        }

        void open(std::uint32_t index) { m_open.push_back(Open{ index, m_pending.size() }); }

        auto close() -> std::uint32_t
        {
            const Open top = m_open.back();
            m_open.pop_back();
            auto& node = m_document.m_nodes[top.index];
            node.offset = narrow(m_document.m_children.size());
            node.size = narrow(m_pending.size() - top.first_pending);
            m_document.m_children.insert(
              m_document.m_children.end(),
              m_pending.begin() + static_cast<std::ptrdiff_t>(top.first_pending), m_pending.end());
            m_pending.resize(top.first_pending);
            return top.index;
        }

        void attach(std::uint32_t index)
        {
            if (m_open.empty())
            {
                m_document.m_root = index;
                m_document.m_has_root = true;
                return;
            }
            m_pending.push_back(index);
        }

        auto is_open(std::uint32_t index) const -> bool
        {
            for (const auto& open : m_open)
            {
                if (open.index == index)
                {
                    return true;
                }
            }
            return false;
        }

        auto fail(std::string message, std::size_t line, std::size_t column) -> util::Result<void>
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::parse, "invalid YAML: " + std::move(message),
              util::SourceLocation{ std::string(m_file_name), line + 1, column + 1 }));
        }

        auto parser_error(const yaml_parser_t& parser, std::string_view text) -> util::Result<void>
        {
            std::string message = parser.problem != nullptr ? parser.problem : "unreadable YAML";
            if (parser.error == YAML_READER_ERROR)
            {
                // The reader (bad UTF-8, control characters) knows a byte offset, not a mark.
                const auto position =
                  util::line_column_at(text, std::min(parser.problem_offset, text.size()));
                return fail(std::move(message), position.line - 1, position.column - 1);
            }
            if (parser.context != nullptr)
            {
                message += " (" + std::string(parser.context) + " at line " +
                           std::to_string(parser.context_mark.line + 1) + ", column " +
                           std::to_string(parser.context_mark.column + 1) + ")";
            }
            return fail(std::move(message), parser.problem_mark.line, parser.problem_mark.column);
        }

        Document& m_document;
        std::string_view m_file_name;
        std::vector<Open> m_open;
        std::vector<std::uint32_t> m_pending;
        std::unordered_map<std::string, std::uint32_t> m_anchors;
    };

    auto parse(std::string_view text, std::string_view file_name) -> util::Result<Document>
    {
        Document document;
        Builder builder(document, file_name);
        if (auto built = builder.run(text); !built)
        {
            return util::unexpected(built.error());
        }
        return document;
    }

    auto Document::root() const -> Node
    {
        return m_has_root ? Node(this, m_root) : Node();
    }

    auto Node::kind() const -> Kind
    {
        return m_document == nullptr ? Kind::missing : m_document->m_nodes[m_index].kind;
    }

    auto Node::is_null() const -> bool
    {
        if (m_document == nullptr)
        {
            return true;
        }
        const auto& node = m_document->m_nodes[m_index];
        if (node.kind != Kind::scalar || node.style != ScalarStyle::plain)
        {
            return false;
        }
        const std::string_view value(m_document->m_text.data() + node.offset, node.size);
        return value.empty() || value == "~" || value == "null" || value == "Null" ||
               value == "NULL";
    }

    auto Node::text() const -> std::string_view
    {
        if (m_document == nullptr)
        {
            return {};
        }
        const auto& node = m_document->m_nodes[m_index];
        if (node.kind != Kind::scalar || is_null())
        {
            return {};
        }
        return { m_document->m_text.data() + node.offset, node.size };
    }

    auto Node::scalar_text() const -> std::string_view
    {
        if (kind() != Kind::scalar)
        {
            return {};
        }
        const auto& node = m_document->m_nodes[m_index];
        return { m_document->m_text.data() + node.offset, node.size };
    }

    auto Node::style() const -> ScalarStyle
    {
        return m_document == nullptr ? ScalarStyle::plain : m_document->m_nodes[m_index].style;
    }

    auto Document::all_nodes(const std::function<bool(const Node&)>& accept) const -> bool
    {
        for (std::uint32_t index = 0; index < m_nodes.size(); ++index)
        {
            if (!accept(Node(this, index)))
            {
                return false;
            }
        }
        return true;
    }

    auto Node::tag() const -> std::string_view
    {
        if (m_document == nullptr)
        {
            return {};
        }
        const auto& node = m_document->m_nodes[m_index];
        return { m_document->m_text.data() + node.tag_offset, node.tag_size };
    }

    auto Node::line() const -> std::size_t
    {
        return m_document == nullptr ? 0 : m_document->m_nodes[m_index].line;
    }

    auto Node::column() const -> std::size_t
    {
        return m_document == nullptr ? 0 : m_document->m_nodes[m_index].column;
    }

    auto Node::location(std::string_view file_name) const -> util::SourceLocation
    {
        return util::SourceLocation{ std::string(file_name), line(), column() };
    }

    auto Node::size() const -> std::size_t
    {
        switch (kind())
        {
            case Kind::sequence:
                return m_document->m_nodes[m_index].size;
            case Kind::mapping:
                return m_document->m_nodes[m_index].size / 2;
            default:
                return 0;
        }
    }

    auto Node::item(std::size_t index) const -> Node
    {
        if (kind() != Kind::sequence || index >= size())
        {
            return {};
        }
        const auto& node = m_document->m_nodes[m_index];
        return Node(m_document, m_document->m_children[node.offset + index]);
    }

    auto Node::key(std::size_t index) const -> Node
    {
        if (kind() != Kind::mapping || index >= size())
        {
            return {};
        }
        const auto& node = m_document->m_nodes[m_index];
        return Node(m_document, m_document->m_children[node.offset + 2 * index]);
    }

    auto Node::value(std::size_t index) const -> Node
    {
        if (kind() != Kind::mapping || index >= size())
        {
            return {};
        }
        const auto& node = m_document->m_nodes[m_index];
        return Node(m_document, m_document->m_children[node.offset + 2 * index + 1]);
    }

    auto Node::get(std::string_view name) const -> Node
    {
        if (kind() != Kind::mapping)
        {
            return {};
        }
        const auto& node = m_document->m_nodes[m_index];
        const auto* children = m_document->m_children.data() + node.offset;
        for (std::uint32_t i = 0; i + 1 < node.size; i += 2)
        {
            const auto& key = m_document->m_nodes[children[i]];
            if (key.kind == Kind::scalar &&
                std::string_view(m_document->m_text.data() + key.offset, key.size) == name)
            {
                return Node(m_document, children[i + 1]);
            }
        }
        return {};
    }
}
