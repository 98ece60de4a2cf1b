// SPDX-License-Identifier: GPL-2.0-only
#include "report.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string_view>

namespace refnic::devmem_cli {

namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

std::string hex_byte(std::uint8_t value) {
    std::array<char, 8> text{};
    std::snprintf(text.data(), text.size(), "0x%02x", static_cast<unsigned>(value));
    return text.data();
}

std::string fixed(double value, int decimals) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(decimals) << value;
    return out.str();
}

// A JSON number (finite by construction) or null.
std::string json_number(std::optional<double> value) {
    if (!value || !std::isfinite(*value)) {
        return "null";
    }
    std::ostringstream out;
    out << std::setprecision(9) << *value;
    return out.str();
}

std::string json_number(std::optional<std::uint64_t> value) {
    return value ? std::to_string(*value) : "null";
}

std::string line(std::string_view name, const std::string& value) {
    constexpr std::size_t width = 18;
    std::string text(name);
    text += ':';
    text.resize(std::max(text.size() + 1, width), ' ');
    return text + value + "\n";
}

}  // namespace

std::string describe(const Mismatch& mismatch) {
    return "stream offset " + std::to_string(mismatch.offset) + ": expected " +
           hex_byte(mismatch.expected) + ", got " + hex_byte(mismatch.actual);
}

std::optional<Mismatch> PatternValidator::check(std::span<const std::byte> bytes) noexcept {
    for (const std::byte byte : bytes) {
        const auto actual = static_cast<std::uint8_t>(byte);
        if (actual != seed_) {
            return Mismatch{.offset = checked_, .expected = seed_, .actual = actual};
        }
        ++seed_;  // An unsigned char in ncdevmem too: 255 wraps to 0.
        if (seed_ == period_) {
            seed_ = 0;
        }
        ++checked_;
    }
    return std::nullopt;
}

std::optional<double> Summary::syscalls_per_gib() const noexcept {
    if (stats.bytes() == 0) {
        return std::nullopt;
    }
    return static_cast<double>(stats.syscalls()) / (static_cast<double>(stats.bytes()) / gib);
}

std::optional<double> Summary::cpu_seconds_per_gib() const noexcept {
    if (stats.bytes() == 0) {
        return std::nullopt;
    }
    return (cpu_user_seconds + cpu_system_seconds) / (static_cast<double>(stats.bytes()) / gib);
}

std::optional<double> Summary::throughput_gbps() const noexcept {
    if (stats.bytes() == 0 || seconds <= 0) {
        return std::nullopt;
    }
    return static_cast<double>(stats.bytes()) * 8 / seconds / 1e9;
}

std::string summary_text(const Summary& summary) {
    const devmem::ReceiverStats& stats = summary.stats;
    const auto or_none = [](std::optional<double> value, int decimals,
                            std::string_view unit) -> std::string {
        return value ? fixed(*value, decimals) + std::string(unit) : "n/a (no payload)";
    };
    std::string text;
    text += line("bytes", std::to_string(stats.bytes()));
    text += line("frags", std::to_string(stats.frags) +
                              (stats.frags > 0 ? " (" +
                                                     fixed(static_cast<double>(stats.devmem_bytes) /
                                                               static_cast<double>(stats.frags),
                                                           0) +
                                                     " bytes average)"
                                               : ""));
    text += line("recvmsg calls", std::to_string(stats.recvmsg_calls));
    text += line("poll calls", std::to_string(stats.poll_calls) + " (tokens held, waiting)");
    text += line("dontneed calls", std::to_string(stats.dontneed_calls) + " (" +
                                       std::string(devmem::to_string(summary.release)) + ", " +
                                       std::to_string(stats.frags_released) + " frags freed)");
    text += line("syscalls per GiB",
                 or_none(summary.syscalls_per_gib(), 1, " (recvmsg, poll, SO_DEVMEM_DONTNEED)"));
    if (summary.validate) {
        text += line("dma-buf syncs", std::to_string(summary.sync_ioctls) + " (to validate)");
    }
    text += line("cpu per GiB", or_none(summary.cpu_seconds_per_gib(), 3, " s") + " (user " +
                                    fixed(summary.cpu_user_seconds, 3) + " s, system " +
                                    fixed(summary.cpu_system_seconds, 3) + " s in all)");
    text += line("throughput", or_none(summary.throughput_gbps(), 3, " Gbit/s") + " in " +
                                   fixed(summary.seconds, 3) + " s");
    text += line("validated", summary.validate ? "yes, period " + std::to_string(*summary.validate)
                                               : std::string("no (-v N)"));
    return text;
}

std::string summary_json(const Summary& summary) {
    const devmem::ReceiverStats& stats = summary.stats;
    std::string text = "{";
    const auto field = [&text](std::string_view name, const std::string& value) {
        if (text.size() > 1) {
            text += ',';
        }
        text += "\"" + std::string(name) + "\":" + value;
    };
    field("bytes", std::to_string(stats.bytes()));
    field("devmem_bytes", std::to_string(stats.devmem_bytes));
    field("frags", std::to_string(stats.frags));
    field("recvmsg_calls", std::to_string(stats.recvmsg_calls));
    field("dontneed_calls", std::to_string(stats.dontneed_calls));
    field("poll_calls", std::to_string(stats.poll_calls));
    field("frags_freed", std::to_string(stats.frags_released));
    field("release", "\"" + std::string(devmem::to_string(summary.release)) + "\"");
    field("syscalls", std::to_string(stats.syscalls()));
    field("syscalls_per_gib", json_number(summary.syscalls_per_gib()));
    field("sync_ioctls", std::to_string(summary.sync_ioctls));
    field("cpu_user_seconds", json_number(std::optional(summary.cpu_user_seconds)));
    field("cpu_system_seconds", json_number(std::optional(summary.cpu_system_seconds)));
    field("cpu_seconds_per_gib", json_number(summary.cpu_seconds_per_gib()));
    field("seconds", json_number(std::optional(summary.seconds)));
    field("throughput_gbps", json_number(summary.throughput_gbps()));
    field("validate", json_number(summary.validate));
    return text + "}\n";
}

}  // namespace refnic::devmem_cli
