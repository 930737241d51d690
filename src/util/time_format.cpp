#include "util/time_format.hpp"

#include <array>

namespace envcheck::util
{
    namespace
    {
        struct CivilDate
        {
            std::int64_t year;
            unsigned month;
            unsigned day;
        };

        // Howard Hinnant's days_from_civil inverse ("chrono-Compatible Low-Level Date
        // Algorithms"): exact for the whole proleptic Gregorian calendar.
        auto civil_from_days(std::int64_t days) -> CivilDate
        {
            days += 719468;
            const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
            const auto day_of_era = static_cast<unsigned>(days - era * 146097);
            const unsigned year_of_era =
              (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
            const std::int64_t year = static_cast<std::int64_t>(year_of_era) + era * 400;
            const unsigned day_of_year =
              day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
            const unsigned month_index = (5 * day_of_year + 2) / 153;
            const unsigned day = day_of_year - (153 * month_index + 2) / 5 + 1;
            const unsigned month = month_index < 10 ? month_index + 3 : month_index - 9;
            return { month <= 2 ? year + 1 : year, month, day };
        }

        void append_two_digits(std::string& out, unsigned value)
        {
            out += static_cast<char>('0' + value / 10);
            out += static_cast<char>('0' + value % 10);
        }
    }

    auto format_rfc3339_utc(std::int64_t unix_seconds) -> std::string
    {
        std::int64_t days = unix_seconds / 86400;
        std::int64_t seconds_of_day = unix_seconds % 86400;
        if (seconds_of_day < 0)
        {
            seconds_of_day += 86400;
            --days;
        }
        const CivilDate date = civil_from_days(days);
        std::string out = std::to_string(date.year);
        out += '-';
        append_two_digits(out, date.month);
        out += '-';
        append_two_digits(out, date.day);
        out += 'T';
        append_two_digits(out, static_cast<unsigned>(seconds_of_day / 3600));
        out += ':';
        append_two_digits(out, static_cast<unsigned>(seconds_of_day / 60 % 60));
        out += ':';
        append_two_digits(out, static_cast<unsigned>(seconds_of_day % 60));
        out += 'Z';
        return out;
    }
}
