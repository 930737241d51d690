// conda MatchSpecs (CEP 29, conda/models/match_spec.py): the query language of environment.yml
// dependencies, `conda install` arguments and the depends/constrains of every package record.
//
//   (channel(/subdir):(namespace):)name(version(build))([key1=value1,key2='value 2'])
//
//   numpy                     numpy >=1.26,<2             conda-forge::numpy>=1.26,<2
//   numpy=1.26                starts with 1.26            numpy 1.26   exactly 1.26 (CEP 29)
//   numpy=1.26.4=py312h8_0    exact version and build     pytorch=*=cuda*   build glob
//   conda-forge/linux-64::numpy                            */linux-64::numpy (any channel)
//   numpy[version='>=1.26,<2', build_number='>=1', md5=...] https://.../linux-64/pkg-1.0-h1_0.conda
//
// Choices (conda's classic parser wins where the references differ, unless said otherwise). The
// rule: every spec conda's classic parser (conda.models.match_spec) accepts is accepted, read
// as conda reads it, with a warning (warnings()) where conda ignores part of it or rattler,
// pixi or mamba would reject it. The exceptions are errors because conda would then install
// something the file did not ask for, or fail: a key=value conda drops (`[version>3]`,
// `[ version = 1 ]`, a value with an unquoted ','), unknown keys, and channels or names no
// package can have. (`~=1`, which conda accepts and then fails to compare, is read as mamba,
// conda's default solver, reads it: `>=1`, with a warning.)
// - conda reads a spec in steps, and so do we: the [key=value] list is cut out wherever it
//   stands (`fsspec[http]>=0.6` is `fsspec>=0.6`; warning when text follows it), then the
//   legacy `(target=..., optional)` block after any spec (warning; `optional` marks the spec
//   optional), and what is left is read as channel, name, version and build. A parenthesized
//   compound version after the name (`numpy (1.7|1.8)`) is kept, as CEP 29 allows it, with a
//   warning that conda's classic parser drops or rejects it.
// - In brackets conda picks out the key=value pairs and passes over the rest: bare words (pip
//   extras, `[ffmpeg]`) are dropped with a warning; `optional` alone is the legacy flag; a key
//   given twice keeps its last value (warning); `target=` and `optional=` are conda's legacy
//   keywords (warning). A bracket value replaces the positional one, which is then not read.
// - name, version and build are separated by spaces or '='. conda's _sanitize_version_str is
//   applied to the positional and the bracket version: without a build a leading `==` goes
//   (`pkg==*` is any version, `pkg==1.7.*` starts with 1.7, `pkg===1.2` is ==1.2), and `=V`
//   becomes `V*` (`pkg=1.8` starts with 1.8, `pkg=>1.2` is >1.2* with a warning). With a
//   '='-separated build `=V` is exact: `pkg=1.8=b`, `pkg==1.8=b`, `pkg 1.8 b`; `pkg =1.8 b`
//   stays fuzzy as CEP 29's table says (conda's code makes it exact; mamba makes every `=V=B`
//   fuzzy).
// - The version/build split is conda's: the build is the text after the first space or '=' that
//   is not preceded by an operator and is followed only by build characters; whitespace
//   between an operator and its version is skipped when looking back, so `xtensor  >=  0.12`
//   is a version (conda would take "0.12" for a build and fail). The build runs to the end, as
//   in conda: `pkg 1.2 py_0 x` has the build "py_0 x", which no package has (warning).
// - The empty (or blank) spec is the free spec `*`, as in conda and mamba.
// - A trailing '=' with nothing after it is ignored (`numpy=`), as conda does; other dangling
//   operators (`numpy>=`, `py>`) are errors.
// - A '#' starts a comment, except that a package URL may end in `#<md5>` or `#sha256:<hex>`
//   (explicit environment files); ` if ...` (the pre-CEP conditional form) is ignored as conda
//   ignores it, with a warning.
// - Bracket keys: channel subdir name version build build_number track_features features url
//   md5 sha256 license license_family fn, plus `when` (conditional dependencies, present in
//   real repodata: kept as text, not evaluated). Empty values are errors (conda agrees).
//   `name` in brackets is ignored with a warning, as in conda. The extras= and flags= keys of
//   conda's v3 parser are errors: the classic parser cannot match them. [channel=...] is
//   applied before [subdir=...], so the bracket subdir wins whatever the order written.
// - `channel[subdir]::name` (pre-CEP) is read.
// - Package files (`.conda`, `.tar.bz2`): URLs and paths become name/version/build/channel/
//   subdir/fn/url when the directory ends in a known subdir; otherwise, as conda, only url and
//   fn with name `*`. Absolute paths become file:// URLs; relative paths stay as written (a pure
//   module does not know the working directory).
// - The namespace (`channel:ns:name`) is parsed, kept in namespace_name(), ignored for matching
//   and not printed (CEP 29).
// - Names are lowercased; characters allowed are [a-z0-9._-] and '*' (globs), or a `^...$`
//   regex; a name cannot start with '.' or '-' or contain ".." or "--" (conda's tests), nor end
//   in .conda or .tar.bz2 (such text is a package file). conda does not check a name pattern
//   with '*': other characters are accepted there with a warning (it matches nothing), except
//   quotes, brackets, parentheses, '@', '#' and ':'. Control characters are rejected anywhere,
//   quotes and brackets in a positional build string, and a package path holding both kinds
//   of quote: none of these could be written back unambiguously.
// - to_string() is conda's str(MatchSpec), with these differences, each so that it re-parses to
//   an equal spec: glob versions go in brackets (conda writes `numpy==1.*.1`, which means
//   something else); a free build (`=*`) is dropped; a non-exact subdir goes in brackets; the
//   optional flag prints as `[optional]`; a `[url=...]` stays beside a channel (conda drops it
//   there). For package-URL specs conda's form drops url and fn,
//   so parse(to_string(x)) equals x there only up to those two fields.
#ifndef ENVCHECK_SPECS_MATCH_SPEC_HPP
#define ENVCHECK_SPECS_MATCH_SPEC_HPP

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "specs/build_number_spec.hpp"
#include "specs/channel.hpp"
#include "specs/package_record.hpp"
#include "specs/string_matcher.hpp"
#include "specs/version_spec.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::specs
{
    // A field of a MatchSpec; also the bracket keys (namespace_name has no key).
    enum class SpecField
    {
        channel,
        subdir,
        namespace_name,
        name,
        version,
        build,
        build_number,
        track_features,
        features,
        url,
        md5,
        sha256,
        license,
        license_family,
        fn,
        when,
    };
    inline constexpr std::size_t spec_field_count = 16;

    // The bracket key ("build_number"); "namespace" for namespace_name.
    [[nodiscard]] auto to_string(SpecField field) -> std::string_view;
    [[nodiscard]] auto parse_spec_field(std::string_view key) -> std::optional<SpecField>;

    // Where a field was written in the parsed text, so that lint can point at it.
    struct TextSpan
    {
        std::size_t offset = 0;
        std::size_t length = 0;
    };

    // The version specs of a run of MatchSpec::parse calls, each text parsed once: records'
    // depends repeat the same constraints (">=1.2.13,<2.0a0", ">=0.7") across thousands of spec
    // texts, and parsing them was half of parsing a spec (issue 19). Not shared between threads.
    class VersionSpecCache
    {
    public:
        // A parsed version spec, shared by every MatchSpec read through the cache.
        using Entry = util::Result<std::shared_ptr<const VersionSpec>, util::ParseError>;

        [[nodiscard]] auto parse(std::string_view text) -> const Entry&;

    private:
        struct Hash
        {
            using is_transparent = void;
            auto operator()(std::string_view text) const -> std::size_t
            {
                return std::hash<std::string_view>{}(text);
            }
        };
        std::unordered_map<std::string, Entry, Hash, std::equal_to<>> m_specs;
    };

    // A spec of the common shape (`name`, `name >=1.2,<2.0a0`, `name 1.2.* *_cp312`: nearly
    // every record's depends) read without a whole MatchSpec: its exact name, version spec and
    // build. Issue 19: the consistency check judges thousands of distinct texts by name,
    // version and build alone, and making and destroying a MatchSpec for each was a third of
    // judging them. What it reads and matches is what MatchSpec::parse and matches_identity
    // make of the same text (test_match_spec_fast_path).
    class CommonSpec
    {
    public:
        // nullopt for a text of any other shape, which MatchSpec::parse reads (or refuses).
        // The name points into `text`.
        [[nodiscard]] static auto parse(std::string_view text, VersionSpecCache& cache)
          -> std::optional<CommonSpec>;

        // Lowercase and exact.
        [[nodiscard]] auto name() const -> std::string_view { return m_name; }
        // MatchSpec::matches_identity for a package of this name (the shape sets no build
        // number).
        [[nodiscard]] auto matches_identity(const Version& version, std::string_view build) const
          -> bool;

    private:
        friend class MatchSpecParser;

        std::string_view m_name;
        std::shared_ptr<const VersionSpec> m_version; // null: any version
        std::optional<StringMatcher> m_build;         // none: any build
    };

    class MatchSpec
    {
    public:
        // The spec "*": every package.
        MatchSpec() = default;

        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<MatchSpec, util::ParseError>;
        // The same spec, its version spec taken from `cache` where the text has one.
        [[nodiscard]] static auto parse(std::string_view text, VersionSpecCache& cache)
          -> util::Result<MatchSpec, util::ParseError>;

        // Every field the spec sets must match the record.
        [[nodiscard]] auto matches(const PackageRecord& record) const -> bool;
        // Whether matches() reads more of a record than its name, version, build and build
        // number: a spec that does not is matched as well against a record of those four alone.
        [[nodiscard]] auto reads_record_details() const -> bool;
        // The part of matches() those four decide: all of it unless reads_record_details().
        [[nodiscard]] auto matches_identity(std::string_view name, const Version& version,
                                            std::string_view build,
                                            std::uint64_t build_number) const -> bool;

        // conda's canonical string (str(MatchSpec)): `conda-forge::numpy==1.26.4=py312h8_0`,
        // `numpy=1.26`, `numpy[version='>=1.26,<2']`.
        [[nodiscard]] auto to_string() const -> std::string;
        // conda's conda_build_form: "name version build" ("numpy 1.26.* py312*").
        [[nodiscard]] auto conda_build_form() const -> std::string;
        // conda's conda_env_form: to_string() without the channel and with the first "==" as
        // "=" ("numpy=1.26.4=py312h8_0"), as `conda env export` writes dependencies.
        [[nodiscard]] auto conda_env_form() const -> std::string;

        // Lowercase; the free matcher for `*`.
        [[nodiscard]] auto name() const -> const StringMatcher& { return m_name; }
        [[nodiscard]] auto version() const -> const VersionSpec&;
        [[nodiscard]] auto build() const -> const StringMatcher& { return m_build; }
        [[nodiscard]] auto build_number() const -> const BuildNumberSpec& { return m_build_number; }
        [[nodiscard]] auto channel() const -> const std::optional<Channel>& { return m_channel; }
        [[nodiscard]] auto subdir() const -> const std::optional<StringMatcher>&
        {
            return m_subdir;
        }
        [[nodiscard]] auto namespace_name() const -> const std::optional<std::string>&
        {
            return m_namespace;
        }
        [[nodiscard]] auto md5() const -> const std::optional<std::string>& { return m_md5; }
        [[nodiscard]] auto sha256() const -> const std::optional<std::string>& { return m_sha256; }
        [[nodiscard]] auto url() const -> const std::optional<std::string>& { return m_url; }
        [[nodiscard]] auto fn() const -> const std::optional<std::string>& { return m_fn; }
        [[nodiscard]] auto license() const -> const std::optional<StringMatcher>&
        {
            return m_license;
        }
        [[nodiscard]] auto license_family() const -> const std::optional<StringMatcher>&
        {
            return m_license_family;
        }
        // Sorted, without duplicates or empty entries.
        [[nodiscard]] auto track_features() const -> const std::optional<std::vector<std::string>>&
        {
            return m_track_features;
        }
        [[nodiscard]] auto features() const -> const std::optional<std::vector<std::string>>&
        {
            return m_features;
        }
        // A conditional dependency's condition (`[when="__linux"]`), as written.
        [[nodiscard]] auto when() const -> const std::optional<std::string>& { return m_when; }
        [[nodiscard]] auto is_optional() const -> bool { return m_optional; }
        // Written as a package URL or path.
        [[nodiscard]] auto is_package_file() const -> bool { return m_package_file; }
        // Only an exact name: `numpy`.
        [[nodiscard]] auto is_name_only() const -> bool;

        // Where a field's value was written in the parsed text (the bracket value when a bracket
        // overrode the positional one); nullopt for fields not written.
        [[nodiscard]] auto span(SpecField field) const -> std::optional<TextSpan>
        {
            return m_spans[static_cast<std::size_t>(field)];
        }
        // Deprecated or ignored forms the parser accepted (`>=1.8.*`, `[name=...]`, ` if ...`).
        [[nodiscard]] auto warnings() const -> const std::vector<SpecWarning>&
        {
            return m_warnings;
        }

        // Equal fields; the namespace, spans, warnings and spelling do not matter.
        friend auto operator==(const MatchSpec& a, const MatchSpec& b) -> bool;

    private:
        friend class MatchSpecParser;

        StringMatcher m_name;
        // Shared and immutable: the specs a VersionSpecCache reads share its version specs
        // (copying one was a fifth of judging 5,000 records' dependencies, issue 19); null is
        // the free spec.
        std::shared_ptr<const VersionSpec> m_version;
        StringMatcher m_build;
        BuildNumberSpec m_build_number;
        std::optional<Channel> m_channel;
        std::optional<StringMatcher> m_subdir;
        std::optional<std::string> m_namespace;
        std::optional<std::string> m_md5;
        std::optional<std::string> m_sha256;
        std::optional<std::string> m_url;
        std::optional<std::string> m_fn;
        std::optional<StringMatcher> m_license;
        std::optional<StringMatcher> m_license_family;
        std::optional<std::vector<std::string>> m_track_features;
        std::optional<std::vector<std::string>> m_features;
        std::optional<std::string> m_when;
        bool m_optional = false;
        bool m_package_file = false;
        std::array<std::optional<TextSpan>, spec_field_count> m_spans{};
        std::vector<SpecWarning> m_warnings;
    };
}

#endif
