/* SPDX-License-Identifier: GPL-2.0-only */
// refnic-devmem's command line, kept free of side effects so it can be unit tested: what an
// invocation means (parse_command_line) and the help text.
#pragma once

#include "cli_args.hpp"

#include <refnic/devmem.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace refnic::devmem_cli {

// Exit statuses a script can rely on.
inline constexpr int exit_ok = 0;
inline constexpr int exit_runtime_error = 1;  // setup failed, the kernel refused, bad data
inline constexpr int exit_usage_error = 2;    // the command line itself is wrong

inline constexpr std::uint64_t default_size_mib = 64;  // udmabuf's default size_limit_mb
inline constexpr std::uint64_t max_size_mib = 65536;
inline constexpr std::uint64_t max_num_queues = 1024;

// A command line refnic-devmem cannot make sense of.
using UsageError = tool_cli::UsageError;

// An IPv6 address in network byte order; IPv4 addresses are kept v4-mapped (::ffff:a.b.c.d).
using Ipv6Address = std::array<std::uint8_t, 16>;

// rx -f IFNAME -t QUEUE [-q NUM] -p PORT [-s ADDR] [-v N] [--release per-frag|batched]
//    [--udmabuf-size MIB] [--unbind-after MIB] [-l] [-L] [-n] [-j|--pretty]: ncdevmem's
//    letters (docs/cli.md).
struct Rx {
    std::string ifname;
    std::vector<std::uint32_t> queues;  // -t QUEUE to QUEUE + NUM - 1.
    std::uint16_t port = 0;
    std::string server = "::";  // As given, for messages.
    Ipv6Address server_address{};
    std::uint64_t size_mib = default_size_mib;
    std::optional<std::uint64_t> validate;  // ncdevmem's -v N; nullopt for 0 (off).
    devmem::Release release = devmem::Release::batched;
    // Unbind the udmabuf once this many MiB arrived, holding the frags of that recvmsg and
    // the tokens batched; the rest of the stream arrives as plain data.
    std::optional<std::uint64_t> unbind_after_mib;
    bool json = false;
    bool pretty = false;

    friend bool operator==(const Rx&, const Rx&) = default;
};

inline constexpr std::uint64_t default_area_mib = 32;
inline constexpr std::uint64_t max_area_mib = 65536;
inline constexpr std::uint32_t default_refill_batch = 64;

// zcrx -f IFNAME -t QUEUE -p PORT [-s ADDR] [-v N] [--area-size MIB] [--refill-batch N]
//      [--rx-buf-len BYTES] [--refill-garbage] [-j|--pretty]: io_uring zero-copy receive into
//      the process's own memory (Linux 7.3).
struct Zcrx {
    std::string ifname;
    std::uint32_t queue = 0;
    std::uint16_t port = 0;
    std::string server = "::";
    Ipv6Address server_address{};
    std::uint64_t area_mib = default_area_mib;
    std::uint32_t refill_batch = default_refill_batch;
    std::uint32_t rx_buf_len = 0;  // 0: the kernel's choice (a page)
    bool refill_garbage = false;   // Bad refill entries after each batch (a test).
    std::optional<std::uint64_t> validate;
    bool json = false;
    bool pretty = false;

    friend bool operator==(const Zcrx&, const Zcrx&) = default;
};

inline constexpr std::uint64_t default_tx_bytes = std::uint64_t{64} << 20U;
inline constexpr std::uint64_t default_tx_period = 7;
// What one sendmsg's iovecs may carry: ncdevmem's MAX_IOV of 1024, one chunk each.
inline constexpr std::uint64_t max_chunk_bytes = std::uint64_t{1} << 30U;

// tx -f IFNAME -s ADDR -p PORT [-c ADDR] [-v N] [-z CHUNK] [--bytes N] [--udmabuf-size MIB]
//    [-j|--pretty]: devmem TX from a udmabuf (Linux 6.16 and later); ncdevmem's client letters.
struct Tx {
    std::string ifname;
    std::uint16_t port = 0;
    std::string server;  // As given, for messages.
    Ipv6Address server_address{};
    std::optional<std::string> client;  // -c: the local address to bind, as given.
    Ipv6Address client_address{};
    std::uint64_t period = default_tx_period;  // The payload is what ncdevmem -v N validates.
    std::uint64_t chunk = 0;                   // -z: longest iovec; 0 one per sendmsg.
    std::uint64_t bytes = default_tx_bytes;
    std::uint64_t size_mib = default_size_mib;
    bool json = false;
    bool pretty = false;

    friend bool operator==(const Tx&, const Tx&) = default;
};

struct Help {
    friend bool operator==(const Help&, const Help&) = default;
};

struct Version {
    friend bool operator==(const Version&, const Version&) = default;
};

using Command = std::variant<Rx, Zcrx, Tx, Help, Version>;

// argv[1..]. Throws UsageError for anything malformed, before anything is done; -h anywhere
// wins over that, -V over anything but -h.
[[nodiscard]] Command parse_command_line(std::span<const std::string_view> args);

// An IPv6 address, or an IPv4 one as v4-mapped; nullopt if it is neither.
[[nodiscard]] std::optional<Ipv6Address> parse_server_address(std::string_view text);
// "per-frag" or "batched".
[[nodiscard]] std::optional<devmem::Release> parse_release(std::string_view text);

[[nodiscard]] std::string help_text();
[[nodiscard]] std::string version_text();

}  // namespace refnic::devmem_cli
