// The one result type of envcheck: a value or a structured error, never an exception.
// A same-API subset of std::expected (C++23), because host code is built as C++20.
#ifndef ENVCHECK_UTIL_RESULT_HPP
#define ENVCHECK_UTIL_RESULT_HPP

#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

#include "util/error.hpp"

namespace envcheck::util
{
    template<class E>
    struct Unexpected
    {
        E error;
    };

    template<class E>
    [[nodiscard]] auto unexpected(E&& error) -> Unexpected<std::decay_t<E>>
    {
        return Unexpected<std::decay_t<E>>{ std::forward<E>(error) };
    }

    template<class T, class E = Error>
    class [[nodiscard]] Result
    {
    public:
        using value_type = T;
        using error_type = E;

        Result(const T& value)
          : m_storage(std::in_place_index<0>, value)
        {
        }
        Result(T&& value)
          : m_storage(std::in_place_index<0>, std::move(value))
        {
        }
        // The value made in place, as std::expected(std::in_place, args...).
        template<class... Args>
        explicit Result(std::in_place_t /*in_place*/, Args&&... args)
          : m_storage(std::in_place_index<0>, std::forward<Args>(args)...)
        {
        }
        // The requires clause rules out Result itself; clang-tidy 14 does not read it.
        // NOLINTBEGIN(bugprone-forwarding-reference-overload)
        template<class U>
        requires std::is_constructible_v<T, U&&> &&
          (!std::is_same_v<std::decay_t<U>, Result>)&&(!std::is_same_v<std::decay_t<U>, T>)
            Result(U&& value)
          : m_storage(std::in_place_index<0>, T(std::forward<U>(value)))
        {
        }
        // NOLINTEND(bugprone-forwarding-reference-overload)
        template<class G>
        Result(Unexpected<G> error)
          : m_storage(std::in_place_index<1>, E(std::move(error.error)))
        {
        }

        [[nodiscard]] auto has_value() const noexcept -> bool { return m_storage.index() == 0; }
        explicit operator bool() const noexcept { return has_value(); }

        [[nodiscard]] auto value() & -> T& { return checked_value(*this); }
        [[nodiscard]] auto value() const& -> const T& { return checked_value(*this); }
        [[nodiscard]] auto value() && -> T&& { return std::move(checked_value(*this)); }

        [[nodiscard]] auto error() const& -> const E&
        {
            if (has_value())
            {
                throw std::logic_error("envcheck: error() called on a Result that holds a value");
            }
            return std::get<1>(m_storage);
        }
        [[nodiscard]] auto error() && -> E&&
        {
            if (has_value())
            {
                throw std::logic_error("envcheck: error() called on a Result that holds a value");
            }
            return std::get<1>(std::move(m_storage));
        }

        auto operator*() & -> T& { return value(); }
        auto operator*() const& -> const T& { return value(); }
        auto operator*() && -> T&& { return std::move(*this).value(); }
        auto operator->() -> T* { return &value(); }
        auto operator->() const -> const T* { return &value(); }

        template<class U>
        [[nodiscard]] auto value_or(U&& fallback) const& -> T
        {
            return has_value() ? std::get<0>(m_storage) : T(std::forward<U>(fallback));
        }

    private:
        template<class Self>
        static auto checked_value(Self& self) -> decltype(std::get<0>(self.m_storage))
        {
            if (!self.has_value())
            {
                // Reading the value of a failed result is a bug in envcheck, not bad input.
                throw std::logic_error("envcheck: value() called on a Result that holds an error");
            }
            return std::get<0>(self.m_storage);
        }

        std::variant<T, E> m_storage;
    };

    template<class E>
    class [[nodiscard]] Result<void, E>
    {
    public:
        using value_type = void;
        using error_type = E;

        Result() = default;
        template<class G>
        Result(Unexpected<G> error)
          : m_error(E(std::move(error.error)))
          , m_ok(false)
        {
        }

        [[nodiscard]] auto has_value() const noexcept -> bool { return m_ok; }
        explicit operator bool() const noexcept { return m_ok; }
        [[nodiscard]] auto error() const& -> const E&
        {
            if (m_ok)
            {
                throw std::logic_error("envcheck: error() called on a Result that holds a value");
            }
            return m_error;
        }

    private:
        E m_error{};
        bool m_ok = true;
    };
}

#endif
