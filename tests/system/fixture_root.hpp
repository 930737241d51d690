// A copy of a sysroot fixture (tests/data/roots/<scenario>) in a temporary directory, with the
// modes git cannot store: the placeholder device nodes under dev/ get 0666 (or the mode asked
// for). Removed again when the object goes.
#ifndef ENVCHECK_TESTS_SYSTEM_FIXTURE_ROOT_HPP
#define ENVCHECK_TESTS_SYSTEM_FIXTURE_ROOT_HPP

#include <filesystem>
#include <string>

#include "tests/catch.hpp"
#include "tests/temp_dir.hpp"

namespace envcheck::tests
{
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
