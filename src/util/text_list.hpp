// A list of short texts kept one after another in one buffer, read as string_views: a
// package's depends. Issue 19: as a vector of strings, the 55,000 depends of 5,000 conda records
// were 70,000 allocations and 3.7 MB of fresh pages; as TextLists, 10,000 and 1.5 MB.
#ifndef ENVCHECK_UTIL_TEXT_LIST_HPP
#define ENVCHECK_UTIL_TEXT_LIST_HPP

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::util
{
    class TextList
    {
    public:
        // Reads the texts in order (a forward iterator: nothing needs more).
        class Iterator
        {
        public:
            using iterator_category = std::forward_iterator_tag;
            using value_type = std::string_view;
            using difference_type = std::ptrdiff_t;
            using pointer = void;
            using reference = std::string_view;

            Iterator() = default;
            Iterator(const TextList* list, std::size_t index)
              : m_list(list)
              , m_index(index)
            {
            }

            auto operator*() const -> std::string_view { return (*m_list)[m_index]; }
            auto operator++() -> Iterator&
            {
                ++m_index;
                return *this;
            }
            auto operator++(int) -> Iterator
            {
                Iterator before = *this;
                ++m_index;
                return before;
            }
            friend auto operator==(const Iterator& a, const Iterator& b) -> bool
            {
                return a.m_index == b.m_index;
            }

        private:
            const TextList* m_list = nullptr;
            std::size_t m_index = 0;
        };

        TextList() = default;
        TextList(std::initializer_list<std::string_view> texts)
        {
            for (const auto text : texts)
            {
                push_back(text);
            }
        }
        // NOLINTNEXTLINE(google-explicit-constructor): a list of strings is a list of texts
        TextList(const std::vector<std::string>& texts)
        {
            for (const auto& text : texts)
            {
                push_back(text);
            }
        }

        void push_back(std::string_view text)
        {
            m_text.append(text);
            m_ends.push_back(static_cast<std::uint32_t>(m_text.size()));
        }
        void clear()
        {
            m_text.clear();
            m_ends.clear();
        }

        [[nodiscard]] auto size() const -> std::size_t { return m_ends.size(); }
        [[nodiscard]] auto empty() const -> bool { return m_ends.empty(); }
        [[nodiscard]] auto operator[](std::size_t index) const -> std::string_view
        {
            const std::uint32_t begin = index == 0 ? 0 : m_ends[index - 1];
            return std::string_view(m_text).substr(begin, m_ends[index] - begin);
        }
        [[nodiscard]] auto front() const -> std::string_view { return (*this)[0]; }
        [[nodiscard]] auto back() const -> std::string_view { return (*this)[size() - 1]; }
        [[nodiscard]] auto begin() const -> Iterator { return { this, 0 }; }
        [[nodiscard]] auto end() const -> Iterator { return { this, size() }; }
        [[nodiscard]] auto to_strings() const -> std::vector<std::string>
        {
            return { begin(), end() };
        }

        friend auto operator==(const TextList& a, const TextList& b) -> bool = default;

    private:
        std::string m_text;                // the texts, one after another
        std::vector<std::uint32_t> m_ends; // where each ends in m_text
    };
}

#endif
