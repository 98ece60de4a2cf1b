// SPDX-License-Identifier: GPL-2.0-only
// The refnic family (uapi/refnic.yaml): each request against its exact bytes, each reply and
// notification decoded from bytes, and kernel errors naming the attribute they point at.
#include "fixture.hpp"

#include <refnic/control.hpp>
#include <refnic/error.hpp>
#include <refnic/netlink.hpp>

#include <gtest/gtest.h>

#include <linux/netlink.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace refnic::control {
namespace {

using test::bytes;
using test::hex;

// The id the kernel gave the family: any value will do offline.
constexpr std::uint16_t family_id = 0x1d;

template <typename Function>
int error_of(Function&& function) {
    try {
        function();
    } catch (const Error& error) {
        return error.errnum();
    }
    return 0;
}

// Partial aggregates, spelled out: GCC 12 warns on designated initializers that skip members.
NewDevice new_device_with_queues(std::uint32_t queues) {
    NewDevice options;
    options.queues = queues;
    return options;
}

NewDevice new_device_named(std::string name) {
    NewDevice options;
    options.name = std::move(name);
    return options;
}

Link latency_only(std::uint32_t latency_us) {
    Link link;
    link.latency_us = latency_us;
    return link;
}

Bus bus_remote_only(std::uint32_t remote_ns) {
    Bus bus;
    bus.remote_ns = remote_ns;
    return bus;
}

FaultSetting fault_setting(Fault type, std::uint32_t queue, std::optional<std::uint32_t> rate_ppm,
                           std::optional<std::uint32_t> count) {
    return FaultSetting{.type = type, .queue = queue, .rate_ppm = rate_ppm, .count = count};
}

Extack missing_attr_extack(std::uint32_t type) {
    Extack extack;
    extack.missing_attr = type;
    return extack;
}

// --- Requests -------------------------------------------------------------------------------

TEST(ControlRequestTest, DevGet) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        // struct nlmsghdr: len 28, the family's id, flags and seq left to the socket
        0x1c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // struct genlmsghdr: REFNIC_CMD_DEV_GET, version 1
        0x01, 0x01, 0x00, 0x00,
        // REFNIC_A_DEV_IFINDEX 5
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_dev_get_request(family_id, 5).bytes()), hex(expected));
}

TEST(ControlRequestTest, DevDumpHasNoAttributes) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x14, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x01, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_dev_dump_request(family_id).bytes()), hex(expected));
}

// Offset of REFNIC_A_DEV_QUEUES in this request: 16 + 4 + 4 attributes of 8 bytes = 52.
// clang-format off
const std::vector<std::byte> dev_new_request = bytes({
    // len 76, REFNIC_CMD_DEV_NEW
    0x4c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x02, 0x01, 0x00, 0x00,
    // REFNIC_A_DEV_IFNAME "r0", REFNIC_A_DEV_PEER_IFNAME "r1" (len 7, padded)
    0x07, 0x00, 0x02, 0x00, 'r', '0', 0x00, 0x00,
    0x07, 0x00, 0x04, 0x00, 'r', '1', 0x00, 0x00,
    // REFNIC_A_DEV_NETNS_FD 3, REFNIC_A_DEV_PEER_NETNS_FD 4
    0x08, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x06, 0x00, 0x04, 0x00, 0x00, 0x00,
    // REFNIC_A_DEV_QUEUES 4, REFNIC_A_DEV_RX_RING_SIZE 1024, REFNIC_A_DEV_TX_RING_SIZE 512
    0x08, 0x00, 0x08, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x09, 0x00, 0x00, 0x04, 0x00, 0x00,
    0x08, 0x00, 0x0a, 0x00, 0x00, 0x02, 0x00, 0x00,
});
// clang-format on

NewDevice full_new_device() {
    return NewDevice{.name = "r0",
                     .peer_name = "r1",
                     .netns_fd = 3,
                     .peer_netns_fd = 4,
                     .queues = 4,
                     .rx_ring_size = 1024,
                     .tx_ring_size = 512};
}

TEST(ControlRequestTest, DevNewWithEveryOption) {
    EXPECT_EQ(hex(make_dev_new_request(family_id, full_new_device()).bytes()),
              hex(dev_new_request));
}

TEST(ControlRequestTest, DevNewLeavesUnsetOptionsOut) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x1c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x02, 0x01, 0x00, 0x00,
        // REFNIC_A_DEV_QUEUES 2 only
        0x08, 0x00, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_dev_new_request(family_id, new_device_with_queues(2)).bytes()),
              hex(expected));
    EXPECT_EQ(error_of([] {
                  static_cast<void>(
                      make_dev_new_request(family_id, new_device_named(std::string("a\0b", 3))));
              }),
              EINVAL);
}

TEST(ControlRequestTest, DevDel) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x1c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // REFNIC_CMD_DEV_DEL, REFNIC_A_DEV_IFINDEX 7
        0x03, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_dev_del_request(family_id, 7).bytes()), hex(expected));
}

// Offset of REFNIC_A_LINK_LOSS: 16 + 4 + 8 (ifindex) + 4 (nest) + 8 + 12 = 52.
// clang-format off
const std::vector<std::byte> link_set_request = bytes({
    // len 60, REFNIC_CMD_LINK_SET
    0x3c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x04, 0x01, 0x00, 0x00,
    // REFNIC_A_DEV_IFINDEX 5
    0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
    // REFNIC_A_DEV_LINK | NLA_F_NESTED, len 32
    0x20, 0x00, 0x0d, 0x80,
    //   REFNIC_A_LINK_CARRIER 0 (u8, padded)
    0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
    //   REFNIC_A_LINK_RATE 25000000000 (0x5d21dba00)
    0x0c, 0x00, 0x02, 0x00, 0x00, 0xba, 0x1d, 0xd2, 0x05, 0x00, 0x00, 0x00,
    //   REFNIC_A_LINK_LOSS 1000 ppm; no latency: left as it is
    0x08, 0x00, 0x04, 0x00, 0xe8, 0x03, 0x00, 0x00,
});
// clang-format on

TEST(ControlRequestTest, LinkSetSendsOnlyTheFieldsSet) {
    const Link link{
        .carrier = false, .rate_bps = 25'000'000'000, .latency_us = {}, .loss_ppm = 1000};
    EXPECT_EQ(hex(make_link_set_request(family_id, 5, link).bytes()), hex(link_set_request));
}

TEST(ControlRequestTest, LinkSetLatencyOnly) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x28, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x04, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        // REFNIC_A_DEV_LINK { REFNIC_A_LINK_LATENCY 20 }
        0x0c, 0x00, 0x0d, 0x80,
        0x08, 0x00, 0x03, 0x00, 0x14, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_link_set_request(family_id, 5, latency_only(20)).bytes()), hex(expected));
}

// Offset of REFNIC_A_BUS_LANES: 16 + 4 + 8 (ifindex) + 4 (nest) + 8 + 8 = 48.
// clang-format off
const std::vector<std::byte> bus_set_request = bytes({
    // len 64, REFNIC_CMD_BUS_SET
    0x40, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x0c, 0x01, 0x00, 0x00,
    // REFNIC_A_DEV_IFINDEX 5
    0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
    // REFNIC_A_DEV_BUS | NLA_F_NESTED, len 36
    0x24, 0x00, 0x0e, 0x80,
    //   REFNIC_A_BUS_READ_NS 1000
    0x08, 0x00, 0x01, 0x00, 0xe8, 0x03, 0x00, 0x00,
    //   REFNIC_A_BUS_GEN 4 (u32)
    0x08, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00,
    //   REFNIC_A_BUS_LANES 8 (u32)
    0x08, 0x00, 0x03, 0x00, 0x08, 0x00, 0x00, 0x00,
    //   REFNIC_A_BUS_NODE -1 (s32); no remote-ns: left as it is
    0x08, 0x00, 0x04, 0x00, 0xff, 0xff, 0xff, 0xff,
});
// clang-format on

Bus bus_setting() {
    return Bus{.read_ns = 1000, .gen = 4, .lanes = 8, .node = bus_node_none, .remote_ns = {}};
}

TEST(ControlRequestTest, BusSetSendsOnlyTheFieldsSet) {
    EXPECT_EQ(hex(make_bus_set_request(family_id, 5, bus_setting()).bytes()), hex(bus_set_request));
}

TEST(ControlRequestTest, BusSetRemoteNsOnlyAndEmpty) {
    // clang-format off
    const std::vector<std::byte> remote = bytes({
        0x28, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00,
        // REFNIC_A_DEV_BUS { REFNIC_A_BUS_REMOTE_NS 200 }
        0x0c, 0x00, 0x0e, 0x80,
        0x08, 0x00, 0x05, 0x00, 0xc8, 0x00, 0x00, 0x00,
    });
    // An empty nest changes nothing: the kernel's to accept or refuse.
    const std::vector<std::byte> empty = bytes({
        0x20, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x0e, 0x80,
    });
    // clang-format on
    EXPECT_EQ(hex(make_bus_set_request(family_id, 7, bus_remote_only(200)).bytes()), hex(remote));
    EXPECT_EQ(hex(make_bus_set_request(family_id, 7, Bus{}).bytes()), hex(empty));
}

TEST(ControlRequestTest, StatsGetAndDump) {
    // clang-format off
    const std::vector<std::byte> get = bytes({
        0x1c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // REFNIC_CMD_STATS_GET, REFNIC_A_STATS_IFINDEX 5
        0x05, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
    });
    const std::vector<std::byte> dump = bytes({
        0x14, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x05, 0x01, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_stats_get_request(family_id, 5).bytes()), hex(get));
    EXPECT_EQ(hex(make_stats_dump_request(family_id).bytes()), hex(dump));
}

TEST(ControlRequestTest, FaultSetWithRate) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        // len 52, REFNIC_CMD_FAULT_SET
        0x34, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x01, 0x00, 0x00,
        // REFNIC_A_FAULT_IFINDEX 5, _TYPE stall-txq (2), _QUEUE 1, _RATE 100000 ppm
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x04, 0x00, 0xa0, 0x86, 0x01, 0x00,
    });
    // clang-format on
    const FaultSetting setting{
        .type = Fault::stall_txq, .queue = 1, .rate_ppm = 100'000, .count = {}};
    EXPECT_EQ(hex(make_fault_set_request(family_id, 5, setting).bytes()), hex(expected));
}

TEST(ControlRequestTest, FaultSetWedgeTxq) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x34, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x01, 0x00, 0x00,
        // ifindex 5, wedge-txq (4), queue 1, REFNIC_A_FAULT_COUNT 1
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_fault_set_request(family_id, 5, fault_setting(Fault::wedge_txq, 1, {}, 1))
                      .bytes()),
              hex(expected));
}

TEST(ControlRequestTest, FaultSetGroBadLen) {
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x34, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x01, 0x00, 0x00,
        // ifindex 5, gro-bad-len (5), queue 0, REFNIC_A_FAULT_COUNT 3
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x02, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_fault_set_request(family_id, 5, fault_setting(Fault::gro_bad_len, 0, {}, 3))
                      .bytes()),
              hex(expected));
}

TEST(ControlRequestTest, FaultSetStallRxqAndLoseIrq) {
    // clang-format off
    const std::vector<std::byte> stall = bytes({
        0x34, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x01, 0x00, 0x00,
        // ifindex 5, stall-rxq (6), queue 2, REFNIC_A_FAULT_COUNT 1
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00,
    });
    const std::vector<std::byte> lose = bytes({
        0x34, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x01, 0x00, 0x00,
        // ifindex 5, lose-irq (7), queue 3, REFNIC_A_FAULT_RATE 10%
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x04, 0x00, 0xa0, 0x86, 0x01, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_fault_set_request(family_id, 5, fault_setting(Fault::stall_rxq, 2, {}, 1))
                      .bytes()),
              hex(stall));
    EXPECT_EQ(
        hex(make_fault_set_request(family_id, 5, fault_setting(Fault::lose_irq, 3, 100'000, {}))
                .bytes()),
        hex(lose));
    EXPECT_EQ(to_string(Fault::stall_rxq), "stall-rxq");
    EXPECT_EQ(to_string(Fault::lose_irq), "lose-irq");
}

TEST(ControlRequestTest, FaultSetWithCountAndClear) {
    // clang-format off
    const std::vector<std::byte> count = bytes({
        0x34, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x01, 0x00, 0x00,
        // ifindex 5, fail-alloc (3), queue 0, REFNIC_A_FAULT_COUNT 10
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x05, 0x00, 0x0a, 0x00, 0x00, 0x00,
    });
    const std::vector<std::byte> clear = bytes({
        // neither rate nor count: cleared
        0x2c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_fault_set_request(family_id, 5, fault_setting(Fault::fail_alloc, 0, {}, 10))
                      .bytes()),
              hex(count));
    EXPECT_EQ(
        hex(make_fault_set_request(family_id, 5, fault_setting(Fault::drop_completion, 2, {}, {}))
                .bytes()),
        hex(clear));
}

TEST(ControlRequestTest, FaultGetDumpFilter) {
    // clang-format off
    const std::vector<std::byte> one = bytes({
        0x1c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // REFNIC_CMD_FAULT_GET, REFNIC_A_FAULT_IFINDEX 5
        0x07, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,
    });
    const std::vector<std::byte> all = bytes({
        0x14, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x07, 0x01, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(make_fault_get_request(family_id, 5).bytes()), hex(one));
    EXPECT_EQ(hex(make_fault_get_request(family_id, std::nullopt).bytes()), hex(all));
}

// --- Replies --------------------------------------------------------------------------------

// A dev-get reply for r0 (ifindex 5) whose peer r1 is ifindex 6 in netnsid 2, with an
// attribute from a newer kernel at the end.
// clang-format off
const std::vector<std::byte> dev_reply = bytes({
    // len 148, the family, no flags, seq 1, pid 1234
    0x94, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
    // REFNIC_CMD_DEV_GET, version 1
    0x01, 0x01, 0x00, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,  // ifindex 5
    0x07, 0x00, 0x02, 0x00, 'r', '0', 0x00, 0x00,     // ifname "r0"
    0x08, 0x00, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00,  // peer-ifindex 6
    0x07, 0x00, 0x04, 0x00, 'r', '1', 0x00, 0x00,     // peer-ifname "r1"
    0x08, 0x00, 0x07, 0x00, 0x02, 0x00, 0x00, 0x00,  // peer-netnsid 2
    0x08, 0x00, 0x08, 0x00, 0x04, 0x00, 0x00, 0x00,  // queues 4
    0x08, 0x00, 0x09, 0x00, 0x00, 0x04, 0x00, 0x00,  // rx-ring-size 1024
    0x08, 0x00, 0x0a, 0x00, 0x00, 0x02, 0x00, 0x00,  // tx-ring-size 512
    0x08, 0x00, 0x0b, 0x00, 0x03, 0x00, 0x00, 0x00,  // card 3
    0x08, 0x00, 0x0c, 0x00, 0x01, 0x00, 0x00, 0x00,  // port 1
    // link | NLA_F_NESTED, len 40
    0x28, 0x00, 0x0d, 0x80,
    0x05, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,  // carrier 1
    0x0c, 0x00, 0x02, 0x00, 0x00, 0xe1, 0xf5, 0x05, 0x00, 0x00, 0x00, 0x00,  // rate 100000000
    0x08, 0x00, 0x03, 0x00, 0x14, 0x00, 0x00, 0x00,  // latency 20
    0x08, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,  // loss 0
    // type 30, unknown to this version: skipped
    0x08, 0x00, 0x1e, 0x00, 0xff, 0xff, 0xff, 0xff,
});
// clang-format on

Device expected_device() {
    Device device;
    device.ifindex = 5;
    device.name = "r0";
    device.peer_ifindex = 6;
    device.peer_name = "r1";
    device.peer_netnsid = 2;
    device.queues = 4;
    device.rx_ring_size = 1024;
    device.tx_ring_size = 512;
    device.card = 3;
    device.port = 1;
    device.link = Link{.carrier = true, .rate_bps = 100'000'000, .latency_us = 20, .loss_ppm = 0};
    return device;
}

TEST(ControlReplyTest, ParsesDeviceAndSkipsUnknownAttributes) {
    EXPECT_EQ(parse_device(nl::MessageView(dev_reply)), expected_device());
}

TEST(ControlReplyTest, ParsesNegativeNetnsidAndMissingOptionalFields) {
    // clang-format off
    const std::vector<std::byte> minimal = bytes({
        0x30, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
        // REFNIC_CMD_DEV_NEW reply
        0x02, 0x01, 0x00, 0x00,
        0x08, 0x00, 0x01, 0x00, 0x09, 0x00, 0x00, 0x00,  // ifindex 9
        0x0c, 0x00, 0x02, 0x00, 'r', 'e', 'f', 'n', 'i', 'c', '0', 0x00,  // "refnic0"
        0x08, 0x00, 0x07, 0x00, 0xff, 0xff, 0xff, 0xff,  // peer-netnsid -1
    });
    // clang-format on
    const Device device = parse_device(nl::MessageView(minimal));
    EXPECT_EQ(device.ifindex, 9U);
    EXPECT_EQ(device.name, "refnic0");
    EXPECT_EQ(device.peer_netnsid, -1);
    EXPECT_FALSE(device.queues.has_value());
    EXPECT_EQ(device.link, Link{});
}

// A dev-get reply for r0 (ifindex 5) with its card's bus model: settings, some counters, an
// attribute of a newer kernel inside the nest.
// clang-format off
const std::vector<std::byte> dev_bus_reply = bytes({
    // len 148
    0x94, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
    // REFNIC_CMD_DEV_GET, version 1
    0x01, 0x01, 0x00, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,  // ifindex 5
    0x07, 0x00, 0x02, 0x00, 'r', '0', 0x00, 0x00,     // ifname "r0"
    // bus | NLA_F_NESTED, len 112
    0x70, 0x00, 0x0e, 0x80,
    0x08, 0x00, 0x01, 0x00, 0xe8, 0x03, 0x00, 0x00,  // read-ns 1000
    0x08, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00,  // gen 4
    0x08, 0x00, 0x03, 0x00, 0x08, 0x00, 0x00, 0x00,  // lanes 8
    0x08, 0x00, 0x04, 0x00, 0xff, 0xff, 0xff, 0xff,  // node -1
    0x08, 0x00, 0x05, 0x00, 0xc8, 0x00, 0x00, 0x00,  // remote-ns 200
    0x0c, 0x00, 0x06, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // reads 10
    0x0c, 0x00, 0x08, 0x00, 0x10, 0x27, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // read-charged-ns 10000
    0x0c, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // dma-bytes 2^32
    0x0c, 0x00, 0x0e, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // dma-throttled 3
    0x0c, 0x00, 0x0f, 0x00, 0x50, 0x27, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // read-waited-ns 10064
    0x08, 0x00, 0x1e, 0x00, 0xff, 0xff, 0xff, 0xff,  // type 30, unknown to this version
});
// clang-format on

TEST(ControlReplyTest, ParsesTheBusNest) {
    const Device device = parse_device(nl::MessageView(dev_bus_reply));
    EXPECT_EQ(device.ifindex, 5U);
    EXPECT_EQ(device.bus,
              (Bus{.read_ns = 1000, .gen = 4, .lanes = 8, .node = -1, .remote_ns = 200}));
    BusCounters counters;
    counters.reads = 10;
    counters.read_charged_ns = 10'000;
    counters.dma_bytes = 1ULL << 32U;
    counters.dma_throttled = 3;
    counters.read_waited_ns = 10'064;
    EXPECT_EQ(device.bus_counters, counters);
    EXPECT_EQ(device.link, Link{});
    // A kernel without the bus model: nothing set, counters zero.
    const Device old = parse_device(nl::MessageView(dev_reply));
    EXPECT_EQ(old.bus, Bus{});
    EXPECT_EQ(old.bus_counters, BusCounters{});
}

TEST(ControlReplyTest, RejectsAWronglySizedBusAttribute) {
    // gen as the u8 it once was
    std::vector<std::byte> narrow_gen = dev_bus_reply;
    narrow_gen[48] = std::byte{0x05};
    EXPECT_EQ(error_of([&] { static_cast<void>(parse_device(nl::MessageView(narrow_gen))); }),
              EBADMSG);
    // a u64 counter claiming a u32 payload
    std::vector<std::byte> short_reads = dev_bus_reply;
    short_reads[80] = std::byte{0x08};
    EXPECT_EQ(error_of([&] { static_cast<void>(parse_device(nl::MessageView(short_reads))); }),
              EBADMSG);
}

TEST(ControlReplyTest, RejectsMalformedDevices) {
    // ifindex claiming a u16 payload
    std::vector<std::byte> short_ifindex = dev_reply;
    short_ifindex[20] = std::byte{0x06};
    EXPECT_EQ(error_of([&] { static_cast<void>(parse_device(nl::MessageView(short_ifindex))); }),
              EBADMSG);
    // no ifindex at all: the attribute renamed to an unknown type
    std::vector<std::byte> no_ifindex = dev_reply;
    no_ifindex[22] = std::byte{0x1f};
    EXPECT_EQ(error_of([&] { static_cast<void>(parse_device(nl::MessageView(no_ifindex))); }),
              EBADMSG);
    // a stats message is not a device
    std::vector<std::byte> stats_cmd = dev_reply;
    stats_cmd[16] = std::byte{0x05};
    EXPECT_EQ(error_of([&] { static_cast<void>(parse_device(nl::MessageView(stats_cmd))); }),
              EPROTO);
}

// Port stats of ifindex 5 with two nested queue records (rx 0, tx 0), attributes unknown to
// this version at both levels.
// clang-format off
const std::vector<std::byte> stats_reply = bytes({
    // len 152
    0x98, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
    // REFNIC_CMD_STATS_GET
    0x05, 0x01, 0x00, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,  // ifindex 5
    0x0c, 0x00, 0x02, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // mmio-reads 100
    0x0c, 0x00, 0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // resets 2
    // queue | NLA_F_NESTED, len 52
    0x34, 0x00, 0x08, 0x80,
    0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,  // type rx
    0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,  // id 0
    0x0c, 0x00, 0x09, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // frames 10
    0x0c, 0x00, 0x0c, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // drop-nobuf 1
    0x06, 0x00, 0x28, 0x00, 0x07, 0x00, 0x00, 0x00,  // type 40, unknown
    // queue | NLA_F_NESTED, len 44
    0x2c, 0x00, 0x08, 0x80,
    0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,  // type tx
    0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,  // id 0
    0x0c, 0x00, 0x09, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // frames 11
    0x0c, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // doorbells 3
    // type 20, an unknown empty nest
    0x04, 0x00, 0x14, 0x80,
});
// clang-format on

TEST(ControlReplyTest, ParsesPortStatsWithNestedQueues) {
    const PortStats stats = parse_port_stats(nl::MessageView(stats_reply));
    EXPECT_EQ(stats.ifindex, 5U);
    EXPECT_EQ(stats.mmio_reads, 100U);
    EXPECT_EQ(stats.mmio_writes, 0U);
    EXPECT_EQ(stats.resets, 2U);
    ASSERT_EQ(stats.queues.size(), 2U);
    EXPECT_EQ(stats.queues[0].type, QueueType::rx);
    EXPECT_EQ(stats.queues[0].id, 0U);
    EXPECT_EQ(stats.queues[0].frames, 10U);
    EXPECT_EQ(stats.queues[0].drop_nobuf, 1U);
    EXPECT_EQ(stats.queues[1].type, QueueType::tx);
    EXPECT_EQ(stats.queues[1].frames, 11U);
    EXPECT_EQ(stats.queues[1].doorbells, 3U);
    EXPECT_EQ(stats.queues[1].drop_nobuf, 0U);
}

TEST(ControlReplyTest, RejectsQueueStatsWithoutTypeOrId) {
    std::vector<std::byte> no_type = stats_reply;
    no_type[58] = std::byte{0x1f};  // the first queue's type attribute, renamed
    EXPECT_EQ(error_of([&] { static_cast<void>(parse_port_stats(nl::MessageView(no_type))); }),
              EBADMSG);
}

// clang-format off
const std::vector<std::byte> fault_reply = bytes({
    // len 68, REFNIC_CMD_FAULT_GET
    0x44, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
    0x07, 0x01, 0x00, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00,  // ifindex 5
    0x08, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00,  // type stall-txq
    0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,  // queue 1
    0x08, 0x00, 0x04, 0x00, 0xa0, 0x86, 0x01, 0x00,  // rate 100000
    0x04, 0x00, 0x07, 0x00,                          // REFNIC_A_FAULT_PAD (nla_put_u64_64bit)
    0x0c, 0x00, 0x06, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // injected 7
});
// clang-format on

TEST(ControlReplyTest, ParsesFaultStatus) {
    const FaultStatus fault = parse_fault_status(nl::MessageView(fault_reply));
    EXPECT_EQ(fault, (FaultStatus{.ifindex = 5,
                                  .type = Fault::stall_txq,
                                  .queue = 1,
                                  .rate_ppm = 100'000,
                                  .count = {},
                                  .injected = 7}));
}

TEST(ControlReplyTest, FaultNamesRoundTrip) {
    for (const Fault fault :
         {Fault::drop_completion, Fault::corrupt_dma_addr, Fault::stall_txq, Fault::fail_alloc,
          Fault::wedge_txq, Fault::gro_bad_len, Fault::stall_rxq, Fault::lose_irq}) {
        EXPECT_EQ(parse_fault(to_string(fault)), fault);
    }
    EXPECT_EQ(to_string(Fault::stall_txq), "stall-txq");
    EXPECT_EQ(to_string(Fault::wedge_txq), "wedge-txq");
    EXPECT_EQ(to_string(Fault::gro_bad_len), "gro-bad-len");
    EXPECT_EQ(to_string(static_cast<Fault>(9)), "unknown");
    EXPECT_FALSE(parse_fault("stall_txq").has_value());
}

std::vector<std::byte> with_cmd(std::vector<std::byte> message, std::uint8_t cmd) {
    message[16] = std::byte{cmd};
    return message;
}

TEST(ControlEventTest, ParsesEachNotification) {
    const auto added = parse_event(nl::MessageView(with_cmd(dev_reply, 8)));
    ASSERT_TRUE(added.has_value());
    EXPECT_EQ(added->type, EventType::dev_added);
    ASSERT_NE(added->device(), nullptr);
    EXPECT_EQ(*added->device(), expected_device());
    EXPECT_EQ(added->fault(), nullptr);

    const auto deleted = parse_event(nl::MessageView(with_cmd(dev_reply, 9)));
    ASSERT_TRUE(deleted.has_value());
    EXPECT_EQ(deleted->type, EventType::dev_deleted);

    const auto link = parse_event(nl::MessageView(with_cmd(dev_reply, 10)));
    ASSERT_TRUE(link.has_value());
    EXPECT_EQ(link->type, EventType::link_changed);
    EXPECT_EQ(link->device()->link.latency_us, 20U);

    const auto fault = parse_event(nl::MessageView(with_cmd(fault_reply, 11)));
    ASSERT_TRUE(fault.has_value());
    EXPECT_EQ(fault->type, EventType::fault);
    ASSERT_NE(fault->fault(), nullptr);
    EXPECT_EQ(fault->fault()->injected, 7U);

    // Device notifications carry the bus nest too.
    const auto bus = parse_event(nl::MessageView(with_cmd(dev_bus_reply, 10)));
    ASSERT_TRUE(bus.has_value());
    EXPECT_EQ(bus->device()->bus.lanes, 8U);

    // A notification this version does not know (12 is bus-set, a request).
    EXPECT_FALSE(parse_event(nl::MessageView(with_cmd(dev_reply, 12))).has_value());
    EXPECT_FALSE(parse_event(nl::MessageView(with_cmd(dev_reply, 30))).has_value());
    EXPECT_EQ(to_string(EventType::link_changed), "link-changed");
}

// --- Kernel errors --------------------------------------------------------------------------

// The kernel refusing dev_new_request's queue count by policy, on a NETLINK_CAP_ACK socket.
// clang-format off
const std::vector<std::byte> queues_out_of_range = bytes({
    // len 72, NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, seq 1, pid 1234
    0x48, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
    // error -ERANGE (-34)
    0xde, 0xff, 0xff, 0xff,
    // the request's nlmsghdr
    0x4c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // NLMSGERR_ATTR_MSG "integer out of range" (len 25, padded)
    0x19, 0x00, 0x01, 0x00, 'i', 'n', 't', 'e', 'g', 'e', 'r', ' ', 'o', 'u', 't', ' ', 'o', 'f',
    ' ', 'r', 'a', 'n', 'g', 'e', 0x00, 0x00, 0x00, 0x00,
    // NLMSGERR_ATTR_OFFS 52: REFNIC_A_DEV_QUEUES
    0x08, 0x00, 0x02, 0x00, 0x34, 0x00, 0x00, 0x00,
});
// clang-format on

Error kernel_error(const std::vector<std::byte>& message, const std::string& context) {
    nl::Ack ack = nl::parse_ack(nl::MessageView(message));
    return {-ack.error, context, std::move(ack.extack), true};
}

TEST(ControlErrorTest, NamesTheOffendingAttribute) {
    const nl::MessageBuilder request = make_dev_new_request(family_id, full_new_device());
    const Error named =
        name_attributes(kernel_error(queues_out_of_range, "refnic dev-new"), request);
    EXPECT_EQ(named.errnum(), ERANGE);
    EXPECT_TRUE(named.from_kernel());
    EXPECT_EQ(named.reason(), "integer out of range");
    EXPECT_EQ(named.extack().attr_name, "dev.queues");
    EXPECT_EQ(std::string(named.what()),
              "refnic dev-new: integer out of range (Numerical result out of range) "
              "[offending attribute dev.queues at offset 52]");
}

TEST(ControlErrorTest, NamesAttributesInsideNests) {
    const nl::MessageBuilder request = make_link_set_request(
        family_id, 5,
        Link{.carrier = false, .rate_bps = 25'000'000'000, .latency_us = {}, .loss_ppm = 1000});
    // clang-format off
    const std::vector<std::byte> bad_loss = bytes({
        // len 44, NLMSG_ERROR, capped with TLVs
        0x2c, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
        0xde, 0xff, 0xff, 0xff,
        0x3c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // NLMSGERR_ATTR_OFFS 52: REFNIC_A_LINK_LOSS inside REFNIC_A_DEV_LINK
        0x08, 0x00, 0x02, 0x00, 0x34, 0x00, 0x00, 0x00,
    });
    // clang-format on
    const Error named = name_attributes(kernel_error(bad_loss, "refnic link-set"), request);
    EXPECT_EQ(named.extack().attr_name, "link.loss");
    EXPECT_EQ(std::string(named.what()),
              "refnic link-set: Numerical result out of range "
              "[offending attribute link.loss at offset 52]");
    // The nest itself (offset 28) is named too.
    EXPECT_EQ(nl::attribute_path_at(request.bytes(), 4, 28), (std::vector<std::uint16_t>{13}));
    EXPECT_EQ(attribute_name(4, {13}), "dev.link");
    // Offsets that are no attribute's start name nothing.
    EXPECT_TRUE(nl::attribute_path_at(request.bytes(), 4, 30).empty());
    EXPECT_TRUE(nl::attribute_path_at(request.bytes(), 4, 200).empty());
    EXPECT_TRUE(nl::attribute_path_at(request.bytes(), 4, 0).empty());
}

TEST(ControlErrorTest, NamesBusAttributes) {
    const nl::MessageBuilder request = make_bus_set_request(family_id, 5, bus_setting());
    // clang-format off
    const std::vector<std::byte> bad_lanes = bytes({
        // len 76, NLMSG_ERROR, capped with TLVs
        0x4c, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
        // -EINVAL
        0xea, 0xff, 0xff, 0xff,
        0x40, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // NLMSGERR_ATTR_MSG "lanes not a power of two" (len 29, padded)
        0x1d, 0x00, 0x01, 0x00, 'l', 'a', 'n', 'e', 's', ' ', 'n', 'o', 't', ' ', 'a', ' ', 'p', 'o',
        'w', 'e', 'r', ' ', 'o', 'f', ' ', 't', 'w', 'o', 0x00, 0x00, 0x00, 0x00,
        // NLMSGERR_ATTR_OFFS 48: REFNIC_A_BUS_LANES inside REFNIC_A_DEV_BUS
        0x08, 0x00, 0x02, 0x00, 0x30, 0x00, 0x00, 0x00,
    });
    // clang-format on
    const Error named = name_attributes(kernel_error(bad_lanes, "refnic bus-set"), request);
    EXPECT_EQ(named.errnum(), EINVAL);
    EXPECT_EQ(named.reason(), "lanes not a power of two");
    EXPECT_EQ(named.extack().attr_name, "bus.lanes");
    EXPECT_EQ(std::string(named.what()),
              "refnic bus-set: lanes not a power of two (Invalid argument) "
              "[offending attribute bus.lanes at offset 48]");
    EXPECT_EQ(attribute_name(12, {14}), "dev.bus");
    EXPECT_EQ(attribute_name(12, {14, 4}), "bus.node");
    EXPECT_EQ(attribute_name(12, {14, 5}), "bus.remote-ns");
    EXPECT_EQ(attribute_name(1, {14, 14}), "bus.dma-throttled");
    EXPECT_EQ(attribute_name(12, {14, 15}), "bus.read-waited-ns");
    EXPECT_EQ(attribute_name(12, {14, 16}), "bus.pad");
}

TEST(ControlErrorTest, NamesAMissingAttribute) {
    const nl::MessageBuilder request =
        make_fault_set_request(family_id, 5, fault_setting(Fault::stall_txq, 0, {}, {}));
    // clang-format off
    const std::vector<std::byte> missing_queue = bytes({
        // len 64, NLMSG_ERROR, capped with TLVs
        0x40, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
        // -EINVAL
        0xea, 0xff, 0xff, 0xff,
        0x2c, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // NLMSGERR_ATTR_MSG "missing queue" (len 18, padded)
        0x12, 0x00, 0x01, 0x00, 'm', 'i', 's', 's', 'i', 'n', 'g', ' ', 'q', 'u', 'e', 'u', 'e', 0x00,
        0x00, 0x00,
        // NLMSGERR_ATTR_MISS_TYPE 3: REFNIC_A_FAULT_QUEUE, at the top level
        0x08, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00,
    });
    // clang-format on
    const Error named = name_attributes(kernel_error(missing_queue, "refnic fault-set"), request);
    EXPECT_EQ(named.extack().missing_attr_name, "fault.queue");
    EXPECT_EQ(std::string(named.what()),
              "refnic fault-set: missing queue (Invalid argument) [missing attribute fault.queue]");
}

TEST(ControlErrorTest, UnknownAttributesStayNumbered) {
    const Error plain(EINVAL, "refnic dev-get", missing_attr_extack(40), true);
    const Error named = name_attributes(plain, make_dev_get_request(family_id, 5));
    EXPECT_EQ(named.extack().missing_attr_name, "");
    EXPECT_EQ(std::string(named.what()),
              "refnic dev-get: Invalid argument [missing attribute type 40]");
}

}  // namespace
}  // namespace refnic::control
