// SPDX-License-Identifier: GPL-2.0-only
#include "units.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <utility>

namespace refnic::refnicctl {

namespace {

struct Unit {
    std::string_view suffix;
    std::uint64_t multiplier;
};

std::string lowercase(std::string_view text) {
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return result;
}

// `number` ("12", "1.25") times `multiplier`, if the result is a whole number that fits.
std::optional<std::uint64_t> scale(std::string_view number, std::uint64_t multiplier) {
    const std::size_t dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view fraction =
        dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
    if ((whole.empty() && fraction.empty()) ||
        (dot != std::string_view::npos && fraction.empty())) {
        return std::nullopt;
    }
    const auto all_digits = [](std::string_view digits) {
        return std::all_of(digits.begin(), digits.end(),
                           [](unsigned char c) { return std::isdigit(c) != 0; });
    };
    if (!all_digits(whole) || !all_digits(fraction) || fraction.size() > 18) {
        return std::nullopt;
    }
    std::uint64_t value = 0;
    for (const char digit : whole) {
        if (__builtin_mul_overflow(value, 10U, &value) ||
            __builtin_add_overflow(value, static_cast<std::uint64_t>(digit - '0'), &value)) {
            return std::nullopt;
        }
    }
    if (__builtin_mul_overflow(value, multiplier, &value)) {
        return std::nullopt;
    }
    // The fraction: digits / 10^n, times the multiplier, must come out whole.
    std::uint64_t numerator = 0;
    std::uint64_t denominator = 1;
    for (const char digit : fraction) {
        numerator = numerator * 10 + static_cast<std::uint64_t>(digit - '0');
        denominator *= 10;
    }
    std::uint64_t scaled = 0;
    if (__builtin_mul_overflow(numerator, multiplier, &scaled) || scaled % denominator != 0 ||
        __builtin_add_overflow(value, scaled / denominator, &value)) {
        return std::nullopt;
    }
    return value;
}

// Splits "2.5gbit" into "2.5" and "gbit" and applies the matching unit.
template <std::size_t N>
std::optional<std::uint64_t> parse_with_units(std::string_view text,
                                              const std::array<Unit, N>& units) {
    const std::string lower = lowercase(text);
    const std::size_t suffix_start = lower.find_first_not_of("0123456789.");
    const std::string_view number = std::string_view(lower).substr(0, suffix_start);
    const std::string_view suffix = suffix_start == std::string::npos
                                        ? std::string_view()
                                        : std::string_view(lower).substr(suffix_start);
    for (const Unit& unit : units) {
        if (suffix == unit.suffix) {
            return scale(number, unit.multiplier);
        }
    }
    return std::nullopt;
}

template <typename Narrow>
std::optional<Narrow> narrow(std::optional<std::uint64_t> value) {
    if (!value || *value > std::numeric_limits<Narrow>::max()) {
        return std::nullopt;
    }
    return static_cast<Narrow>(*value);
}

// value / unit with the remainder as decimals, trailing zeroes trimmed: (2500, 1000) is "2.5".
std::string decimal(std::uint64_t value, std::uint64_t unit) {
    std::string text = std::to_string(value / unit);
    std::uint64_t remainder = value % unit;
    if (remainder == 0) {
        return text;
    }
    std::string digits;
    for (std::uint64_t place = unit / 10; place > 0; place /= 10) {
        digits += static_cast<char>('0' + remainder / place);
        remainder %= place;
    }
    digits.erase(digits.find_last_not_of('0') + 1);
    return text + "." + digits;
}

}  // namespace

std::optional<std::uint64_t> parse_rate(std::string_view text) {
    if (lowercase(text) == "unlimited") {
        return 0;
    }
    static constexpr std::uint64_t k = 1000;
    static constexpr std::array<Unit, 15> units{{
        {"", 1},
        {"bit", 1},
        {"kbit", k},
        {"mbit", k * k},
        {"gbit", k * k * k},
        {"tbit", k * k * k * k},
        {"kibit", 1ULL << 10U},
        {"mibit", 1ULL << 20U},
        {"gibit", 1ULL << 30U},
        {"tibit", 1ULL << 40U},
        {"bps", 8},
        {"kbps", 8 * k},
        {"mbps", 8 * k * k},
        {"gbps", 8 * k * k * k},
        {"tbps", 8 * k * k * k * k},
    }};
    return parse_with_units(text, units);
}

std::optional<std::uint32_t> parse_latency_us(std::string_view text) {
    static constexpr std::array<Unit, 7> units{{
        {"", 1},
        {"us", 1},
        {"usec", 1},
        {"ms", 1000},
        {"msec", 1000},
        {"s", 1'000'000},
        {"sec", 1'000'000},
    }};
    return narrow<std::uint32_t>(parse_with_units(text, units));
}

std::optional<std::uint32_t> parse_ppm(std::string_view text) {
    static constexpr std::array<Unit, 3> units{{{"", 10'000}, {"%", 10'000}, {"ppm", 1}}};
    const std::optional<std::uint64_t> ppm = parse_with_units(text, units);
    if (!ppm || *ppm > 1'000'000) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(*ppm);
}

std::optional<std::uint32_t> parse_count(std::string_view text) {
    if (text.find('.') != std::string_view::npos) {
        return std::nullopt;
    }
    static constexpr std::array<Unit, 1> units{{{"", 1}}};
    return narrow<std::uint32_t>(parse_with_units(text, units));
}

std::optional<std::uint32_t> parse_interval_ms(std::string_view text) {
    static constexpr std::array<Unit, 5> units{{
        {"", 1000},
        {"s", 1000},
        {"sec", 1000},
        {"ms", 1},
        {"msec", 1},
    }};
    const std::optional<std::uint64_t> ms = parse_with_units(text, units);
    if (!ms || *ms < 100 || *ms > 3'600'000) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(*ms);
}

std::optional<std::uint32_t> parse_size(std::string_view text) {
    if (text.find('.') != std::string_view::npos) {
        return std::nullopt;
    }
    static constexpr std::array<Unit, 2> units{{{"", 1}, {"k", 1024}}};
    return narrow<std::uint32_t>(parse_with_units(text, units));
}

std::string format_rate(std::uint64_t bps) {
    if (bps == 0) {
        return "unlimited";
    }
    static constexpr std::array<std::pair<std::uint64_t, std::string_view>, 4> units{{
        {1'000'000'000'000ULL, "tbit"},
        {1'000'000'000ULL, "gbit"},
        {1'000'000ULL, "mbit"},
        {1'000ULL, "kbit"},
    }};
    for (const auto& [unit, suffix] : units) {
        if (bps >= unit) {
            return decimal(bps, unit) + std::string(suffix);
        }
    }
    return std::to_string(bps) + "bit";
}

std::string format_latency(std::uint32_t us) {
    if (us >= 1'000'000) {
        return decimal(us, 1'000'000) + "s";
    }
    if (us >= 1000) {
        return decimal(us, 1000) + "ms";
    }
    return std::to_string(us) + "us";
}

std::string format_ppm(std::uint32_t ppm) { return decimal(ppm, 10'000) + "%"; }

}  // namespace refnic::refnicctl
