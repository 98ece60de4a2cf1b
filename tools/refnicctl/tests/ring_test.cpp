// SPDX-License-Identifier: GPL-2.0-only
// refnicctl ring show's parsing and drawing, from dumps written as the driver's debugfs writes
// them (kmod/refnic_debugfs.c, refnic_dbg_ring_print()).
#include "ring.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace refnic::refnicctl {
namespace {

// A 64-descriptor TX ring: 2 consumed, 5 the device's, 1 unrung, the rest free, wrapped around
// the end (clean at slot 62).
std::string owner_tx() {
    std::string owner(64, '.');
    owner[62] = 'c';
    owner[63] = 'c';
    for (std::size_t i = 0; i < 5; ++i) {
        owner[i] = 'D';
    }
    owner[5] = 'w';
    return owner;
}

constexpr std::string_view dump_tx =
    "r0: 2 queue pairs\n"
    "queue tx 0 size 64 clean 126 head 128 doorbell 133 tail 134\n"
    "queue tx 1 size 64 clean 0 head 0 doorbell 0 tail 0\n";

Ring ring_of(std::uint32_t clean, std::uint32_t head, std::uint32_t doorbell, std::uint32_t tail) {
    return Ring{"tx", 0, 64, clean, head, doorbell, tail};
}

TEST(RingTest, ParsesEveryQueue) {
    const RingDump dump = parse_ring_dump(dump_tx);
    EXPECT_EQ(dump.port, "r0");
    EXPECT_EQ(dump.queues, 2U);
    ASSERT_EQ(dump.rings.size(), 2U);
    EXPECT_EQ(dump.rings[0], ring_of(126, 128, 133, 134));
    EXPECT_EQ(dump.rings[1].queue, 1U);
}

TEST(RingTest, OwnersFollowTheIndices) {
    const Ring ring = parse_ring_dump(dump_tx).rings[0];
    EXPECT_EQ(ring_owners(ring), owner_tx());
    const OwnerCounts counts = count_owners(ring);
    EXPECT_EQ(counts.consumed, 2U);
    EXPECT_EQ(counts.device, 5U);
    EXPECT_EQ(counts.unrung, 1U);
    EXPECT_EQ(counts.free, 56U);
}

TEST(RingTest, OwnersAcrossTheIndexWrap) {
    // clean just below 2^32, tail past it.
    const Ring ring = ring_of(0xfffffffeU, 0U, 2U, 3U);
    const OwnerCounts counts = count_owners(ring);
    EXPECT_EQ(counts.consumed, 2U);
    EXPECT_EQ(counts.device, 2U);
    EXPECT_EQ(counts.unrung, 1U);
    EXPECT_EQ(ring_owners(ring).substr(0, 3), "DDw");
    EXPECT_EQ(ring_owners(ring).substr(62), "cc");
}

TEST(RingTest, IndicesThatDisagreeCountFromZeroAndWithinEachOther) {
    // The device commits HEAD after the driver reaped: clean ahead of head, nothing consumed.
    EXPECT_EQ(count_owners(ring_of(100, 98, 110, 110)).consumed, 0U);
    EXPECT_EQ(count_owners(ring_of(100, 98, 110, 110)).device, 10U);
    // head read before a doorbell moved on: at most the doorbell.
    EXPECT_EQ(count_owners(ring_of(100, 120, 110, 110)).consumed, 10U);
    EXPECT_EQ(count_owners(ring_of(100, 120, 110, 110)).device, 0U);
    // tail read behind clean: an empty ring, not a full one.
    const OwnerCounts empty = count_owners(ring_of(100, 100, 100, 99));
    EXPECT_EQ(empty.free, 64U);
    // More than a ring apart: at most the ring.
    const OwnerCounts full = count_owners(ring_of(0, 0, 1000, 1000));
    EXPECT_EQ(full.device, 64U);
    EXPECT_EQ(full.free, 0U);
}

TEST(RingTest, NoQueuesIsAnEmptyDump) {
    const RingDump dump = parse_ring_dump("r1: 4 queue pairs\n");
    EXPECT_EQ(dump.port, "r1");
    EXPECT_EQ(dump.queues, 4U);
    EXPECT_TRUE(dump.rings.empty());
}

TEST(RingTest, RefusesWhatTheDriverDoesNotWrite) {
    EXPECT_THROW(parse_ring_dump(""), std::runtime_error);
    EXPECT_THROW(parse_ring_dump("r0 2 queue pairs\n"), std::runtime_error);
    const std::string header = "r0: 1 queue pairs\n";
    // A missing field, a stranger, a ring size no power of two, a number that is none, a queue
    // twice, both kinds in one file.
    EXPECT_THROW(parse_ring_dump(header + "queue tx 0 size 64 clean 0 head 0 doorbell 0 tail\n"),
                 std::runtime_error);
    EXPECT_THROW(parse_ring_dump(header + "queue tx 0 size 64 clean 0 head 0 doorbell 0 bell 0\n"),
                 std::runtime_error);
    EXPECT_THROW(parse_ring_dump(header + "queue rx 0 size 48 clean 0 head 0 doorbell 0 tail 0\n"),
                 std::runtime_error);
    EXPECT_THROW(parse_ring_dump(header + "queue rx 0 size 64 clean -1 head 0 doorbell 0 tail 0\n"),
                 std::runtime_error);
    const std::string line = "queue tx 0 size 64 clean 0 head 0 doorbell 0 tail 0\n";
    EXPECT_THROW(parse_ring_dump(header + line + line), std::runtime_error);
    EXPECT_THROW(
        parse_ring_dump(header + line + "queue rx 1 size 64 clean 0 head 0 doorbell 0 tail 0\n"),
        std::runtime_error);
}

TEST(RingTest, TextShowsSourceIndicesCountsAndEveryDescriptor) {
    const Ring ring = parse_ring_dump(dump_tx).rings[0];
    const std::string text = ring_text("r0", 0, "debugfs X", {ring});
    EXPECT_NE(text.find("r0 queue 0 (debugfs X)"), std::string::npos) << text;
    EXPECT_NE(text.find("tx: 64 descriptors  clean 126  head 128  doorbell 133  tail 134"),
              std::string::npos)
        << text;
    EXPECT_NE(
        text.find("c 2 consumed, not reaped  D 5 the device's  w 1 no doorbell yet  . 56 free"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("        0 " + owner_tx() + "\n"), std::string::npos) << text;
    EXPECT_NE(text.find("(slots: clean 62, head 0, doorbell 5, tail 6)"), std::string::npos)
        << text;
}

TEST(RingTest, JsonCarriesTheRing) {
    const Ring ring = parse_ring_dump(dump_tx).rings[0];
    const tool_cli::Json json = ring_json("r0", 0, "debugfs X", {ring});
    EXPECT_EQ(json["ifname"], "r0");
    EXPECT_EQ(json["source"], "debugfs X");
    ASSERT_EQ(json["rings"].size(), 1U);
    EXPECT_EQ(json["rings"][0]["type"], "tx");
    EXPECT_EQ(json["rings"][0]["head"], 128);
    EXPECT_EQ(json["rings"][0]["consumed"], 2);
    EXPECT_EQ(json["rings"][0]["device"], 5);
    EXPECT_EQ(json["rings"][0]["unrung"], 1);
    EXPECT_EQ(json["rings"][0]["free"], 56);
    EXPECT_EQ(json["rings"][0]["owner"], owner_tx());
}

TEST(RingTest, SvgHasASquarePerDescriptorAndTheMarks) {
    const Ring ring = parse_ring_dump(dump_tx).rings[0];
    const std::string svg = ring_svg("r0 <&>", 0, "debugfs X", {ring});
    EXPECT_EQ(svg.rfind("<svg ", 0), 0U);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_NE(svg.find("r0 &lt;&amp;&gt; queue 0"), std::string::npos);
    std::size_t squares = 0;
    for (std::size_t at = svg.find("<rect x="); at != std::string::npos;
         at = svg.find("<rect x=", at + 1)) {
        ++squares;
    }
    // 64 descriptors, 4 index outlines, 4 legend squares.
    EXPECT_EQ(squares, 64U + 4U + 4U);
    EXPECT_NE(svg.find("<title>head 128</title>"), std::string::npos);
}

}  // namespace
}  // namespace refnic::refnicctl
