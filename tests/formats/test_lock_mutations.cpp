// Bad input never crashes the lock readers: real locks of every format, cut short and with
// bytes changed, deleted or repeated (deterministic, seeded), go through every reader that
// lint, check, diff and export use. Each call returns packages or an error with a message;
// nothing throws, nothing hangs.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/file_kind.hpp"
#include "formats/lock.hpp"
#include "formats/lock_packages.hpp"
#include "formats/yaml_document.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    auto read_file(const fs::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    class Random
    {
    public:
        explicit Random(std::uint64_t seed)
          : m_state(seed)
        {
        }
        auto below(std::size_t bound) -> std::size_t
        {
            m_state ^= m_state >> 12;
            m_state ^= m_state << 25;
            m_state ^= m_state >> 27;
            return static_cast<std::size_t>((m_state * 2685821657736338717ULL) % bound);
        }

    private:
        std::uint64_t m_state;
    };

    auto mutate(std::string text, Random& random) -> std::string
    {
        static const std::string bytes =
          std::string(":-[]{}#@&*!|>'\"%\t\n \xff\xc3") + std::string(1, '\0') + "abc019.=/";
        for (std::size_t edits = 1 + random.below(4); edits > 0 && !text.empty(); --edits)
        {
            const std::size_t at = random.below(text.size());
            switch (random.below(4))
            {
                case 0:
                    text[at] = bytes[random.below(bytes.size())];
                    break;
                case 1:
                    text.erase(at, 1 + random.below(40));
                    break;
                case 2:
                    text.insert(at, text.substr(random.below(text.size()), random.below(80)));
                    break;
                default:
                    text.resize(at);
                    break;
            }
        }
        return text;
    }

    TEST_CASE("lock readers survive mutated real locks", "[formats][Lock][robustness]")
    {
        std::vector<fs::path> files;
        for (const auto& folder : { fs::path(ENVCHECK_SHARED_DIR) / "corpus/locks",
                                    fs::path(ENVCHECK_TEST_DATA_DIR) / "locks" })
        {
            for (const auto& entry : fs::directory_iterator(folder))
            {
                // The small ones: many mutations each in little time.
                if (fs::file_size(entry.path()) < 200'000 &&
                    !entry.path().string().ends_with(".md"))
                {
                    files.push_back(entry.path());
                }
            }
        }
        REQUIRE(files.size() > 20);
        Random random(12);
        std::size_t errors = 0;
        std::size_t reads = 0;
        for (const auto& path : files)
        {
            const std::string original = read_file(path);
            for (int round = 0; round < 40; ++round)
            {
                const std::string text = mutate(original, random);
                CAPTURE(path.filename().string(), round);
                for (const std::string platform : { "linux-64", "win-64", "osx-arm64", "" })
                {
                    const auto lock = formats::parse_any_lock(text, "lock", { platform });
                    if (lock)
                    {
                        ++reads;
                    }
                    else
                    {
                        ++errors;
                        CHECK_FALSE(lock.error().message.empty());
                    }
                }
                const auto outline = formats::outline_lock(text, "lock");
                CHECK((outline.has_value() || !outline.error().message.empty()));
                (void)formats::lint_non_environment(text, "conda-lock.yml");
                (void)formats::yaml::parse(text, "lock");
            }
        }
        CHECK(errors > 0);
        CHECK(reads > 0);
    }

    // parse_lock reads the packages of a lock as `envcheck lock` writes it with a scanner
    // (formats/lock_packages.hpp) and anything else as a JSON document. A text whose first key
    // is a dummy "packages" (the document's last one counts) is always read as a document: both
    // ways must agree on every mutated lock, the packages and whether it is an error.
    TEST_CASE("parse_lock: the scanned packages are the document's", "[formats][Lock][robustness]")
    {
        Random random(19);
        std::size_t scanned = 0;
        for (const char* name : { "sample.lock.json", "pip-sources.lock.json" })
        {
            const std::string original =
              read_file(fs::path(ENVCHECK_TEST_DATA_DIR) / "locks" / name);
            REQUIRE(original.starts_with("{"));
            for (int round = 0; round < 400; ++round)
            {
                const std::string text = round == 0 ? original : mutate(original, random);
                CAPTURE(name, round, text);
                const auto fast = formats::parse_lock(text, "lock");
                const auto general = formats::parse_lock(
                  text.starts_with("{") ? "{\"packages\": [], " + text.substr(1) : text, "lock");
                REQUIRE(fast.has_value() == general.has_value());
                if (fast)
                {
                    CHECK(fast->packages == general->packages);
                    CHECK(formats::same_content(*fast, *general));
                    scanned += formats::scan_lock_packages(text).has_value() ? 1 : 0;
                }
                else
                {
                    CHECK(fast.error().kind == general.error().kind);
                }
            }
        }
        CHECK(scanned > 20);
    }
}
