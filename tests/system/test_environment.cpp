#include "system/environment.hpp"
#include "tests/catch.hpp"

using namespace envcheck::system;

namespace
{
    TEST_CASE("is_secret_name", "[system][environment]")
    {
        for (const auto* name :
             { "HF_TOKEN", "NVIDIA_API_KEY", "CONDA_PASSWORD", "AWS_SECRET_ACCESS_KEY", "PIP_AUTH",
               "github_token", "NGC_CLI_API_KEY", "PGPASSWD", "TF_CREDENTIALS_FILE" })
        {
            CAPTURE(name);
            CHECK(is_secret_name(name));
        }
        for (const auto* name : { "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CONDA_PREFIX",
                                  "NVIDIA_DRIVER_CAPABILITIES" })
        {
            CAPTURE(name);
            CHECK_FALSE(is_secret_name(name));
        }
    }

    TEST_CASE("redact_url_credentials", "[system][environment]")
    {
        const std::pair<std::string_view, std::string_view> cases[] = {
            { "https://user:pa55@pypi.example.com/simple",
              "https://<redacted>@pypi.example.com/simple" },
            { "http://proxy.corp:3128", "http://proxy.corp:3128" },
            { "http://alice@proxy:8080", "http://<redacted>@proxy:8080" },
            { "https://a:b@x.org/s https://c:d@y.org/t",
              "https://<redacted>@x.org/s https://<redacted>@y.org/t" },
            { "https://token@host?x=a@b", "https://<redacted>@host?x=a@b" },
            { "/usr/local/cuda/lib64:/opt/lib", "/usr/local/cuda/lib64:/opt/lib" },
            { "user@host", "user@host" }, // no URL, nothing to redact
            // probe once leaked these: a password holding '/', and conda's /t/<token>/.
            { "https://user:pa/ss@host.example/simple", "https://<redacted>@host.example/simple" },
            { "https://conda.anaconda.org/t/tk-0123/private",
              "https://conda.anaconda.org/t/<redacted>/private" },
            { "", "" },
        };
        for (const auto& [input, expected] : cases)
        {
            CAPTURE(input);
            CHECK(redact_url_credentials(input) == expected);
        }
    }

    TEST_CASE("report_environment", "[system][environment]")
    {
        const Environment environment{
            { "CUDA_VISIBLE_DEVICES", "0,1" },
            { "NVIDIA_API_KEY", "nvapi-secret" },
            { "PIP_EXTRA_INDEX_URL", "https://user:hunter2@download.example.com/whl" },
            { "HOME", "/root" },
            { "HF_TOKEN", "hf_abc" },
            { "LD_LIBRARY_PATH", "/usr/local/nvidia/lib64" },
            { "https_proxy", "http://u:p@proxy:3128" },
        };
        const auto variables = report_environment(environment);
        std::map<std::string, std::pair<std::string, bool>> shown;
        for (const auto& variable : variables)
        {
            shown[variable.name] = { variable.value, variable.redacted };
        }
        CHECK(shown.size() == 5); // HOME and HF_TOKEN are not about GPUs or environments
        CHECK(shown["CUDA_VISIBLE_DEVICES"] == std::pair<std::string, bool>{ "0,1", false });
        CHECK(shown["NVIDIA_API_KEY"] == std::pair<std::string, bool>{ "<redacted>", true });
        CHECK(shown["PIP_EXTRA_INDEX_URL"] ==
              std::pair<std::string, bool>{ "https://<redacted>@download.example.com/whl", true });
        CHECK(shown["https_proxy"] ==
              std::pair<std::string, bool>{ "http://<redacted>@proxy:3128", true });
        CHECK(shown["LD_LIBRARY_PATH"].first == "/usr/local/nvidia/lib64");
        for (const auto& variable : variables)
        {
            CHECK(variable.value.find("hunter2") == std::string::npos);
            CHECK(variable.value.find("nvapi-secret") == std::string::npos);
        }
    }

    TEST_CASE("read_environment", "[system][environment]")
    {
        ::setenv("ENVCHECK_TEST_VARIABLE", "a=b", 1);
        const auto environment = read_environment();
        REQUIRE(environment.contains("ENVCHECK_TEST_VARIABLE"));
        CHECK(environment.at("ENVCHECK_TEST_VARIABLE") == "a=b");
        ::unsetenv("ENVCHECK_TEST_VARIABLE");
    }
}
