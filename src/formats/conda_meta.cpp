#include "formats/conda_meta.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "formats/conda_meta_scanner.hpp"
#include "formats/lock_json.hpp"
#include "util/strings.hpp"
#include "util/text_list.hpp"

namespace envcheck::formats
{
    namespace
    {
        using nlohmann::json;

        constexpr std::string_view dist_info_marker = ".dist-info/";
        constexpr std::string_view egg_info_marker = ".egg-info";

        // What is wrong with a record that cannot be read: its JSON, or, valid JSON, its shape.
        enum class RecordProblem
        {
            syntax,
            shape,
        };

        auto error_at(std::string_view text, std::string_view file_name, std::size_t offset,
                      std::string message, RecordProblem problem) -> util::Error
        {
            const auto position = util::line_column_at(text, std::min(offset, text.size()));
            return util::make_error(
              util::ErrorKind::parse, std::move(message),
              util::SourceLocation{ std::string(file_name), position.line, position.column },
              problem == RecordProblem::syntax
                ? "the record is not valid JSON; reinstall the package to rewrite it "
                  "(conda install --force-reinstall NAME), or remove the file"
                : "the file is JSON but not a record as conda writes them (another file "
                  "copied into conda-meta/?); reinstall the package to rewrite it (conda "
                  "install --force-reinstall NAME), or remove the file");
        }

        void add_anchor(std::vector<std::string>& anchors, std::string_view anchor)
        {
            // Files of one distribution are listed together, so checking the last one is enough
            // to keep the list short; a full dedupe happens in finish_anchors.
            if (anchors.empty() || anchors.back() != anchor)
            {
                anchors.emplace_back(anchor);
            }
        }

        void finish_anchors(std::vector<std::string>& anchors)
        {
            std::sort(anchors.begin(), anchors.end());
            anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
        }

        // The dist-info / egg-info paths of the `files` array, from the offsets of the "-info"
        // the skip found in its text: each is widened to its enclosing string and decoded.
        auto collect_anchors(std::string_view text, const std::vector<std::size_t>& info_hits,
                             std::vector<std::string>& anchors) -> bool
        {
            std::string decoded;
            std::size_t done = 0; // the end of the last string decoded
            for (const std::size_t hit : info_hits)
            {
                if (hit < done)
                {
                    continue; // another "-info" in a path already seen
                }
                std::size_t open = text.rfind('"', hit);
                while (open != std::string_view::npos && open > 0 && text[open - 1] == '\\')
                {
                    open = text.rfind('"', open - 1);
                }
                if (open == std::string_view::npos)
                {
                    return false;
                }
                JsonScanner scanner(text.substr(open));
                if (!scanner.read_string(decoded))
                {
                    return false;
                }
                done = open + scanner.offset();
                if (const auto anchor = python_anchor_of(decoded))
                {
                    add_anchor(anchors, *anchor);
                }
            }
            finish_anchors(anchors);
            return true;
        }

        // Where `noarch: python` paths are installed: "site-packages/x" lives under the
        // prefix's site-packages and "python-scripts/x" under bin/ (Scripts/ on Windows);
        // `files` lists the real locations.
        class NoarchPathMapper
        {
        public:
            explicit NoarchPathMapper(const std::vector<std::string>& files)
              : m_files(files.begin(), files.end())
            {
                for (const auto& file : files)
                {
                    if (const auto at = file.find("site-packages/");
                        at != std::string::npos && m_site_packages.empty())
                    {
                        m_site_packages = file.substr(0, at);
                    }
                    if (file.starts_with("Scripts/"))
                    {
                        m_scripts = "Scripts/";
                    }
                }
            }

            [[nodiscard]] auto map(const std::string& path) const -> std::string
            {
                if (m_files.contains(path))
                {
                    return path;
                }
                if (path.starts_with("site-packages/") && !m_site_packages.empty())
                {
                    return m_site_packages + path;
                }
                if (path.starts_with("python-scripts/"))
                {
                    return m_scripts + path.substr(std::string_view("python-scripts/").size());
                }
                return path;
            }

        private:
            std::unordered_set<std::string> m_files;
            std::string m_site_packages;
            std::string m_scripts = "bin/";
        };

        // One paths_data entry's expectation in the prefix (see model::InstalledFile).
        auto expected_file(std::string path, std::string_view path_type, std::string sha256,
                           std::string sha256_in_prefix, std::optional<std::uint64_t> size,
                           bool has_placeholder) -> model::InstalledFile
        {
            model::InstalledFile file;
            file.path = std::move(path);
            file.type = model::parse_path_type(path_type);
            if (!sha256_in_prefix.empty())
            {
                file.sha256 = std::move(sha256_in_prefix);
                file.size = has_placeholder ? std::nullopt : size;
            }
            else if (!has_placeholder)
            {
                file.sha256 = std::move(sha256);
                file.size = size;
            }
            return file;
        }

        // paths_data through nlohmann (deep mode only: every entry is needed).
        auto paths_from_json(const json& paths_data, std::vector<model::InstalledFile>& out,
                             std::string& problem) -> bool
        {
            if (!paths_data.is_object())
            {
                problem = "'paths_data' must be an object";
                return false;
            }
            const auto paths = paths_data.find("paths");
            if (paths == paths_data.end() || !paths->is_array())
            {
                problem = "'paths_data' has no 'paths' array";
                return false;
            }
            out.reserve(paths->size());
            for (const auto& entry : *paths)
            {
                const auto text = [&](const char* key) -> std::string
                {
                    const auto found = entry.find(key);
                    return found != entry.end() && found->is_string() ? found->get<std::string>()
                                                                      : std::string();
                };
                if (!entry.is_object() || text("_path").empty())
                {
                    problem = "a 'paths_data' entry has no '_path'";
                    return false;
                }
                std::optional<std::uint64_t> size;
                if (const auto found = entry.find("size_in_bytes");
                    found != entry.end() && found->is_number_unsigned())
                {
                    size = found->get<std::uint64_t>();
                }
                const bool placeholder =
                  entry.contains("prefix_placeholder") && !entry["prefix_placeholder"].is_null();
                out.push_back(expected_file(text("_path"), text("path_type"), text("sha256"),
                                            text("sha256_in_prefix"), size, placeholder));
            }
            return true;
        }

        void finish_record(CondaMetaRecord& record, const CondaMetaOptions& options)
        {
            auto& package = record.package;
            package.manager = model::Manager::conda;
            package.installer = "conda";
            util::lower_in_place(package.sha256);
            util::lower_in_place(package.md5);
            if (!options.files)
            {
                return;
            }
            for (const auto& file : record.files)
            {
                if (const auto anchor = python_anchor_of(file))
                {
                    add_anchor(record.python_anchors, *anchor);
                }
            }
            finish_anchors(record.python_anchors);
            if (record.noarch == "python")
            {
                const NoarchPathMapper mapper(record.files);
                for (auto& path : record.paths)
                {
                    path.path = mapper.map(path.path);
                }
            }
        }

        // Reading the keys after `paths_data` from the end of the record, so that the largest
        // value of a record (often most of its bytes) is never touched. conda, mamba and
        // rattler all write paths_data followed by a few small values (requested_spec(s),
        // sha256, size, subdir, timestamp, url, version; rattler: link). The tail is parsed
        // backward up to the value that starts where paths_data does. A container longer than
        // container_budget met on the way is taken to be paths_data when it is an object (no
        // writer puts a large object after it), and so is an object whose last pair is
        // "paths_version" (ends_with_paths_version), however short; anything else unexpected
        // (malformed text, a large array such as `files` written last) abandons the shortcut and
        // the record is read forward as usual. The inside of paths_data is then not checked at all.
        class TailReader
        {
        public:
            struct Pair
            {
                std::string key;
                std::size_t value_begin = 0;
                std::size_t value_end = 0;
            };

            TailReader(std::string_view text, std::size_t paths_data_begin)
              : m_text(text)
              , m_paths_data(paths_data_begin)
            {
            }

            // The pairs after paths_data, last first; nullopt when the shortcut does not apply.
            auto read() -> std::optional<std::vector<Pair>>
            {
                std::size_t at = skip_space_back(m_text.size());
                if (at <= m_paths_data || m_text[at - 1] != '}' || m_text[m_paths_data] != '{')
                {
                    return std::nullopt;
                }
                --at; // the record's closing brace
                std::vector<Pair> pairs;
                while (true)
                {
                    at = skip_space_back(at);
                    const std::size_t value_end = at;
                    const auto value_begin = value_back(value_end);
                    if (!value_begin)
                    {
                        return std::nullopt;
                    }
                    if (*value_begin == m_paths_data || *value_begin == too_large)
                    {
                        // Reached paths_data: the only large value expected here, an object.
                        const bool object = m_text[value_end - 1] == '}';
                        return object ? std::optional(std::move(pairs)) : std::nullopt;
                    }
                    if (*value_begin < m_paths_data)
                    {
                        return std::nullopt;
                    }
                    at = skip_space_back(*value_begin);
                    if (at == 0 || m_text[at - 1] != ':')
                    {
                        return std::nullopt;
                    }
                    at = skip_space_back(at - 1);
                    if (at == 0 || m_text[at - 1] != '"')
                    {
                        return std::nullopt;
                    }
                    const auto key_begin = string_back(at);
                    if (!key_begin)
                    {
                        return std::nullopt;
                    }
                    JsonScanner key_scanner(m_text.substr(*key_begin, at - *key_begin));
                    Pair pair;
                    if (!key_scanner.read_string(pair.key))
                    {
                        return std::nullopt;
                    }
                    pair.value_begin = *value_begin;
                    pair.value_end = value_end;
                    pairs.push_back(std::move(pair));
                    at = skip_space_back(*key_begin);
                    if (at == 0 || m_text[at - 1] != ',')
                    {
                        return std::nullopt;
                    }
                    --at;
                }
            }

        private:
            static constexpr std::size_t too_large = static_cast<std::size_t>(-1);
            static constexpr std::size_t container_budget = std::size_t{ 1 } << 10;

            static auto is_structural(char c) -> bool
            {
                static constexpr auto table = []
                {
                    std::array<bool, 256> stops{};
                    for (const char stop : std::string_view("\"[]{}"))
                    {
                        stops[static_cast<unsigned char>(stop)] = true;
                    }
                    return stops;
                }();
                return table[static_cast<unsigned char>(c)];
            }

            [[nodiscard]] auto skip_space_back(std::size_t at) const -> std::size_t
            {
                while (at > 0 && (m_text[at - 1] == ' ' || m_text[at - 1] == '\n' ||
                                  m_text[at - 1] == '\r' || m_text[at - 1] == '\t'))
                {
                    --at;
                }
                return at;
            }

            // The opening quote of the string whose closing quote is at end - 1: the nearest
            // quote before it that an even run of backslashes precedes.
            [[nodiscard]] auto string_back(std::size_t end) const -> std::optional<std::size_t>
            {
                std::size_t at = end - 1;
                while (at > 0)
                {
                    const auto* found = static_cast<const char*>(::memrchr(m_text.data(), '"', at));
                    if (found == nullptr)
                    {
                        return std::nullopt;
                    }
                    const auto quote = static_cast<std::size_t>(found - m_text.data());
                    std::size_t backslashes = 0;
                    while (quote > backslashes && m_text[quote - backslashes - 1] == '\\')
                    {
                        ++backslashes;
                    }
                    if (backslashes % 2 == 0)
                    {
                        return quote;
                    }
                    at = quote;
                }
                return std::nullopt;
            }

            // Whether the object ending at `end` ends with a `"paths_version": N` pair, as
            // paths_data does in conda's and mamba's records (sorted keys: "paths", then
            // "paths_version"): that object is paths_data, and crossing the end of its paths
            // backward to the budget was a sixth of reading a record (issue 19). No other object
            // of a record has that key. rattler writes "paths_version" first; its records are
            // crossed to the budget.
            [[nodiscard]] auto ends_with_paths_version(std::size_t end) const -> bool
            {
                std::size_t at = skip_space_back(end - 1);
                const std::size_t digits_end = at;
                while (at > 0 && util::is_digit(m_text[at - 1]))
                {
                    --at;
                }
                if (at == digits_end)
                {
                    return false;
                }
                at = skip_space_back(at);
                if (at == 0 || m_text[at - 1] != ':')
                {
                    return false;
                }
                at = skip_space_back(at - 1);
                constexpr std::string_view key = "\"paths_version\"";
                return at >= key.size() && m_text.substr(at - key.size(), key.size()) == key;
            }

            // Where the container whose closing bracket is at end - 1 begins; too_large when it
            // is longer than the budget.
            [[nodiscard]] auto container_back(std::size_t end) const -> std::optional<std::size_t>
            {
                std::vector<char> open{ m_text[end - 1] };
                std::size_t at = end - 1;
                const std::size_t limit = end > container_budget ? end - container_budget : 0;
                while (at > 0)
                {
                    // Past what is neither a quote nor a bracket in a tight loop: the last
                    // kilobyte of paths_data is crossed for every record whose paths_data is not
                    // known by its last pair (issue 19).
                    while (at > limit && !is_structural(m_text[at - 1]))
                    {
                        --at;
                    }
                    if (end - at > container_budget)
                    {
                        return too_large;
                    }
                    const char c = m_text[at - 1];
                    if (c == '"')
                    {
                        const auto begin = string_back(at);
                        if (!begin)
                        {
                            return std::nullopt;
                        }
                        at = *begin;
                        continue;
                    }
                    --at;
                    if (c == ']' || c == '}')
                    {
                        open.push_back(c);
                    }
                    else if (c == '[' || c == '{')
                    {
                        if (open.back() != (c == '[' ? ']' : '}'))
                        {
                            return std::nullopt;
                        }
                        open.pop_back();
                        if (open.empty())
                        {
                            return at;
                        }
                    }
                }
                return std::nullopt;
            }

            // Where the value ending at `end` begins; too_large for a container longer than the
            // budget, or paths_data known by its last pair.
            [[nodiscard]] auto value_back(std::size_t end) const -> std::optional<std::size_t>
            {
                if (end == 0)
                {
                    return std::nullopt;
                }
                const char last = m_text[end - 1];
                if (last == '"')
                {
                    return string_back(end);
                }
                if (last == '}' && ends_with_paths_version(end))
                {
                    return too_large; // paths_data, known by its last pair: not crossed
                }
                if (last == ']' || last == '}')
                {
                    return container_back(end);
                }
                std::size_t at = end;
                while (at > 0 && (util::is_alnum(m_text[at - 1]) || m_text[at - 1] == '.' ||
                                  m_text[at - 1] == '-' || m_text[at - 1] == '+'))
                {
                    --at;
                }
                return at == end ? std::nullopt : std::optional(at);
            }

            std::string_view m_text;
            std::size_t m_paths_data;
        };

        // ----------------------------------------------------------------------------------
        // The fast path
        // ----------------------------------------------------------------------------------
        // The keys FastReader reads; the rest are skipped.
        enum class Field
        {
            name,
            version,
            build,
            build_number,
            size,
            channel,
            subdir,
            url,
            fn,
            md5,
            sha256,
            requested_spec,
            requested_specs,
            depends,
            constrains,
            noarch,
            files,
            paths_data,
            other,
        };

        // A key's length picks the one or few names it can be: comparing every key with every
        // name in turn was 8 M of the 128 M instructions of reading 5,000 records (issue 19).
        auto field_of(std::string_view key) -> Field
        {
            const auto either = [&](std::string_view a, Field field_a, std::string_view b,
                                    Field field_b) {
                return key == a ? field_a : key == b ? field_b : Field::other;
            };
            switch (key.size())
            {
                case 2:
                    return key == "fn" ? Field::fn : Field::other;
                case 3:
                    return either("url", Field::url, "md5", Field::md5);
                case 4:
                    return either("name", Field::name, "size", Field::size);
                case 5:
                    return either("build", Field::build, "files", Field::files);
                case 6:
                    return key == "subdir"   ? Field::subdir
                           : key == "sha256" ? Field::sha256
                           : key == "noarch" ? Field::noarch
                                             : Field::other;
                case 7:
                    return key == "version"   ? Field::version
                           : key == "channel" ? Field::channel
                           : key == "depends" ? Field::depends
                                              : Field::other;
                case 10:
                    return either("constrains", Field::constrains, "paths_data", Field::paths_data);
                case 12:
                    return key == "build_number" ? Field::build_number : Field::other;
                case 14:
                    return key == "requested_spec" ? Field::requested_spec : Field::other;
                case 15:
                    return key == "requested_specs" ? Field::requested_specs : Field::other;
                default:
                    return Field::other;
            }
        }

        // What a reader reuses from record to record on its thread: the room a list of depends
        // grows into before it is copied into its package at its size.
        struct ReaderScratch
        {
            std::string value;
            util::TextList depends;
        };

        auto reader_scratch() -> ReaderScratch&
        {
            thread_local ReaderScratch scratch;
            return scratch;
        }

        class FastReader
        {
        public:
            FastReader(std::string_view text, const CondaMetaOptions& options)
              : m_text(text)
              , m_scanner(text)
              , m_options(options)
              , m_scratch(reader_scratch())
            {
            }

            auto read(CondaMetaRecord& record) -> bool
            {
                if (m_scanner.peek() != '{')
                {
                    return m_scanner.fail(
                      "a conda-meta record must be a JSON object, but it starts with " +
                      describe_character(m_text, m_scanner.offset()));
                }
                m_scanner.expect('{');
                bool has_name = false;
                bool has_version = false;
                bool has_build = false;
                if (!m_scanner.consume('}'))
                {
                    while (true)
                    {
                        const auto key = m_scanner.read_key(m_key_scratch);
                        if (!key || !m_scanner.expect(':'))
                        {
                            return false;
                        }
                        const Field field = field_of(*key);
                        note(field, has_name, has_version, has_build);
                        if (field == Field::paths_data && !m_options.files &&
                            m_scanner.peek() == '{')
                        {
                            if (const auto tail = TailReader(m_text, m_scanner.offset()).read())
                            {
                                record.has_paths_data = true;
                                if (!read_tail(*tail, record, has_name, has_version, has_build))
                                {
                                    return false;
                                }
                                break;
                            }
                        }
                        if (!read_field(*key, field, record))
                        {
                            return false;
                        }
                        if (m_scanner.consume(','))
                        {
                            continue;
                        }
                        if (!m_scanner.consume('}'))
                        {
                            return m_scanner.fail("expected ',' or '}' after the value of '" +
                                                  std::string(*key) + "' but found " +
                                                  describe_character(m_text, m_scanner.offset()));
                        }
                        break;
                    }
                }
                if (!m_scanner.at_end_of_document())
                {
                    return m_scanner.fail("unexpected text after the record's closing '}'");
                }
                for (const auto& [present, field] :
                     { std::pair{ has_name, "name" }, std::pair{ has_version, "version" },
                       std::pair{ has_build, "build" } })
                {
                    if (!present)
                    {
                        return m_scanner.fail_at(0,
                                                 std::string("the record has no '") + field + "'");
                    }
                }
                return true;
            }

            [[nodiscard]] auto scanner() const -> const JsonScanner& { return m_scanner; }

        private:
            static void note(Field field, bool& has_name, bool& has_version, bool& has_build)
            {
                has_name = has_name || field == Field::name;
                has_version = has_version || field == Field::version;
                has_build = has_build || field == Field::build;
            }

            // The pairs TailReader found after paths_data, in file order.
            auto read_tail(const std::vector<TailReader::Pair>& tail, CondaMetaRecord& record,
                           bool& has_name, bool& has_version, bool& has_build) -> bool
            {
                for (auto pair = tail.rbegin(); pair != tail.rend(); ++pair)
                {
                    const Field field = field_of(pair->key);
                    note(field, has_name, has_version, has_build);
                    m_scanner.seek(pair->value_begin);
                    if (!read_field(pair->key, field, record))
                    {
                        return false;
                    }
                    if (m_scanner.offset() != pair->value_end)
                    {
                        return m_scanner.fail("unexpected text after the value of '" + pair->key +
                                              "'");
                    }
                }
                m_scanner.seek(m_text.size());
                return true;
            }

            // `field`: field_of(key); `key` names it in messages.
            auto read_field(std::string_view key, Field field, CondaMetaRecord& record) -> bool
            {
                auto& package = record.package;
                switch (field)
                {
                    case Field::name:
                    {
                        return required_string(key, package.name);
                    }
                    case Field::version:
                    {
                        return required_string(key, package.version);
                    }
                    case Field::build:
                    {
                        return required_string(key, package.build);
                    }
                    case Field::build_number:
                    {
                        return optional_integer(key, package.build_number);
                    }
                    case Field::size:
                    {
                        std::optional<long long> size;
                        if (!optional_integer(key, size))
                        {
                            return false;
                        }
                        package.size =
                          size && *size >= 0
                            ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*size))
                            : std::nullopt;
                        return true;
                    }
                    case Field::channel:
                    {
                        return optional_string(key, package.channel);
                    }
                    case Field::subdir:
                    {
                        return optional_string(key, package.subdir);
                    }
                    case Field::url:
                    {
                        return optional_string(key, package.url);
                    }
                    case Field::fn:
                    {
                        return optional_string(key, package.filename);
                    }
                    case Field::md5:
                    {
                        return optional_string(key, package.md5);
                    }
                    case Field::sha256:
                    {
                        return optional_string(key, package.sha256);
                    }
                    case Field::requested_spec:
                    {
                        std::string spec;
                        if (!optional_string(key, spec))
                        {
                            return false;
                        }
                        package.requested = package.requested || !spec.empty();
                        return true;
                    }
                    case Field::requested_specs:
                    {
                        std::vector<std::string> specs;
                        if (!string_array(key, specs))
                        {
                            return false;
                        }
                        package.requested = package.requested || !specs.empty();
                        return true;
                    }
                    case Field::depends:
                    {
                        // Read into a list that keeps its room, then copied: one allocation
                        // per buffer instead of one per doubling.
                        if (!string_array(key, m_scratch.depends))
                        {
                            return false;
                        }
                        package.depends = m_scratch.depends;
                        return true;
                    }
                    case Field::constrains:
                    {
                        return string_array(key, record.constrains);
                    }
                    case Field::noarch:
                    {
                        // "python" / "generic"; very old records wrote a boolean.
                        if (m_scanner.peek() == '"')
                        {
                            return m_scanner.read_string(record.noarch);
                        }
                        return m_scanner.skip_value();
                    }
                    case Field::files:
                    {
                        if (m_options.files)
                        {
                            return string_array(key, record.files);
                        }
                        m_info_hits.clear();
                        if (!m_scanner.skip_container(&m_info_hits))
                        {
                            return false;
                        }
                        const std::size_t begin = m_scanner.value_begin();
                        if (m_text[begin] != '[' ||
                            !collect_anchors(m_text, m_info_hits, record.python_anchors))
                        {
                            return m_scanner.fail_at(begin, "'files' must be a list of strings");
                        }
                        return true;
                    }
                    case Field::paths_data:
                    {
                        if (!m_scanner.skip_container())
                        {
                            return false;
                        }
                        const std::size_t begin = m_scanner.value_begin();
                        record.has_paths_data = m_text[begin] == '{';
                        if (!m_options.files || !record.has_paths_data)
                        {
                            return true;
                        }
                        const json paths_data = json::parse(
                          m_text.substr(begin, m_scanner.offset() - begin), nullptr, false);
                        std::string problem;
                        if (paths_data.is_discarded() ||
                            !paths_from_json(paths_data, record.paths, problem))
                        {
                            return m_scanner.fail_at(
                              begin, problem.empty() ? "'paths_data' is not valid JSON" : problem);
                        }
                        return true;
                    }
                    case Field::other:
                        break;
                }
                return m_scanner.skip_value();
            }

            auto type_error(std::string_view key, std::string_view expected) -> bool
            {
                return m_scanner.fail("'" + std::string(key) + "' must be " +
                                      std::string(expected) + ", not " +
                                      describe_character(m_text, m_scanner.offset()));
            }

            auto required_string(std::string_view key, std::string& out) -> bool
            {
                if (m_scanner.peek() != '"')
                {
                    return type_error(key, "a string");
                }
                return m_scanner.read_string(out);
            }

            auto optional_string(std::string_view key, std::string& out) -> bool
            {
                const char next = m_scanner.peek();
                if (next == 'n')
                {
                    out.clear();
                    return m_scanner.skip_value();
                }
                if (next != '"')
                {
                    return type_error(key, "a string or null");
                }
                return m_scanner.read_string(out);
            }

            auto optional_integer(std::string_view key, std::optional<long long>& out) -> bool
            {
                const char next = m_scanner.peek();
                if (next == 'n')
                {
                    out.reset();
                    return m_scanner.skip_value();
                }
                if (next != '-' && !util::is_digit(next))
                {
                    return type_error(key, "an integer or null");
                }
                long long value = 0;
                if (!m_scanner.read_integer(value))
                {
                    return false;
                }
                out = value;
                return true;
            }

            template<class List>
            auto string_array(std::string_view key, List& out) -> bool
            {
                out.clear();
                const char next = m_scanner.peek();
                if (next == 'n')
                {
                    return m_scanner.skip_value();
                }
                if (next != '[')
                {
                    return type_error(key, "a list of strings");
                }
                m_scanner.expect('[');
                if (m_scanner.consume(']'))
                {
                    return true;
                }
                while (true)
                {
                    if (m_scanner.peek() != '"')
                    {
                        return type_error(key, "a list of strings");
                    }
                    if constexpr (std::is_same_v<List, util::TextList>)
                    {
                        if (!m_scanner.read_string(m_scratch.value))
                        {
                            return false;
                        }
                        out.push_back(m_scratch.value);
                    }
                    else if (!m_scanner.read_string(out.emplace_back()))
                    {
                        return false;
                    }
                    if (m_scanner.consume(','))
                    {
                        continue;
                    }
                    if (!m_scanner.consume(']'))
                    {
                        return m_scanner.fail("expected ',' or ']' in '" + std::string(key) +
                                              "' but found " +
                                              describe_character(m_text, m_scanner.offset()));
                    }
                    return true;
                }
            }

            std::string_view m_text;
            JsonScanner m_scanner;
            const CondaMetaOptions& m_options;
            std::string m_key_scratch;
            ReaderScratch& m_scratch;
            std::vector<std::size_t> m_info_hits;
        };

        // ----------------------------------------------------------------------------------
        // The full path
        // ----------------------------------------------------------------------------------
        // The fields of a record read with nlohmann::json (the records FastReader does not
        // take); the messages are FastReader's.
        auto string_field(const json& document, const char* key, std::string& out, bool required,
                          std::string& problem) -> bool
        {
            const auto found = document.find(key);
            if (found == document.end() || found->is_null())
            {
                if (required)
                {
                    problem = std::string("the record has no '") + key + "'";
                }
                return !required;
            }
            if (!found->is_string())
            {
                problem = std::string("'") + key + "' must be a string";
                return false;
            }
            out = found->get<std::string>();
            return true;
        }

        template<class List>
        auto string_list(const json& document, const char* key, List& out, std::string& problem)
          -> bool
        {
            const auto found = document.find(key);
            if (found == document.end() || found->is_null())
            {
                return true;
            }
            if (!found->is_array() ||
                !std::all_of(found->begin(), found->end(),
                             [](const json& item) { return item.is_string(); }))
            {
                problem = std::string("'") + key + "' must be a list of strings";
                return false;
            }
            for (const auto& item : *found)
            {
                out.push_back(item.get_ref<const std::string&>());
            }
            return true;
        }

        // An integer or null; nullopt for null or absent, false (with the problem) otherwise.
        auto integer_field(const json& document, const char* key, std::optional<long long>& out,
                           std::string& problem) -> bool
        {
            const auto found = document.find(key);
            if (found == document.end() || found->is_null())
            {
                return true;
            }
            if (!found->is_number_integer())
            {
                problem = std::string("'") + key + "' must be an integer or null";
                return false;
            }
            out = found->get<long long>();
            return true;
        }

        auto package_from_json(const json& document, model::Package& package, std::string& problem)
          -> bool
        {
            std::optional<long long> size;
            std::string requested_spec;
            std::vector<std::string> requested_specs;
            if (!string_field(document, "name", package.name, true, problem) ||
                !string_field(document, "version", package.version, true, problem) ||
                !string_field(document, "build", package.build, true, problem) ||
                !string_field(document, "channel", package.channel, false, problem) ||
                !string_field(document, "subdir", package.subdir, false, problem) ||
                !string_field(document, "url", package.url, false, problem) ||
                !string_field(document, "fn", package.filename, false, problem) ||
                !string_field(document, "md5", package.md5, false, problem) ||
                !string_field(document, "sha256", package.sha256, false, problem) ||
                !integer_field(document, "build_number", package.build_number, problem) ||
                !integer_field(document, "size", size, problem) ||
                !string_field(document, "requested_spec", requested_spec, false, problem) ||
                !string_list(document, "requested_specs", requested_specs, problem) ||
                !string_list(document, "depends", package.depends, problem))
            {
                return false;
            }
            if (size && *size >= 0)
            {
                package.size = static_cast<std::uint64_t>(*size);
            }
            package.requested = !requested_spec.empty() || !requested_specs.empty();
            return true;
        }

        // `files` (kept, or only their Python anchors) and `paths_data`.
        auto files_from_json(const json& document, const CondaMetaOptions& options,
                             CondaMetaRecord& record, std::string& problem) -> bool
        {
            std::vector<std::string> files;
            if (!string_list(document, "files", files, problem))
            {
                return false;
            }
            if (options.files)
            {
                record.files = std::move(files);
            }
            else
            {
                for (const auto& file : files)
                {
                    if (const auto anchor = python_anchor_of(file))
                    {
                        add_anchor(record.python_anchors, *anchor);
                    }
                }
                finish_anchors(record.python_anchors);
            }
            if (const auto found = document.find("paths_data"); found != document.end())
            {
                record.has_paths_data = found->is_object();
                if (options.files && record.has_paths_data &&
                    !paths_from_json(*found, record.paths, problem))
                {
                    return false;
                }
            }
            return true;
        }

        auto record_from_json(const json& document, const CondaMetaOptions& options,
                              CondaMetaRecord& record, std::string& problem) -> bool
        {
            if (!document.is_object())
            {
                problem = "a conda-meta record must be a JSON object";
                return false;
            }
            if (!package_from_json(document, record.package, problem) ||
                !string_list(document, "constrains", record.constrains, problem))
            {
                return false;
            }
            if (const auto found = document.find("noarch");
                found != document.end() && found->is_string())
            {
                record.noarch = found->get<std::string>();
            }
            return files_from_json(document, options, record, problem);
        }

        // The record through a full JSON document; `problem` says what a failure is about.
        auto read_full(std::string_view text, std::string_view file_name,
                       const CondaMetaOptions& options, RecordProblem& problem)
          -> util::Result<CondaMetaRecord>
        {
            json document;
            try
            {
                document = json::parse(text);
            }
            catch (const json::exception& error)
            {
                const auto failure = json_failure(error, text);
                problem = RecordProblem::syntax;
                return util::unexpected(
                  error_at(text, file_name, failure.offset, failure.message, problem));
            }
            CondaMetaRecord record;
            std::string what;
            if (!record_from_json(document, options, record, what))
            {
                problem = RecordProblem::shape;
                return util::unexpected(error_at(text, file_name, 0, what, problem));
            }
            finish_record(record, options);
            return record;
        }
    }

    auto python_anchor_of(std::string_view path) -> std::optional<std::string_view>
    {
        if (const auto at = path.find(dist_info_marker); at != std::string_view::npos)
        {
            return path.substr(0, at + dist_info_marker.size() - 1);
        }
        // An .egg-info is a directory (".../x.egg-info/PKG-INFO") or a single file.
        for (std::size_t at = path.find(egg_info_marker); at != std::string_view::npos;
             at = path.find(egg_info_marker, at + 1))
        {
            const std::size_t end = at + egg_info_marker.size();
            if (end == path.size() || path[end] == '/')
            {
                return path.substr(0, end);
            }
        }
        return std::nullopt;
    }

    auto parse_conda_meta(std::string_view text, std::string_view file_name,
                          const CondaMetaOptions& options) -> util::Result<CondaMetaRecord>
    {
        CondaMetaRecord record;
        FastReader reader(text, options);
        if (reader.read(record))
        {
            finish_record(record, options);
            return record;
        }
        // What the fast path rejects goes through the full parser, which accepts any valid JSON
        // in a shape the fast path does not expect; when both reject the record, the fast path's
        // error is reported because it points at the offending character.
        RecordProblem problem = RecordProblem::syntax;
        auto full = read_full(text, file_name, options, problem);
        if (full)
        {
            return full;
        }
        return util::unexpected(error_at(text, file_name, reader.scanner().error_offset(),
                                         reader.scanner().error(), problem));
    }

    auto parse_conda_meta_full(std::string_view text, std::string_view file_name,
                               const CondaMetaOptions& options) -> util::Result<CondaMetaRecord>
    {
        RecordProblem problem = RecordProblem::syntax;
        return read_full(text, file_name, options, problem);
    }
}
