// The specs parsers' character classes: util's inline ASCII ones.
#ifndef ENVCHECK_SPECS_CHARS_HPP
#define ENVCHECK_SPECS_CHARS_HPP

#include "util/chars.hpp"

namespace envcheck::specs
{
    namespace chars = util::chars;
}

#endif
