/* SPDX-License-Identifier: GPL-2.0-only */
// Command-line argument parsing the refnic tools share: the usage error they throw, and the
// parsers of numbers and interface names whose messages the tools' tests pin down.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace refnic::tool_cli {

// A command line a tool cannot make sense of: it prints the message and exits 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

inline std::optional<std::uint64_t> parse_unsigned(std::string_view text) {
    std::uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end) {
        return std::nullopt;
    }
    return value;
}

// A number from `min` to `max`, or a UsageError naming the option.
inline std::uint64_t number(std::string_view option, std::string_view value, std::uint64_t min,
                            std::uint64_t max) {
    const std::optional<std::uint64_t> parsed = parse_unsigned(value);
    if (!parsed || *parsed < min || *parsed > max) {
        throw UsageError("invalid " + std::string(option) + " " + quoted(value) +
                         ": expected a number from " + std::to_string(min) + " to " +
                         std::to_string(max));
    }
    return *parsed;
}

// The kernel's dev_valid_name(): 1 to 15 characters, not "." or "..", no '/', ':' or white
// space (isspace), so that a bad name is a usage error rather than the kernel's EINVAL.
inline bool valid_interface_name(std::string_view value) {
    return !value.empty() && value.size() < 16 && value != "." && value != ".." &&
           std::none_of(value.begin(), value.end(), [](char c) {
               return c == '/' || c == ':' || std::isspace(static_cast<unsigned char>(c)) != 0;
           });
}

inline std::string interface_name(std::string_view value) {
    if (!valid_interface_name(value)) {
        throw UsageError("invalid interface name " + quoted(value) +
                         ": 1 to 15 characters, without '/', ':' or spaces");
    }
    return std::string(value);
}

}  // namespace refnic::tool_cli
