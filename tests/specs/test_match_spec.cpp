#include <algorithm>
#include <string>
#include <vector>

#include "specs/match_spec.hpp"
#include "tests/catch.hpp"

using envcheck::specs::MatchSpec;
using envcheck::specs::PackageRecord;
using envcheck::specs::SpecField;
using envcheck::specs::Version;

namespace
{
    auto spec(const std::string& text) -> MatchSpec
    {
        auto parsed = MatchSpec::parse(text);
        INFO("spec '" << text << "'" << (parsed ? "" : ": " + parsed.error().to_string()));
        REQUIRE(parsed.has_value());
        return std::move(parsed).value();
    }

    auto record(const std::string& name, const std::string& version, const std::string& build,
                const std::string& channel = "https://conda.anaconda.org/conda-forge/",
                const std::string& subdir = "linux-64") -> PackageRecord
    {
        PackageRecord r;
        r.name = name;
        r.version = Version::parse(version).value();
        r.build = build;
        r.channel = channel;
        r.subdir = subdir;
        return r;
    }

    // numpy's record with every field a MatchSpec can read set.
    auto full_numpy_record() -> PackageRecord
    {
        PackageRecord full = record("numpy", "1.26.4", "py312h8753938_0");
        full.build_number = 3;
        full.md5 = "0123456789abcdef0123456789abcdef";
        full.sha256 = std::string(64, 'a');
        full.url =
          "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py312h8753938_0.conda";
        full.fn = "numpy-1.26.4-py312h8753938_0.conda";
        full.license = "BSD-3-Clause";
        full.license_family = "BSD";
        full.track_features = { "mkl" };
        return full;
    }

    TEST_CASE("MatchSpec::parse exact vs fuzzy (CEP 29 table)", "[specs][MatchSpec]")
    {
        // CEP 29 "Version expression parsing": each block is one meaning. The CEP also lists
        // `pkg ==1.8.* *` as fuzzy; conda and rattler read it as ==1.8 (the '.*' ignored with a
        // warning), and so do we.
        const std::vector<std::string> fuzzy = {
            "pkg=1.8",      "pkg =1.8",           "pkg 1.8.*",
            "pkg 1.8.* *",  "pkg=1.8.*",          "pkg=1.8.*=*",
            "pkg =1.8.* *", "pkg[version=1.8.*]", "pkg[version=\"1.8.*\"]",
            "pkg =1.8 *"
        };
        const std::vector<std::string> exact = { "pkg 1.8",          "pkg 1.8 *",
                                                 "pkg==1.8",         "pkg=1.8=*",
                                                 "pkg==1.8=*",       "pkg ==1.8 *",
                                                 "pkg[version=1.8]", "pkg[version=\"1.8\"]" };
        for (const auto& group : { fuzzy, exact })
        {
            for (const auto& text : group)
            {
                CAPTURE(text, group.front());
                CHECK(spec(text) == spec(group.front()));
            }
        }
        CHECK_FALSE(spec(fuzzy.front()) == spec(exact.front()));
        CHECK(spec("pkg=1.8").matches(record("pkg", "1.8.2", "0")));
        CHECK_FALSE(spec("pkg 1.8").matches(record("pkg", "1.8.2", "0")));

        // With a build: `name=ver=build`, `name==ver=build`, `name ver build` are exact;
        // `name =ver build` is fuzzy (CEP 29; conda's code would make it exact).
        CHECK(spec("pkg=1.8=b1").version() == spec("pkg 1.8 b1").version());
        CHECK(spec("pkg==1.8=b1").version() == spec("pkg 1.8 b1").version());
        CHECK(spec("pkg =1.8 b1").version() == spec("pkg=1.8").version());
        CHECK(spec("pkg=1.8=b1").version().exact_version() != nullptr);
    }

    TEST_CASE("MatchSpec::parse fields", "[specs][MatchSpec]")
    {
        const MatchSpec a = spec("conda-forge::numpy>=1.26,<2");
        REQUIRE(a.channel().has_value());
        CHECK(a.channel()->name() == "conda-forge");
        CHECK(a.name().text() == "numpy");
        CHECK(a.version().to_string() == ">=1.26,<2");
        CHECK(a.build().is_free());

        const MatchSpec b = spec("conda-forge/linux-64::python 3.8.* *_cpython");
        CHECK(b.subdir()->text() == "linux-64");
        CHECK(b.build().text() == "*_cpython");

        const MatchSpec c = spec("pytorch=*=cuda*");
        CHECK(c.version().is_free());
        CHECK(c.build().text() == "cuda*");
        CHECK(c.matches(record("pytorch", "2.1.0", "cuda118_py310h0_300")));
        CHECK_FALSE(c.matches(record("pytorch", "2.1.0", "cpu_py310h0_0")));

        const MatchSpec d = spec("python >=3.8,<3.10");
        CHECK(d.matches(record("python", "3.9.18", "h0_0")));
        CHECK_FALSE(d.matches(record("python", "3.10.0", "h0_0")));

        const MatchSpec e = spec("*/linux-64::foo>=1.0");
        CHECK_FALSE(e.channel().has_value());
        CHECK(e.subdir()->text() == "linux-64");

        const MatchSpec f = spec("conda-forge:pypi:xtensor==0.12.3");
        CHECK(f.namespace_name() == "pypi");
        CHECK(f.channel()->name() == "conda-forge");

        const MatchSpec g =
          spec("numpy[version='>=1,<2', build_number='>=3', md5=ABCDEF, license='bsd*']");
        CHECK(g.version().to_string() == ">=1,<2");
        CHECK(g.build_number().to_string() == ">=3");
        CHECK(g.md5() == "ABCDEF");
        CHECK(g.license()->text() == "bsd*");

        const MatchSpec h = spec("numpy 1.8 py27_0[version=1.9, build='3']"); // brackets win
        CHECK(h.version() == spec("numpy==1.9").version());
        CHECK(h.build().text() == "3");

        const MatchSpec i = spec("conda-forge[noarch]::tzdata"); // pre-CEP channel[subdir]
        CHECK(i.subdir()->text() == "noarch");
        CHECK(i.channel()->name() == "conda-forge");

        CHECK(spec("numpy*").name().kind() == envcheck::specs::StringMatcher::Kind::glob);
        CHECK(spec("*").name().is_free());
        CHECK(spec("").name().is_free());
        CHECK(spec("GDAL").name().text() == "gdal");
        CHECK(spec("numpy=").version().is_free()); // conda ignores a trailing '='
        CHECK(spec("mkl@").track_features() == std::vector<std::string>{ "mkl" });
        CHECK(spec("blas[track_features='mkl openssl,mkl']").track_features() ==
              std::vector<std::string>{ "mkl", "openssl" });
        CHECK(spec("foo[build=3](target=blarg,optional)").is_optional());
        CHECK(spec("foo[optional]").is_optional());
        CHECK(spec("pkg[when=\"__linux\"]").when() == "__linux");
        CHECK(spec("numpy  # a comment").name().text() == "numpy");
        CHECK(spec("xtensor      >=       0.12.3").version().to_string() == ">=0.12.3");
        CHECK(spec("numpy").is_name_only());
        CHECK_FALSE(spec("numpy>=1").is_name_only());
    }

    TEST_CASE("MatchSpec::parse package URLs and paths", "[specs][MatchSpec]")
    {
        const MatchSpec url =
          spec("https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py312h8753938_0.conda"
               "#0123456789abcdef0123456789ABCDEF");
        CHECK(url.is_package_file());
        CHECK(url.channel()->to_string() == "conda-forge");
        CHECK(url.subdir()->text() == "linux-64");
        CHECK(url.name().text() == "numpy");
        CHECK(url.version().exact_version()->to_string() == "1.26.4");
        CHECK(url.build().text() == "py312h8753938_0");
        CHECK(url.fn() == "numpy-1.26.4-py312h8753938_0.conda");
        CHECK(url.md5() == "0123456789abcdef0123456789abcdef");
        CHECK(url.to_string() ==
              "conda-forge/"
              "linux-64::numpy==1.26.4=py312h8753938_0[md5=0123456789abcdef0123456789abcdef]");

        const MatchSpec defaults =
          spec("https://repo.anaconda.com/pkgs/main/linux-64/_license-1.1-py27_1.tar.bz2");
        CHECK(defaults.channel()->to_string() == "defaults");

        const MatchSpec path = spec("/srv/bld/linux-64/foo-1.0-py27_0.tar.bz2");
        CHECK(path.url() == "file:///srv/bld/linux-64/foo-1.0-py27_0.tar.bz2");
        CHECK(path.name().text() == "foo");

        const MatchSpec windows = spec("C:\\bld\\linux-64\\foo-1.0-py27_0.tar.bz2");
        CHECK(windows.url() == "file:///C:/bld/linux-64/foo-1.0-py27_0.tar.bz2");

        const MatchSpec loose = spec("https://example.com/files/foo-1.0-0.tar.bz2"); // no subdir
        CHECK(loose.name().is_free());
        CHECK(loose.fn() == "foo-1.0-0.tar.bz2");
        CHECK(loose.to_string() == "*[url=https://example.com/files/foo-1.0-0.tar.bz2]");

        // Not a package URL: the url bracket stays beside the channel, where conda's form drops
        // it, so that the text reads back as the same spec (found by fuzz_match_spec).
        const MatchSpec bracketed = spec("conda-forge::numpy[url=https://example.com/x.conda]");
        CHECK_FALSE(bracketed.is_package_file());
        CHECK(bracketed.to_string() == "conda-forge::numpy[url=https://example.com/x.conda]");
        CHECK(spec(bracketed.to_string()) == bracketed);
    }

    TEST_CASE("MatchSpec::to_string is conda's canonical form (CEP 29 examples)",
              "[specs][MatchSpec]")
    {
        struct Case
        {
            const char* spec;
            const char* canonical;
        };
        const std::vector<Case> table = {
            { "foo 1.0 py27_0", "foo==1.0=py27_0" },
            { "foo=1.0=py27_0", "foo==1.0=py27_0" },
            { "conda-forge::foo[version=1.0.*]", "conda-forge::foo=1.0" },
            { "conda-forge/linux-64::foo>=1.0", "conda-forge/linux-64::foo[version='>=1.0']" },
            { "*/linux-64::foo>=1.0", "foo[subdir=linux-64,version='>=1.0']" },
            { "numpy 1.7*", "numpy=1.7" },
            { "numpy=1.7=py3*_2", "numpy==1.7[build=py3*_2]" },
            { "numpy!=1.10 py38_0", "numpy[version='!=1.10',build=py38_0]" },
            { "numpy ~=1.10.1", "numpy~=1.10.1" },
            { "pkgs/main::numpy", "defaults::numpy" },
            { "numpy[channel=conda-*]", "numpy[channel=conda-*]" },
            { "numpy 1.*.1", "numpy[version='1.*.1']" }, // conda would write numpy==1.*.1
            { "pkg=1.8=*", "pkg==1.8" },
            { "numpy[build_number='>=3',md5=abc]", "numpy[build_number='>=3',md5=abc]" },
            { "foo[fn='test 123.tar.bz2']", "foo[fn='test 123.tar.bz2']" },
            { "pkg[when=\"__linux\"]", "pkg[when=__linux]" },
            { "pkg[optional]", "pkg[optional]" },
            // Found by fuzz_match_spec: an exact version holding a literal '*' read back as a
            // pattern when written positionally.
            { "numpy (==1*a)=2", "numpy[version='(==1*a)',build=2]" },
            // ... and a version ending in .conda read back as a package file.
            { "oz 38_0.conda*", "oz[version='38_0.conda.*']" },
        };
        for (const auto& c : table)
        {
            CAPTURE(c.spec);
            const MatchSpec parsed = spec(c.spec);
            CHECK(parsed.to_string() == c.canonical);
            CHECK(spec(parsed.to_string()) == parsed);
        }
        CHECK(spec("conda-forge::numpy==1.21.0=py39h1234567_0").conda_env_form() ==
              "numpy=1.21.0=py39h1234567_0");
        CHECK(spec("numpy=1.7.*=py37_2").conda_build_form() == "numpy 1.7.* py37_2");
        CHECK(spec("python * *123*").conda_build_form() == "python * *123*");
    }

    TEST_CASE("MatchSpec round trip", "[specs][MatchSpec]")
    {
        for (const std::string text :
             { "numpy", "numpy>=1.26,<2", "conda-forge::numpy>=1.26,<2", "python=3.10",
               "python 3.10.*", "pytorch=*=cuda*", "pytorch=2.1=cuda*", "libblas=*=*mkl",
               "_libgcc_mutex 0.1 conda_forge", "conda-forge/linux-64::openssl==3.1.4=hd590300_0",
               "https://repo.anaconda.com/pkgs/main::numpy",
               "numpy[version='>=1.8,<2|1.9',build=py*,build_number=3]",
               "pkg[track_features='mkl avx']", "*[md5=0123456789abcdef0123456789abcdef]",
               "numpy!=1.10.*", "cuda-version >=12,<13", "foo[license=MIT,license_family=mit]",
               "foo[channel=conda-forge/osx-arm64]",
               // A URL under the alias whose short name would read back as a glob (fuzzer find).
               "https://conda.anaconda.org/conda-forge/linux-32/nu*)::mpy",
               // A bracket version starting with '==' that conda's sanitizing would change,
               // and forms conda accepts (round-trip run over random and corpus specs).
               "numpy ==1.2a1,==1.3* py_0", "pkg ==1.2* | >=2 b", "pkg 1.2**", "pkg ** b",
               "fsspec[http]>=0.6", "pkg=1.2 (target=x, optional)", "numpy (1.7|1.8),<2" })
        {
            CAPTURE(text);
            const MatchSpec parsed = spec(text);
            const MatchSpec again = spec(parsed.to_string());
            CHECK(again == parsed);
            CHECK(again.to_string() == parsed.to_string());
        }
    }

    TEST_CASE("MatchSpec spans point into the text", "[specs][MatchSpec]")
    {
        const std::string text = "conda-forge::numpy>=1.26,<2";
        const MatchSpec a = spec(text);
        auto at = [&](SpecField field)
        {
            const auto span = a.span(field);
            REQUIRE(span.has_value());
            return text.substr(span->offset, span->length);
        };
        CHECK(at(SpecField::channel) == "conda-forge");
        CHECK(at(SpecField::name) == "numpy");
        CHECK(at(SpecField::version) == ">=1.26,<2");
        CHECK_FALSE(a.span(SpecField::build).has_value());

        const std::string text2 = "pytorch=2.1=cuda*[build_number='>=300']";
        const MatchSpec b = spec(text2);
        const auto build = b.span(SpecField::build).value();
        CHECK(text2.substr(build.offset, build.length) == "cuda*");
        const auto number = b.span(SpecField::build_number).value();
        CHECK(text2.substr(number.offset, number.length) == ">=300");
        const auto version = b.span(SpecField::version).value();
        CHECK(text2.substr(version.offset, version.length) == "=2.1");
    }

    TEST_CASE("MatchSpec::parse negative", "[specs][MatchSpec]")
    {
        struct Bad
        {
            const char* spec;
            std::size_t offset;
            const char* message;
        };
        const std::vector<Bad> table = {
            { "numpy>=", 7, "expected a version after '>='" },
            { "numpy >=1.2,", 12, "expected a version constraint after ','" },
            { ">=1.0", 0, "expected a package name before '>'" },
            { "!xyz 1.3", 0, "expected a package name before '!'" },
            { "pack@ge", 4, "invalid character '@' in package name" },
            { "pkg..name", 3, "a package name cannot contain '..'" },
            { "-pkg", 0, "a package name cannot start with '-'" },
            // conda's classic parser accepts these but drops the constraint, so conda would
            // install something the file did not ask for.
            { "numpy[version>2]", 13, "expected '=' after 'version'; write version='>2'" },
            { "numpy[ version = 1 ]", 14, "(spaces around '='); write version=1" },
            { "numpy[version=>=1,<2]", 18, "drops '<2' silently: quote a value" },
            { "numpy[versoin=2]", 6, "unknown key 'versoin'; did you mean 'version'?" },
            { "numpy[extras=a]", 6, "conda's classic parser cannot match 'extras'" },
            { "numpy[build=]", 12, "empty value for 'build'" },
            { "numpy[version='1.2]", 14, "missing closing '" },
            { "numpy[version=1.2", 5, "missing ']'" },
            { "numpy[build=1][version=2]", 14, "only one [key=value] list is allowed" },
            { "conda-forge::::numpy", 11, "unexpected ':' in a channel" },
            { "numpy ==", 8, "expected a version after '=='" },
            { "numpy 1.2.3<4", 11, "invalid character '<' in version" },
            { "numpy[version='~=*']", 17, "'~=' needs a version with at least two components" },
            { "^a{2,1}$", 2, "repetition range with min above max" },
            { "https://x/linux-64/numpy.conda", 19, "<name>-<version>-<build>" },
            // Found by fuzz_match_spec: a pattern cannot be a package's location, and a channel
            // that still ends in a subdir after its subdir is split off does not read back.
            { "forge*/linux-64/numpy-1.26.4-py312_0.conda", 0,
              "a package URL's channel cannot be a pattern" },
            { "https://x/linux-64/linux-64/numpy-1.26.4-py312_0.conda", 0,
              "a package URL has one subdir before the file name, not two" },
            { "forge*/linux-64/linux-64::numpy", 0,
              "a channel ends in one subdir at most, not 'linux-64/linux-64'" },
            { "numpy[channel=conda-forge/noarch/linux-64]", 14,
              "a channel ends in one subdir at most, not 'noarch/linux-64'" },
            // Found by fuzz_match_spec: once the last (...) block is cut out, a '(' left in the
            // channel would be read as that block when the spec is written back.
            { "con(optional)da-forge/linux-:46:num*<=1.2 *[ffmpeg](optional)", 3,
              "invalid character '(' in a channel" },
            // Found by fuzz_match_spec: what conda would cut out of a name pattern (a regex's
            // group or class) or could not quote again is refused, and a package file's name,
            // version and build are plain values, not patterns or constraints.
            { "^h()()^mo$", 2, "invalid character '(' in a package name pattern" },
            { "numpy[x' build=a[b\"c]' ]", 18, "unexpected quote inside a value" },
            { "https://x/linux-64/nu*py-1.0-0.conda", 21, "invalid character '*' in package name" },
            { "https://x/linux-64/numpy-1.*-0.conda", 27,
              "invalid character '*' in a package file's version" },
            { "https://x/linux-64/numpy-2.1~4-0.conda", 28, "invalid character '~' in version" },
            { "chan[ ]::numpy", 4, "expected a subdir inside the [] after the channel" },
            { "chan['linux-64']::numpy", 5, "invalid character ''' in the [subdir] of a channel" },
            { "['\"']::t", 1, "invalid character ''' in the [subdir] of a channel" },
            { "https://x/linux-64/numpy-1.0-py<3.conda", 31,
              "invalid character '<' in a package file's build string" },
        };
        for (const auto& bad : table)
        {
            CAPTURE(bad.spec);
            const auto parsed = MatchSpec::parse(bad.spec);
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().offset == bad.offset);
            CHECK(parsed.error().message.find(bad.message) != std::string::npos);
        }
        // The message a user sees, with the column.
        CHECK(MatchSpec::parse("numpy>=").error().to_string().rfind(
                "expected a version after '>=' at column 8 of 'numpy>='", 0) == 0);
    }

    TEST_CASE("MatchSpec accepts what conda's classic parser accepts", "[specs][MatchSpec]")
    {
        // Each spec was run through conda.models.match_spec (conda 0f64223, classic parser):
        // conda accepts it and reads it as `same_as`; we do too, with a warning where conda
        // ignores part of it or rattler, pixi or mamba would reject it.
        struct Case
        {
            const char* spec;
            const char* same_as;
            const char* warning; // "" when none
        };
        const std::vector<Case> table = {
            // pip extras: conda drops [ffmpeg]; rattler and pixi reject it
            { "imageio[ffmpeg]", "imageio", "silently drops [ffmpeg]" },
            { "fsspec[http]>=0.6", "fsspec>=0.6", "rattler and pixi reject" },
            { "uvicorn[standard] >=0.12,<0.18", "uvicorn >=0.12,<0.18", "drops [standard]" },
            { "ray[default,data] >=2.9.0,<3.0.0", "ray >=2.9.0,<3.0.0", "[default,data]" },
            { "pkg[extra, version=1]", "pkg==1", "drops [extra]" },
            // _sanitize_version_str: `==` goes when there is no build
            { "pkg==*", "pkg", "" },
            { "pkg==*=b", "pkg=*=b", "" },
            { "numpy==1.7.*", "numpy=1.7", "" },
            { "pkg ===1.2", "pkg==1.2", "" },
            { "pkg =>1.2", "pkg[version='>1.2*']", "'=>' is not an operator" },
            { "pkg ~=1", "pkg>=1", "mamba (conda's default solver) reads it as '>=1'" },
            // the legacy (target=..., optional) block, after any spec
            { "pkg=1.2 (target=x, optional)", "pkg=1.2[optional]", "legacy '(...)' block" },
            { "pkg>=1 (target=x)", "pkg>=1", "legacy '(...)' block" },
            { "numpy (optional) 1.0", "numpy 1.0[optional]", "legacy '(...)' block" },
            { "pkg(optional)", "pkg[optional]", "legacy '(...)' block" },
            { "pkg[build=3](target=blarg,optional)", "pkg[build=3,optional]", "legacy" },
            { "pkg[target=x]", "pkg", "legacy keyword" },
            // brackets anywhere; a key twice (the last wins); what brackets replace is not read
            { "numpy[build=1] 1.2", "numpy 1.2 1", "only at its end" },
            { "pkg[version=1.0]x", "pkgx==1.0", "only at its end" },
            { "numpy[version=1]>=2", "numpy==1", "'>=2' is ignored" },
            { "numpy 1.2.3.4..[version=1]", "numpy==1", "is ignored" },
            { "numpy[build=1,build=2]", "numpy[build=2]", "given twice" },
            { "pkg[]", "pkg", "" },
            // conda's build is everything after the separator: no package has it
            { "numpy 1.2 py_0 extra", "numpy==1.2[build='py_0 extra']", "one build string" },
            // the key order does not decide: [subdir] wins over a channel's subdir
            { "pkg[subdir=win-64,channel=conda-forge/linux-64]", "conda-forge/win-64::pkg", "" },
            { "pkg[channel=conda-forge/linux-64,subdir=win-64]", "conda-forge/win-64::pkg", "" },
            { "conda-forge/linux-64::pkg[subdir=win-64]", "conda-forge/win-64::pkg", "" },
            { "conda-forge/linux-64::pkg[channel=bioconda]", "bioconda/linux-64::pkg", "" },
            // pkgs/msys2 is part of defaults only on Windows
            { "pkgs/msys2::pkg", "pkgs/msys2::pkg", "" },
            { "pkgs/r::pkg", "defaults::pkg", "" },
            // CEP 29 allows a parenthesized version; conda's classic parser drops or rejects it
            { "numpy (1.7|1.8)", "numpy[version='1.7|1.8']", "drops or rejects this version" },
        };
        for (const auto& c : table)
        {
            CAPTURE(c.spec);
            const MatchSpec parsed = spec(c.spec);
            CHECK(parsed == spec(c.same_as));
            CHECK(spec(parsed.to_string()) == parsed);
            const std::string warning = c.warning;
            if (warning.empty())
            {
                CHECK(parsed.warnings().empty());
                continue;
            }
            const bool found = std::any_of(
              parsed.warnings().begin(), parsed.warnings().end(),
              [&](const auto& w) { return w.message.find(warning) != std::string::npos; });
            CHECK(found);
            for (const auto& w : parsed.warnings())
            {
                CHECK(w.offset + w.length <= std::string_view(c.spec).size());
            }
        }

        // `V**` starts with the version "V*", `**` with "*" (conda.models); `pkg=*` is any.
        CHECK(spec("pkg 1.2**").matches(record("pkg", "1.2*", "0")));
        CHECK_FALSE(spec("pkg 1.2**").matches(record("pkg", "1.2.3", "0")));
        CHECK(spec("pkg **").version() == spec("pkg=**").version());
        CHECK(spec("pkg **").version() == spec("pkg[version=**]").version());
        CHECK_FALSE(spec("pkg **").matches(record("pkg", "1.2", "0")));
        CHECK(spec("pkg=*").version().is_free());
        CHECK(spec("pkg==*").matches(record("pkg", "1.2", "0")));
        CHECK(spec("pkgs/msys2::pkg").to_string() == "pkgs/msys2::pkg");
        CHECK_FALSE(
          spec("defaults::pkg")
            .matches(record("pkg", "1.0", "0", "https://repo.anaconda.com/pkgs/msys2", "win-64")));
        // Spans still point into the text as written, past the cut-out pieces.
        const std::string text = "fsspec[http]>=0.6";
        const auto span = spec(text).span(SpecField::version).value();
        CHECK(text.substr(span.offset, span.length) == ">=0.6");
        const std::string legacy = "numpy (optional) 1.0";
        const auto version = spec(legacy).span(SpecField::version).value();
        CHECK(legacy.substr(version.offset, version.length) == "1.0");
    }

    TEST_CASE("MatchSpec warnings", "[specs][MatchSpec]")
    {
        CHECK(spec("numpy>=1.8.*").warnings().size() == 1);
        CHECK(spec("numpy>=1.8.*").warnings()[0].offset == 10);
        CHECK(spec("numpy[name=torch]").name().text() == "numpy");
        CHECK(spec("numpy[name=torch]").warnings().size() == 1);
        CHECK(spec("numpy >=1 if python").warnings().size() == 1);
        CHECK(spec("numpy >=1 if python").version().to_string() == ">=1");
        CHECK(spec("numpy>=1").warnings().empty());
    }

    TEST_CASE("MatchSpec::matches", "[specs][MatchSpec]")
    {
        const PackageRecord numpy = record("numpy", "1.26.4", "py312h8753938_0");
        CHECK(spec("numpy").matches(numpy));
        CHECK(spec("NumPy").matches(numpy));
        CHECK(spec("num*").matches(numpy));
        CHECK_FALSE(spec("scipy").matches(numpy));
        CHECK(spec("conda-forge::numpy").matches(numpy));
        CHECK(spec("https://conda.anaconda.org/conda-forge::numpy").matches(numpy));
        CHECK_FALSE(spec("defaults::numpy").matches(numpy));
        CHECK(spec("conda-forge/linux-64::numpy").matches(numpy));
        CHECK_FALSE(spec("conda-forge/osx-arm64::numpy").matches(numpy));
        CHECK(
          spec("numpy[build=PY312*]").matches(numpy)); // build strings: case-insensitive (CEP 29)
        CHECK(spec("numpy[build='^py3[0-9]+h.*$']").matches(numpy));
        CHECK_FALSE(spec("numpy[build='^py2.*$']").matches(numpy));

        PackageRecord defaults =
          record("numpy", "1.26.4", "py312h0_0", "https://repo.anaconda.com/pkgs/main/linux-64");
        CHECK(spec("defaults::numpy").matches(defaults));
        CHECK(spec("pkgs/main::numpy").matches(defaults));
        CHECK_FALSE(spec("conda-forge::numpy").matches(defaults));

        const PackageRecord full = full_numpy_record();
        CHECK(spec("numpy[build_number='>=3']").matches(full));
        CHECK_FALSE(spec("numpy[build_number='>3']").matches(full));
        CHECK(spec("*[md5=0123456789ABCDEF0123456789ABCDEF]").matches(full));
        CHECK_FALSE(spec("*[md5=00000000000000000000000000000000]").matches(full));
        CHECK(spec("*[sha256=" + std::string(64, 'A') + "]").matches(full));
        CHECK(spec("numpy[fn=numpy-1.26.4-py312h8753938_0.conda]").matches(full));
        CHECK(spec(full.url).matches(full));
        CHECK(spec("numpy[license='bsd-*',license_family=bsd]").matches(full));
        CHECK_FALSE(spec("numpy[license=MIT]").matches(full));
        CHECK(spec("numpy[track_features=mkl]").matches(full));
        CHECK_FALSE(spec("numpy[track_features='mkl debug']").matches(full));
        CHECK(spec("numpy[when=__linux]").matches(full)); // a condition, not a record field
    }

    TEST_CASE("MatchSpec::reads_record_details: which specs a record's identity alone decides",
              "[specs][MatchSpec]")
    {
        // The consistency check matches most specs against records of the name, version,
        // build and build number alone: for a spec that reads nothing else, the verdict must be
        // the full record's.
        PackageRecord full = full_numpy_record();
        full.features = { "mkl" };
        PackageRecord identity;
        identity.name = full.name;
        identity.version = full.version;
        identity.build = full.build;
        identity.build_number = full.build_number;
        const std::vector<std::pair<std::string, bool>> cases = {
            { "numpy", false },
            { "numpy >=1.26", false },
            { "numpy >=2", false },
            { "numpy 1.26.* py312*", false },
            { "numpy ==1.26.4 py311*", false },
            { "numpy[build_number='>=3']", false },
            { "numpy[build_number=2]", false },
            { "numpy[version='>=1.26,<2',build=py312*]", false },
            { "numpy[when=__linux]", false },
            { "num*", false },
            { "conda-forge::numpy", true },
            { "conda-forge/linux-64::numpy", true },
            { "numpy[subdir=linux-64]", true },
            { "*[md5=0123456789ABCDEF0123456789ABCDEF]", true },
            { "*[sha256=" + std::string(64, 'b') + "]", true },
            { "numpy[fn=numpy-1.26.4-py312h8753938_0.conda]", true },
            { full.url, true },
            { "numpy[url=" + full.url + "]", true },
            { "numpy[license=MIT]", true },
            { "numpy[license_family=bsd]", true },
            { "numpy[track_features=mkl]", true },
            { "numpy[features=mkl]", true },
        };
        for (const auto& [text, details] : cases)
        {
            INFO(text);
            const MatchSpec parsed = spec(text);
            CHECK(parsed.reads_record_details() == details);
            if (!details)
            {
                CHECK(parsed.matches(identity) == parsed.matches(full));
                CHECK(parsed.matches_identity(full.name, full.version, full.build,
                                              full.build_number) == parsed.matches(full));
            }
        }
    }
}
