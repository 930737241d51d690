// One YAML document as a compact tree with positions, built from libyaml's event API: the
// reader of the lock formats (conda-lock.yml, pixi.lock) and of environment files.
//
// libyaml rather than yaml-cpp: its event parser reads a 1 MB pixi.lock 10x faster than
// yaml-cpp builds its node graph (tests/bench/RESULTS.md, "lock reading"). The tree is flat:
// nodes in one vector, container children in another, scalar text in one arena, so a 10 MB
// lock costs a handful of allocations, not one per node.
//
// What a reader sees: mappings, sequences and scalars, each with its line and column (1-based,
// columns in characters as libyaml counts them), the scalar's style (plain or quoted) and tag.
// Aliases share the anchored node; an alias to a node still being read (a cycle) is an error.
// Bad input never throws: a libyaml error, a second document or nesting deeper than
// max_depth comes back as a parse error with file, line and column.
#ifndef ENVCHECK_FORMATS_YAML_DOCUMENT_HPP
#define ENVCHECK_FORMATS_YAML_DOCUMENT_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::formats::yaml
{
    enum class Kind : std::uint8_t
    {
        missing, // a key or item that is not there
        scalar,
        sequence,
        mapping,
    };

    enum class ScalarStyle : std::uint8_t
    {
        plain,
        single_quoted,
        double_quoted,
        literal,
        folded,
    };

    inline constexpr std::size_t max_depth = 10000;

    class Document;

    // A view of one node of a Document; valid while the Document lives and is not moved.
    class Node
    {
    public:
        Node() = default;

        [[nodiscard]] auto kind() const -> Kind;
        [[nodiscard]] auto exists() const -> bool { return m_document != nullptr; }
        [[nodiscard]] auto is_scalar() const -> bool { return kind() == Kind::scalar; }
        [[nodiscard]] auto is_sequence() const -> bool { return kind() == Kind::sequence; }
        [[nodiscard]] auto is_mapping() const -> bool { return kind() == Kind::mapping; }
        // Missing, or a plain scalar that YAML reads as null: "", "~", "null", "Null", "NULL".
        [[nodiscard]] auto is_null() const -> bool;

        // A scalar's value; "" for containers, missing nodes and nulls.
        [[nodiscard]] auto text() const -> std::string_view;
        // A scalar's text as written, nulls included ("~" stays "~"); "" for containers.
        [[nodiscard]] auto scalar_text() const -> std::string_view;
        [[nodiscard]] auto style() const -> ScalarStyle;
        // The tag as written after resolution ("tag:yaml.org,2002:str", "!custom"); "" if none.
        [[nodiscard]] auto tag() const -> std::string_view;

        // 1-based; 0 for a missing node.
        [[nodiscard]] auto line() const -> std::size_t;
        [[nodiscard]] auto column() const -> std::size_t;
        [[nodiscard]] auto location(std::string_view file_name) const -> util::SourceLocation;

        // Items of a sequence, pairs of a mapping; 0 otherwise.
        [[nodiscard]] auto size() const -> std::size_t;
        // Sequence item i; missing when out of range or not a sequence.
        [[nodiscard]] auto item(std::size_t index) const -> Node;
        // Mapping pair i.
        [[nodiscard]] auto key(std::size_t index) const -> Node;
        [[nodiscard]] auto value(std::size_t index) const -> Node;
        // The value of the first pair whose key is the scalar `name`; missing when none (or when
        // this is not a mapping).
        [[nodiscard]] auto get(std::string_view name) const -> Node;
        // get(name).text().
        [[nodiscard]] auto text(std::string_view name) const -> std::string_view
        {
            return get(name).text();
        }

    private:
        friend class Document;
        Node(const Document* document, std::uint32_t index)
          : m_document(document)
          , m_index(index)
        {
        }

        const Document* m_document = nullptr;
        std::uint32_t m_index = 0;
    };

    class Document
    {
    public:
        Document() = default;
        Document(const Document&) = delete;
        auto operator=(const Document&) -> Document& = delete;
        Document(Document&&) noexcept = default;
        auto operator=(Document&&) noexcept -> Document& = default;
        ~Document() = default;

        // The top-level node; missing for an empty stream.
        [[nodiscard]] auto root() const -> Node;
        [[nodiscard]] auto node_count() const -> std::size_t { return m_nodes.size(); }
        // Whether `accept` holds for every node, each visited once however many aliases share
        // it (a walk of the tree through its aliases can take exponential time: `&a [x, x]`,
        // `&b [*a, *a]`, ...).
        [[nodiscard]] auto all_nodes(const std::function<bool(const Node&)>& accept) const -> bool;

    private:
        friend class Node;
        friend class Builder;

        struct NodeData
        {
            Kind kind = Kind::missing;
            ScalarStyle style = ScalarStyle::plain;
            std::uint32_t line = 0;
            std::uint32_t column = 0;
            std::uint32_t offset = 0; // scalar: into m_text; container: into m_children
            std::uint32_t size = 0;   // scalar: bytes; sequence: items; mapping: keys + values
            std::uint32_t tag_offset = 0;
            std::uint32_t tag_size = 0;
        };

        std::vector<NodeData> m_nodes;
        std::vector<std::uint32_t> m_children;
        std::string m_text;
        bool m_has_root = false;
        std::uint32_t m_root = 0;
    };

    // The one document of `text` (an empty stream gives a missing root).
    [[nodiscard]] auto parse(std::string_view text, std::string_view file_name)
      -> util::Result<Document>;
}

#endif
