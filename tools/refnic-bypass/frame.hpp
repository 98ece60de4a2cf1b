/* SPDX-License-Identifier: GPL-2.0-only */
// The frames refnic-bypass sends, checks and echoes, without side effects so they can be unit
// tested: Ethernet/IPv4/UDP with a payload a receiver can verify. The payload starts with an
// 8-byte big-endian sequence number; payload byte 8 + i is then (seq + i) mod 256.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace refnic::bypass_cli {

using MacAddress = std::array<std::uint8_t, 6>;
using Ipv4Address = std::array<std::uint8_t, 4>;

// One UDP flow, addresses in network byte order, ports in host byte order.
struct UdpFlow {
    MacAddress src_mac{};
    MacAddress dst_mac{};
    Ipv4Address src_ip{};
    Ipv4Address dst_ip{};
    std::uint16_t src_port = 0;
    std::uint16_t dst_port = 0;

    friend bool operator==(const UdpFlow&, const UdpFlow&) = default;
};

inline constexpr std::size_t ethernet_header_size = 14;
inline constexpr std::size_t ipv4_header_size = 20;
inline constexpr std::size_t udp_header_size = 8;
inline constexpr std::size_t udp_headers_size =
    ethernet_header_size + ipv4_header_size + udp_header_size;
inline constexpr std::size_t sequence_size = 8;
// The smallest frame that carries a sequence number.
inline constexpr std::size_t min_frame_size = udp_headers_size + sequence_size;

// The Internet checksum (RFC 1071) of `bytes`, starting from the partial sum `sum`.
[[nodiscard]] std::uint16_t internet_checksum(std::span<const std::byte> bytes,
                                              std::uint32_t sum = 0) noexcept;

// Writes a `size`-byte Ethernet/IPv4/UDP frame of `flow` carrying sequence number `seq` into the
// start of `out`: IPv4 with DF, TTL 64, identification seq mod 2^16 and its header checksum; UDP
// checksum 0 (none). `size` must be from min_frame_size to out.size(); returns false otherwise.
[[nodiscard]] bool build_udp_frame(std::span<std::byte> out, const UdpFlow& flow, std::size_t size,
                                   std::uint64_t seq) noexcept;

// What check_udp_frame found.
struct FrameCheck {
    enum class Verdict : std::uint8_t {
        good,     // IPv4/UDP, checksums right, the payload follows the pattern.
        bad,      // IPv4/UDP, but something is wrong: `problem` says what.
        not_udp,  // Not an IPv4/UDP frame (ARP, IPv6, fragments ...): not checked.
    };
    Verdict verdict = Verdict::not_udp;
    std::uint64_t seq = 0;  // The sequence number, when there is one.
    std::string problem;

    [[nodiscard]] bool good() const noexcept { return verdict == Verdict::good; }
};

// Checks a received frame (Ethernet padding after the IP packet is ignored): the IPv4 header
// checksum, the lengths, the UDP checksum unless it is 0, and the payload pattern.
[[nodiscard]] FrameCheck check_udp_frame(std::span<const std::byte> frame);

// For echo: swaps the MAC addresses, IPv4 addresses and UDP ports of an IPv4/UDP frame in place.
// Both checksums stay valid (the sums do not depend on the order). False, with the frame
// untouched, when it is not an unfragmented IPv4/UDP frame.
[[nodiscard]] bool swap_udp_frame(std::span<std::byte> frame) noexcept;

}  // namespace refnic::bypass_cli
