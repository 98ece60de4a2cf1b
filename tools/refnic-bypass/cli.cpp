// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include "options.hpp"

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
    ifname,
    queue,
    count,
    duration,
    batch,
    busy_poll,
    quiet,
    json,
    pretty,
    hdr_split,
    whole_port,
    verify,
    dst_mac,
    src_mac,
    src_ip,
    dst_ip,
    src_port,
    dst_port,
    size,
    rate,
    help,
    version,
};

// Which commands take an option.
constexpr unsigned for_rx = 1U << 0U;
constexpr unsigned for_tx = 1U << 1U;
constexpr unsigned for_echo = 1U << 2U;
constexpr unsigned for_all = for_rx | for_tx | for_echo;

// Short letters are xdpsock's (-i -q -b -B -d -s -Q) where refnic-bypass has the same thing,
// and ping's -c; the rest is long-only. In the order of enum Option.
constexpr std::array<tool_cli::OptionSpec, 22> option_specs{{
    {"ifname", 'i', true},   {"queue", 'q', true},     {"count", 'c', true},
    {"duration", 'd', true}, {"batch", 'b', true},     {"busy-poll", 'B', false},
    {"quiet", 'Q', false},   {"json", 'j', false},     {"pretty", 'p', false},
    {"hdr-split", 0, false}, {"whole-port", 0, false}, {"verify", 0, false},
    {"dst-mac", 0, true},    {"src-mac", 0, true},     {"src-ip", 0, true},
    {"dst-ip", 0, true},     {"src-port", 0, true},    {"dst-port", 0, true},
    {"size", 's', true},     {"rate", 0, true},        {"help", 'h', false},
    {"version", 'V', false},
}};

constexpr std::array<unsigned, 22> option_modes{{
    for_all,
    for_all,
    for_all,
    for_all,
    for_all,
    for_all,
    for_all,
    for_all,
    for_all,
    for_rx,
    for_rx | for_echo,
    for_rx,
    for_tx,
    for_tx,
    for_tx,
    for_tx,
    for_tx,
    for_tx,
    for_tx,
    for_tx,
    for_all,
    for_all,
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
        case Option::ifname:
            run.ifname = interface_name(value);
            break;
        case Option::queue:
            run.queue = static_cast<std::uint32_t>(
                number("queue", value, 0, std::numeric_limits<std::uint32_t>::max()));
            break;
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
        case Option::pretty:
            run.json = true;
            run.pretty = true;
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
        case Option::help:
        case Option::version:
            break;
    }
}

bool was_given(const std::vector<tool_cli::OptionHit>& hits, Option option) {
    return std::any_of(hits.begin(), hits.end(), [option](const tool_cli::OptionHit& hit) {
        return hit.index == static_cast<std::size_t>(option);
    });
}

void require_complete(Invocation& run, const std::vector<tool_cli::OptionHit>& hits) {
    const std::string command(to_string(run.mode));
    if (!was_given(hits, Option::ifname)) {
        throw UsageError(command + " needs a device (-i DEV)");
    }
    if (!was_given(hits, Option::queue)) {
        throw UsageError(command + " needs a queue (-q QUEUE)");
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
        if (!was_given(hits, option)) {
            throw UsageError("tx needs " + std::string(text));
        }
    }
    if (!was_given(hits, Option::src_port)) {
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

// The command a help request is about: the first word naming one (help tx, tx --help).
std::optional<Mode> first_mode(std::span<const std::string_view> words) {
    for (const std::string_view word : words) {
        if (const std::optional<Mode> mode = parse_mode(word)) {
            return mode;
        }
    }
    return std::nullopt;
}

// The command a line names, read loosely where it could not be parsed: the first word, up to
// `--`, that is neither an option nor the separate value of one.
std::optional<Mode> loose_mode(std::span<const std::string_view> args) {
    const auto takes_value = [](std::string_view arg) {
        if (arg.starts_with("--")) {
            const std::string_view name = arg.substr(2);
            return name.find('=') == std::string_view::npos &&
                   std::any_of(option_specs.begin(), option_specs.end(),
                               [name](const tool_cli::OptionSpec& spec) {
                                   return spec.takes_value && spec.long_name == name;
                               });
        }
        // A bundle whose last letter takes a value, given in the next word.
        return std::any_of(
            option_specs.begin(), option_specs.end(), [arg](const tool_cli::OptionSpec& spec) {
                return spec.takes_value && spec.short_name != 0 && arg.back() == spec.short_name;
            });
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "--") {
            break;
        }
        if (arg.size() > 1 && arg.starts_with('-')) {
            i += takes_value(arg) ? 1U : 0U;
            continue;
        }
        if (const std::optional<Mode> mode = parse_mode(arg)) {
            return mode;
        }
    }
    return std::nullopt;
}

Command parse_strictly(std::span<const std::string_view> args) {
    const tool_cli::ScannedLine line = tool_cli::scan_all(option_specs, args);
    const bool help_word =
        std::find(line.words.begin(), line.words.end(), "help") != line.words.end();
    if (help_word) {
        // help [COMMAND], COMMAND help: any other word is no command.
        for (const std::string_view word : line.words) {
            if (word != "help" && !parse_mode(word)) {
                throw UsageError("unknown command " + quoted(word) + ": expected rx, tx or echo");
            }
        }
    }
    if (help_word || was_given(line.options, Option::help)) {
        return Help{first_mode(line.words)};
    }
    if (was_given(line.options, Option::version)) {
        return Version{};
    }
    if (line.words.empty()) {
        throw UsageError("no command given");
    }
    const std::optional<Mode> mode = parse_mode(line.words[0]);
    if (!mode) {
        throw UsageError("unknown command " + quoted(line.words[0]) + ": expected rx, tx or echo");
    }
    if (line.words.size() > 1) {
        // 0.2.0's positionals: COMMAND DEV QUEUE.
        const std::string command(to_string(*mode));
        const std::string_view queue = line.words.size() > 2 ? line.words[2] : "QUEUE";
        throw UsageError("unexpected " + quoted(line.words[1]) +
                         ": the device and queue are options now (" + command + " -i " +
                         std::string(line.words[1]) + " -q " + std::string(queue) + ")");
    }
    Invocation run;
    run.mode = *mode;
    std::vector<std::size_t> seen;
    for (const tool_cli::OptionHit& hit : line.options) {
        const tool_cli::OptionSpec& spec = option_specs[hit.index];
        if ((option_modes[hit.index] & mode_bit(run.mode)) == 0) {
            throw UsageError("--" + std::string(spec.long_name) + " is an option of " +
                             commands_of(option_modes[hit.index]) + ", not " +
                             std::string(to_string(run.mode)));
        }
        if (spec.takes_value) {
            if (std::find(seen.begin(), seen.end(), hit.index) != seen.end()) {
                throw UsageError(tool_cli::given_twice(spec));
            }
            seen.push_back(hit.index);
        }
        apply(run, static_cast<Option>(hit.index), hit.value);
    }
    require_complete(run, line.options);
    return run;
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
    try {
        return parse_strictly(args);
    } catch (const UsageError&) {
        // -h anywhere wins over a usage error, -V over anything but -h.
        if (tool_cli::asks_for(option_specs, args, "help", 'h')) {
            return Help{loose_mode(args)};
        }
        if (tool_cli::asks_for(option_specs, args, "version", 'V')) {
            return Version{};
        }
        throw;
    }
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

namespace {

// A piece of the help and the commands it is about.
struct HelpPiece {
    unsigned modes;
    std::string_view text;
};

struct OptionHelp {
    Option option;
    std::string_view text;
};

constexpr std::array<HelpPiece, 3> usage_pieces{{
    {for_rx, R"(  refnic-bypass rx   -i DEV -q QUEUE [-c N] [-d SECONDS] [-b N] [-B]
                     [--hdr-split] [--whole-port] [--verify] [-Q] [-j|-p]
)"},
    {for_tx, R"(  refnic-bypass tx   -i DEV -q QUEUE --dst-mac MAC --src-ip ADDR --dst-ip ADDR
                     --dst-port PORT [--src-mac MAC] [--src-port PORT]
                     [-s BYTES] [--rate PPS] [-c N] [-d SECONDS] [-b N] [-B]
                     [-Q] [-j|-p]
)"},
    {for_echo, R"(  refnic-bypass echo -i DEV -q QUEUE [-c N] [-d SECONDS] [-b N] [-B]
                     [--whole-port] [-Q] [-j|-p]
)"},
}};

constexpr std::string_view usage_common = R"(  refnic-bypass help [rx|tx|echo]
  refnic-bypass -h|--help
  refnic-bypass -V|--version
)";

constexpr std::string_view about = R"(
Each command binds queue pair QUEUE (RX queue and TX queue QUEUE) of the refnic
port DEV to this process through /dev/refnic, with a 4 MiB umem of 2048-byte
buffers and fill/rxc rings of 1024 and tx/txc rings of 512 entries. The queue
goes back to the kernel stack when refnic-bypass exits. Needs the refnic module
and CAP_NET_ADMIN.

)";

constexpr std::array<HelpPiece, 3> command_pieces{{
    {for_rx, R"(  rx    receives frames and counts them; with --verify, checks every IPv4/UDP
        frame as tx builds it
)"},
    {for_tx, R"(  tx    sends Ethernet/IPv4/UDP frames of --size bytes (without the FCS) from
        DEV's own MAC address (or --src-mac): IPv4 header checksum set, UDP
        checksum 0, and a payload that starts with an 8-byte big-endian sequence
        number (0, 1, 2, ...), each payload byte 8 + i after it being
        (seq + i) mod 256
)"},
    {for_echo, R"(  echo  sends every received IPv4/UDP frame back from the same buffer (zero
        copy), MAC and IP addresses and UDP ports swapped; other frames are
        dropped
)"},
}};

// Each option's lines, in the order the help lists them; the commands it is about are
// option_modes'.
constexpr std::array<OptionHelp, 22> option_help{{
    {Option::ifname, "  -i, --ifname DEV     the refnic port\n"},
    {Option::queue, "  -q, --queue QUEUE    the queue pair, 0 to 4294967295\n"},
    {Option::count,
     "  -c, --count N        stop after N packets (default: until SIGINT/SIGTERM)\n"},
    {Option::duration, "  -d, --duration S     stop after S seconds (a decimal number)\n"},
    {Option::batch,
     "  -b, --batch N        ring entries per peek/reserve, 1 to 4096, default 64\n"},
    {Option::busy_poll,
     "  -B, --busy-poll      spin on the rings instead of sleeping in poll(2)\n"},
    {Option::hdr_split,
     R"(  --hdr-split          rx: bind with header split: TCP/UDP headers land in the
                       header area, the payload in the buffer
)"},
    {Option::whole_port,
     R"(  --whole-port         rx, echo: every frame DEV receives comes to QUEUE (else
                       only what ntuple rules steer there: ethtool -N DEV ...
                       action QUEUE)
)"},
    {Option::verify, R"(  --verify             rx: check the IPv4/UDP frames (checksums, lengths,
                       payload pattern) and count them good or bad; other
                       frames count as other
)"},
    {Option::dst_mac,
     "  --dst-mac MAC        tx: destination MAC address, such as 02:00:00:00:00:02\n"},
    {Option::src_mac, "  --src-mac MAC        tx: source MAC address (default: DEV's own)\n"},
    {Option::src_ip, "  --src-ip ADDR        tx: source IPv4 address\n"},
    {Option::dst_ip, "  --dst-ip ADDR        tx: destination IPv4 address\n"},
    {Option::src_port, "  --src-port PORT      tx: source UDP port, default 9999\n"},
    {Option::dst_port, "  --dst-port PORT      tx: destination UDP port\n"},
    {Option::size, R"(  -s, --size BYTES     tx: frame size without the FCS, 50 to 2048, default 60;
                       at most DEV's MTU + 14 goes out, larger frames the
                       kernel drops and counts as bad_len
)"},
    {Option::rate, R"(  --rate PPS           tx: send at most PPS packets a second, 1 to 100000000
                       (default: as fast as the rings take them); a receiver
                       that falls behind loses frames for lack of posted
                       buffers, as on a real NIC
)"},
    {Option::quiet,
     R"(  -Q, --quiet          no rate line once a second on stderr (the binding line,
                       which says the session is ready, is printed all the same)
)"},
    {Option::json, R"(  -j, --json           print the summary as one JSON object on stdout (the
                       summary line goes to stderr then)
)"},
    {Option::pretty, "  -p, --pretty         the same, indented by 4 spaces\n"},
    {Option::help, "  -h, --help           this help; with a command, that command's\n"},
    {Option::version, "  -V, --version        print the version\n"},
}};

constexpr std::string_view summary_and_status = R"(
At exit refnic-bypass prints a summary line: packets, bytes, rate, and for rx
--verify the good, bad and other counts. The JSON object has mode, ifname,
queue, packets, bytes, elapsed_ns, rate_pps, throughput_bps (bit/s), good, bad,
other, dropped (tx, echo: sent frames not completed 10 s after the last send)
and session: the kernel's counters of the session (REFNIC_BYPASS_IOC_STATS),
or null if they could not be read.

Exit status: 0 success, 1 runtime error (setup, kernel refusal, frames that
failed --verify), 2 bad command line (one line on stderr).
)";

template <std::size_t N>
std::string pieces_for(const std::array<HelpPiece, N>& pieces, unsigned modes) {
    std::string text;
    for (const HelpPiece& piece : pieces) {
        if ((piece.modes & modes) != 0) {
            text += piece.text;
        }
    }
    return text;
}

}  // namespace

std::string usage_text() {
    return "Usage:\n" + pieces_for(usage_pieces, for_all) + std::string(usage_common);
}

std::string help_text(std::optional<Mode> mode) {
    const unsigned modes = mode ? mode_bit(*mode) : for_all;
    std::string text = "refnic-bypass " REFNIC_VERSION
                       " - kernel-bypass queues of a refnic port (/dev/refnic)\n\n";
    text += mode ? "Usage:\n" + pieces_for(usage_pieces, modes) : usage_text();
    text += about;
    text += pieces_for(command_pieces, modes);
    text += "\nOptions (short letters as xdpsock's; anywhere on the line; -- ends them):\n";
    for (const OptionHelp& help : option_help) {
        if ((option_modes[static_cast<std::size_t>(help.option)] & modes) != 0) {
            text += help.text;
        }
    }
    text += summary_and_status;
    return text;
}

std::string version_text() { return "refnic-bypass " REFNIC_VERSION "\n"; }

}  // namespace refnic::bypass_cli
