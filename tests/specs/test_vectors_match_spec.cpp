// Every case of /work/shared/vectors/conda_match_spec.json. Where the peers disagree we follow
// conda's classic parser; the entries we deliberately do not check are listed below, each with
// its reason, and counted in the printed tally.
#include <algorithm>
#include <string>
#include <vector>

#include "specs/channel.hpp"
#include "specs/match_spec.hpp"
#include "specs/string_matcher.hpp"
#include "tests/catch.hpp"
#include "tests/specs/shared_vectors.hpp"
#include "util/strings.hpp"

using envcheck::specs::BuildNumberSpec;
using envcheck::specs::Channel;
using envcheck::specs::MatchSpec;
using envcheck::specs::StringMatcher;
using envcheck::specs::VersionSpec;
using envcheck::tests::asserted_by;
using envcheck::tests::load_vectors;
using envcheck::tests::only_asserted_by;
using envcheck::tests::record_from;
using envcheck::tests::string_field;
using envcheck::tests::Tally;

namespace
{
    struct Skip
    {
        const char* spec;
        const char* reason;
    };

    // Whole categories, decided by the entry's own fields.
    auto category_skip(const nlohmann::json& entry) -> const char*
    {
        if (entry.contains("conda_parser"))
        {
            return "conda's v3 parser (context.solver=rattler): when/extras/flags syntax; we "
                   "follow the "
                   "classic parser";
        }
        if (entry.value("nameless", false))
        {
            return "rattler's NamelessMatchSpec: a spec without a name is another grammar";
        }
        return nullptr;
    }

    constexpr Skip case_skips[] = {
        { "pkg[subdir='linux-64,linux-64-512']",
          "mamba reads the value as a list; conda as one subdir" },
        { "https://mamba.io/mamba-1.0-py37_0.conda",
          "rattler matches a record without url; conda's spec for a URL off any channel is "
          "url+fn" },
    };

    constexpr Skip parse_skips[] = {
        { "foo=1.0=2", "mamba's =VER=BUILD is fuzzy; conda's (and CEP 29's) is exact" },
        { "foo   =    1.0    =    2",
          "mamba's =VER=BUILD is fuzzy; conda's (and CEP 29's) is exact" },
        { "foo=1.0=2[md5=123123123, license=BSD-3, fn='test 123.tar.bz2']",
          "mamba's =VER=BUILD is fuzzy" },
        { "foo=1.0=2[md5=123123123, license=BSD-3, fn='test 123.tar.bz2', url='abcdef']",
          "mamba's =VER=BUILD is fuzzy, and mamba turns url= into a channel" },
        { "defaults::numpy=1.8=py27_0 "
          "[name=\"pytorch\",channel='anaconda',version=\">=1.8,<2|1.9\", build='3']",
          "mamba's =VER=BUILD is fuzzy, and mamba lets positional fields win over brackets" },
        { "defaults::numpy [ name=\"pytorch\",channel='anaconda',version=\">=1.8,<2|1.9\", "
          "build='3']",
          "mamba groups >=1.8,<2|1.9 as >=1.8,(<2|1.9); ',' binds tighter than '|' (CEP 29, "
          "conda)" },
        { "numpy >1.8,<2|==1.7,!=1.9,~=1.7.1 py34_0",
          "mamba's tree groups ',' looser than '|'; conda's parse of the same spec is checked" },
        { "python=3.7=bld", "mamba's =VER=BUILD is fuzzy" },
        { "openblas 0.2.18|0.2.18.*.", "mamba reads 0.2.18.*. as starts-with; conda as a glob" },
        { "conda-forge[plat]:ns:python=3.7=*pypy[md5=m,sha256=s,license=l, "
          "license_family=lf,track_features=ft,"
          "optional]",
          "mamba's =VER=BUILD is fuzzy" },
        { "libblas=0.15*",
          "mamba prints '=0.15*'; conda's (our) starts-with 0.15 is checked by cases" },
        { "xtensor =0.15*",
          "mamba prints '=0.15*'; conda's (our) starts-with 0.15 is checked by cases" },
        { "blas *.* mkl", "rattler reads '*.*' as any version; conda as a glob needing a dot" },
        { "python ==2.7.*.*|>=3.6",
          "rattler reads ==2.7.*.* as 2.7.*; conda as ==2.7.* (literal)" },
        { "numpy>=2.*.*", "rattler reads >=2.*.* as >=2; conda as >= the literal version 2.*" },
        { "https://conda.com/pkg-2-bld.conda",
          "mamba names packages off any channel; conda: name *, url, fn" },
        { "/home/usr/mamba/micromamba/tests/data/cph_test_data-0.0.1-0.tar.bz2",
          "mamba names packages off any channel; conda: name *, url, fn" },
    };

    constexpr Skip invalid_skips[] = {
        { "foo V0.9.24", "conda accepts the version 'v0.9.24' (vectors README C)" },
        { "~\\windows_channel::package", "conda accepts this channel (vectors README C)" },
        { "foo=1.0=py27_0", "rattler strict mode; conda accepts" },
        { "foo==1.0=py27_0", "rattler strict mode; conda accepts" },
        { "pytorch=*=cuda*", "rattler strict mode; conda accepts" },
        { "python ==2.7.*.*|>=3.6", "rattler strict mode; conda accepts" },
        { "python=*", "rattler strict mode; conda accepts" },
        { "https://software.repos.intel.com/python/conda::python[version=3.9]",
          "rattler strict mode" },
        { "https://c.com/p/conda/linux-64::python[version=3.9]", "rattler strict mode" },
        { "https://c.com/p/conda::python[version=3.9, subdir=linux-64]", "rattler strict mode" },
        { "python[channel=https://conda.anaconda.org/python/conda,version=3.9]",
          "rattler strict mode" },
        { "conda-forge/linux-32::python[version=3.9, subdir=linux-64]", "rattler strict mode" },
        { "numpy>=2.*.*", "rattler strict mode; conda accepts" },
        { "bird_tool_utils_python =0.*,>=0.4.1", "rattler strict mode; conda accepts" },
        { "foo* >=12[license=MIT]", "rattler exact_names_only mode; conda accepts name globs" },
        { "*", "rattler exact_names_only mode; conda accepts name globs" },
        { "conda-forge\\::foo[version=\"1.0.*\"]", "rattler channel-name rules; conda accepts" },
        { "conda-forge::foo[md5=1234567890]",
          "rattler checks digest lengths; conda compares strings" },
        { "conda-forge::foo[sha256=1234567890]",
          "rattler checks digest lengths; conda compares strings" },
        { "foo 3.0.* [version=1.2.3]",
          "rattler strict mode; in conda the bracket value overrides" },
        { "foo 3.0.* [build=baz, fn='/home/foo.tar.bz2', build='foobar']",
          "rattler strict mode; conda accepts it (the last build wins), so we do, with a warning" },
        { "ray[default,data] >=2.9.0,<3.0.0",
          "rattler rejects pip extras; conda's classic parser drops them, so we accept the spec "
          "with a warning" },
        { "foo 3.0.* foo[build='foobar']",
          "rattler strict mode; in conda the bracket value overrides" },
        { "foo[when=\"python >=3.6\"]",
          "rattler with conditionals disabled; real repodata uses when=" },
        { "foo[when=\"a\"]", "rattler with conditionals disabled; real repodata uses when=" },
    };

    constexpr Skip build_string_skips[] = {
        { "py.*",
          "mamba reads 'py.*' as a regex; in conda and CEP 29 only '*' is a glob character" },
    };

    constexpr Skip split_skips[] = {
        { ">=1.0 , < 2.0 =py34_0", "rattler keeps '=' in the build; conda's split drops it" },
        { "==1!164.3095,<1!165=py27_0", "rattler strict mode rejects it; conda accepts" },
    };

    template<std::size_t N>
    auto skip_reason(const Skip (&skips)[N], const std::string& spec) -> const char*
    {
        for (const auto& skip : skips)
        {
            if (spec == skip.spec)
            {
                return skip.reason;
            }
        }
        return nullptr;
    }

    auto parse(const std::string& text) -> MatchSpec
    {
        auto parsed = MatchSpec::parse(text);
        INFO("spec: '" << text << "'" << (parsed ? "" : " error: " + parsed.error().to_string()));
        REQUIRE(parsed.has_value());
        return std::move(parsed).value();
    }

    auto version_spec(const std::string& text) -> VersionSpec
    {
        auto parsed = VersionSpec::parse(text);
        INFO("expected version spec: '" << text << "'");
        REQUIRE(parsed.has_value());
        return std::move(parsed).value();
    }

    // conda's keyword-argument specs as the equivalent bracket string.
    auto spec_from_kwargs(const nlohmann::json& kwargs) -> std::string
    {
        std::string name = "*";
        std::string brackets;
        for (const auto& [key, value] : kwargs.items())
        {
            if (key == "name")
            {
                name = value.get<std::string>();
                continue;
            }
            std::string text;
            if (value.is_array())
            {
                for (const auto& item : value)
                {
                    if (!text.empty())
                    {
                        text += ',';
                    }
                    text += item.get<std::string>();
                }
            }
            else
            {
                text = value.get<std::string>();
            }
            if (text.empty() || envcheck::util::trim(text).empty())
            {
                continue; // conda drops empty features
            }
            if (!brackets.empty())
            {
                brackets += ',';
            }
            brackets += key;
            brackets += "='";
            brackets += text;
            brackets += '\'';
        }
        return brackets.empty() ? name : name + "[" + brackets + "]";
    }

    TEST_CASE("conda_match_spec.json: every case but the listed peer conflicts",
              "[specs][MatchSpec][vectors]")
    {
        const auto vectors = load_vectors("conda_match_spec.json");
        if (!vectors)
        {
            return;
        }
        Tally tally("conda_match_spec.json");

        for (const auto& entry : vectors->at("cases"))
        {
            const std::string spec = entry.at("spec").get<std::string>();
            if (category_skip(entry) ||
                (skip_reason(case_skips, spec) && !asserted_by(entry, "conda")))
            {
                tally.skipped("cases");
                continue;
            }
            auto record = record_from(entry);
            const MatchSpec parsed = parse(spec);
            // mamba's contains_except_channel ignores the channel: give the record the spec's.
            if (string_field(entry, "match_function").find("channel ignored") !=
                  std::string::npos &&
                parsed.channel())
            {
                record.channel = parsed.channel()->to_string();
            }
            INFO("'" << spec << "' matches " << entry.dump());
            CHECK(parsed.matches(record) == entry.at("match").get<bool>());
            tally.checked("cases");
        }

        for (const auto& entry : vectors->at("parse"))
        {
            const std::string spec = entry.at("spec").get<std::string>();
            if (category_skip(entry) || skip_reason(parse_skips, spec))
            {
                tally.skipped("parse");
                continue;
            }
            const MatchSpec parsed = parse(spec);
            INFO("parse '" << spec << "': " << entry.dump());
            if (entry.contains("name") && entry.at("name").is_string())
            {
                CHECK(parsed.name().text() == entry.at("name").get<std::string>());
            }
            if (entry.contains("version") && entry.at("version").is_string())
            {
                CHECK(parsed.version() == version_spec(entry.at("version").get<std::string>()));
            }
            else if (entry.contains("version") && entry.at("version").is_null())
            {
                CHECK(parsed.version().is_free());
            }
            if (entry.contains("build") && entry.at("build").is_string())
            {
                CHECK(envcheck::util::iequals(parsed.build().text(),
                                              entry.at("build").get<std::string>()));
            }
            if (entry.contains("build_number"))
            {
                CHECK(parsed.build_number() ==
                      BuildNumberSpec::parse(entry.at("build_number").get<std::string>()).value());
            }
            const bool alias_channel = entry.contains("channel_base_url")
                                         ? entry.at("channel_base_url")
                                               .get<std::string>()
                                               .rfind("https://conda.anaconda.org/", 0) == 0
                                         : asserted_by(entry, "conda");
            // mamba's channel field is its own location model; rattler names channels off the
            // alias by their URL path. Both are compared for alias channels only.
            if (entry.contains("channel") && entry.at("channel").is_string() &&
                !asserted_by(entry, "mamba") && alias_channel)
            {
                const std::string expected = entry.at("channel").get<std::string>();
                if (expected == "*")
                {
                    CHECK_FALSE(parsed.channel().has_value()); // any channel: not a constraint
                }
                else
                {
                    REQUIRE(parsed.channel().has_value());
                    CHECK(parsed.channel()->to_string() == expected);
                }
            }
            if (entry.contains("subdir") && entry.at("subdir").is_string())
            {
                REQUIRE(parsed.subdir().has_value());
                CHECK(parsed.subdir()->text() == entry.at("subdir").get<std::string>());
            }
            for (const auto& [key, value] :
                 std::initializer_list<std::pair<const char*, const std::optional<std::string>*>>{
                   { "md5", &parsed.md5() },
                   { "sha256", &parsed.sha256() },
                   { "fn", &parsed.fn() },
                   { "filename", &parsed.fn() },
                   { "file_name", &parsed.fn() } })
            {
                if (entry.contains(key) && entry.at(key).is_string())
                {
                    REQUIRE(value->has_value());
                    CHECK(**value == entry.at(key).get<std::string>());
                }
            }
            if (entry.contains("url") && entry.at("url").is_string() &&
                !entry.value("rattler_parse_options", "").starts_with("strict"))
            {
                REQUIRE(parsed.url().has_value());
                CHECK(*parsed.url() == entry.at("url").get<std::string>());
            }
            for (const auto& [key, value] :
                 std::initializer_list<std::pair<const char*, const std::optional<StringMatcher>*>>{
                   { "license", &parsed.license() },
                   { "license_family", &parsed.license_family() } })
            {
                if (entry.contains(key) && entry.at(key).is_string())
                {
                    REQUIRE(value->has_value());
                    CHECK(
                      envcheck::util::iequals((*value)->text(), entry.at(key).get<std::string>()));
                }
            }
            if (entry.contains("track_features"))
            {
                auto expected = entry.at("track_features").get<std::vector<std::string>>();
                std::sort(expected.begin(), expected.end());
                REQUIRE(parsed.track_features().has_value());
                CHECK(*parsed.track_features() == expected);
            }
            if (entry.contains("namespace"))
            {
                CHECK(parsed.namespace_name().value_or("") == string_field(entry, "namespace"));
            }
            if (entry.contains("optional"))
            {
                CHECK(parsed.is_optional() == entry.at("optional").get<bool>());
            }
            if (entry.contains("conda_build_form"))
            {
                CHECK(parsed.conda_build_form() == entry.at("conda_build_form").get<std::string>());
            }
            tally.checked("parse");
        }

        for (const auto& entry : vectors->at("invalid"))
        {
            const std::string spec = entry.at("spec").get<std::string>();
            if (category_skip(entry) ||
                (skip_reason(invalid_skips, spec) && !asserted_by(entry, "conda")))
            {
                tally.skipped("invalid");
                continue;
            }
            INFO("invalid: '" << spec << "'");
            CHECK_FALSE(MatchSpec::parse(spec).has_value());
            tally.checked("invalid");
        }

        for (const auto& entry : vectors->at("valid"))
        {
            const std::string spec = entry.at("spec").get<std::string>();
            const MatchSpec parsed = parse(spec);
            (void)parsed; // mamba's is_simple flag is an API property of its own; not compared
            tally.checked("valid");
        }

        for (const auto& entry : vectors->at("canonical_str"))
        {
            if (category_skip(entry))
            {
                tally.skipped("canonical_str");
                continue;
            }
            const std::string spec = entry.at("spec").is_null()
                                       ? spec_from_kwargs(entry.at("spec_kwargs"))
                                       : entry.at("spec").get<std::string>();
            INFO("canonical form of '" << spec << "'");
            const MatchSpec parsed = parse(spec);
            CHECK(parsed.to_string() == entry.at("str").get<std::string>());
            tally.checked("canonical_str");
        }

        for (const auto& entry : vectors->at("conda_build_form"))
        {
            if (string_field(entry, "via") != "MatchSpec.conda_build_form")
            {
                tally.skipped("conda_build_form"); // conda.cli.common.spec_from_line: a CLI helper
                continue;
            }
            std::string spec = entry.at("spec").get<std::string>();
            if (entry.contains("spec_kwargs") && entry.at("spec_kwargs").is_object())
            {
                auto kwargs = entry.at("spec_kwargs");
                kwargs["name"] = spec;
                spec = spec_from_kwargs(kwargs);
            }
            INFO("conda_build_form of '" << spec << "'");
            CHECK(parse(spec).conda_build_form() == entry.at("value").get<std::string>());
            tally.checked("conda_build_form");
        }

        for (const auto& entry : vectors->at("conda_env_form"))
        {
            INFO("conda_env_form of " << entry.dump());
            CHECK(parse(entry.at("spec").get<std::string>()).conda_env_form() ==
                  entry.at("value").get<std::string>());
            tally.checked("conda_env_form");
        }

        for (const auto& entry : vectors->at("exact_value"))
        {
            if (category_skip(entry))
            {
                tally.skipped("exact_value");
                continue;
            }
            const std::string spec = entry.at("spec").is_null()
                                       ? spec_from_kwargs(entry.at("spec_kwargs"))
                                       : entry.at("spec").get<std::string>();
            const MatchSpec parsed = parse(spec);
            const std::string field = entry.at("field").get<std::string>();
            const auto& value = entry.at("value");
            INFO("exact value of " << field << " in '" << spec << "': " << value.dump());
            if (field == "name")
            {
                CHECK((parsed.name().is_exact() ? nlohmann::json(parsed.name().text())
                                                : nlohmann::json()) == value);
            }
            else if (field == "version")
            {
                const auto* exact = parsed.version().exact_version();
                CHECK((exact ? nlohmann::json(std::string(exact->text())) : nlohmann::json()) ==
                      value);
            }
            else if (field == "build")
            {
                CHECK((parsed.build().is_exact() ? nlohmann::json(parsed.build().text())
                                                 : nlohmann::json()) == value);
            }
            else if (field == "md5")
            {
                CHECK(nlohmann::json(parsed.md5().value_or("")) == value);
            }
            else if (field == "track_features")
            {
                CHECK(nlohmann::json(
                        parsed.track_features().value_or(std::vector<std::string>{})) == value);
            }
            else
            {
                FAIL("unexpected field " << field);
            }
            tally.checked("exact_value");
        }

        for (const auto& entry : vectors->at("name"))
        {
            if (category_skip(entry))
            {
                tally.skipped("name");
                continue;
            }
            CHECK(parse(entry.at("spec").get<std::string>()).name().text() ==
                  entry.at("name").get<std::string>());
            tally.checked("name");
        }

        for (const auto& entry : vectors->at("channel_match"))
        {
            const auto channel = Channel::parse(entry.at("spec_channel").get<std::string>());
            REQUIRE(channel.has_value());
            INFO(entry.dump());
            CHECK(channel->matches(entry.at("channel").get<std::string>()) ==
                  entry.at("match").get<bool>());
            tally.checked("channel_match");
        }

        for (const auto& entry : vectors->at("extract_name"))
        {
            const auto parsed = MatchSpec::parse(entry.at("spec").get<std::string>());
            INFO(entry.dump());
            if (entry.at("name").is_null())
            {
                CHECK((!parsed.has_value() || !parsed->name().is_exact())); // no name to extract
            }
            else
            {
                REQUIRE(parsed.has_value());
                CHECK(parsed->name().text() == entry.at("name").get<std::string>());
            }
            tally.checked("extract_name");
        }

        for (const auto& key : { "build_string_cases", "name_glob_cases" })
        {
            for (const auto& entry : vectors->at(key))
            {
                const std::string pattern = entry.at("spec").get<std::string>();
                if (skip_reason(build_string_skips, pattern))
                {
                    tally.skipped(key);
                    continue;
                }
                const StringMatcher matcher =
                  pattern.front() == '<' ? StringMatcher() : StringMatcher::parse(pattern).value();
                INFO(entry.dump());
                CHECK(matcher.matches(entry.at("value").get<std::string>()) ==
                      entry.at("match").get<bool>());
                tally.checked(key);
            }
        }

        for (const auto& entry : vectors->at("split_version_build"))
        {
            const std::string input = entry.at("input").get<std::string>();
            if (skip_reason(split_skips, input))
            {
                tally.skipped("split_version_build");
                continue;
            }
            const std::string spec = "pkg " + input;
            const MatchSpec parsed = parse(spec);
            INFO(entry.dump());
            // rattler asserts the split text, before any reading of it: compare the version span.
            const auto span = parsed.span(envcheck::specs::SpecField::version);
            REQUIRE(span.has_value());
            CHECK(spec.substr(span->offset, span->length) ==
                  entry.at("version").get<std::string>());
            if (entry.at("build").is_null())
            {
                CHECK(parsed.build().is_free());
            }
            else
            {
                CHECK(parsed.build().text() == entry.at("build").get<std::string>());
            }
            tally.checked("split_version_build");
        }

        for (const auto& entry : vectors->at("channel_subdir_split"))
        {
            const std::string input = entry.at("input").get<std::string>();
            const auto split = envcheck::specs::split_subdir(input);
            CHECK(split.channel == entry.at("channel").get<std::string>());
            CHECK(std::string(split.subdir.value_or("")) == string_field(entry, "subdir"));
            tally.checked("channel_subdir_split");
        }

        for (const auto& entry : vectors->at("kwargs_cases"))
        {
            const std::string spec = spec_from_kwargs(entry.at("spec_kwargs"));
            const MatchSpec parsed = parse(spec);
            INFO("'" << spec << "' matches " << entry.at("record").dump());
            CHECK(parsed.matches(record_from(entry.at("record"))) == entry.at("match").get<bool>());
            tally.checked("kwargs_cases");
        }

        for (const auto& entry : vectors->at("str"))
        {
            (void)entry;
            tally.skipped(
              "str"); // rattler's Display quotes every bracket value; conda's form is checked
        }
    }
}
