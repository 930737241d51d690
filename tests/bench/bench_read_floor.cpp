// The read floor of a conda prefix (RESULTS.md, "check: scaling"): open, read and close every
// file of a directory on N threads, as envcheck's record reader does (openat against the
// directory, one read into a reused buffer), and nothing else: no parsing, no allocation per
// file. Whatever `check --lock` takes beyond this process is envcheck's own work.
//
// Usage: bench_read_floor DIR [THREADS]   (default: one per core). Prints the bytes read.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

auto main(int argc, char** argv) -> int
{
    if (argc < 2)
    {
        std::fprintf(stderr, "usage: bench_read_floor DIR [THREADS]\n");
        return 2;
    }
    DIR* directory = ::opendir(argv[1]);
    if (directory == nullptr)
    {
        std::perror(argv[1]);
        return 2;
    }
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(directory))
    {
        if (entry->d_name[0] != '.')
        {
            names.emplace_back(entry->d_name);
        }
    }
    std::sort(names.begin(), names.end());
    const unsigned threads =
      argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : std::thread::hardware_concurrency();
    const int fd = ::dirfd(directory);
    std::atomic<std::size_t> next{ 0 };
    std::atomic<std::size_t> total{ 0 };
    std::atomic<bool> failed{ false };
    const auto read_all = [&]
    {
        std::vector<char> buffer(std::size_t{ 256 } << 10);
        std::size_t bytes = 0;
        for (std::size_t i = next++; i < names.size(); i = next++)
        {
            const int file = ::openat(fd, names[i].c_str(), O_RDONLY | O_CLOEXEC);
            if (file < 0)
            {
                failed = true;
                continue;
            }
            for (ssize_t n = 0; (n = ::read(file, buffer.data(), buffer.size())) > 0;)
            {
                bytes += static_cast<std::size_t>(n);
                if (static_cast<std::size_t>(n) < buffer.size())
                {
                    break; // a regular file's short read is its end, as envcheck reads records
                }
            }
            ::close(file);
        }
        total += bytes;
    };
    std::vector<std::thread> workers;
    for (unsigned t = 1; t < std::max(threads, 1U); ++t)
    {
        workers.emplace_back(read_all);
    }
    read_all();
    for (auto& worker : workers)
    {
        worker.join();
    }
    ::closedir(directory);
    std::printf("%zu files, %zu bytes\n", names.size(), total.load());
    return failed ? 1 : 0;
}
