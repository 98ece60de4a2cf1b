// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace refnic::bypass_cli {

namespace {

using tool_cli::interface_name;
using tool_cli::number;
using tool_cli::quoted;

// Seconds: a positive decimal number up to a year.
double seconds(std::string_view value) {
    constexpr double max_seconds = 366.0 * 24 * 3600;
    double parsed = 0;
    const char* end = value.data() + value.size();
    const auto [stop, error] = std::from_chars(value.data(), end, parsed);
    if (value.empty() || error != std::errc() || stop != end || !std::isfinite(parsed) ||
        parsed <= 0 || parsed > max_seconds) {
        throw UsageError("invalid duration " + quoted(value) +
                         ": expected a number of seconds above 0, such as 10 or 0.5");
    }
    return parsed;
}

enum class Option : std::uint8_t {
    count,
    duration,
    batch,
    hdr_split,
    whole_port,
    busy_poll,
    verify,
    quiet,
    json,
    dst_mac,
    src_mac,
    src_ip,
    dst_ip,
    src_port,
    dst_port,
    size,
    rate,
};

// Which commands take an option.
constexpr unsigned for_rx = 1U << 0U;
constexpr unsigned for_tx = 1U << 1U;
constexpr unsigned for_echo = 1U << 2U;
constexpr unsigned for_all = for_rx | for_tx | for_echo;

struct OptionName {
    std::string_view name;
    Option option;
    bool takes_value;
    unsigned modes;
};

constexpr std::array<OptionName, 17> options{{
    {"--count", Option::count, true, for_all},
    {"--duration", Option::duration, true, for_all},
    {"--batch", Option::batch, true, for_all},
    {"--hdr-split", Option::hdr_split, false, for_rx},
    {"--whole-port", Option::whole_port, false, for_rx | for_echo},
    {"--busy-poll", Option::busy_poll, false, for_all},
    {"--verify", Option::verify, false, for_rx},
    {"--quiet", Option::quiet, false, for_all},
    {"--json", Option::json, false, for_all},
    {"--dst-mac", Option::dst_mac, true, for_tx},
    {"--src-mac", Option::src_mac, true, for_tx},
    {"--src-ip", Option::src_ip, true, for_tx},
    {"--dst-ip", Option::dst_ip, true, for_tx},
    {"--src-port", Option::src_port, true, for_tx},
    {"--dst-port", Option::dst_port, true, for_tx},
    {"--size", Option::size, true, for_tx},
    {"--rate", Option::rate, true, for_tx},
}};

unsigned mode_bit(Mode mode) {
    switch (mode) {
        case Mode::rx:
            return for_rx;
        case Mode::tx:
            return for_tx;
        case Mode::echo:
            break;
    }
    return for_echo;
}

std::string commands_of(unsigned modes) {
    std::string text;
    for (const Mode mode : {Mode::rx, Mode::tx, Mode::echo}) {
        if ((modes & mode_bit(mode)) != 0) {
            text += (text.empty() ? "" : " and ") + std::string(to_string(mode));
        }
    }
    return text;
}

const OptionName* find_option(std::string_view word) {
    const auto* found = std::find_if(options.begin(), options.end(),
                                     [&](const OptionName& name) { return word == name.name; });
    return found == options.end() ? nullptr : &*found;
}

MacAddress mac(std::string_view option, std::string_view value) {
    const std::optional<MacAddress> parsed = parse_mac(value);
    if (!parsed) {
        throw UsageError("invalid " + std::string(option) + " " + quoted(value) +
                         ": expected six hex pairs such as 02:00:00:00:00:01");
    }
    return *parsed;
}

Ipv4Address ipv4(std::string_view option, std::string_view value) {
    const std::optional<Ipv4Address> parsed = parse_ipv4(value);
    if (!parsed) {
        throw UsageError("invalid " + std::string(option) + " " + quoted(value) +
                         ": expected an IPv4 address");
    }
    return *parsed;
}

// Applies one option with its value (empty for flags).
void apply(Invocation& run, Option option, std::string_view value) {
    switch (option) {
        case Option::count:
            run.count = number("count", value, 1, std::numeric_limits<std::uint64_t>::max());
            break;
        case Option::duration:
            run.duration = seconds(value);
            break;
        case Option::batch:
            run.batch = static_cast<std::uint32_t>(number("batch", value, 1, max_batch));
            break;
        case Option::hdr_split:
            run.header_split = true;
            break;
        case Option::whole_port:
            run.whole_port = true;
            break;
        case Option::busy_poll:
            run.busy_poll = true;
            break;
        case Option::verify:
            run.verify = true;
            break;
        case Option::quiet:
            run.quiet = true;
            break;
        case Option::json:
            run.json = true;
            break;
        case Option::dst_mac:
            run.flow.dst_mac = mac("--dst-mac", value);
            break;
        case Option::src_mac:
            run.src_mac = mac("--src-mac", value);
            break;
        case Option::src_ip:
            run.flow.src_ip = ipv4("--src-ip", value);
            break;
        case Option::dst_ip:
            run.flow.dst_ip = ipv4("--dst-ip", value);
            break;
        case Option::src_port:
            run.flow.src_port = static_cast<std::uint16_t>(number("source port", value, 1, 65535));
            break;
        case Option::dst_port:
            run.flow.dst_port =
                static_cast<std::uint16_t>(number("destination port", value, 1, 65535));
            break;
        case Option::size:
            run.size = static_cast<std::uint32_t>(
                number("frame size", value, min_frame_size, max_frame_size));
            break;
        case Option::rate:
            run.rate = number("rate", value, 1, max_rate);
            break;
    }
}

// args[i] is an option: applies it, with its value, and moves `i` past them.
void parse_option(std::span<const std::string_view> args, std::size_t& i, Invocation& run,
                  std::vector<Option>& seen) {
    const std::string_view word = args[i];
    // --name=value as well as --name value.
    const std::size_t equals = word.find('=');
    const std::string_view name = word.substr(0, equals);
    const OptionName* option = find_option(name);
    if (option == nullptr) {
        throw UsageError("unknown option " + quoted(name));
    }
    if ((option->modes & mode_bit(run.mode)) == 0) {
        throw UsageError(std::string(option->name) + " is an option of " +
                         commands_of(option->modes) + ", not " + std::string(to_string(run.mode)));
    }
    if (std::find(seen.begin(), seen.end(), option->option) != seen.end()) {
        throw UsageError(std::string(option->name) + " given twice");
    }
    seen.push_back(option->option);
    std::string_view value;
    if (equals != std::string_view::npos) {
        if (!option->takes_value) {
            throw UsageError(std::string(option->name) + " takes no value");
        }
        value = word.substr(equals + 1);
    } else if (option->takes_value) {
        if (i + 1 >= args.size()) {
            throw UsageError(std::string(option->name) + " needs a value");
        }
        value = args[++i];
    }
    apply(run, option->option, value);
}

void require_complete(Invocation& run, std::size_t positionals, const std::vector<Option>& seen) {
    const std::string command(to_string(run.mode));
    if (positionals == 0) {
        throw UsageError(command + " needs a device and a queue (" + command + " DEV QUEUE)");
    }
    if (positionals == 1) {
        throw UsageError(command + " needs a queue after the device (" + command + " DEV QUEUE)");
    }
    if (run.mode != Mode::tx) {
        return;
    }
    constexpr std::array<std::pair<Option, std::string_view>, 4> required{{
        {Option::dst_mac, "--dst-mac MAC"},
        {Option::src_ip, "--src-ip A"},
        {Option::dst_ip, "--dst-ip B"},
        {Option::dst_port, "--dst-port P"},
    }};
    for (const auto& [option, text] : required) {
        if (std::find(seen.begin(), seen.end(), option) == seen.end()) {
            throw UsageError("tx needs " + std::string(text));
        }
    }
    if (std::find(seen.begin(), seen.end(), Option::src_port) == seen.end()) {
        run.flow.src_port = default_src_port;
    }
}

std::optional<Mode> parse_mode(std::string_view word) {
    for (const Mode mode : {Mode::rx, Mode::tx, Mode::echo}) {
        if (word == to_string(mode)) {
            return mode;
        }
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string(Mode mode) noexcept {
    switch (mode) {
        case Mode::rx:
            return "rx";
        case Mode::tx:
            return "tx";
        case Mode::echo:
            break;
    }
    return "echo";
}

Command parse_command_line(std::span<const std::string_view> args) {
    std::optional<Mode> mode;
    Invocation run;
    std::vector<Option> seen;
    std::size_t positionals = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view word = args[i];
        if (word == "-h" || word == "--help" || word == "help") {
            return Help{};
        }
        if (word == "-V" || word == "--version") {
            return Version{};
        }
        if (word.starts_with('-') && word != "-") {
            if (!mode) {
                throw UsageError(find_option(word.substr(0, word.find('='))) != nullptr
                                     ? std::string(word.substr(0, word.find('='))) +
                                           " before the command (rx, tx or echo)"
                                     : "unknown option " + quoted(word));
            }
            parse_option(args, i, run, seen);
        } else if (!mode) {
            mode = parse_mode(word);
            if (!mode) {
                throw UsageError("unknown command " + quoted(word));
            }
            run.mode = *mode;
        } else if (positionals == 0) {
            run.ifname = interface_name(word);
            ++positionals;
        } else if (positionals == 1) {
            run.queue = static_cast<std::uint32_t>(
                number("queue", word, 0, std::numeric_limits<std::uint32_t>::max()));
            ++positionals;
        } else {
            throw UsageError("unexpected " + quoted(word));
        }
    }
    if (!mode) {
        throw UsageError("no command given");
    }
    require_complete(run, positionals, seen);
    return run;
}

std::optional<MacAddress> parse_mac(std::string_view text) {
    constexpr std::size_t length = 17;  // "xx:xx:xx:xx:xx:xx"
    if (text.size() != length) {
        return std::nullopt;
    }
    MacAddress address{};
    for (std::size_t i = 0; i < address.size(); ++i) {
        const std::string_view pair = text.substr(i * 3, 2);
        if ((i > 0 && text[i * 3 - 1] != ':') || !std::all_of(pair.begin(), pair.end(), [](char c) {
                return std::isxdigit(static_cast<unsigned char>(c));
            })) {
            return std::nullopt;
        }
        std::from_chars(pair.data(), pair.data() + pair.size(), address[i], 16);
    }
    return address;
}

std::optional<Ipv4Address> parse_ipv4(std::string_view text) {
    const std::string nul_terminated(text);
    in_addr address{};
    if (::inet_pton(AF_INET, nul_terminated.c_str(), &address) != 1) {
        return std::nullopt;
    }
    Ipv4Address bytes{};
    std::memcpy(bytes.data(), &address, bytes.size());
    return bytes;
}

std::string usage_text() {
    return R"(Usage:
  refnic-bypass rx DEV QUEUE [--count N] [--duration S] [--hdr-split] [--whole-port]
                   [--batch N] [--busy-poll] [--verify] [--quiet] [--json]
  refnic-bypass tx DEV QUEUE --dst-mac MAC --src-ip A --dst-ip B --dst-port P
                   [--src-mac MAC] [--src-port P] [--size BYTES] [--rate PPS]
                   [--count N] [--duration S] [--batch N] [--busy-poll] [--quiet]
                   [--json]
  refnic-bypass echo DEV QUEUE [--count N] [--duration S] [--whole-port] [--batch N]
                   [--busy-poll] [--quiet] [--json]
  refnic-bypass -h|--help
  refnic-bypass -V|--version
)";
}

std::string help_text() {
    return "refnic-bypass " REFNIC_VERSION
           " - kernel-bypass queues of a refnic port (/dev/refnic)\n\n" +
           usage_text() + R"(
Each command binds queue pair QUEUE (RX queue and TX queue QUEUE) of the refnic
port DEV to this process through /dev/refnic, with a 4 MiB umem of 2048-byte
buffers and fill/rxc rings of 1024 and tx/txc rings of 512 entries. The queue
goes back to the kernel stack when refnic-bypass exits. Needs refnic.ko and
CAP_NET_ADMIN.

  rx    receives frames and counts them; with --verify, checks every IPv4/UDP
        frame as tx builds it
  tx    sends Ethernet/IPv4/UDP frames of --size bytes (without the FCS) from
        DEV's own MAC address (or --src-mac): IPv4 header checksum set, UDP
        checksum 0, and a payload that starts with an 8-byte big-endian sequence
        number (0, 1, 2, ...), each payload byte 8 + i after it being
        (seq + i) mod 256
  echo  sends every received IPv4/UDP frame back from the same buffer (zero
        copy), MAC and IP addresses and UDP ports swapped; other frames are
        dropped

Options:
  --count N       stop after N packets (default: until SIGINT/SIGTERM)
  --duration S    stop after S seconds (a decimal number)
  --batch N       ring entries per peek/reserve, 1 to 4096, default 64
  --busy-poll     spin on the rings instead of sleeping in poll(2)
  --hdr-split     rx: bind with header split: TCP/UDP headers land in the header
                  area, the payload in the buffer
  --whole-port    rx, echo: every frame DEV receives comes to QUEUE (else only
                  what ntuple rules steer there: ethtool -N DEV ... action QUEUE)
  --verify        rx: check the IPv4/UDP frames (checksums, lengths, payload
                  pattern) and count them good or bad; other frames count as other
  --dst-mac MAC   tx: destination MAC address, such as 02:00:00:00:00:02
  --src-mac MAC   tx: source MAC address (default: DEV's own)
  --src-ip A      tx: source IPv4 address
  --dst-ip B      tx: destination IPv4 address
  --src-port P    tx: source UDP port, default 9999
  --dst-port P    tx: destination UDP port
  --size BYTES    tx: frame size without the FCS, 50 to 2048, default 60; at
                  most DEV's MTU + 14 goes out, larger frames the kernel drops
                  and counts as bad_len
  --rate PPS      tx: send at most PPS packets a second, 1 to 100000000
                  (default: as fast as the rings take them); a receiver that
                  falls behind loses frames for lack of posted buffers, as on a
                  real NIC
  --quiet         no rate line once a second on stderr
  --json          print the summary as one JSON object on stdout (the summary
                  line goes to stderr then)

At exit refnic-bypass prints a summary line: packets, bytes, rate, and for rx
--verify the good, bad and other counts. The JSON object has mode, ifname,
queue, packets, bytes, seconds, pps, mbps, good, bad, other, dropped and
session: the kernel's counters of the session (REFNIC_BYPASS_IOC_STATS), or
null if they could not be read.

Exit status: 0 success, 1 runtime error (setup, kernel refusal, frames that
failed --verify), 2 bad command line.
)";
}

std::string version_text() { return "refnic-bypass " REFNIC_VERSION "\n"; }

}  // namespace refnic::bypass_cli
