#include "model/cuda_version.hpp"
#include "tests/catch.hpp"

using envcheck::model::CudaVersion;
using envcheck::model::decode_cuda_version;
using envcheck::model::parse_cuda_version;

namespace
{
    TEST_CASE("decode_cuda_version", "[model][CudaVersion]")
    {
        const std::pair<int, std::string_view> cases[] = {
            { 12040, "12.4" }, { 13000, "13.0" }, { 11080, "11.8" },  { 12090, "12.9" },
            { 9020, "9.2" },   { 13020, "13.2" }, { 12100, "12.10" },
        };
        for (const auto& [encoded, text] : cases)
        {
            CAPTURE(encoded);
            const auto version = decode_cuda_version(encoded);
            REQUIRE(version);
            CHECK(version->to_string() == text);
            CHECK(version->encoded() == encoded);
        }
    }

    TEST_CASE("decode_cuda_version negative", "[model][CudaVersion]")
    {
        for (const int encoded : { 0, -1, 999, 12041, 100000, 1 })
        {
            CAPTURE(encoded);
            CHECK_FALSE(decode_cuda_version(encoded));
        }
    }

    TEST_CASE("parse_cuda_version", "[model][CudaVersion]")
    {
        CHECK(parse_cuda_version("12.4") == CudaVersion{ 12, 4 });
        CHECK(parse_cuda_version("11.8.0") == CudaVersion{ 11, 8 });
        CHECK(parse_cuda_version("12") == CudaVersion{ 12, 0 });
        CHECK(parse_cuda_version(" 13.0 ") == CudaVersion{ 13, 0 });
        CHECK_FALSE(parse_cuda_version(""));
        CHECK_FALSE(parse_cuda_version("12.x"));
        CHECK_FALSE(parse_cuda_version("0.5"));
        CHECK_FALSE(parse_cuda_version("12.4.1.2"));
        CHECK(CudaVersion{ 12, 10 } > CudaVersion{ 12, 9 });
    }
}
