/* SPDX-License-Identifier: GPL-2.0-only */
// refnic-bypass's command line, kept free of side effects so it can be unit tested: what an
// invocation means (parse_command_line), the usage and the help text.
#pragma once

#include "cli_args.hpp"
#include "frame.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace refnic::bypass_cli {

// Exit statuses a script can rely on.
inline constexpr int exit_ok = 0;
inline constexpr int exit_runtime_error = 1;  // setup failed, the kernel refused, bad frames
inline constexpr int exit_usage_error = 2;    // the command line itself is wrong

inline constexpr std::uint32_t default_batch = 64;
inline constexpr std::uint32_t max_batch = 4096;
inline constexpr std::uint32_t default_frame_size = 60;  // 64 bytes on the wire with the FCS.
inline constexpr std::uint32_t max_frame_size = 2048;    // One umem buffer.
inline constexpr std::uint16_t default_src_port = 9999;
inline constexpr std::uint64_t max_rate = 100'000'000;  // Packets per second.

// A command line refnic-bypass cannot make sense of.
using UsageError = tool_cli::UsageError;

enum class Mode : std::uint8_t { rx, tx, echo };

// "rx", "tx", "echo".
[[nodiscard]] std::string_view to_string(Mode mode) noexcept;

// rx|tx|echo -i DEV -q QUEUE [options]: see help_text().
struct Invocation {
    Mode mode = Mode::rx;
    std::string ifname;
    std::uint32_t queue = 0;
    std::optional<std::uint64_t> count;  // Stop after this many packets.
    std::optional<double> duration;      // Stop after this many seconds.
    std::uint32_t batch = default_batch;
    bool header_split = false;  // rx
    bool whole_port = false;    // rx, echo
    bool busy_poll = false;
    bool verify = false;  // rx
    bool quiet = false;
    bool json = false;
    bool pretty = false;  // -p: JSON indented by 4 spaces (implies json)
    // tx: the flow and the frame size. src_mac unset: the device's own address.
    UdpFlow flow;
    std::optional<MacAddress> src_mac;
    std::uint32_t size = default_frame_size;
    std::optional<std::uint64_t> rate;  // tx: at most this many packets a second.

    friend bool operator==(const Invocation&, const Invocation&) = default;
};

// The help of one command (help tx, tx --help), or of all.
struct Help {
    std::optional<Mode> mode;
    friend bool operator==(const Help&, const Help&) = default;
};

struct Version {
    friend bool operator==(const Version&, const Version&) = default;
};

using Command = std::variant<Invocation, Help, Version>;

// argv[1..]. Throws UsageError for anything malformed, before anything is done; -h anywhere
// wins over that, -V over anything but -h.
[[nodiscard]] Command parse_command_line(std::span<const std::string_view> args);

// "02:00:00:00:00:01": six pairs of hex digits separated by ':'; nullopt otherwise.
[[nodiscard]] std::optional<MacAddress> parse_mac(std::string_view text);
// Dotted-quad IPv4; nullopt otherwise.
[[nodiscard]] std::optional<Ipv4Address> parse_ipv4(std::string_view text);

// The synopsis.
[[nodiscard]] std::string usage_text();
// The help of every command, or of one: its synopsis, what it does, its options.
[[nodiscard]] std::string help_text(std::optional<Mode> mode = std::nullopt);
[[nodiscard]] std::string version_text();

}  // namespace refnic::bypass_cli
