// A copy of a sysroot fixture (tests/data/roots/<scenario>) in a temporary directory, with the
// modes git cannot store: the placeholder device nodes under dev/ get 0666 (or the mode asked
// for). Removed again when the object goes.
#ifndef ENVCHECK_TESTS_SYSTEM_FIXTURE_ROOT_HPP
#define ENVCHECK_TESTS_SYSTEM_FIXTURE_ROOT_HPP

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/catch.hpp"

namespace envcheck::tests
{
    class TempDir
    {
    public:
        TempDir()
        {
            std::string pattern =
              (std::filesystem::temp_directory_path() / "envcheck-test-XXXXXX").string();
            REQUIRE(::mkdtemp(pattern.data()) != nullptr);
            m_path = pattern;
        }
        TempDir(const TempDir&) = delete;
        auto operator=(const TempDir&) -> TempDir& = delete;
        ~TempDir()
        {
            std::error_code ignored;
            std::filesystem::remove_all(m_path, ignored);
        }

        [[nodiscard]] auto path() const -> const std::filesystem::path& { return m_path; }
        [[nodiscard]] auto string() const -> std::string { return m_path.string(); }

    private:
        std::filesystem::path m_path;
    };

    class FixtureRoot
    {
    public:
        explicit FixtureRoot(const std::string& scenario,
                             std::filesystem::perms node_mode = std::filesystem::perms(0666))
        {
            const auto source = std::filesystem::path(ENVCHECK_TEST_DATA_DIR) / "roots" / scenario;
            REQUIRE(std::filesystem::is_directory(source));
            m_root = m_dir.path() / scenario;
            std::filesystem::copy(source, m_root,
                                  std::filesystem::copy_options::recursive |
                                    std::filesystem::copy_options::copy_symlinks);
            const auto dev = m_root / "dev";
            if (std::filesystem::is_directory(dev))
            {
                for (const auto& entry : std::filesystem::recursive_directory_iterator(dev))
                {
                    if (entry.is_regular_file())
                    {
                        std::filesystem::permissions(entry.path(), node_mode);
                    }
                }
            }
        }

        [[nodiscard]] auto path() const -> std::string { return m_root.string(); }

    private:
        TempDir m_dir;
        std::filesystem::path m_root;
    };
}

#endif
