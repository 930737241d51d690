// Deterministic pseudo-random workloads for tests and benchmarks (tests/bench): xorshift64*, so
// that one seed makes the same inputs on every machine and standard library (the standard
// distributions differ between libraries). Changing it changes every generated workload.
#ifndef ENVCHECK_TESTS_RANDOM_HPP
#define ENVCHECK_TESTS_RANDOM_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::tests
{
    class Random
    {
    public:
        explicit Random(std::uint64_t seed)
          : m_state(seed)
        {
        }
        auto next() -> std::uint64_t
        {
            m_state ^= m_state >> 12;
            m_state ^= m_state << 25;
            m_state ^= m_state >> 27;
            return m_state * 2685821657736338717ULL;
        }
        // Modulo's slight bias towards small numbers does not matter for a workload.
        auto below(std::uint64_t bound) -> std::uint64_t { return next() % bound; }
        template<class T>
        auto pick(const std::vector<T>& items) -> const T&
        {
            return items[below(items.size())];
        }
        // `length` characters (at least one): the first from `first`, the others from `rest`.
        auto word(std::string_view first, std::string_view rest, std::size_t length) -> std::string
        {
            std::string out(1, first[below(first.size())]);
            for (std::size_t i = 1; i < length; ++i)
            {
                out += rest[below(rest.size())];
            }
            return out;
        }
        // Lowercase hexadecimal digits, as in hashes and build strings.
        auto hex(std::size_t digits) -> std::string
        {
            static constexpr std::string_view alphabet = "0123456789abcdef";
            std::string out(digits, '0');
            for (auto& c : out)
            {
                c = alphabet[below(alphabet.size())];
            }
            return out;
        }

    private:
        std::uint64_t m_state;
    };
}

#endif
