// `envcheck check` as text: a verdict line, the inputs used, then only what is wrong, grouped
// by category (missing, changed, unsatisfied, extra, files, unreadable records, machine,
// performance), and a summary line.
#ifndef ENVCHECK_REPORT_CHECK_TEXT_HPP
#define ENVCHECK_REPORT_CHECK_TEXT_HPP

#include <string>

#include "model/environment.hpp"

namespace envcheck::report
{
    struct CheckTextOptions
    {
        bool show_ok = false; // list the packages that match too (--verbose)
    };

    [[nodiscard]] auto render_check_text(const model::EnvironmentCheck& check,
                                         const CheckTextOptions& options = {}) -> std::string;
}

#endif
