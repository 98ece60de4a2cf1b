// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include "options.hpp"

#include <refnic/zcrx.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>

namespace refnic::devmem_cli {

namespace {

using tool_cli::interface_name;
using tool_cli::number;
using tool_cli::OptionHit;
using tool_cli::OptionSpec;
using tool_cli::quoted;

// Short letters are ncdevmem's (with ncdevmem's meanings) or -j, -h, -V; the rest is long-only.
// -b is ncdevmem's too, refused with a reason; -i and -r are 0.2.0's, refused with the new
// spelling.
enum OptionIndex : std::uint8_t {
    opt_ifname,
    opt_start_queue,
    opt_num_queues,
    opt_port,
    opt_server,
    opt_validate,
    opt_listen,
    opt_fail_on_linear,
    opt_no_config,
    opt_release,
    opt_udmabuf_size,
    opt_json,
    opt_pretty,
    opt_help,
    opt_version,
    opt_client,
    opt_chunk_size,
    opt_page_size,
    opt_old_ifname,
    opt_old_release,
    opt_area_size,
    opt_refill_batch,
    opt_bytes,
    opt_refill_garbage,
    opt_unbind_after,
    opt_rx_buf_len,
};

constexpr std::array<OptionSpec, 26> option_specs{{
    {"ifname", 'f', true},     {"start-queue", 't', true},
    {"num-queues", 'q', true}, {"port", 'p', true},
    {"server", 's', true},     {"validate", 'v', true},
    {"listen", 'l', false},    {"fail-on-linear", 'L', false},
    {"no-config", 'n', false}, {"release", 0, true},
    {"udmabuf-size", 0, true}, {"json", 'j', false},
    {"pretty", 0, false},      {"help", 'h', false},
    {"version", 'V', false},   {"client", 'c', true},
    {"max-chunk", 'z', true},  {"", 'b', true},
    {"", 'i', true},           {"", 'r', true},
    {"area-size", 0, true},    {"refill-batch", 0, true},
    {"bytes", 0, true},        {"refill-garbage", 0, false},
    {"unbind-after", 0, true}, {"rx-buf-len", 0, true},
}};

// The commands, as a set: which take an option.
enum CommandBit : std::uint8_t {
    cmd_rx = 1U << 0U,
    cmd_zcrx = 1U << 1U,
    cmd_tx = 1U << 2U,
};

std::uint8_t command_bit(std::string_view command) {
    if (command == "rx") {
        return cmd_rx;
    }
    return command == "zcrx" ? cmd_zcrx : cmd_tx;
}

// "rx", "rx and zcrx", ...
std::string command_names(std::uint8_t commands) {
    std::vector<std::string_view> names;
    for (const auto& [bit, name] :
         {std::pair{cmd_rx, "rx"}, std::pair{cmd_zcrx, "zcrx"}, std::pair{cmd_tx, "tx"}}) {
        if ((commands & bit) != 0) {
            names.emplace_back(name);
        }
    }
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i) {
        text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string(names[i]);
    }
    return text;
}

// 0.2.0's long options that are gone, found before getopt_long sees them.
void refuse_old_long_options(std::span<const std::string_view> args) {
    for (const std::string_view arg : args) {
        if (arg == "--") {
            return;
        }
        const std::string_view name = arg.substr(0, arg.find('='));
        if (name == "--size") {
            throw UsageError(R"(option "--size" is now "--udmabuf-size")");
        }
        if (name == "--queue") {
            throw UsageError(
                "option \"--queue\" is now \"-t/--start-queue\" (and \"-q\" the number of "
                "queues, as ncdevmem's)");
        }
    }
}

// An option only some commands take, as given.
struct Restricted {
    std::string_view name;
    std::uint8_t commands = 0;  // CommandBit set
};

struct Parsed {
    std::string_view command;  // "rx", "zcrx" or "tx"
    Rx rx;
    std::optional<std::uint32_t> start_queue;
    std::uint64_t num_queues = 1;
    bool num_queues_given = false;
    bool server_given = false;
    std::uint64_t area_mib = default_area_mib;
    std::uint32_t refill_batch = default_refill_batch;
    std::uint32_t rx_buf_len = 0;
    bool refill_garbage = false;
    std::optional<std::uint64_t> period;  // -v as given, 0 included
    std::optional<std::string> client;
    Ipv6Address client_address{};
    std::uint64_t chunk = 0;
    std::uint64_t bytes = default_tx_bytes;
    // Options given that some command does not take, to refuse them with it.
    std::vector<Restricted> restricted;

    void only(std::string_view name, std::uint8_t commands) {
        restricted.push_back({.name = name, .commands = commands});
    }
};

// An address option's value, or a UsageError naming `what` it should be.
Ipv6Address address_value(std::string_view what, std::string_view value) {
    const std::optional<Ipv6Address> address = parse_server_address(value);
    if (!address) {
        throw UsageError("invalid " + std::string(what) + " address " + quoted(value) +
                         ": expected an IPv6 or IPv4 address");
    }
    return *address;
}

void apply(Parsed& parsed, const OptionHit& hit) {
    Rx& rx = parsed.rx;
    const std::string_view value = hit.value;
    switch (hit.index) {
        case opt_ifname:
            rx.ifname = interface_name(value);
            break;
        case opt_start_queue:
            parsed.start_queue = static_cast<std::uint32_t>(
                number("start queue", value, 0, std::numeric_limits<std::uint32_t>::max()));
            parsed.only("-t", cmd_rx | cmd_zcrx);
            break;
        case opt_num_queues:
            parsed.num_queues = number("number of queues", value, 1, max_num_queues);
            parsed.num_queues_given = true;
            parsed.only("-q", cmd_rx | cmd_zcrx);
            break;
        case opt_port:
            rx.port = static_cast<std::uint16_t>(number("port", value, 1, 65535));
            break;
        case opt_server: {
            const std::optional<Ipv6Address> address = parse_server_address(value);
            if (!address) {
                const bool is_number =
                    !value.empty() && std::all_of(value.begin(), value.end(),
                                                  [](char c) { return c >= '0' && c <= '9'; });
                throw UsageError("invalid server address " + quoted(value) +
                                 (is_number ? R"(: "-s MIB" is now "--udmabuf-size MIB")"
                                            : ": expected an IPv6 or IPv4 address"));
            }
            rx.server = std::string(value);
            rx.server_address = *address;
            parsed.server_given = true;
            break;
        }
        case opt_validate: {
            const std::optional<std::uint64_t> period = tool_cli::parse_unsigned(value);
            // ncdevmem's -v 1 expects 1, 2, ... 255 and then zeros: a quirk, not a pattern.
            if (!period || *period == 1 || *period > std::numeric_limits<std::uint32_t>::max()) {
                throw UsageError("invalid validate period " + quoted(value) +
                                 ": expected 0 (off) or a number from 2 to 4294967295");
            }
            rx.validate = *period == 0 ? std::nullopt : period;
            parsed.period = period;
            break;
        }
        case opt_client:
            parsed.client_address = address_value("client", value);
            parsed.client = std::string(value);
            parsed.only("-c", cmd_tx);
            break;
        case opt_chunk_size:
            parsed.chunk = number("chunk size", value, 1, max_chunk_bytes);
            parsed.only("-z", cmd_tx);
            break;
        case opt_bytes:
            parsed.bytes = number("byte count", value, 1, std::numeric_limits<std::int64_t>::max());
            parsed.only("--bytes", cmd_tx);
            break;
        case opt_release: {
            const std::optional<devmem::Release> release = parse_release(value);
            if (!release) {
                throw UsageError("invalid release mode " + quoted(value) +
                                 ": expected per-frag or batched");
            }
            rx.release = *release;
            parsed.only("--release", cmd_rx);
            break;
        }
        case opt_udmabuf_size:
            rx.size_mib = number("udmabuf size", value, 1, max_size_mib);
            parsed.only("--udmabuf-size", cmd_rx | cmd_tx);
            break;
        case opt_area_size:
            parsed.area_mib = number("area size", value, 1, max_area_mib);
            parsed.only("--area-size", cmd_zcrx);
            break;
        case opt_refill_batch:
            parsed.refill_batch = static_cast<std::uint32_t>(
                number("refill batch", value, 1, zcrx::max_refill_entries));
            parsed.only("--refill-batch", cmd_zcrx);
            break;
        case opt_rx_buf_len:
            parsed.rx_buf_len =
                static_cast<std::uint32_t>(number("rx buffer length", value, 4096, 1U << 20U));
            if (!std::has_single_bit(parsed.rx_buf_len)) {
                throw UsageError("--rx-buf-len " + std::string(value) +
                                 ": a power of two from 4096 to 1048576");
            }
            parsed.only("--rx-buf-len", cmd_zcrx);
            break;
        case opt_refill_garbage:
            parsed.refill_garbage = true;
            parsed.only("--refill-garbage", cmd_zcrx);
            break;
        case opt_unbind_after:
            rx.unbind_after_mib = number("unbind point", value, 1, max_size_mib);
            parsed.only("--unbind-after", cmd_rx);
            break;
        case opt_json:
            rx.json = true;
            break;
        case opt_pretty:
            rx.json = true;
            rx.pretty = true;
            break;
        case opt_page_size:
            throw UsageError("option \"-b\" (ncdevmem's rx-page-size) is not taken");
        case opt_old_ifname:
            throw UsageError(R"(option "-i" is now "-f" (ncdevmem's letter))");
        case opt_old_release:
            throw UsageError(R"(option "-r" is now "--release")");
        case opt_listen:
            parsed.only("-l", cmd_rx | cmd_zcrx);
            break;
        case opt_fail_on_linear:
            parsed.only("-L", cmd_rx | cmd_zcrx);
            break;
        case opt_no_config:
            // ncdevmem's, and what every command does.
        default:
            break;
    }
}

void refuse_foreign(const Parsed& parsed) {
    const std::uint8_t bit = command_bit(parsed.command);
    for (const Restricted& option : parsed.restricted) {
        if ((option.commands & bit) == 0) {
            throw UsageError("option " + quoted(option.name) + " is not " +
                             std::string(parsed.command) + "'s (" + command_names(option.commands) +
                             " take" + (std::popcount(option.commands) == 1 ? "s" : "") + " it)");
        }
    }
}

Tx to_tx(const Parsed& parsed) {
    const Rx& rx = parsed.rx;
    if (rx.ifname.empty()) {
        throw UsageError("tx needs an interface (-f IFNAME)");
    }
    if (!parsed.server_given) {
        throw UsageError("tx needs the receiver's address (-s ADDR)");
    }
    if (rx.port == 0) {
        throw UsageError("tx needs a port (-p PORT)");
    }
    refuse_foreign(parsed);
    if (parsed.period && *parsed.period == 0) {
        throw UsageError(
            "tx always sends the pattern: \"-v 0\" is rx's (off); -v takes 2 to "
            "4294967295, default 7");
    }
    return Tx{.ifname = rx.ifname,
              .port = rx.port,
              .server = rx.server,
              .server_address = rx.server_address,
              .client = parsed.client,
              .client_address = parsed.client_address,
              .period = parsed.period.value_or(default_tx_period),
              .chunk = parsed.chunk,
              .bytes = parsed.bytes,
              .size_mib = rx.size_mib,
              .json = rx.json,
              .pretty = rx.pretty};
}

void require_complete(Parsed& parsed) {
    Rx& rx = parsed.rx;
    const std::string command(parsed.command);
    if (rx.ifname.empty()) {
        throw UsageError(command + " needs an interface (-f IFNAME)");
    }
    if (!parsed.start_queue) {
        throw UsageError(parsed.num_queues_given
                             ? command + " needs a start queue (-t QUEUE); \"-q\" is now the " +
                                   "number of queues, as ncdevmem's"
                             : command + " needs a start queue (-t QUEUE)");
    }
    if (*parsed.start_queue + parsed.num_queues - 1 > std::numeric_limits<std::uint32_t>::max()) {
        throw UsageError("queues " + std::to_string(*parsed.start_queue) + " to " +
                         std::to_string(*parsed.start_queue + parsed.num_queues - 1) +
                         ": past the largest queue number");
    }
    for (std::uint64_t i = 0; i < parsed.num_queues; ++i) {
        rx.queues.push_back(static_cast<std::uint32_t>(*parsed.start_queue + i));
    }
    if (rx.port == 0) {
        throw UsageError(command + " needs a port (-p PORT)");
    }
    refuse_foreign(parsed);
    if (parsed.command == "zcrx" && parsed.num_queues != 1) {
        throw UsageError("zcrx receives on one queue: \"-q " + std::to_string(parsed.num_queues) +
                         "\" is rx's (an io_uring interface queue is one RX queue)");
    }
    if (parsed.refill_garbage && parsed.rx.validate) {
        throw UsageError(
            "--refill-garbage hands back buffers the process may still read: it "
            "does not go with -v");
    }
}

Zcrx to_zcrx(const Parsed& parsed) {
    const Rx& rx = parsed.rx;
    return Zcrx{.ifname = rx.ifname,
                .queue = rx.queues.front(),
                .port = rx.port,
                .server = rx.server,
                .server_address = rx.server_address,
                .area_mib = parsed.area_mib,
                .refill_batch = parsed.refill_batch,
                .rx_buf_len = parsed.rx_buf_len,
                .refill_garbage = parsed.refill_garbage,
                .validate = rx.validate,
                .json = rx.json,
                .pretty = rx.pretty};
}

Command parse_strictly(std::span<const std::string_view> args) {
    refuse_old_long_options(args);
    Parsed parsed;
    std::vector<std::size_t> seen;
    std::vector<std::string_view> words;
    tool_cli::OptionParser parser(option_specs, args);
    bool help = false;
    bool version = false;
    // The option just before the current word: a word after -l is 0.2.0's "-l ADDR".
    bool after_listen = false;
    for (;;) {
        for (const OptionHit& hit : parser.options()) {
            if (hit.index == opt_help) {
                help = true;
            } else if (hit.index == opt_version) {
                version = true;
            } else if (option_specs[hit.index].takes_value) {
                if (std::find(seen.begin(), seen.end(), hit.index) != seen.end()) {
                    throw UsageError(tool_cli::given_twice(option_specs[hit.index]));
                }
                seen.push_back(hit.index);
            }
            apply(parsed, hit);
            after_listen = hit.index == opt_listen;
        }
        const std::optional<std::string_view> word = parser.take();
        if (!word) {
            break;
        }
        if (*word == "help") {
            help = true;
        } else if (words.empty() && (*word == "rx" || *word == "zcrx" || *word == "tx")) {
            words.push_back(*word);
            parsed.command = *word;
        } else if (words.empty()) {
            throw UsageError("unknown command " + quoted(*word) + ": expected rx, zcrx or tx");
        } else if (after_listen) {
            throw UsageError("unexpected " + quoted(*word) + ": \"-l " + std::string(*word) +
                             "\" is now \"-s " + std::string(*word) + "\" (ncdevmem's letters)");
        } else {
            throw UsageError("unexpected " + quoted(*word));
        }
        after_listen = false;
    }
    if (help) {
        return Help{};
    }
    if (version) {
        return Version{};
    }
    if (words.empty()) {
        throw UsageError("no command given");
    }
    if (parsed.command == "tx") {
        return to_tx(parsed);
    }
    require_complete(parsed);
    if (parsed.command == "zcrx") {
        return to_zcrx(parsed);
    }
    return parsed.rx;
}

}  // namespace

Command parse_command_line(std::span<const std::string_view> args) {
    try {
        return parse_strictly(args);
    } catch (const UsageError&) {
        if (tool_cli::asks_for(option_specs, args, "help", 'h')) {
            return Help{};
        }
        if (tool_cli::asks_for(option_specs, args, "version", 'V')) {
            return Version{};
        }
        throw;
    }
}

std::optional<Ipv6Address> parse_server_address(std::string_view text) {
    const std::string nul_terminated(text);
    in6_addr v6{};
    Ipv6Address address{};
    if (::inet_pton(AF_INET6, nul_terminated.c_str(), &v6) == 1) {
        std::memcpy(address.data(), &v6, address.size());
        return address;
    }
    in_addr v4{};
    if (::inet_pton(AF_INET, nul_terminated.c_str(), &v4) == 1) {
        address[10] = 0xff;
        address[11] = 0xff;
        std::memcpy(address.data() + 12, &v4, sizeof(v4));
        return address;
    }
    return std::nullopt;
}

std::optional<devmem::Release> parse_release(std::string_view text) {
    for (const devmem::Release release : {devmem::Release::per_frag, devmem::Release::batched}) {
        if (text == devmem::to_string(release)) {
            return release;
        }
    }
    return std::nullopt;
}

std::string help_text() {
    return R"(refnic-devmem )" REFNIC_VERSION R"( - zero-copy TCP: devmem TCP into a udmabuf,
io_uring zcrx into the process's memory, devmem TX from a udmabuf

Usage:
  refnic-devmem rx -f IFNAME -t QUEUE [-q NUM] -p PORT [-s ADDR] [-v N]
                   [--release per-frag|batched] [--udmabuf-size MIB]
                   [--unbind-after MIB] [-l] [-L] [-n] [-j|--pretty]
  refnic-devmem zcrx -f IFNAME -t QUEUE -p PORT [-s ADDR] [-v N] [--area-size MIB]
                     [--refill-batch N] [--rx-buf-len BYTES] [--refill-garbage]
                     [-j|--pretty]
  refnic-devmem tx -f IFNAME -s ADDR -p PORT [-c ADDR] [-v N] [-z CHUNK]
                   [--bytes N] [--udmabuf-size MIB] [-j|--pretty]
  refnic-devmem help [rx|zcrx|tx]
  refnic-devmem -h|--help
  refnic-devmem -V|--version

rx makes a udmabuf (MIB MiB of memfd pages exported through /dev/udmabuf), binds
it to RX queues QUEUE to QUEUE+NUM-1 of IFNAME with netdev bind-rx (the binding
lasts while refnic-devmem runs), listens on PORT, accepts one TCP connection and
receives it until the sender closes with recvmsg(MSG_SOCK_DEVMEM): the payload
lands in the udmabuf, and every frag goes back to the kernel with
SO_DEVMEM_DONTNEED. Then it prints bytes, frags, recvmsg and SO_DEVMEM_DONTNEED
calls, syscalls and CPU time (getrusage) per GiB, and throughput.

Short options are ncdevmem's letters with ncdevmem's meanings: an ncdevmem
server line runs with "ncdevmem" replaced by "refnic-devmem rx" once its -c is
dropped.
  -f, --ifname IFNAME   device whose RX queues receive the flow; needs a parent
                        device to attach the dmabuf to, and CAP_NET_ADMIN
  -t, --start-queue QUEUE
                        first RX queue to bind the udmabuf to
  -q, --num-queues NUM  how many queues from -t, default 1
  -p, --port PORT       TCP port to listen on
  -s, --server ADDR     local address to listen on (default ::); IPv4 is
                        listened on v4-mapped
  -v, --validate N      check the payload as ncdevmem -v N does: byte i of the
                        stream must be (i + 1) mod N (mod 256 for N > 256), for
                        N from 2; 0 (the default) is off. With N = 7 that is what
                        this sender sends:
                          yes $(echo -e \\x01\\x02\\x03\\x04\\x05\\x06) |
                            tr \\n \\0 | head -c SIZE | nc ADDR PORT
  -l, --listen          accepted, redundant: rx always listens
  -L, --fail-on-linear  accepted, redundant: rx always fails on SCM_DEVMEM_LINEAR
  -n, --no-config       accepted, redundant: refnic-devmem never configures the
                        device
  --release MODE        how frags go back to the kernel: per-frag (one
                        SO_DEVMEM_DONTNEED per frag, as ncdevmem does) or batched
                        (the default: tokens merged into ranges, one call per up
                        to 1024 frags in 128 ranges, the kernel's limits)
  --udmabuf-size MIB    udmabuf size in MiB, 1 to 65536, default 64 (the udmabuf
                        driver's limit, /sys/module/udmabuf/parameters/size_limit_mb)
  --unbind-after MIB    unbind the udmabuf (close the binding's netlink socket)
                        once MIB MiB arrived, still holding the frags of that
                        recvmsg and the tokens batched: they stay readable and
                        are handed back after the unbind; the rest of the stream
                        arrives as plain data, validated as well
  -j, --json            print the summary as one JSON object
  --pretty              the same, indented by 4 spaces
ncdevmem's -b (rx-page-size) is not taken.

zcrx (Linux 7.3) registers MIB MiB of the process's own memory (the "area",
--area-size, default 32) and a refill queue for RX queue QUEUE of IFNAME with
io_uring (IORING_REGISTER_ZCRX_IFQ: the queue's page_pool then takes its buffers
from the area), listens on PORT, accepts one connection and receives it with a
multishot IORING_OP_RECV_ZC until the sender closes: each completion says where
in the area a piece landed, and each piece goes back through the refill queue,
the queue's tail stored once per --refill-batch entries (default 64), or when
no data comes for 10 ms. --rx-buf-len BYTES asks for buffers of that size (a
power of two from 4096, dividing the area; the driver may refuse one its
device cannot fill: refnic takes up to 65536) instead of a page each. -f, -t, -p, -s, -v, -j and --pretty as for rx; one
queue only. It needs what the kernel asks of a zcrx queue: header split on
(refnic-ethtool -G IFNAME tcp-data-split on) and hds-thresh 0 (refnic's is
always 0), the flow steered to QUEUE, no XDP, no other memory provider on
the queue, and CAP_NET_ADMIN. --refill-garbage (a test of the kernel's checks)
adds bad entries after each batch handed back: an offset past the area, one
far beyond it, and the batch's first entry again; the kernel must skip them.
A duplicate may return a buffer the process still reads, so it does not go
with -v.

  -c, --client ADDR     (tx) local address to send from
  -z, --max-chunk CHUNK (tx) longest iovec, 1 to 1073741824 bytes
  --bytes N             (tx) bytes to send, default 67108864

tx (Linux 6.16 and later) fills a udmabuf (--udmabuf-size, default 64 MiB) with
the stream ncdevmem -v N validates (-v, default 7), binds it to IFNAME for
sending with netdev bind-tx, connects to ADDR:PORT through IFNAME
(SO_BINDTODEVICE; from -c ADDR when given) and sends --bytes N bytes (default
64 MiB), wrapping around the udmabuf, with sendmsg(MSG_ZEROCOPY) and an
SCM_DEVMEM_DMABUF cmsg: the NIC reads the payload from the udmabuf, the CPU
never copies it. -z CHUNK cuts each send into iovecs of CHUNK bytes, as
ncdevmem -z does. It waits for the kernel to report every send complete
(MSG_ERRQUEUE), then prints bytes, sendmsg calls, completions (and how many
the kernel copied instead), syscalls and CPU time per GiB, and throughput.
The driver must offer netmem TX (refnic: module parameter devmem_tx=1);
bind-tx needs no capability.

refnic-devmem does not set the device up. Before rx or zcrx runs:
  refnic-ethtool -G IFNAME tcp-data-split on
  ethtool -N IFNAME flow-type tcp4 dst-port PORT action QUEUE
and keep other flows off the bound queues (ethtool -X IFNAME equal/weight ...).

It fails when payload bypasses the udmabuf: data without devmem cmsgs (the flow
is not steered to a bound queue; after --unbind-after that is expected), data
through SCM_DEVMEM_LINEAR (header split left payload in the linear part), frags
of another dmabuf, and, with -v, bytes that differ from the pattern.

JSON (-j): {"ifname", "queues", "binding", "bytes", "devmem_bytes", "plain_bytes",
"frags", "recvmsg_calls", "dontneed_calls", "poll_calls", "frags_freed", "release",
"syscalls", "syscalls_per_gib", "sync_ioctls", "unbound_at", "held_at_unbind",
"cpu_user_ns", "cpu_system_ns", "cpu_ns_per_gib", "elapsed_ns", "throughput_bps",
"validate"}: integers in bytes and nanoseconds; the per-GiB and bit/s values are
derived, null without payload (or time); validate is null when off; unbound_at
(the stream offset of the unbind) and held_at_unbind (frags then held) are null
without --unbind-after.
zcrx's JSON: {"ifname", "queue", "zcrx_id", "area_bytes", "bytes", "chunks",
"enter_calls", "submissions", "cq_full", "no_buffers", "refill_entries",
"refill_batches", "refill_batch", "refill_garbage", "syscalls", "syscalls_per_gib",
"cpu_user_ns", "cpu_system_ns", "cpu_ns_per_gib", "elapsed_ns", "throughput_bps",
"validate"} (refill_garbage: the bad entries --refill-garbage added).

tx's JSON: {"ifname", "binding", "udmabuf_bytes", "bytes", "chunk", "sendmsg_calls",
"enobufs", "errqueue_reads", "poll_calls", "completed", "copied", "syscalls",
"syscalls_per_gib", "cpu_user_ns", "cpu_system_ns", "cpu_ns_per_gib",
"elapsed_ns", "throughput_bps", "validate"} (validate: the pattern's period).

Exit status: 0 success, 1 runtime error (setup, kernel refusal, bad data),
2 bad command line (one line on stderr).
)";
}

std::string version_text() { return "refnic-devmem " REFNIC_VERSION "\n"; }

}  // namespace refnic::devmem_cli
