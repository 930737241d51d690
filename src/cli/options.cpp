#include "cli/options.hpp"

#include <CLI/CLI.hpp>

namespace envcheck::cli
{
    void add_input_options(CLI::App& app, TransferOptions& options)
    {
        app
          .add_option("--ca-bundle", options.ca_bundle,
                      "For https:// inputs: trust these PEM CAs instead of the system's (TLS is "
                      "always verified)")
          ->check(CLI::ExistingFile);
        app
          .add_option("--connect-timeout", options.connect_timeout_seconds,
                      "For URL inputs: seconds to connect (default 10)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--download-timeout", options.download_timeout_seconds,
                      "For URL inputs: seconds for the whole transfer (default 300)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--max-download", options.max_download_mib,
                      "For URL inputs: the largest body in MiB (default 1024)")
          ->check(CLI::PositiveNumber);
    }

    void add_prefix_options(CLI::App& app, app::PrefixSelection& selection)
    {
        auto* prefix = app.add_option(
          "-p,--prefix", selection.prefix,
          "The environment's directory (a conda prefix or a venv); default $VIRTUAL_ENV, "
          "else $CONDA_PREFIX");
        auto* name = app.add_option(
          "-n,--name", selection.name,
          "A conda environment by name (envs directories, ~/.conda/environments.txt)");
        prefix->excludes(name);
    }

    void add_root_option(CLI::App& app, std::string& root)
    {
        app
          .add_option("--root", root,
                      "Read /proc, /sys, /dev, the library directories and ld.so.conf under this "
                      "directory (an "
                      "unpacked image, a mounted node root) and load nothing")
          ->option_text("DIR");
    }
}
