/* SPDX-License-Identifier: GPL-2.0-only */
// refnicctl's command line, kept free of side effects so it can be unit tested: what an
// invocation means (parse_command_line) and the help texts.
#pragma once

#include <refnic/control.hpp>
#include <refnic/ethtool.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace refnic::refnicctl {

// Exit statuses a script can rely on.
inline constexpr int exit_ok = 0;
inline constexpr int exit_runtime_error = 1;  // the kernel refused, no such device, no module
inline constexpr int exit_usage_error = 2;    // the command line itself is wrong

// A command line refnicctl cannot make sense of; `topic` is the object whose help explains it
// ("dev", ...; "" for the overview).
class UsageError : public std::runtime_error {
public:
    UsageError(const std::string& message, std::string topic)
        : std::runtime_error(message), topic_(std::move(topic)) {}

    [[nodiscard]] const std::string& topic() const noexcept { return topic_; }

private:
    std::string topic_;
};

struct Options {
    bool json = false;    // -j, or implied by -p
    bool pretty = false;  // -p: JSON indented by 4 spaces
    int stats_level = 0;  // -s given this many times

    friend bool operator==(const Options&, const Options&) = default;
};

// dev add [name NAME] [peer NAME] [netns NS] [peer-netns NS] [queues N] [rx-ring N] [tx-ring N]
struct DevAdd {
    std::optional<std::string> name;
    std::optional<std::string> peer;
    std::optional<std::string> netns;  // A name under /var/run/netns or a path.
    std::optional<std::string> peer_netns;
    std::optional<std::uint32_t> queues;
    std::optional<std::uint32_t> rx_ring;
    std::optional<std::uint32_t> tx_ring;

    friend bool operator==(const DevAdd&, const DevAdd&) = default;
};

struct DevDel {
    std::string dev;

    friend bool operator==(const DevDel&, const DevDel&) = default;
};

struct DevShow {
    std::optional<std::string> dev;

    friend bool operator==(const DevShow&, const DevShow&) = default;
};

// dev set DEV tcp-data-split on|off|auto: ring settings through ethtool netlink. What is left
// out keeps its value; at least one setting is given.
struct DevSet {
    std::string dev;
    std::optional<ethtool::TcpDataSplit> tcp_data_split;  // auto is TcpDataSplit::unknown

    friend bool operator==(const DevSet&, const DevSet&) = default;
};

struct LinkSet {
    std::string dev;
    control::Link link;

    friend bool operator==(const LinkSet&, const LinkSet&) = default;
};

struct LinkShow {
    std::optional<std::string> dev;

    friend bool operator==(const LinkShow&, const LinkShow&) = default;
};

// bus set DEV [read-ns N] [gen G] [lanes L] [node N|none] [remote-ns N]: the host bus model of
// DEV's card. What is left out keeps its value; at least one setting is given.
struct BusSet {
    std::string dev;
    control::Bus bus;

    friend bool operator==(const BusSet&, const BusSet&) = default;
};

struct BusShow {
    std::optional<std::string> dev;

    friend bool operator==(const BusShow&, const BusShow&) = default;
};

struct StatsShow {
    std::optional<std::string> dev;

    friend bool operator==(const StatsShow&, const StatsShow&) = default;
};

// fault set DEV TYPE queue Q (rate R% | count N), and fault clear DEV TYPE queue Q (neither).
struct FaultSet {
    std::string dev;
    control::FaultSetting setting;

    friend bool operator==(const FaultSet&, const FaultSet&) = default;
};

struct FaultShow {
    std::optional<std::string> dev;

    friend bool operator==(const FaultShow&, const FaultShow&) = default;
};

struct Monitor {
    friend bool operator==(const Monitor&, const Monitor&) = default;
};

// top [[dev] DEV] [interval TIME] [count N | once]: a frame every interval, until interrupted or
// `count` frames are printed.
struct Top {
    std::optional<std::string> dev;
    std::uint32_t interval_ms = 1000;
    std::optional<std::uint32_t> count;

    friend bool operator==(const Top&, const Top&) = default;
};

// ring show [dev] DEV [queue] Q [svg FILE]: queue pair Q's TX and RX rings.
struct RingShow {
    std::string dev;
    std::uint32_t queue = 0;
    std::optional<std::string> svg;  // Also draw them into this file.

    friend bool operator==(const RingShow&, const RingShow&) = default;
};

// --help, -h or `help`: the help of the deepest object or verb recognised: "" (the overview),
// "dev", "fault set", ...
struct Help {
    std::string topic;

    friend bool operator==(const Help&, const Help&) = default;
};

struct Version {
    friend bool operator==(const Version&, const Version&) = default;
};

using Command = std::variant<DevAdd, DevDel, DevShow, DevSet, LinkSet, LinkShow, BusSet, BusShow,
                             StatsShow, FaultSet, FaultShow, Monitor, Top, RingShow, Help, Version>;

struct Invocation {
    Options options;
    Command command;

    friend bool operator==(const Invocation&, const Invocation&) = default;
};

// argv[1..]. Throws UsageError for anything malformed, before anything is done. Objects, verbs
// and keywords take any unambiguous prefix; -h anywhere wins over a usage error, -V over
// anything but -h.
[[nodiscard]] Invocation parse_command_line(std::span<const std::string_view> args);

// The help of "" (the overview), an object ("dev", "link", "bus", "stats", "fault", "monitor",
// "top", "ring") or a command ("dev add", "bus set", "fault set", ...).
[[nodiscard]] std::string help_text(std::string_view topic);
[[nodiscard]] std::string version_text();

}  // namespace refnic::refnicctl
