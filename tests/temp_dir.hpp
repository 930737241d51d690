// A fresh temporary directory (mkdtemp), removed with everything in it when the object goes.
#ifndef ENVCHECK_TESTS_TEMP_DIR_HPP
#define ENVCHECK_TESTS_TEMP_DIR_HPP

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

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
}

#endif
