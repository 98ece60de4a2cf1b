// SPDX-License-Identifier: GPL-2.0-only
#include "frame.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace refnic::bypass_cli {

namespace {

constexpr std::uint16_t ethertype_ipv4 = 0x0800;
constexpr std::uint8_t ip_protocol_udp = 17;
constexpr std::uint16_t ip_dont_fragment = 0x4000;
constexpr std::uint16_t ip_more_fragments = 0x2000;
constexpr std::uint16_t ip_fragment_offset = 0x1fff;
constexpr std::uint8_t default_ttl = 64;

// Offsets in the frame.
constexpr std::size_t eth_dst = 0;
constexpr std::size_t eth_src = 6;
constexpr std::size_t eth_type = 12;
constexpr std::size_t ip = ethernet_header_size;
constexpr std::size_t ip_total_length = ip + 2;
constexpr std::size_t ip_id = ip + 4;
constexpr std::size_t ip_frag = ip + 6;
constexpr std::size_t ip_ttl = ip + 8;
constexpr std::size_t ip_protocol = ip + 9;
constexpr std::size_t ip_checksum = ip + 10;
constexpr std::size_t ip_src = ip + 12;
constexpr std::size_t ip_dst = ip + 16;
// In the UDP header.
constexpr std::size_t udp_src_port = 0;
constexpr std::size_t udp_dst_port = 2;
constexpr std::size_t udp_length = 4;
constexpr std::size_t udp_checksum = 6;

std::uint8_t get8(std::span<const std::byte> bytes, std::size_t at) {
    return static_cast<std::uint8_t>(bytes[at]);
}

std::uint16_t get16(std::span<const std::byte> bytes, std::size_t at) {
    return static_cast<std::uint16_t>((get8(bytes, at) << 8U) | get8(bytes, at + 1));
}

void put8(std::span<std::byte> bytes, std::size_t at, std::uint8_t value) {
    bytes[at] = static_cast<std::byte>(value);
}

void put16(std::span<std::byte> bytes, std::size_t at, std::uint16_t value) {
    put8(bytes, at, static_cast<std::uint8_t>(value >> 8U));
    put8(bytes, at + 1, static_cast<std::uint8_t>(value));
}

template <std::size_t N>
void put_bytes(std::span<std::byte> bytes, std::size_t at,
               const std::array<std::uint8_t, N>& from) {
    for (std::size_t i = 0; i < N; ++i) {
        put8(bytes, at + i, from[i]);
    }
}

// Swaps `length` bytes at `a` and `b`.
void swap_bytes(std::span<std::byte> bytes, std::size_t a, std::size_t b, std::size_t length) {
    std::swap_ranges(bytes.begin() + static_cast<std::ptrdiff_t>(a),
                     bytes.begin() + static_cast<std::ptrdiff_t>(a + length),
                     bytes.begin() + static_cast<std::ptrdiff_t>(b));
}

std::string hex_byte(std::uint8_t value) {
    std::array<char, 8> text{};
    std::snprintf(text.data(), text.size(), "0x%02x", static_cast<unsigned>(value));
    return text.data();
}

// The IPv4/UDP frame's header length, or 0 when the frame is not unfragmented IPv4/UDP with the
// whole IPv4 header and a UDP header present.
std::size_t udp_ip_header_length(std::span<const std::byte> frame) {
    if (frame.size() < ethernet_header_size + ipv4_header_size ||
        get16(frame, eth_type) != ethertype_ipv4 || get8(frame, ip) >> 4U != 4 ||
        get8(frame, ip_protocol) != ip_protocol_udp ||
        (get16(frame, ip_frag) & (ip_more_fragments | ip_fragment_offset)) != 0) {
        return 0;
    }
    const std::size_t header_length = (get8(frame, ip) & 0x0fU) * std::size_t{4};
    if (header_length < ipv4_header_size ||
        frame.size() < ethernet_header_size + header_length + udp_header_size) {
        return 0;
    }
    return header_length;
}

// The UDP checksum's pseudo-header sum (RFC 768).
std::uint32_t pseudo_header_sum(std::span<const std::byte> frame, std::uint16_t udp_bytes) {
    std::uint32_t sum = 0;
    for (std::size_t at = ip_src; at < ip_dst + 4; at += 2) {
        sum += get16(frame, at);
    }
    return sum + ip_protocol_udp + udp_bytes;
}

// The payload pattern, from payload byte 8 on: empty if it holds, else the problem.
std::string check_pattern(std::span<const std::byte> payload, std::uint64_t seq) {
    for (std::size_t i = sequence_size; i < payload.size(); ++i) {
        const auto expected = static_cast<std::uint8_t>(seq + (i - sequence_size));
        const auto actual = static_cast<std::uint8_t>(payload[i]);
        if (actual != expected) {
            return "payload byte " + std::to_string(i) + " of seq " + std::to_string(seq) + " is " +
                   hex_byte(actual) + ", expected " + hex_byte(expected);
        }
    }
    return {};
}

}  // namespace

std::uint16_t internet_checksum(std::span<const std::byte> bytes, std::uint32_t sum) noexcept {
    std::uint64_t total = sum;
    std::size_t i = 0;
    for (; i + 1 < bytes.size(); i += 2) {
        total += get16(bytes, i);
    }
    if (i < bytes.size()) {
        total += static_cast<std::uint32_t>(get8(bytes, i)) << 8U;
    }
    while ((total >> 16U) != 0) {
        total = (total & 0xffffU) + (total >> 16U);
    }
    return static_cast<std::uint16_t>(~total & 0xffffU);
}

bool build_udp_frame(std::span<std::byte> out, const UdpFlow& flow, std::size_t size,
                     std::uint64_t seq) noexcept {
    constexpr std::size_t max_ip_bytes = 0xffff;
    if (size < min_frame_size || size > out.size() || size - ethernet_header_size > max_ip_bytes) {
        return false;
    }
    const std::span<std::byte> frame = out.first(size);
    put_bytes(frame, eth_dst, flow.dst_mac);
    put_bytes(frame, eth_src, flow.src_mac);
    put16(frame, eth_type, ethertype_ipv4);

    put8(frame, ip, 0x45);  // Version 4, 5 words of header.
    put8(frame, ip + 1, 0);
    put16(frame, ip_total_length, static_cast<std::uint16_t>(size - ethernet_header_size));
    put16(frame, ip_id, static_cast<std::uint16_t>(seq));
    put16(frame, ip_frag, ip_dont_fragment);
    put8(frame, ip_ttl, default_ttl);
    put8(frame, ip_protocol, ip_protocol_udp);
    put16(frame, ip_checksum, 0);
    put_bytes(frame, ip_src, flow.src_ip);
    put_bytes(frame, ip_dst, flow.dst_ip);
    put16(frame, ip_checksum, internet_checksum(frame.subspan(ip, ipv4_header_size)));

    const std::span<std::byte> udp = frame.subspan(ip + ipv4_header_size);
    put16(udp, udp_src_port, flow.src_port);
    put16(udp, udp_dst_port, flow.dst_port);
    put16(udp, udp_length, static_cast<std::uint16_t>(udp.size()));
    put16(udp, udp_checksum, 0);

    const std::span<std::byte> payload = udp.subspan(udp_header_size);
    for (std::size_t i = 0; i < sequence_size; ++i) {
        put8(payload, i, static_cast<std::uint8_t>(seq >> (8 * (sequence_size - 1 - i))));
    }
    for (std::size_t i = sequence_size; i < payload.size(); ++i) {
        put8(payload, i, static_cast<std::uint8_t>(seq + (i - sequence_size)));
    }
    return true;
}

FrameCheck check_udp_frame(std::span<const std::byte> frame) {
    FrameCheck check;
    const std::size_t header_length = udp_ip_header_length(frame);
    if (header_length == 0) {
        return check;
    }
    check.verdict = FrameCheck::Verdict::bad;
    const std::size_t ip_bytes = get16(frame, ip_total_length);
    if (ip_bytes < header_length + udp_header_size || ip_bytes > frame.size() - ip) {
        check.problem = "IPv4 total length " + std::to_string(ip_bytes) + " in a frame of " +
                        std::to_string(frame.size()) + " bytes";
        return check;
    }
    if (internet_checksum(frame.subspan(ip, header_length)) != 0) {
        check.problem = "bad IPv4 header checksum " + std::to_string(get16(frame, ip_checksum));
        return check;
    }
    const std::span<const std::byte> udp =
        frame.subspan(ip + header_length, ip_bytes - header_length);
    if (get16(udp, udp_length) != udp.size()) {
        check.problem = "UDP length " + std::to_string(get16(udp, udp_length)) + " in " +
                        std::to_string(udp.size()) + " bytes of IPv4 payload";
        return check;
    }
    if (get16(udp, udp_checksum) != 0 &&
        internet_checksum(udp, pseudo_header_sum(frame, static_cast<std::uint16_t>(udp.size()))) !=
            0) {
        check.problem = "bad UDP checksum " + std::to_string(get16(udp, udp_checksum));
        return check;
    }
    const std::span<const std::byte> payload = udp.subspan(udp_header_size);
    if (payload.size() < sequence_size) {
        check.problem =
            "a UDP payload of " + std::to_string(payload.size()) + " bytes has no sequence number";
        return check;
    }
    for (std::size_t i = 0; i < sequence_size; ++i) {
        check.seq = (check.seq << 8U) | get8(payload, i);
    }
    check.problem = check_pattern(payload, check.seq);
    if (check.problem.empty()) {
        check.verdict = FrameCheck::Verdict::good;
    }
    return check;
}

bool swap_udp_frame(std::span<std::byte> frame) noexcept {
    const std::size_t header_length = udp_ip_header_length(frame);
    if (header_length == 0) {
        return false;
    }
    swap_bytes(frame, eth_dst, eth_src, 6);
    swap_bytes(frame, ip_src, ip_dst, 4);
    const std::size_t udp = ip + header_length;
    swap_bytes(frame, udp + udp_src_port, udp + udp_dst_port, 2);
    return true;
}

}  // namespace refnic::bypass_cli
