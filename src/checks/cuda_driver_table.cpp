#include "checks/cuda_driver_table.hpp"

#include <algorithm>
#include <array>

#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        struct Row
        {
            model::CudaVersion cuda;
            DriverVersion full;
        };

        // CUDA release notes Table 3, Linux x86_64, GA column (gpu-anchors.md §3.1). 13.3 from
        // the 13.3.0 release notes; 7.0-10.2 from the same table in the 11.x release notes.
        // There was no CUDA 12.7.
        constexpr std::array<Row, 31> rows{ {
          { { 7, 0 }, { 346, 46, 0 } },   { { 7, 5 }, { 352, 31, 0 } },
          { { 8, 0 }, { 367, 48, 0 } },   { { 9, 0 }, { 384, 81, 0 } },
          { { 9, 1 }, { 390, 46, 0 } },   { { 9, 2 }, { 396, 26, 0 } },
          { { 10, 0 }, { 410, 48, 0 } },  { { 10, 1 }, { 418, 39, 0 } },
          { { 10, 2 }, { 440, 33, 0 } },  { { 11, 0 }, { 450, 51, 5 } },
          { { 11, 1 }, { 455, 23, 0 } },  { { 11, 2 }, { 460, 27, 3 } },
          { { 11, 3 }, { 465, 19, 1 } },  { { 11, 4 }, { 470, 42, 1 } },
          { { 11, 5 }, { 495, 29, 5 } },  { { 11, 6 }, { 510, 39, 1 } },
          { { 11, 7 }, { 515, 43, 4 } },  { { 11, 8 }, { 520, 61, 5 } },
          { { 12, 0 }, { 525, 60, 13 } }, { { 12, 1 }, { 530, 30, 2 } },
          { { 12, 2 }, { 535, 54, 3 } },  { { 12, 3 }, { 545, 23, 6 } },
          { { 12, 4 }, { 550, 54, 14 } }, { { 12, 5 }, { 555, 42, 2 } },
          { { 12, 6 }, { 560, 28, 3 } },  { { 12, 8 }, { 570, 26, 0 } },
          { { 12, 9 }, { 575, 51, 3 } },  { { 13, 0 }, { 580, 65, 6 } },
          { { 13, 1 }, { 590, 44, 1 } },  { { 13, 2 }, { 595, 45, 4 } },
          { { 13, 3 }, { 610, 43, 2 } },
        } };

        struct Family
        {
            int major;
            DriverVersion minimum;
        };

        // Minor-version compatibility, CUDA release notes Table 2 (gpu-anchors.md §3.2); 11.x
        // uses the 450.80.02 that NVIDIA gives for 11.1-11.8 (11.0 itself needs its GA driver).
        constexpr std::array<Family, 3> families{ {
          { 11, { 450, 80, 2 } },
          { 12, { 525, 60, 13 } },
          { 13, { 580, 65, 6 } },
        } };

        auto find_row(model::CudaVersion cuda) -> const Row*
        {
            const auto* found = std::find_if(rows.begin(), rows.end(),
                                             [&](const Row& row) { return row.cuda == cuda; });
            return found == rows.end() ? nullptr : found;
        }
    }

    auto known_cuda_releases() -> std::span<const model::CudaVersion>
    {
        static const auto releases = []
        {
            std::array<model::CudaVersion, rows.size()> out{};
            std::transform(rows.begin(), rows.end(), out.begin(),
                           [](const Row& row) { return row.cuda; });
            return out;
        }();
        return releases;
    }

    auto DriverVersion::to_string() const -> std::string
    {
        std::string out = std::to_string(major) + "." + std::to_string(minor);
        if (patch != 0)
        {
            out += patch < 10 ? ".0" : ".";
            out += std::to_string(patch);
        }
        return out;
    }

    auto parse_driver_version(std::string_view text) -> std::optional<DriverVersion>
    {
        const auto parts = util::split(util::trim(text), '.');
        if (parts.empty() || parts.size() > 3)
        {
            return std::nullopt;
        }
        std::array<int, 3> numbers{ 0, 0, 0 };
        for (std::size_t i = 0; i < parts.size(); ++i)
        {
            const auto value = util::parse_uint(parts[i]);
            if (!value || *value > 99999)
            {
                return std::nullopt;
            }
            numbers[i] = static_cast<int>(*value);
        }
        if (numbers[0] < 100)
        {
            return std::nullopt; // "12.2" is a CUDA version, not a driver
        }
        return DriverVersion{ numbers[0], numbers[1], numbers[2] };
    }

    auto driver_requirement(model::CudaVersion cuda) -> std::optional<DriverRequirement>
    {
        const Row* row = find_row(cuda);
        if (row == nullptr)
        {
            return std::nullopt;
        }
        DriverVersion family = row->full;
        for (const auto& entry : families)
        {
            if (entry.major == cuda.major)
            {
                family = std::min(entry.minimum, row->full);
            }
        }
        return DriverRequirement{ cuda, row->full, family };
    }

    auto newest_cuda_for(DriverVersion driver) -> std::optional<model::CudaVersion>
    {
        std::optional<model::CudaVersion> newest;
        for (const auto& row : rows)
        {
            if (row.full <= driver)
            {
                newest = row.cuda;
            }
        }
        return newest;
    }

    auto to_string(DriverSupport support) -> std::string_view
    {
        switch (support)
        {
            case DriverSupport::full:
                return "full";
            case DriverSupport::minor_compat:
                return "minor_compat";
            case DriverSupport::unsupported:
                return "unsupported";
        }
        return "unsupported";
    }

    auto driver_support(model::CudaVersion runtime, DriverVersion driver)
      -> std::optional<DriverSupport>
    {
        const auto requirement = driver_requirement(runtime);
        if (!requirement)
        {
            return std::nullopt;
        }
        if (driver >= requirement->full)
        {
            return DriverSupport::full;
        }
        return driver >= requirement->family ? DriverSupport::minor_compat
                                             : DriverSupport::unsupported;
    }

    auto driver_support(model::CudaVersion runtime, model::CudaVersion driver_cuda)
      -> std::optional<DriverSupport>
    {
        const auto driver = driver_requirement(driver_cuda);
        if (!driver || !driver_requirement(runtime))
        {
            return std::nullopt;
        }
        return driver_support(runtime, driver->full);
    }
}
