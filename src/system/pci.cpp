#include "system/pci.hpp"

#include <string>

#include "util/strings.hpp"

namespace envcheck::system
{
    namespace
    {
        constexpr std::string_view devices_dir = "/sys/bus/pci/devices";

        auto read_trimmed(const SystemRoot& root, const std::string& path)
          -> std::optional<std::string>
        {
            const auto text = root.read_text(path);
            if (!text)
            {
                return std::nullopt;
            }
            const auto value = util::trim(*text);
            if (value.empty() || value == "Unknown")
            {
                return std::nullopt;
            }
            return std::string(value);
        }

        auto read_int(const SystemRoot& root, const std::string& path) -> std::optional<int>
        {
            const auto text = read_trimmed(root, path);
            if (!text)
            {
                return std::nullopt;
            }
            const auto value = util::parse_int(*text);
            if (!value || *value < -1 || *value > 4096)
            {
                return std::nullopt;
            }
            return static_cast<int>(*value);
        }
    }

    auto parse_sysfs_hex(std::string_view text) -> std::optional<unsigned>
    {
        auto value = util::trim(text);
        if (value.starts_with("0x") || value.starts_with("0X"))
        {
            value.remove_prefix(2);
        }
        if (value.empty() || value.size() > 8 || !util::is_hex(value))
        {
            return std::nullopt;
        }
        unsigned result = 0;
        for (const char c : value)
        {
            const unsigned digit = util::is_digit(c) ? static_cast<unsigned>(c - '0')
                                                     : static_cast<unsigned>((c | 0x20) - 'a' + 10);
            result = result * 16 + digit;
        }
        return result;
    }

    auto read_pci(const SystemRoot& root) -> model::PciFacts
    {
        model::PciFacts pci;
        const auto entries = root.list_directory(devices_dir);
        if (!entries)
        {
            return pci;
        }
        pci.sysfs_visible = true;
        for (const auto& address : *entries)
        {
            const std::string dir = std::string(devices_dir) + "/" + address;
            const auto vendor = root.read_text(dir + "/vendor");
            const auto vendor_id = vendor ? parse_sysfs_hex(*vendor) : std::nullopt;
            if (!vendor_id || *vendor_id != model::nvidia_vendor_id)
            {
                continue;
            }
            model::PciDevice device;
            device.address = address;
            device.vendor_id = *vendor_id;
            if (const auto id = root.read_text(dir + "/device"))
            {
                device.device_id = parse_sysfs_hex(*id).value_or(0);
            }
            if (const auto code = root.read_text(dir + "/class"))
            {
                device.class_code = parse_sysfs_hex(*code).value_or(0);
            }
            if (const auto driver = root.read_link(dir + "/driver"))
            {
                const auto slash = driver->rfind('/');
                device.driver = slash == std::string::npos ? *driver : driver->substr(slash + 1);
            }
            device.current_link_speed = read_trimmed(root, dir + "/current_link_speed");
            device.max_link_speed = read_trimmed(root, dir + "/max_link_speed");
            device.current_link_width = read_int(root, dir + "/current_link_width");
            device.max_link_width = read_int(root, dir + "/max_link_width");
            device.numa_node = read_int(root, dir + "/numa_node");
            pci.devices.push_back(std::move(device));
        }
        return pci;
    }
}
