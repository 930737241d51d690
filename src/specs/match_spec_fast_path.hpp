// The two ways MatchSpec::parse reads a spec, apart, for the tests that hold them together:
// parse() is parse_match_spec_common_shape(), the fast path for the shapes records' depends take
// (`name`, `name >=1.2`, `name >=1.0,<2.0a0`, `name 1.2.* py_0`, `numpy>=1.26`; nullopt for any
// other text), in front of parse_match_spec_full(), the whole grammar. Where the fast path
// answers, both give the same spec, spans and warnings.
#ifndef ENVCHECK_SPECS_MATCH_SPEC_FAST_PATH_HPP
#define ENVCHECK_SPECS_MATCH_SPEC_FAST_PATH_HPP

#include <optional>
#include <string_view>

#include "specs/match_spec.hpp"

namespace envcheck::specs
{
    [[nodiscard]] auto parse_match_spec_full(std::string_view text)
      -> util::Result<MatchSpec, util::ParseError>;
    [[nodiscard]] auto parse_match_spec_common_shape(std::string_view text)
      -> std::optional<MatchSpec>;
}

#endif
