// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

namespace refnic::devmem_cli {

namespace {

using tool_cli::interface_name;
using tool_cli::number;
using tool_cli::quoted;

enum class Option : std::uint8_t { ifname, queue, port, listen, size, validate, release, json };

struct OptionName {
    std::string_view short_name;
    std::string_view long_name;
    Option option;
    bool takes_value;
};

constexpr std::array<OptionName, 8> options{{
    {"-i", "--ifname", Option::ifname, true},
    {"-q", "--queue", Option::queue, true},
    {"-p", "--port", Option::port, true},
    {"-l", "--listen", Option::listen, true},
    {"-s", "--size", Option::size, true},
    {"-v", "--validate", Option::validate, true},
    {"-r", "--release", Option::release, true},
    {"-j", "--json", Option::json, false},
}};

// Applies one rx option; `seen` refuses a second of any but -q.
void apply(Rx& rx, const OptionName& name, std::string_view value, std::vector<Option>& seen) {
    if (name.option != Option::queue) {
        if (std::find(seen.begin(), seen.end(), name.option) != seen.end()) {
            throw UsageError(std::string(name.long_name) + " given twice");
        }
        seen.push_back(name.option);
    }
    switch (name.option) {
        case Option::ifname:
            rx.ifname = interface_name(value);
            break;
        case Option::queue: {
            const auto queue = static_cast<std::uint32_t>(
                number("queue", value, 0, std::numeric_limits<std::uint32_t>::max()));
            if (std::find(rx.queues.begin(), rx.queues.end(), queue) != rx.queues.end()) {
                throw UsageError("queue " + std::to_string(queue) + " given twice");
            }
            rx.queues.push_back(queue);
            break;
        }
        case Option::port:
            rx.port = static_cast<std::uint16_t>(number("port", value, 1, 65535));
            break;
        case Option::listen: {
            const std::optional<Ipv6Address> address = parse_listen_address(value);
            if (!address) {
                throw UsageError("invalid listen address " + quoted(value) +
                                 ": expected an IPv6 or IPv4 address");
            }
            rx.listen = std::string(value);
            rx.listen_address = *address;
            break;
        }
        case Option::size:
            rx.size_mib = number("size", value, 1, max_size_mib);
            break;
        case Option::validate:
            // ncdevmem's -v 1 expects 1, 2, ... 255 and then zeros: a quirk, not a pattern.
            rx.validate =
                number("validate period", value, 2, std::numeric_limits<std::uint32_t>::max());
            break;
        case Option::release: {
            const std::optional<devmem::Release> release = parse_release(value);
            if (!release) {
                throw UsageError("invalid release mode " + quoted(value) +
                                 ": expected per-frag or batched");
            }
            rx.release = *release;
            break;
        }
        case Option::json:
            rx.json = true;
            break;
    }
}

const OptionName* find_option(std::string_view word) {
    const auto* found = std::find_if(options.begin(), options.end(), [&](const OptionName& name) {
        return word == name.short_name || word == name.long_name;
    });
    return found == options.end() ? nullptr : &*found;
}

// args[i] is an option of rx: applies it, with its value, and moves `i` past them.
void parse_option(std::span<const std::string_view> args, std::size_t& i, Rx& rx,
                  std::vector<Option>& seen) {
    const std::string_view word = args[i];
    // --name=value as well as --name value.
    const std::size_t equals = word.starts_with("--") ? word.find('=') : std::string_view::npos;
    const std::string_view name = word.substr(0, equals);
    const OptionName* option = find_option(name);
    if (option == nullptr) {
        throw UsageError("unknown option " + quoted(name));
    }
    std::string_view value;
    if (equals != std::string_view::npos) {
        if (!option->takes_value) {
            throw UsageError(std::string(option->long_name) + " takes no value");
        }
        value = word.substr(equals + 1);
    } else if (option->takes_value) {
        if (i + 1 >= args.size()) {
            throw UsageError(std::string(option->long_name) + " needs a value");
        }
        value = args[++i];
    }
    apply(rx, *option, value, seen);
}

void require_complete(const Rx& rx) {
    if (rx.ifname.empty()) {
        throw UsageError("rx needs an interface (-i IFNAME)");
    }
    if (rx.queues.empty()) {
        throw UsageError("rx needs at least one RX queue (-q QUEUE)");
    }
    if (rx.port == 0) {
        throw UsageError("rx needs a port (-p PORT)");
    }
}

}  // namespace

Command parse_command_line(std::span<const std::string_view> args) {
    bool have_command = false;
    Rx rx;
    std::vector<Option> seen;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view word = args[i];
        if (word == "-h" || word == "--help" || word == "help") {
            return Help{};
        }
        if (word == "-V" || word == "--version") {
            return Version{};
        }
        if (word.starts_with('-') && word != "-") {
            if (!have_command) {
                const OptionName* option = find_option(word.substr(0, word.find('=')));
                throw UsageError(option != nullptr
                                     ? std::string(option->long_name) + " before the command (rx)"
                                     : "unknown option " + quoted(word));
            }
            parse_option(args, i, rx, seen);
        } else if (have_command) {
            throw UsageError("unexpected " + quoted(word));
        } else if (word != "rx") {
            throw UsageError("unknown command " + quoted(word));
        } else {
            have_command = true;
        }
    }
    if (!have_command) {
        throw UsageError("no command given");
    }
    require_complete(rx);
    return rx;
}

std::optional<Ipv6Address> parse_listen_address(std::string_view text) {
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
    return R"(refnic-devmem )" REFNIC_VERSION R"( - devmem TCP receiver over a udmabuf

Usage:
  refnic-devmem rx -i IFNAME -q QUEUE [-q QUEUE...] -p PORT [-l ADDR] [-s MIB]
                   [-v N] [-r per-frag|batched] [-j]
  refnic-devmem -h|--help
  refnic-devmem -V|--version

rx makes a udmabuf (MIB MiB of memfd pages exported through /dev/udmabuf), binds
it to RX queues QUEUE... of IFNAME with netdev bind-rx (the binding lasts while
refnic-devmem runs), listens on PORT, accepts one TCP connection and receives it
until the sender closes with recvmsg(MSG_SOCK_DEVMEM): the payload lands in the
udmabuf, and every frag goes back to the kernel with SO_DEVMEM_DONTNEED. Then it
prints bytes, frags, recvmsg and SO_DEVMEM_DONTNEED calls, syscalls and CPU time
(getrusage) per GiB, and throughput.

Options of rx:
  -i, --ifname IFNAME   device whose RX queues receive the flow; needs a parent
                        device to attach the dmabuf to, and CAP_NET_ADMIN
  -q, --queue QUEUE     RX queue to bind the udmabuf to; repeat for more
  -p, --port PORT       TCP port to listen on
  -l, --listen ADDR     local address (default ::); IPv4 is listened on v4-mapped
  -s, --size MIB        udmabuf size in MiB, default 64 (the udmabuf driver's
                        limit, /sys/module/udmabuf/parameters/size_limit_mb)
  -v, --validate N      check the payload as ncdevmem -v N does: byte i of the
                        stream must be (i + 1) mod N (mod 256 for N > 256), for
                        N from 2. With N = 7 that is what this sender sends:
                          yes $(echo -e \\x01\\x02\\x03\\x04\\x05\\x06) |
                            tr \\n \\0 | head -c SIZE | nc ADDR PORT
  -r, --release MODE    how frags go back to the kernel: per-frag (one
                        SO_DEVMEM_DONTNEED per frag, as ncdevmem does) or batched
                        (the default: tokens merged into ranges, one call per up
                        to 1024 frags in 128 ranges, the kernel's limits)
  -j, --json            print the summary as one JSON object

refnic-devmem does not set the device up. Before it runs:
  refnic-ethtool -G IFNAME tcp-data-split on
  ethtool -N IFNAME flow-type tcp4 dst-port PORT action QUEUE
and keep other flows off the bound queues (ethtool -X IFNAME equal/weight ...).

It fails when payload bypasses the udmabuf: data without devmem cmsgs (the flow
is not steered to a bound queue), data through SCM_DEVMEM_LINEAR (header split
left payload in the linear part), frags of another dmabuf, and, with -v, bytes
that differ from the pattern.

Exit status: 0 success, 1 runtime error (setup, kernel refusal, bad data),
2 bad command line.
)";
}

std::string version_text() { return "refnic-devmem " REFNIC_VERSION "\n"; }

}  // namespace refnic::devmem_cli
