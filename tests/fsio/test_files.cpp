#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsio/files.hpp"
#include "tests/catch.hpp"

namespace fs = std::filesystem;
using namespace envcheck;

namespace
{
    auto temp_dir() -> fs::path
    {
        const fs::path dir =
          fs::temp_directory_path() / ("envcheck-fsio-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        return dir;
    }

    TEST_CASE("read_file reads regular files and pipes", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto path = (dir / "a.txt").string();
        std::ofstream(path) << "hello\nworld\n";
        auto content = fsio::read_file(path);
        REQUIRE(content);
        CHECK(*content == "hello\nworld\n");

        // A FIFO reports size 0, like bash's process substitution: read until EOF anyway.
        const auto fifo = (dir / "fifo").string();
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        const pid_t writer = ::fork();
        if (writer == 0)
        {
            std::ofstream(fifo) << "from a pipe";
            ::_exit(0);
        }
        auto piped = fsio::read_file(fifo);
        REQUIRE(piped);
        CHECK(*piped == "from a pipe");
        fs::remove_all(dir);
    }

    TEST_CASE("read_file negative", "[fsio][files]")
    {
        auto missing = fsio::read_file("/nonexistent/envcheck.yml");
        REQUIRE_FALSE(missing);
        CHECK(missing.error().kind == util::ErrorKind::io);
        CHECK(missing.error().where.file == "/nonexistent/envcheck.yml");
        CHECK(missing.error().message.find("No such file") != std::string::npos);

        auto directory = fsio::read_file("/tmp");
        REQUIRE_FALSE(directory);
        CHECK(directory.error().message.find("directory") != std::string::npos);

        const auto dir = temp_dir();
        const auto big = (dir / "big").string();
        std::ofstream(big) << std::string(1000, 'x');
        auto limited = fsio::read_file(big, 100);
        REQUIRE_FALSE(limited);
        CHECK(limited.error().message.find("limit") != std::string::npos);
        fs::remove_all(dir);
    }

    TEST_CASE("write_file_atomic replaces content and keeps the mode", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto path = (dir / "lock.json").string();
        REQUIRE(fsio::write_file_atomic(path, "first"));
        CHECK(*fsio::read_file(path) == "first");
        ::chmod(path.c_str(), 0600);
        REQUIRE(fsio::write_file_atomic(path, "second"));
        CHECK(*fsio::read_file(path) == "second");
        struct stat info
        {
        };
        REQUIRE(::stat(path.c_str(), &info) == 0);
        CHECK((info.st_mode & 0777) == 0600);
        // No temporary files are left behind.
        std::size_t entries = 0;
        for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir))
        {
            ++entries;
        }
        CHECK(entries == 1);
        fs::remove_all(dir);
    }

    TEST_CASE("write_file_atomic negative: a missing directory", "[fsio][files]")
    {
        auto written = fsio::write_file_atomic("/nonexistent/dir/out.json", "x");
        REQUIRE_FALSE(written);
        CHECK(written.error().kind == util::ErrorKind::io);
    }

    TEST_CASE("FileLock excludes a second holder", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto path = (dir / "cache.lock").string();
        auto lock = fsio::FileLock::acquire(path);
        REQUIRE(lock);
        // A child process cannot take the lock while we hold it.
        const pid_t child = ::fork();
        if (child == 0)
        {
            const int fd = ::open(path.c_str(), O_RDWR);
            ::_exit(::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        CHECK(WEXITSTATUS(status) == 1);
        fs::remove_all(dir);
    }
}
