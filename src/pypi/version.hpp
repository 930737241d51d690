// PEP 440 versions with the semantics of packaging's `Version` (packaging 26.x, the release pip
// vendors since pip 26.0): normalization, epochs, pre/post/dev releases, local labels and the
// full ordering (dev < pre < final < post; a local version sorts after its public version).
#ifndef ENVCHECK_PYPI_VERSION_HPP
#define ENVCHECK_PYPI_VERSION_HPP

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::pypi
{
    enum class PreReleaseKind : std::uint8_t
    {
        alpha, // "a"  (also written alpha)
        beta,  // "b"  (also written beta)
        rc,    // "rc" (also written c, pre, preview)
    };

    [[nodiscard]] auto to_string(PreReleaseKind kind) -> std::string_view;

    struct PreRelease
    {
        PreReleaseKind kind = PreReleaseKind::alpha;
        std::uint64_t number = 0;

        auto operator<=>(const PreRelease&) const = default;
    };

    class Version
    {
    public:
        // The pieces of a version; `local` is the normalized label ("ubuntu.1"), empty for none.
        struct Parts
        {
            std::uint64_t epoch = 0;
            std::vector<std::uint64_t> release = { 0 };
            std::optional<PreRelease> pre;
            std::optional<std::uint64_t> post;
            std::optional<std::uint64_t> dev;
            std::string local;
        };

        // Version "0".
        Version() = default;

        // Accepts every spelling packaging accepts ("v1.0-RC.1", "1.0-1", " 2!1.0_post2 ");
        // numbers must fit in 64 bits. The error points at the first character that does not fit
        // the grammar.
        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<Version, util::ParseError>;
        // Builds a version from parts; a non-empty release is required (an empty one means {0}).
        [[nodiscard]] static auto from_parts(Parts parts) -> Version;

        [[nodiscard]] auto epoch() const -> std::uint64_t { return m_epoch; }
        [[nodiscard]] auto release() const -> const std::vector<std::uint64_t>&
        {
            return m_release;
        }
        [[nodiscard]] auto pre() const -> const std::optional<PreRelease>& { return m_pre; }
        [[nodiscard]] auto post() const -> const std::optional<std::uint64_t>& { return m_post; }
        [[nodiscard]] auto dev() const -> const std::optional<std::uint64_t>& { return m_dev; }
        // The normalized local label without '+', empty when there is none.
        [[nodiscard]] auto local() const -> const std::string& { return m_local; }
        [[nodiscard]] auto parts() const -> Parts;

        [[nodiscard]] auto is_prerelease() const -> bool { return m_pre || m_dev; }
        [[nodiscard]] auto is_postrelease() const -> bool { return m_post.has_value(); }
        [[nodiscard]] auto is_devrelease() const -> bool { return m_dev.has_value(); }

        // The normalized form: "1!2.0rc1.post3.dev4+ubuntu.1".
        [[nodiscard]] auto to_string() const -> std::string;
        // Without the local label: "1!2.0rc1.post3.dev4".
        [[nodiscard]] auto public_version() const -> std::string;
        // Epoch and release only: "1!2.0".
        [[nodiscard]] auto base_version() const -> std::string;

        // PEP 440 order; trailing zeros of the release do not matter (1.0 == 1.0.0).
        friend auto operator<=>(const Version& a, const Version& b) -> std::strong_ordering;
        friend auto operator==(const Version& a, const Version& b) -> bool;

    private:
        std::uint64_t m_epoch = 0;
        std::vector<std::uint64_t> m_release = { 0 };
        std::optional<PreRelease> m_pre;
        std::optional<std::uint64_t> m_post;
        std::optional<std::uint64_t> m_dev;
        std::string m_local;
    };

    namespace detail
    {
        // Scans the longest PEP 440 version at `pos` of `text` (no surrounding whitespace).
        // `end` is where the scan stopped; `parts` holds the version when `ok`; otherwise
        // `error_offset`/`message` say what is wrong. `overflow`: the text has the shape of a
        // version (up to `end`) but a number does not fit in 64 bits. With allow_local false a
        // '+' ends the scan.
        struct VersionScan
        {
            bool ok = false;
            bool overflow = false;
            std::size_t end = 0;
            Version::Parts parts;
            std::size_t error_offset = 0;
            std::string message;
        };
        [[nodiscard]] auto scan_version(std::string_view text, std::size_t pos, bool allow_local)
          -> VersionScan;
    }
}

#endif
