#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "tests/catch.hpp"
#include "util/text_list.hpp"

using envcheck::util::TextList;

namespace
{
    TEST_CASE("TextList holds its texts as a vector of strings would", "[util][TextList]")
    {
        // Empty texts, texts that are prefixes of their neighbours, bytes past ASCII.
        const std::vector<std::vector<std::string>> cases{
            {},
            { "" },
            { "", "" },
            { "python >=3.10,<3.11.0a0" },
            { "libgcc >=13", "", "libgcc", "libgcc >=13", "z\xc3\xa9" },
            { "a", "ab", "abc", "" },
        };
        for (const auto& texts : cases)
        {
            CAPTURE(texts);
            TextList list;
            for (const auto& text : texts)
            {
                list.push_back(text);
            }
            REQUIRE(list.size() == texts.size());
            CHECK(list.empty() == texts.empty());
            for (std::size_t i = 0; i < texts.size(); ++i)
            {
                CHECK(list[i] == texts[i]);
            }
            CHECK(list.to_strings() == texts);
            CHECK(std::equal(list.begin(), list.end(), texts.begin(), texts.end()));
            CHECK(std::distance(list.begin(), list.end()) ==
                  static_cast<std::ptrdiff_t>(texts.size()));
            CHECK(TextList(texts) == list);
            if (!texts.empty())
            {
                CHECK(list.front() == texts.front());
                CHECK(list.back() == texts.back());
            }
            TextList copy = list;
            CHECK(copy == list);
            copy.push_back("one more");
            CHECK_FALSE(copy == list);
            copy.clear();
            CHECK(copy.empty());
            CHECK(copy == TextList{});
        }
    }

    TEST_CASE("TextLists compare by their texts, not by how the texts are cut", "[util][TextList]")
    {
        CHECK(TextList{ "ab", "c" } == TextList{ "ab", "c" });
        CHECK_FALSE(TextList{ "ab", "c" } == TextList{ "a", "bc" });
        CHECK_FALSE(TextList{ "abc" } == TextList{ "abc", "" });
        CHECK_FALSE(TextList{ "" } == TextList{});
    }
}
