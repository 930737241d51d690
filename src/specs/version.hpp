// conda version literals and their order (CEP 33, conda/models/version.py VersionOrder).
//
// A version is split into an epoch (`N!`, default 0), a main part and a local part (`+...`).
// Parts split into segments at '.' and '_' ('-' counts as '_' when the text has no '_'), and
// segments into runs of digits and of other characters. Digit runs compare as integers; "post"
// is greater and "dev" smaller than anything else; other strings compare byte-wise after
// lowercasing and are smaller than integers; a segment that starts with a letter gets a leading
// 0; missing atoms and segments count as 0, so 1.1 == 1.1.0 == 1.1.0.0. The local part is only
// compared when the main parts are equal.
//
// Choices where the references differ (we follow conda's code, checked against its test suite):
// - Digit runs are unbounded, as in conda (Python integers): CEP 33 says MUST NOT exceed 2^31-1,
//   but real packages carry date stamps like 20230215103000. Runs that do not fit in 64 bits
//   still compare exactly, as digit strings.
// - '*' is a legal character, as in conda (`0.5*` sorts below `0.5a1`, a run of '*' is a
//   string); it is how conda reads the operand of `>=1.0*`.
// - A single trailing '_' belongs to the last component (`1.0.1_` < `1.0.1a`, openssl style);
//   conda accepts the surrounding whitespace of " 1.0 " and so do we.
// - The local part splits on '.' and '_' only; its trailing '_' is an empty component (error).
// - "dev" is stored as "DEV", conda's own trick, so that byte order gives `'*' < 'DEV' < '_' <
//   'a'`; that is also why `1.0dev` does not start with `1.0d`, as in conda.
// - to_string() gives back the text as written (trimmed), as rattler does; conda prints the
//   lowercased text with '-' turned into '_'. Equality is conda's (1.0 == 1.0.0), so the
//   ordering is weak: equal versions can print differently.
#ifndef ENVCHECK_SPECS_VERSION_HPP
#define ENVCHECK_SPECS_VERSION_HPP

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::specs
{
    class Version
    {
    public:
        // The version "0".
        Version();

        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<Version, util::ParseError>;

        // The text as written, without surrounding whitespace.
        [[nodiscard]] auto text() const -> std::string_view
        {
            return std::string_view(m_buffer).substr(0, m_text_size);
        }
        [[nodiscard]] auto to_string() const -> std::string { return std::string(text()); }

        [[nodiscard]] auto has_local() const -> bool { return m_main_atoms != m_atoms.size(); }
        // The epoch (0 when not written); nullopt when it does not fit in 64 bits.
        [[nodiscard]] auto epoch() const -> std::optional<std::uint64_t>;

        // conda's VersionOrder.startswith: segment-aware prefix test, so "1.8" is a prefix of
        // 1.8.2 and 1.8a1 but not of 1.80; a string atom matches by string prefix (1.1c.1 starts
        // with 1.1c0? no; 0.4.1p1 starts with 0.4.1p: yes). A prefix with a local part requires
        // equal main parts and tests the local part instead.
        [[nodiscard]] auto starts_with(const Version& prefix) const -> bool;

        // `~=base`: at least `base` and starting with base minus its last '.'-separated part
        // (conda's compatible_release_operator). False when base has no '.' (conda raises).
        [[nodiscard]] auto compatible_with(const Version& base) const -> bool;
        // The prefix `~=` tests: the text up to the last '.', parsed; nullopt when there is none.
        [[nodiscard]] auto compatible_prefix() const -> std::optional<Version>;

        // Whether the last atom of the main part is an integer (not a string, not "post"), the
        // shape for which the versions starting with this one form a range; see bump_last().
        [[nodiscard]] auto ends_with_number() const -> bool;
        // For a version ending with a number N: the same text with N+1 and a '*' appended, the
        // smallest version above everything that starts with this one ("1.8" -> "1.9*").
        [[nodiscard]] auto next_prefix_bound() const -> std::optional<Version>;
        // This version with '*' appended ("1.8" -> "1.8*"), below every version that starts with
        // this one and has no '*' of its own.
        [[nodiscard]] auto prefix_floor() const -> std::optional<Version>;

        friend auto operator==(const Version& a, const Version& b) -> bool;
        friend auto operator<=>(const Version& a, const Version& b) -> std::weak_ordering;

    private:
        enum class AtomKind : std::uint8_t
        {
            text,       // letters (lowercased), runs of '*', a trailing '_'; "dev" is "DEV"
            number,     // fits in 64 bits
            big_number, // digits without leading zeros, compared as a string
            post,       // "post": above every integer
        };

        // 16 bytes: an integer, or the offset and length of its text in m_buffer.
        struct Atom
        {
            std::uint64_t payload = 0;
            AtomKind kind = AtomKind::number;
            bool starts_segment = false;
        };

        struct Range
        {
            const Atom* begin = nullptr;
            const Atom* end = nullptr;
        };

        // The atoms, inline up to inline_atoms (1.26.4 has 4, 2.1.0.post1 has 6) so that a
        // comparison touches no heap memory; longer versions spill to the heap.
        class AtomStore
        {
        public:
            static constexpr std::size_t inline_atoms = 6;

            void push_back(const Atom& atom)
            {
                if (m_size < inline_atoms)
                {
                    m_inline[m_size] = atom;
                }
                else
                {
                    if (m_size == inline_atoms)
                    {
                        m_spill.assign(m_inline.begin(), m_inline.end());
                    }
                    m_spill.push_back(atom);
                }
                ++m_size;
            }
            [[nodiscard]] auto data() const -> const Atom*
            {
                return m_size <= inline_atoms ? m_inline.data() : m_spill.data();
            }
            [[nodiscard]] auto size() const -> std::size_t { return m_size; }
            [[nodiscard]] auto operator[](std::size_t i) const -> const Atom& { return data()[i]; }

        private:
            std::array<Atom, inline_atoms> m_inline{};
            std::vector<Atom> m_spill;
            std::uint32_t m_size = 0;
        };

        struct Uninitialized
        {
        };
        explicit Version(Uninitialized) {}

        [[nodiscard]] auto main_part() const -> Range;
        [[nodiscard]] auto local_part() const -> Range;
        [[nodiscard]] auto atom_text(const Atom& atom) const -> std::string_view;
        [[nodiscard]] static auto compare_atoms(const Version& a, const Atom& x, const Version& b,
                                                const Atom& y) -> int;
        [[nodiscard]] static auto compare_parts(const Version& a, Range x, const Version& b,
                                                Range y) -> int;
        [[nodiscard]] static auto compare(const Version& a, const Version& b) -> int;

        friend class VersionParser;

        [[nodiscard]] auto normalized_text() const -> std::string_view
        {
            return std::string_view(m_buffer).substr(m_norm_offset, m_text_size);
        }

        // Atoms first: a comparison then reads the start of the object and little else.
        AtomStore m_atoms;              // epoch and main part, then the local part
        std::uint32_t m_main_atoms = 0; // atoms [0, m_main_atoms) are the epoch and main part
        std::uint32_t m_text_size = 0;
        std::uint32_t m_norm_offset = 0;
        // The text as written, then its normalized copy (lowercase, '-' as '_', "dev" as "DEV")
        // that string atoms point into; the copy is left out when it would be the same text.
        std::string m_buffer;
    };
}

#endif
