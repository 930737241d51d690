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

        // Its inverse (the same paper's days_from_civil).
        auto days_from_civil(std::int64_t year, unsigned month, unsigned day) -> std::int64_t
        {
            year -= month <= 2 ? 1 : 0;
            const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
            const auto year_of_era = static_cast<unsigned>(year - era * 400);
            const unsigned day_of_year =
              (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
            const unsigned day_of_era =
              year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
            return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
        }

        auto digits(std::string_view text, std::size_t at, std::size_t count)
          -> std::optional<unsigned>
        {
            unsigned value = 0;
            for (std::size_t i = at; i < at + count; ++i)
            {
                if (text[i] < '0' || text[i] > '9')
                {
                    return std::nullopt;
                }
                value = value * 10 + static_cast<unsigned>(text[i] - '0');
            }
            return value;
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

    auto parse_rfc3339_utc(std::string_view text) -> std::optional<std::int64_t>
    {
        // 2026-11-30T20:02:00Z
        if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
            text[13] != ':' || text[16] != ':' || text[19] != 'Z')
        {
            return std::nullopt;
        }
        const auto year = digits(text, 0, 4);
        const auto month = digits(text, 5, 2);
        const auto day = digits(text, 8, 2);
        const auto hour = digits(text, 11, 2);
        const auto minute = digits(text, 14, 2);
        const auto second = digits(text, 17, 2);
        if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
            *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60)
        {
            return std::nullopt;
        }
        const auto unix_seconds =
          days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second;
        // Rejects 2026-02-31 and the like: the date must come back as written.
        if (format_rfc3339_utc(unix_seconds).substr(0, 10) != text.substr(0, 10))
        {
            return std::nullopt;
        }
        return unix_seconds;
    }
}
