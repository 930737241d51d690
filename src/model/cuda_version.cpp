#include "model/cuda_version.hpp"

#include "util/strings.hpp"

namespace envcheck::model
{
    auto CudaVersion::to_string() const -> std::string
    {
        return std::to_string(major) + "." + std::to_string(minor);
    }

    auto decode_cuda_version(int encoded) -> std::optional<CudaVersion>
    {
        // The minor is (v % 1000) / 10, not (v % 100) / 10, which breaks at minor >= 10.
        if (encoded < 1000 || encoded >= 100000 || encoded % 10 != 0)
        {
            return std::nullopt;
        }
        return CudaVersion{ encoded / 1000, (encoded % 1000) / 10 };
    }

    auto parse_cuda_version(std::string_view text) -> std::optional<CudaVersion>
    {
        const auto parts = util::split(util::trim(text), '.');
        if (parts.empty() || parts.size() > 3)
        {
            return std::nullopt;
        }
        const auto major = util::parse_uint(parts[0]);
        const auto minor =
          parts.size() > 1 ? util::parse_uint(parts[1]) : std::optional<unsigned long long>{ 0 };
        if (!major || !minor || *major == 0 || *major > 99 || *minor > 99 ||
            (parts.size() == 3 && !util::parse_uint(parts[2])))
        {
            return std::nullopt;
        }
        return CudaVersion{ static_cast<int>(*major), static_cast<int>(*minor) };
    }
}
