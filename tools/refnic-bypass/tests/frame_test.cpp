// SPDX-License-Identifier: GPL-2.0-only
// The frames of refnic-bypass: what tx builds, field by field and checksummed, is what rx --verify
// accepts; damage is caught; echo's swap keeps the checksums valid.
#include "frame.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace refnic::bypass_cli {
namespace {

const UdpFlow flow{
    .src_mac = {0x02, 0, 0, 0, 0, 0xa1},
    .dst_mac = {0x02, 0, 0, 0, 0, 0xb1},
    .src_ip = {10, 0, 0, 1},
    .dst_ip = {10, 0, 0, 2},
    .src_port = 9999,
    .dst_port = 7000,
};

std::vector<std::byte> frame_of(std::size_t size, std::uint64_t seq) {
    std::vector<std::byte> frame(size);
    EXPECT_TRUE(build_udp_frame(frame, flow, size, seq));
    return frame;
}

unsigned at(const std::vector<std::byte>& frame, std::size_t offset) {
    return static_cast<unsigned>(frame.at(offset));
}

unsigned be16(const std::vector<std::byte>& frame, std::size_t offset) {
    return at(frame, offset) << 8U | at(frame, offset + 1);
}

std::vector<std::byte> bytes(std::initializer_list<unsigned> values) {
    std::vector<std::byte> result;
    result.reserve(values.size());
    for (const unsigned value : values) {
        result.push_back(static_cast<std::byte>(value));
    }
    return result;
}

TEST(InternetChecksumTest, Rfc1071Example) {
    // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (one's complement 220d).
    EXPECT_EQ(internet_checksum(bytes({0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7})), 0x220dU);
    // An odd byte is the high half of a last word.
    EXPECT_EQ(internet_checksum(bytes({0x01})), 0xfeffU);
    EXPECT_EQ(internet_checksum({}), 0xffffU);
}

TEST(InternetChecksumTest, AKnownIpv4Header) {
    // The header of Wikipedia's IPv4 checksum example: checksum b861.
    const std::vector<std::byte> header =
        bytes({0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
               0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7});
    EXPECT_EQ(internet_checksum(header), 0xb861U);
}

TEST(BuildUdpFrameTest, Headers) {
    const std::vector<std::byte> frame = frame_of(60, 0x0102030405060708ULL);
    EXPECT_EQ(at(frame, 0), 0x02U);
    EXPECT_EQ(at(frame, 5), 0xb1U) << "destination MAC first";
    EXPECT_EQ(at(frame, 11), 0xa1U);
    EXPECT_EQ(be16(frame, 12), 0x0800U);
    EXPECT_EQ(at(frame, 14), 0x45U);
    EXPECT_EQ(be16(frame, 16), 46U) << "IPv4 total length";
    EXPECT_EQ(be16(frame, 18), 0x0708U) << "identification: the sequence number's low 16 bits";
    EXPECT_EQ(be16(frame, 20), 0x4000U) << "DF";
    EXPECT_EQ(at(frame, 22), 64U);
    EXPECT_EQ(at(frame, 23), 17U);
    EXPECT_EQ(at(frame, 26), 10U);
    EXPECT_EQ(at(frame, 33), 2U);
    EXPECT_EQ(internet_checksum(std::span(frame).subspan(14, 20)), 0U) << "header checksum";
    EXPECT_EQ(be16(frame, 34), 9999U);
    EXPECT_EQ(be16(frame, 36), 7000U);
    EXPECT_EQ(be16(frame, 38), 26U) << "UDP length";
    EXPECT_EQ(be16(frame, 40), 0U) << "no UDP checksum";
}

TEST(BuildUdpFrameTest, Payload) {
    const std::vector<std::byte> frame = frame_of(60, 0x01020304050607feULL);
    EXPECT_EQ(at(frame, 42), 0x01U) << "the sequence number, big-endian";
    EXPECT_EQ(at(frame, 49), 0xfeU);
    EXPECT_EQ(at(frame, 50), 0xfeU) << "then (seq + i) mod 256";
    EXPECT_EQ(at(frame, 51), 0xffU);
    EXPECT_EQ(at(frame, 52), 0x00U);
    EXPECT_EQ(at(frame, 59), 0x07U);
}

TEST(BuildUdpFrameTest, RefusesWhatDoesNotFit) {
    std::vector<std::byte> frame(100);
    EXPECT_FALSE(build_udp_frame(frame, flow, 49, 0)) << "no room for the sequence number";
    EXPECT_FALSE(build_udp_frame(frame, flow, 101, 0));
    EXPECT_TRUE(build_udp_frame(frame, flow, 50, 0));
    EXPECT_TRUE(build_udp_frame(frame, flow, 100, 0));
}

TEST(CheckUdpFrameTest, WhatTxBuildsPasses) {
    for (const std::size_t size : {50U, 60U, 61U, 1514U, 2048U}) {
        for (const std::uint64_t seq : {0ULL, 1ULL, 255ULL, 0xffffffffffffffffULL}) {
            const FrameCheck check = check_udp_frame(frame_of(size, seq));
            EXPECT_TRUE(check.good()) << size << " bytes, seq " << seq << ": " << check.problem;
            EXPECT_EQ(check.seq, seq);
        }
    }
}

TEST(CheckUdpFrameTest, IgnoresEthernetPadding) {
    std::vector<std::byte> frame = frame_of(50, 7);
    frame.resize(60);  // A NIC pads short frames to 60 bytes.
    EXPECT_TRUE(check_udp_frame(frame).good());
}

TEST(CheckUdpFrameTest, CatchesDamage) {
    std::vector<std::byte> frame = frame_of(100, 42);
    frame[70] ^= std::byte{1};
    FrameCheck check = check_udp_frame(frame);
    EXPECT_EQ(check.verdict, FrameCheck::Verdict::bad);
    EXPECT_EQ(check.seq, 42U);
    EXPECT_EQ(check.problem, "payload byte 28 of seq 42 is 0x3f, expected 0x3e");

    frame = frame_of(100, 42);
    frame[26] ^= std::byte{1};  // Source address: the header checksum no longer holds.
    EXPECT_EQ(check_udp_frame(frame).problem.rfind("bad IPv4 header checksum", 0), 0U);

    frame = frame_of(100, 42);
    frame.resize(90);  // Truncated: shorter than the IPv4 total length.
    EXPECT_EQ(check_udp_frame(frame).problem, "IPv4 total length 86 in a frame of 90 bytes");
}

TEST(CheckUdpFrameTest, VerifiesAUdpChecksumWhenThereIsOne) {
    std::vector<std::byte> frame = frame_of(60, 3);
    // The checksum over the pseudo-header, the UDP header and the payload, then stored.
    std::vector<std::byte> pseudo = bytes({10, 0, 0, 1, 10, 0, 0, 2, 0, 17, 0, 26});
    pseudo.insert(pseudo.end(), frame.begin() + 34, frame.end());
    const std::uint16_t sum = internet_checksum(pseudo);
    frame[40] = static_cast<std::byte>(sum >> 8U);
    frame[41] = static_cast<std::byte>(sum & 0xffU);
    EXPECT_TRUE(check_udp_frame(frame).good());
    frame[41] ^= std::byte{0x10};
    EXPECT_EQ(check_udp_frame(frame).problem.rfind("bad UDP checksum", 0), 0U);
}

TEST(CheckUdpFrameTest, OtherFramesAreNotChecked) {
    std::vector<std::byte> frame = frame_of(60, 1);
    frame[12] = std::byte{0x86};  // IPv6
    frame[13] = std::byte{0xdd};
    EXPECT_EQ(check_udp_frame(frame).verdict, FrameCheck::Verdict::not_udp);
    frame = frame_of(60, 1);
    frame[23] = std::byte{6};  // TCP
    EXPECT_EQ(check_udp_frame(frame).verdict, FrameCheck::Verdict::not_udp);
    frame = frame_of(60, 1);
    frame[20] = std::byte{0x20};  // More fragments
    EXPECT_EQ(check_udp_frame(frame).verdict, FrameCheck::Verdict::not_udp);
    EXPECT_EQ(check_udp_frame(bytes({1, 2, 3})).verdict, FrameCheck::Verdict::not_udp);
}

TEST(SwapUdpFrameTest, SwapsAddressesAndPortsKeepingTheChecksums) {
    std::vector<std::byte> frame = frame_of(80, 9);
    EXPECT_TRUE(swap_udp_frame(frame));
    UdpFlow back = flow;
    std::swap(back.src_mac, back.dst_mac);
    std::swap(back.src_ip, back.dst_ip);
    std::swap(back.src_port, back.dst_port);
    std::vector<std::byte> expected(80);
    EXPECT_TRUE(build_udp_frame(expected, back, 80, 9));
    EXPECT_EQ(frame, expected);
    EXPECT_TRUE(check_udp_frame(frame).good());

    std::vector<std::byte> arp = frame_of(60, 1);
    arp[12] = std::byte{0x08};
    arp[13] = std::byte{0x06};
    const std::vector<std::byte> before = arp;
    EXPECT_FALSE(swap_udp_frame(arp));
    EXPECT_EQ(arp, before);
}

}  // namespace
}  // namespace refnic::bypass_cli
