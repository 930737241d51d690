// A channel subdir's repodata.json, indexed for the few package names a check needs.
//
// conda-forge's linux-64 repodata is hundreds of MB, so no DOM is built: one pass over the text
// finds the top-level "info", "packages" and "packages.conda" objects; each package entry's key
// is its file name, "<name>-<version>-<build>.<ext>", and entries whose name is not wanted are
// skipped by bracket matching without looking inside (16 bytes at a time where SSE2 exists).
// Wanted entries are read field by field (name, version, build, build_number, subdir).
// tests/bench/bench_repodata.cpp measures the scan against Python's json and py-rattler.
//
// Pure: text in, values out. Malformed JSON fails with ErrorKind::parse and the line and
// column of the offending byte (the caller sets the file or URL in `where.file`). The structure
// inside skipped values is not validated.
#ifndef ENVCHECK_FORMATS_REPODATA_HPP
#define ENVCHECK_FORMATS_REPODATA_HPP

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "specs/package_record.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    struct RepodataRecord
    {
        std::string name;
        std::string version;
        std::string build;
        long long build_number = 0;
        std::string subdir; // the record's own, else info.subdir
        std::string fn;     // the entry's key: the artifact's file name

        auto operator==(const RepodataRecord&) const -> bool = default;
    };

    class RepodataIndex
    {
    public:
        // Indexes the entries whose package name is in `names` (every entry when `names` is
        // empty).
        [[nodiscard]] static auto build(std::string_view json, std::span<const std::string> names)
          -> util::Result<RepodataIndex>;

        // The records of one package, in file order ("packages" before "packages.conda").
        [[nodiscard]] auto records(std::string_view name) const -> std::span<const RepodataRecord>;
        // Whether any entry of the file (indexed or not) has this package name.
        [[nodiscard]] auto has_package(std::string_view name) const -> bool;
        // Every package name in the file, sorted, each once (for "did you mean").
        [[nodiscard]] auto package_names() const -> const std::vector<std::string>&
        {
            return m_package_names;
        }
        [[nodiscard]] auto subdir() const -> const std::string& { return m_subdir; }
        [[nodiscard]] auto indexed_count() const -> std::size_t;
        [[nodiscard]] auto entry_count() const -> std::size_t { return m_entry_count; }

    private:
        std::map<std::string, std::vector<RepodataRecord>, std::less<>> m_records;
        std::vector<std::string> m_package_names;
        std::string m_subdir;
        std::size_t m_entry_count = 0;

        friend class RepodataScanner;
    };

    // The record as the specs module matches it, with `channel` (a channel URL or name) as its
    // channel; fails when the version is not a conda version.
    [[nodiscard]] auto to_package_record(const RepodataRecord& record, std::string_view channel)
      -> util::Result<specs::PackageRecord, util::ParseError>;

    // The package name in a conda artifact file name ("numpy-1.26.4-py311h_0.conda" -> "numpy"),
    // or "" when the file name has no <version>-<build> part.
    [[nodiscard]] auto package_name_of_filename(std::string_view filename) -> std::string_view;
}

#endif
