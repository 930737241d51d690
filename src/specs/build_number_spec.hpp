// Build-number constraints: the `build_number` bracket key of a MatchSpec (mamba's
// BuildNumberSpec; conda's BuildNumberMatch).
//
//   3  =3  ==3   exactly 3          !=3  <3  <=3  >3  >=3   compared as integers
//   *  =*  ""    any build number   ^[0-9]$                 regex on the decimal text
//
// Choice: build numbers are non-negative integers (mamba). conda compares them as versions, so
// it also accepts `<2.4`; we reject that with an error, as mamba does.
#ifndef ENVCHECK_SPECS_BUILD_NUMBER_SPEC_HPP
#define ENVCHECK_SPECS_BUILD_NUMBER_SPEC_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "specs/regex.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::specs
{
    class BuildNumberSpec
    {
    public:
        enum class Operator
        {
            any,
            equal,
            not_equal,
            less,
            less_equal,
            greater,
            greater_equal,
            regex,
        };

        // The free spec.
        BuildNumberSpec() = default;

        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<BuildNumberSpec, util::ParseError>;

        [[nodiscard]] auto contains(std::uint64_t build_number) const -> bool;
        [[nodiscard]] auto to_string() const -> std::string;

        [[nodiscard]] auto op() const -> Operator { return m_op; }
        [[nodiscard]] auto value() const -> std::uint64_t { return m_value; }
        [[nodiscard]] auto is_free() const -> bool { return m_op == Operator::any; }

        friend auto operator==(const BuildNumberSpec& a, const BuildNumberSpec& b) -> bool;

    private:
        Operator m_op = Operator::any;
        std::uint64_t m_value = 0;
        std::shared_ptr<const Regex> m_regex;
    };
}

#endif
