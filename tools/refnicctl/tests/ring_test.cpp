// SPDX-License-Identifier: GPL-2.0-only
// refnicctl ring show's parsing and drawing, from dumps written as the driver's debugfs writes
// them (kmod/refnic_debugfs.c, refnic_dbg_ring_print()).
#include "ring.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace refnic::refnicctl {
namespace {

// A 64-descriptor TX ring: 2 fetched, 5 the device's, 1 unrung, the rest free, wrapped around
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

std::string dump_tx() {
    return "r0: 2 queue pairs\n"
           "queue tx 0 size 64 clean 126 head 128 doorbell 133 tail 134\n"
           "owner " +
           owner_tx() +
           "\n"
           "queue tx 1 size 64 clean 0 head 0 doorbell 0 tail 0\n"
           "owner " +
           std::string(64, '.') + "\n";
}

TEST(RingTest, ParsesEveryQueue) {
    const RingDump dump = parse_ring_dump(dump_tx());
    EXPECT_EQ(dump.port, "r0");
    EXPECT_EQ(dump.queues, 2U);
    ASSERT_EQ(dump.rings.size(), 2U);
    const Ring& ring = dump.rings[0];
    EXPECT_EQ(ring.direction, "tx");
    EXPECT_EQ(ring.queue, 0U);
    EXPECT_EQ(ring.size, 64U);
    EXPECT_EQ(ring.clean, 126U);
    EXPECT_EQ(ring.head, 128U);
    EXPECT_EQ(ring.doorbell, 133U);
    EXPECT_EQ(ring.tail, 134U);
    EXPECT_EQ(ring.owner, owner_tx());
    EXPECT_EQ(dump.rings[1].queue, 1U);
}

TEST(RingTest, CountsOwnersAsTheIndicesSay) {
    const Ring ring = parse_ring_dump(dump_tx()).rings[0];
    const OwnerCounts counts = count_owners(ring);
    EXPECT_EQ(counts.reaped_pending, ring.head - ring.clean);
    EXPECT_EQ(counts.device, ring.doorbell - ring.head);
    EXPECT_EQ(counts.unrung, ring.tail - ring.doorbell);
    EXPECT_EQ(counts.free, ring.size - (ring.tail - ring.clean));
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
    // An owner line of the wrong length, a stranger character, a missing field, no owner line,
    // a ring size no power of two.
    EXPECT_THROW(parse_ring_dump("r0: 1 queue pairs\nqueue tx 0 size 64 clean 0 head 0 doorbell 0 "
                                 "tail 0\nowner ...\n"),
                 std::runtime_error);
    EXPECT_THROW(parse_ring_dump("r0: 1 queue pairs\nqueue tx 0 size 64 clean 0 head 0 doorbell 0 "
                                 "tail 0\nowner " +
                                 std::string(63, '.') + "x\n"),
                 std::runtime_error);
    EXPECT_THROW(parse_ring_dump("r0: 1 queue pairs\nqueue tx 0 size 64 clean 0 head 0 doorbell 0 "
                                 "tail\nowner " +
                                 std::string(64, '.') + "\n"),
                 std::runtime_error);
    EXPECT_THROW(parse_ring_dump("r0: 1 queue pairs\nqueue rx 0 size 64 clean 0 head 0 doorbell 0 "
                                 "tail 0\n"),
                 std::runtime_error);
    EXPECT_THROW(parse_ring_dump("r0: 1 queue pairs\nqueue rx 0 size 48 clean 0 head 0 doorbell 0 "
                                 "tail 0\nowner " +
                                 std::string(48, '.') + "\n"),
                 std::runtime_error);
}

TEST(RingTest, TextShowsSourceIndicesCountsAndEveryDescriptor) {
    const Ring ring = parse_ring_dump(dump_tx()).rings[0];
    const std::string text = ring_text("r0", 0, "debugfs X", {ring});
    EXPECT_NE(text.find("r0 queue 0 (debugfs X)"), std::string::npos) << text;
    EXPECT_NE(text.find("tx: 64 descriptors  clean 126  head 128  doorbell 133  tail 134"),
              std::string::npos)
        << text;
    EXPECT_NE(
        text.find("c 2 fetched, not reaped  D 5 the device's  w 1 no doorbell yet  . 56 free"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("    0 " + owner_tx()), std::string::npos) << text;
    EXPECT_NE(text.find("(slots: clean 62, head 0, doorbell 5, tail 6)"), std::string::npos)
        << text;
}

TEST(RingTest, JsonCarriesTheRing) {
    const Ring ring = parse_ring_dump(dump_tx()).rings[0];
    const tool_cli::Json json = ring_json("r0", 0, "debugfs X", {ring});
    EXPECT_EQ(json["ifname"], "r0");
    EXPECT_EQ(json["source"], "debugfs X");
    ASSERT_EQ(json["rings"].size(), 1U);
    EXPECT_EQ(json["rings"][0]["type"], "tx");
    EXPECT_EQ(json["rings"][0]["fetched"], 2);
    EXPECT_EQ(json["rings"][0]["device"], 5);
    EXPECT_EQ(json["rings"][0]["unrung"], 1);
    EXPECT_EQ(json["rings"][0]["free"], 56);
    EXPECT_EQ(json["rings"][0]["owner"], owner_tx());
}

TEST(RingTest, SvgHasASquarePerDescriptorAndTheMarks) {
    const Ring ring = parse_ring_dump(dump_tx()).rings[0];
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
