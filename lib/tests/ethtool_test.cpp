// SPDX-License-Identifier: GPL-2.0-only
// ethtool rings messages against byte fixtures (Linux 6.12 ethtool netlink numbering).
#include "fixture.hpp"

#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>

#include <gtest/gtest.h>

#include <linux/ethtool_netlink.h>

#include <cerrno>
#include <vector>

namespace refnic::ethtool {
namespace {

using test::bytes;
using test::hex;

constexpr std::uint16_t family_id = 0x14;

TEST(EthtoolRingsTest, UapiNumberingMatchesFixtures) {
    EXPECT_EQ(ETHTOOL_MSG_RINGS_GET, 15);
    EXPECT_EQ(ETHTOOL_MSG_RINGS_SET, 16);
    EXPECT_EQ(ETHTOOL_MSG_RINGS_GET_REPLY, 16);
    EXPECT_EQ(ETHTOOL_A_RINGS_TCP_DATA_SPLIT, 11);
}

TEST(EthtoolRingsTest, EncodesGetRequest) {
    const nl::MessageBuilder request = make_rings_get_request(family_id, "eth0");
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x24, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // ETHTOOL_MSG_RINGS_GET, ETHTOOL_GENL_VERSION
        0x0f, 0x01, 0x00, 0x00,
        // ETHTOOL_A_RINGS_HEADER | NLA_F_NESTED { ETHTOOL_A_HEADER_DEV_NAME "eth0" }
        0x10, 0x00, 0x01, 0x80,
        0x09, 0x00, 0x02, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(request.bytes()), hex(expected));
}

TEST(EthtoolRingsTest, EncodesSetRequestWithOnlyTheGivenFields) {
    RingSettings settings;
    settings.rx = 512;
    settings.tx = 1024;
    settings.tcp_data_split = TcpDataSplit::enabled;
    settings.rx_push = true;
    settings.tx_push_buf_len = 256;
    const nl::MessageBuilder request = make_rings_set_request(family_id, "eth0", settings);
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        0x4c, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // ETHTOOL_MSG_RINGS_SET, ETHTOOL_GENL_VERSION
        0x10, 0x01, 0x00, 0x00,
        // header nest
        0x10, 0x00, 0x01, 0x80,
        0x09, 0x00, 0x02, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00,
        // ETHTOOL_A_RINGS_RX 512, ETHTOOL_A_RINGS_TX 1024
        0x08, 0x00, 0x06, 0x00, 0x00, 0x02, 0x00, 0x00,
        0x08, 0x00, 0x09, 0x00, 0x00, 0x04, 0x00, 0x00,
        // ETHTOOL_A_RINGS_TCP_DATA_SPLIT ENABLED (u8)
        0x05, 0x00, 0x0b, 0x00, 0x02, 0x00, 0x00, 0x00,
        // ETHTOOL_A_RINGS_RX_PUSH 1 (u8), ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN 256
        0x05, 0x00, 0x0e, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x0f, 0x00, 0x00, 0x01, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(request.bytes()), hex(expected));
}

TEST(EthtoolRingsTest, EncodesTcpDataSplitAutoAsUnknown) {
    RingSettings settings;
    settings.tcp_data_split = TcpDataSplit::unknown;
    const nl::MessageBuilder request = make_rings_set_request(family_id, "eth0", settings);
    const nl::Bytes tail = request.bytes().last(8);
    EXPECT_EQ(hex(tail), hex(bytes({0x05, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00})));
}

// ETHTOOL_MSG_RINGS_GET_REPLY for eth0 (ifindex 2), with an attribute from the future (30).
// clang-format off
const std::vector<std::byte> rings_reply = bytes({
    // len 132, family 0x14, seq 3, pid 1234
    0x84, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
    // ETHTOOL_MSG_RINGS_GET_REPLY, version 1
    0x10, 0x01, 0x00, 0x00,
    // ETHTOOL_A_RINGS_HEADER { DEV_INDEX 2, DEV_NAME "eth0" }
    0x18, 0x00, 0x01, 0x80,
    0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x09, 0x00, 0x02, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00,
    // RX_MAX 4096, TX_MAX 4096, RX 512, TX 1024, RX_BUF_LEN 2048
    0x08, 0x00, 0x02, 0x00, 0x00, 0x10, 0x00, 0x00,
    0x08, 0x00, 0x05, 0x00, 0x00, 0x10, 0x00, 0x00,
    0x08, 0x00, 0x06, 0x00, 0x00, 0x02, 0x00, 0x00,
    0x08, 0x00, 0x09, 0x00, 0x00, 0x04, 0x00, 0x00,
    0x08, 0x00, 0x0a, 0x00, 0x00, 0x08, 0x00, 0x00,
    // TCP_DATA_SPLIT ENABLED, TX_PUSH 0, RX_PUSH 1 (all u8)
    0x05, 0x00, 0x0b, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x05, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x05, 0x00, 0x0e, 0x00, 0x01, 0x00, 0x00, 0x00,
    // TX_PUSH_BUF_LEN 0, TX_PUSH_BUF_LEN_MAX 96
    0x08, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x10, 0x00, 0x60, 0x00, 0x00, 0x00,
    // attribute type 30, unknown to us
    0x08, 0x00, 0x1e, 0x00, 0x07, 0x00, 0x00, 0x00,
});
// clang-format on

TEST(EthtoolRingsTest, DecodesReply) {
    RingParams expected;
    expected.rx_max = 4096;
    expected.tx_max = 4096;
    expected.rx = 512;
    expected.tx = 1024;
    expected.rx_buf_len = 2048;
    expected.tcp_data_split = TcpDataSplit::enabled;
    expected.tx_push = false;
    expected.rx_push = true;
    expected.tx_push_buf_len = 0;
    expected.tx_push_buf_len_max = 96;
    EXPECT_EQ(parse_rings_reply(nl::MessageView(rings_reply)), expected);
}

TEST(EthtoolRingsTest, DecodesWhatItEncodes) {
    // A set request and a reply share the attribute layout; only the command differs.
    RingSettings settings;
    settings.rx = 100;
    settings.rx_mini = 101;
    settings.rx_jumbo = 102;
    settings.tx = 103;
    settings.rx_buf_len = 104;
    settings.tcp_data_split = TcpDataSplit::disabled;
    settings.cqe_size = 128;
    settings.tx_push = true;
    settings.rx_push = false;
    settings.tx_push_buf_len = 105;
    const nl::MessageBuilder request = make_rings_set_request(family_id, "eth0", settings);
    std::vector<std::byte> as_reply(request.bytes().begin(), request.bytes().end());
    as_reply[16] = std::byte{ETHTOOL_MSG_RINGS_GET_REPLY};

    RingParams expected;
    expected.rx = 100;
    expected.rx_mini = 101;
    expected.rx_jumbo = 102;
    expected.tx = 103;
    expected.rx_buf_len = 104;
    expected.tcp_data_split = TcpDataSplit::disabled;
    expected.cqe_size = 128;
    expected.tx_push = true;
    expected.rx_push = false;
    expected.tx_push_buf_len = 105;
    EXPECT_EQ(parse_rings_reply(nl::MessageView(as_reply)), expected);
}

TEST(EthtoolRingsTest, RejectsMalformedReplies) {
    // TCP_DATA_SPLIT with a 4-byte payload instead of a u8.
    std::vector<std::byte> wide_split = rings_reply;
    wide_split[84] = std::byte{0x08};
    try {
        static_cast<void>(parse_rings_reply(nl::MessageView(wide_split)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EBADMSG);
    }
    // Some other ethtool message.
    std::vector<std::byte> wrong_cmd = rings_reply;
    wrong_cmd[16] = std::byte{ETHTOOL_MSG_LINKINFO_GET_REPLY};
    try {
        static_cast<void>(parse_rings_reply(nl::MessageView(wrong_cmd)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EPROTO);
    }
}

TEST(EthtoolRingsTest, TcpDataSplitWords) {
    EXPECT_EQ(to_string(TcpDataSplit::enabled), "on");
    EXPECT_EQ(to_string(TcpDataSplit::disabled), "off");
    EXPECT_EQ(to_string(TcpDataSplit::unknown), "unknown");
    EXPECT_EQ(to_string(static_cast<TcpDataSplit>(7)), "unknown");
}

TEST(EthtoolRingsTest, TcpDataSplitParsesEthtoolWords) {
    EXPECT_EQ(parse_tcp_data_split("on"), TcpDataSplit::enabled);
    EXPECT_EQ(parse_tcp_data_split("off"), TcpDataSplit::disabled);
    EXPECT_EQ(parse_tcp_data_split("auto"), TcpDataSplit::unknown);
    EXPECT_EQ(parse_tcp_data_split("unknown"), std::nullopt);
    EXPECT_EQ(parse_tcp_data_split("ON"), std::nullopt);
}

}  // namespace
}  // namespace refnic::ethtool
