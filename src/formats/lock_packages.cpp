#include "formats/lock_packages.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "formats/conda_meta_scanner.hpp"

namespace envcheck::formats
{
    namespace
    {
        // The next value is the literal `word` (null, true, false).
        auto take_literal(JsonScanner& scanner, std::string_view text, std::string_view word)
          -> bool
        {
            if (scanner.peek() != word.front())
            {
                return false;
            }
            const std::size_t begin = scanner.offset();
            return scanner.skip_value() && text.substr(begin, scanner.offset() - begin) == word;
        }

        auto take_null(JsonScanner& scanner, std::string_view text) -> bool
        {
            return take_literal(scanner, text, "null");
        }

        // A string, or null where the general reader keeps the default ("" for these fields).
        auto take_text(JsonScanner& scanner, std::string_view text, std::string& out) -> bool
        {
            return scanner.peek() == '"' ? scanner.read_string(out) : take_null(scanner, text);
        }

        auto take_required_text(JsonScanner& scanner, std::string& out) -> bool
        {
            return scanner.peek() == '"' && scanner.read_string(out);
        }

        auto take_bool(JsonScanner& scanner, std::string_view text, bool& out) -> bool
        {
            if (take_literal(scanner, text, "true"))
            {
                out = true;
                return true;
            }
            if (take_literal(scanner, text, "false"))
            {
                out = false;
                return true;
            }
            return take_null(scanner, text);
        }

        template<class Integer>
        auto take_integer(JsonScanner& scanner, std::string_view text, std::optional<Integer>& out)
          -> bool
        {
            const char next = scanner.peek();
            if (next == 'n')
            {
                out.reset();
                return take_null(scanner, text);
            }
            long long value = 0;
            if ((next != '-' && (next < '0' || next > '9')) || !scanner.read_integer(value) ||
                !std::in_range<Integer>(value))
            {
                return false;
            }
            out = static_cast<Integer>(value);
            return true;
        }

        // One object: `read(key)` reads the value of a key it knows and says whether it did.
        template<class ReadField>
        auto take_object(JsonScanner& scanner, std::string& scratch, ReadField&& read) -> bool
        {
            if (!scanner.expect('{'))
            {
                return false;
            }
            if (scanner.consume('}'))
            {
                return true;
            }
            do
            {
                const auto key = scanner.read_key(scratch);
                if (!key || !scanner.expect(':') || !read(*key))
                {
                    return false;
                }
            } while (scanner.consume(','));
            return scanner.expect('}');
        }

        auto take_direct_url(JsonScanner& scanner, std::string_view text,
                             util::Boxed<model::DirectUrl>& out) -> bool
        {
            if (scanner.peek() == 'n')
            {
                out.reset();
                return take_null(scanner, text);
            }
            model::DirectUrl url;
            bool has_url = false;
            const auto read = [&](std::string_view key)
            {
                if (key == "url")
                {
                    has_url = true;
                    return take_required_text(scanner, url.url);
                }
                if (key == "editable")
                {
                    return take_bool(scanner, text, url.editable);
                }
                std::string* field = key == "vcs"                  ? &url.vcs
                                     : key == "commit_id"          ? &url.commit_id
                                     : key == "requested_revision" ? &url.requested_revision
                                     : key == "archive_sha256"     ? &url.archive_sha256
                                                                   : nullptr;
                return field != nullptr && take_text(scanner, text, *field);
            };
            std::string scratch;
            if (!take_object(scanner, scratch, read) || !has_url)
            {
                return false;
            }
            out = std::move(url);
            return true;
        }

        // The fields `envcheck lock` writes, in the order it writes them (render_lock).
        enum class Field : std::uint8_t
        {
            manager,
            name,
            version,
            build,
            build_number,
            channel,
            subdir,
            url,
            filename,
            sha256,
            md5,
            size,
            requested,
            installer,
            direct_url,
        };

        constexpr std::array<std::string_view, 15> field_names{
            "manager", "name",   "version",   "build",     "build_number",
            "channel", "subdir", "url",       "filename",  "sha256",
            "md5",     "size",   "requested", "installer", "direct_url",
        };

        // The field of `key`, looked up from the one after the previous field first: the keys
        // come in the written order.
        auto field_of(std::string_view key, std::size_t& next) -> std::optional<Field>
        {
            for (std::size_t tried = 0; tried < field_names.size(); ++tried)
            {
                const std::size_t index = (next + tried) % field_names.size();
                if (field_names[index] == key)
                {
                    next = index + 1;
                    return static_cast<Field>(index);
                }
            }
            return std::nullopt;
        }

        auto text_field(Field field, model::Package& package) -> std::string*
        {
            switch (field)
            {
                case Field::build:
                    return &package.build;
                case Field::channel:
                    return &package.channel;
                case Field::subdir:
                    return &package.subdir;
                case Field::url:
                    return &package.url;
                case Field::filename:
                    return &package.filename;
                case Field::sha256:
                    return &package.sha256;
                case Field::md5:
                    return &package.md5;
                case Field::installer:
                    return &package.installer;
                default:
                    return nullptr;
            }
        }

        struct PackageScan
        {
            JsonScanner& scanner;
            std::string_view text;
            std::string& scratch;
            std::string manager;
            unsigned required_seen = 0; // manager, name, version

            auto read_field(Field field, model::Package& package) -> bool
            {
                switch (field)
                {
                    case Field::manager:
                        required_seen |= 1u;
                        return take_required_text(scanner, manager);
                    case Field::name:
                        required_seen |= 2u;
                        return take_required_text(scanner, package.name);
                    case Field::version:
                        required_seen |= 4u;
                        return take_required_text(scanner, package.version);
                    case Field::build_number:
                        return take_integer(scanner, text, package.build_number);
                    case Field::size:
                        return take_integer(scanner, text, package.size);
                    case Field::requested:
                        return take_bool(scanner, text, package.requested);
                    case Field::direct_url:
                        return take_direct_url(scanner, text, package.direct_url);
                    default:
                        return take_text(scanner, text, *text_field(field, package));
                }
            }

            auto read(model::Package& package) -> bool
            {
                manager.clear();
                required_seen = 0;
                std::size_t next = 0;
                const auto read_key = [&](std::string_view key)
                {
                    const auto field = field_of(key, next);
                    return field && read_field(*field, package);
                };
                if (!take_object(scanner, scratch, read_key) || required_seen != 7u)
                {
                    return false;
                }
                const auto parsed = model::parse_manager(manager);
                if (!parsed)
                {
                    return false;
                }
                package.manager = *parsed;
                return true;
            }
        };

        auto take_packages(JsonScanner& scanner, std::string_view text,
                           std::vector<model::Package>& packages) -> bool
        {
            if (!scanner.expect('['))
            {
                return false;
            }
            if (scanner.consume(']'))
            {
                return true;
            }
            // Sized once from the text: growing the vector by doubling held two copies of most
            // of a 10,000-package lock's packages at once (issue 19), and counting them first
            // was a third of reading the lock. A locked package takes 600 bytes or so, and the
            // smallest `envcheck lock` writes 300 or more: room for one per 256 bytes is enough,
            // and what is not filled is never touched (a list of smaller objects grows as usual).
            packages.reserve(text.size() / 256 + 1);
            std::string scratch;
            PackageScan scan{ scanner, text, scratch, {}, 0 };
            do
            {
                if (!scan.read(packages.emplace_back()))
                {
                    return false;
                }
            } while (scanner.consume(','));
            return scanner.expect(']');
        }
    }

    auto scan_lock_packages(std::string_view text) -> std::optional<ScannedLockPackages>
    {
        JsonScanner scanner(text);
        ScannedLockPackages scanned;
        bool found = false;
        std::string scratch;
        const auto read = [&](std::string_view key)
        {
            if (key != "packages")
            {
                return scanner.skip_value();
            }
            if (found)
            {
                return false; // a second list: the general reader decides which counts
            }
            found = true;
            (void)scanner.peek(); // past the whitespace
            scanned.begin = scanner.offset();
            if (!take_packages(scanner, text, scanned.packages))
            {
                return false;
            }
            scanned.end = scanner.offset();
            return true;
        };
        if (!take_object(scanner, scratch, read) || !found || !scanner.at_end_of_document())
        {
            return std::nullopt;
        }
        return scanned;
    }
}
