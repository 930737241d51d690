// Keeps a value until the process ends instead of freeing it piece by piece, as clang's
// -disable-free does: a command's outcome is the last thing it builds, and freeing the 20,000
// packages of a 10,000-record check was a twentieth of its time (issue 19). The value is held
// through a static pointer, so leak checkers count it reachable. For the composition root only:
// a library that kept its values would grow without bound.
#ifndef ENVCHECK_UTIL_KEEP_UNTIL_EXIT_HPP
#define ENVCHECK_UTIL_KEEP_UNTIL_EXIT_HPP

#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace envcheck::util
{
    template<class T>
    void keep_until_exit(T&& value)
    {
        using Value = std::decay_t<T>;
        static auto* const kept = new std::vector<std::unique_ptr<Value>>();
        kept->push_back(std::make_unique<Value>(std::forward<T>(value)));
    }
}

#endif
