// An optional value kept on the heap: the part of std::optional's interface that the models use,
// at the size of a pointer. For large members that are rarely present (model::Package's
// direct_url: 168 bytes in every package, present for a few pip packages; issue 19: smaller
// packages are fewer fresh pages to fault in when 10,000 are read). Copies copy the value, ==
// compares values, as std::optional's do.
#ifndef ENVCHECK_UTIL_BOXED_HPP
#define ENVCHECK_UTIL_BOXED_HPP

#include <memory>
#include <optional>
#include <utility>

namespace envcheck::util
{
    template<class T>
    class Boxed
    {
    public:
        Boxed() = default;
        Boxed(std::nullopt_t /*none*/) {} // NOLINT(google-explicit-constructor): as optional's
        Boxed(T value)                    // NOLINT(google-explicit-constructor): as optional's
          : m_value(std::make_unique<T>(std::move(value)))
        {
        }
        Boxed(std::optional<T> value) // NOLINT(google-explicit-constructor)
          : m_value(value ? std::make_unique<T>(std::move(*value)) : nullptr)
        {
        }
        Boxed(const Boxed& other)
          : m_value(other ? std::make_unique<T>(*other) : nullptr)
        {
        }
        Boxed(Boxed&&) noexcept = default;
        ~Boxed() = default;

        auto operator=(const Boxed& other) -> Boxed&
        {
            if (this != &other)
            {
                m_value = other ? std::make_unique<T>(*other) : nullptr;
            }
            return *this;
        }
        auto operator=(Boxed&&) noexcept -> Boxed& = default;
        auto operator=(std::nullopt_t /*none*/) -> Boxed&
        {
            m_value.reset();
            return *this;
        }
        auto operator=(T value) -> Boxed&
        {
            m_value = std::make_unique<T>(std::move(value));
            return *this;
        }

        template<class... Args>
        auto emplace(Args&&... args) -> T&
        {
            m_value = std::make_unique<T>(std::forward<Args>(args)...);
            return *m_value;
        }
        void reset() { m_value.reset(); }

        [[nodiscard]] auto has_value() const -> bool { return m_value != nullptr; }
        explicit operator bool() const { return has_value(); }
        auto operator*() -> T& { return *m_value; }
        auto operator*() const -> const T& { return *m_value; }
        auto operator->() -> T* { return m_value.get(); }
        auto operator->() const -> const T* { return m_value.get(); }
        [[nodiscard]] auto value() const -> const T&
        {
            if (!m_value)
            {
                throw std::bad_optional_access();
            }
            return *m_value;
        }

        friend auto operator==(const Boxed& a, const Boxed& b) -> bool
        {
            return a.has_value() == b.has_value() && (!a || *a == *b);
        }
        friend auto operator==(const Boxed& a, std::nullopt_t /*none*/) -> bool { return !a; }
        friend auto operator==(const Boxed& a, const T& b) -> bool { return a && *a == b; }

    private:
        std::unique_ptr<T> m_value;
    };
}

#endif
