#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

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

    // A hang is a failure, not a stuck test run: SIGALRM ends the test binary.
    struct HangGuard
    {
        HangGuard() { ::alarm(20); }
        ~HangGuard() { ::alarm(0); }
        HangGuard(const HangGuard&) = delete;
        auto operator=(const HangGuard&) -> HangGuard& = delete;
    };

    TEST_CASE("read_file reads regular files and this process's pipes", "[fsio][files]")
    {
        const HangGuard guard;
        const auto dir = temp_dir();
        const auto path = (dir / "a.txt").string();
        std::ofstream(path) << "hello\nworld\n";
        auto content = fsio::read_file(path);
        REQUIRE(content);
        CHECK(*content == "hello\nworld\n");

        // bash's <(...) hands over /dev/fd/N, a pipe that reports size 0: read until EOF.
        int ends[2];
        REQUIRE(::pipe(ends) == 0);
        const pid_t writer = ::fork();
        if (writer == 0)
        {
            ::close(ends[0]);
            const std::string text = "from a pipe";
            [[maybe_unused]] auto ignored = ::write(ends[1], text.data(), text.size());
            ::_exit(0);
        }
        ::close(ends[1]);
        auto piped = fsio::read_file("/dev/fd/" + std::to_string(ends[0]));
        ::close(ends[0]);
        ::waitpid(writer, nullptr, 0);
        REQUIRE(piped);
        CHECK(*piped == "from a pipe");
        fs::remove_all(dir);
    }

    TEST_CASE("read_file never blocks on a FIFO, a device or a silent pipe", "[fsio][files]")
    {
        const HangGuard guard;
        const auto dir = temp_dir();
        // A named FIFO with no writer, given where a file is meant (lint FIFO, METADATA).
        const auto fifo = (dir / "METADATA").string();
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        auto from_fifo = fsio::read_file(fifo);
        REQUIRE_FALSE(from_fifo);
        CHECK(from_fifo.error().kind == util::ErrorKind::io);
        CHECK(from_fifo.error().message.find("FIFO") != std::string::npos);

        // /dev/zero is endless: refused as a device, before any byte is read.
        auto zero = fsio::read_file("/dev/zero");
        REQUIRE_FALSE(zero);
        CHECK(zero.error().message.find("device") != std::string::npos);

        // A pipe whose writer neither writes nor closes: the idle deadline ends the read.
        int ends[2];
        REQUIRE(::pipe(ends) == 0);
        auto silent = fsio::read_file("/dev/fd/" + std::to_string(ends[0]), 1024,
                                      std::chrono::milliseconds(200));
        ::close(ends[0]);
        ::close(ends[1]);
        REQUIRE_FALSE(silent);
        CHECK(silent.error().kind == util::ErrorKind::timeout);
        fs::remove_all(dir);
    }

    TEST_CASE("read_file refuses a regular file over the limit by its size", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto sparse = (dir / "sparse").string();
        // A 2 GiB sparse file: read whole, it would take 2 GiB of memory before the check.
        {
            std::ofstream(sparse) << "";
        }
        fs::resize_file(sparse, std::uintmax_t{ 2 } << 30);
        auto limited = fsio::read_file(sparse, std::size_t{ 1 } << 20);
        REQUIRE_FALSE(limited);
        CHECK(limited.error().message.find("2147483648 bytes") != std::string::npos);
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

    TEST_CASE("AtomicFile puts pieces in place on commit, and nothing without it", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto path = (dir / "cache.body").string();
        REQUIRE(fsio::write_file_atomic(path, "old"));
        auto entries = [&dir]
        {
            std::size_t count = 0;
            for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir))
            {
                ++count;
            }
            return count;
        };
        {
            auto abandoned = fsio::AtomicFile::create(path, 0600);
            REQUIRE(abandoned);
            CHECK(abandoned->write("half of a "));
            CHECK(entries() == 2); // the target and the temporary file
        }
        CHECK(*fsio::read_file(path) == "old");
        CHECK(entries() == 1);

        auto file = fsio::AtomicFile::create(path, 0600);
        REQUIRE(file);
        CHECK(file->write("new "));
        CHECK(file->write("body"));
        CHECK(file->write_error().empty());
        REQUIRE(file->commit());
        CHECK(*fsio::read_file(path) == "new body");
        CHECK(entries() == 1);
        CHECK_FALSE(file->commit()); // once
        fs::remove_all(dir);
    }

    TEST_CASE("AtomicFile negative", "[fsio][files]")
    {
        const auto dir = temp_dir();
        auto on_directory = fsio::AtomicFile::create(dir.string());
        REQUIRE_FALSE(on_directory);
        CHECK(on_directory.error().message == "is a directory, not a file");
        auto on_stream = fsio::AtomicFile::create("/dev/null");
        REQUIRE_FALSE(on_stream);
        CHECK(on_stream.error().message == "is not a regular file");
        auto in_missing = fsio::AtomicFile::create((dir / "no" / "such").string());
        REQUIRE_FALSE(in_missing);
        CHECK(in_missing.error().kind == util::ErrorKind::io);
        fs::remove_all(dir);
    }

    TEST_CASE("write_file_atomic negative: a missing directory", "[fsio][files]")
    {
        auto written = fsio::write_file_atomic("/nonexistent/dir/out.json", "x");
        REQUIRE_FALSE(written);
        CHECK(written.error().kind == util::ErrorKind::io);
    }

    TEST_CASE("write_file_atomic writes through a non-regular target", "[fsio][files]")
    {
        const HangGuard guard;
        const auto dir = temp_dir();
        // A FIFO read by another process: written through, still a FIFO afterwards.
        const auto fifo = (dir / "out").string();
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        int ends[2];
        REQUIRE(::pipe(ends) == 0);
        const pid_t reader = ::fork();
        if (reader == 0)
        {
            ::close(ends[0]);
            std::ifstream in(fifo);
            const std::string got((std::istreambuf_iterator<char>(in)), {});
            [[maybe_unused]] auto ignored = ::write(ends[1], got.data(), got.size());
            ::_exit(0);
        }
        ::close(ends[1]);
        // The reader may not have opened it yet: retry while no process reads it.
        util::Result<void> written;
        for (int attempt = 0; attempt < 200; ++attempt)
        {
            written = fsio::write_file_atomic(fifo, "through");
            if (written)
            {
                break;
            }
            ::usleep(10'000);
        }
        REQUIRE(written);
        ::waitpid(reader, nullptr, 0);
        char buffer[64] = {};
        CHECK(std::string(buffer, static_cast<std::size_t>(::read(ends[0], buffer, 63))) ==
              "through");
        ::close(ends[0]);
        struct stat info
        {
        };
        REQUIRE(::lstat(fifo.c_str(), &info) == 0);
        CHECK(S_ISFIFO(info.st_mode));

        // A FIFO nobody reads fails at once rather than waiting.
        auto unread = fsio::write_file_atomic(fifo, "x");
        REQUIRE_FALSE(unread);
        INFO(unread.error().message);
        CHECK(unread.error().message.find("that no process reads") != std::string::npos);

        // One of our own descriptors (/dev/stdout, /dev/fd/N) is written, never replaced.
        int pipe_ends[2];
        REQUIRE(::pipe(pipe_ends) == 0);
        REQUIRE(fsio::write_file_atomic("/dev/fd/" + std::to_string(pipe_ends[1]), "to fd"));
        ::close(pipe_ends[1]);
        char from_fd[16] = {};
        CHECK(std::string(from_fd, static_cast<std::size_t>(::read(pipe_ends[0], from_fd, 15))) ==
              "to fd");
        ::close(pipe_ends[0]);
        CHECK(fsio::path_kind("/dev/zero") == fsio::PathKind::other);
        CHECK(fsio::path_kind("/dev/stdout") == fsio::PathKind::other);
        fs::remove_all(dir);
    }

    TEST_CASE("write_file_atomic create_new: one of two writers wins", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto path = (dir / "env.lock.json").string();
        REQUIRE(fsio::write_file_atomic(path, "first", 0644, fsio::WriteMode::create_new));
        auto second = fsio::write_file_atomic(path, "second", 0644, fsio::WriteMode::create_new);
        REQUIRE_FALSE(second);
        CHECK(second.error().message.find("exists") != std::string::npos);
        CHECK(*fsio::read_file(path) == "first");

        // Many processes at once: exactly one writes, the others are told it exists.
        const auto contested = (dir / "contested.json").string();
        std::vector<pid_t> writers;
        for (int i = 0; i < 8; ++i)
        {
            const pid_t child = ::fork();
            if (child == 0)
            {
                const auto done = fsio::write_file_atomic(contested, std::to_string(i), 0644,
                                                          fsio::WriteMode::create_new);
                ::_exit(done ? 0 : 1);
            }
            writers.push_back(child);
        }
        int winners = 0;
        for (const pid_t child : writers)
        {
            int status = 0;
            ::waitpid(child, &status, 0);
            winners += WEXITSTATUS(status) == 0 ? 1 : 0;
        }
        CHECK(winners == 1);
        std::size_t entries = 0;
        for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir))
        {
            ++entries;
        }
        CHECK(entries == 2); // no temporary files left
        fs::remove_all(dir);
    }

    TEST_CASE("write_file_atomic sweeps temporary files of dead writers", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto path = (dir / "lock.json").string();
        // A writer killed mid-write leaves its temporary file: make one with a dead PID.
        const pid_t child = ::fork();
        if (child == 0)
        {
            ::_exit(0);
        }
        ::waitpid(child, nullptr, 0);
        std::string dead_prefix = fsio::temporary_prefix(path);
        const auto own = std::to_string(::getpid()) + ".";
        dead_prefix.replace(dead_prefix.size() - own.size(), own.size(),
                            std::to_string(child) + ".");
        const auto stale = dead_prefix + "AbCdEf";
        std::ofstream(stale) << std::string(1000, 'x');
        // A live writer's (ours) is left alone; so is another file.
        const auto live = fsio::temporary_prefix(path) + "GhIjKl";
        std::ofstream(live) << "y";
        const auto other = (dir / ".lock.json.tmp.unrelated").string();
        std::ofstream(other) << "z";

        REQUIRE(fsio::write_file_atomic(path, "content"));
        CHECK_FALSE(fs::exists(stale));
        CHECK(fs::exists(live));
        CHECK(fs::exists(other));
        fs::remove_all(dir);
    }

    TEST_CASE("same_file compares by inode", "[fsio][files]")
    {
        const auto dir = temp_dir();
        const auto path = (dir / "a").string();
        std::ofstream(path) << "a";
        std::ofstream((dir / "b").string()) << "a";
        CHECK(fsio::same_file(path, (dir / "." / "a").string()));
        CHECK_FALSE(fsio::same_file(path, (dir / "b").string()));
        CHECK_FALSE(fsio::same_file(path, (dir / "missing").string()));
        fs::remove_all(dir);
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
