// SPDX-License-Identifier: GPL-2.0-only
// Extended ACK parsing from NLMSG_ERROR / NLMSG_DONE fixtures, and how it reaches refnic::Error.
#include "fixture.hpp"

#include <refnic/error.hpp>
#include <refnic/netlink.hpp>

#include <gtest/gtest.h>

#include <linux/netlink.h>

#include <cerrno>
#include <string>
#include <vector>

namespace refnic::nl {
namespace {

using test::bytes;

// The kernel's answer to an ethtool request for a missing device, on a NETLINK_CAP_ACK socket.
// clang-format off
const std::vector<std::byte> capped_error = bytes({
    // struct nlmsghdr: len 72, NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, seq 7, pid 1234
    0x48, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0x07, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
    // error -ENODEV (-19)
    0xed, 0xff, 0xff, 0xff,
    // the request's struct nlmsghdr only: len 36, type 0x14, REQUEST | ACK, seq 7, pid 0
    0x24, 0x00, 0x00, 0x00, 0x14, 0x00, 0x05, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // NLMSGERR_ATTR_MSG "no device matches name": 22 characters + NUL, len 27, 1 byte padding
    0x1b, 0x00, 0x01, 0x00, 'n', 'o', ' ', 'd', 'e', 'v', 'i', 'c', 'e', ' ', 'm', 'a', 't', 'c',
    'h', 'e', 's', ' ', 'n', 'a', 'm', 'e', 0x00, 0x00,
    // NLMSGERR_ATTR_OFFS 24
    0x08, 0x00, 0x02, 0x00, 0x18, 0x00, 0x00, 0x00,
});
// clang-format on

TEST(AckTest, ParsesCappedErrorWithExtack) {
    const MessageView message(capped_error);
    ASSERT_EQ(message.type(), NLMSG_ERROR);
    const Ack ack = parse_ack(message);
    EXPECT_EQ(ack.error, -ENODEV);
    EXPECT_EQ(ack.extack.message, "no device matches name");
    EXPECT_EQ(ack.extack.attr_offset, 24U);
    EXPECT_FALSE(ack.extack.missing_attr.has_value());
}

TEST(AckTest, ParsesUncappedErrorEchoingTheRequest) {
    // clang-format off
    const std::vector<std::byte> uncapped = bytes({
        // len 60, NLMSG_ERROR, NLM_F_ACK_TLVS only, seq 9, pid 1234
        0x3c, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x02, 0x09, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
        // error -EINVAL
        0xea, 0xff, 0xff, 0xff,
        // the whole request: header (len 22) and its 6 payload bytes, padded to 8
        0x16, 0x00, 0x00, 0x00, 0x14, 0x00, 0x05, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x10, 0x01, 0x00, 0x00, 0xee, 0xee, 0x00, 0x00,
        // NLMSGERR_ATTR_MISS_TYPE 1, NLMSGERR_ATTR_MISS_NEST 20
        0x08, 0x00, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x06, 0x00, 0x14, 0x00, 0x00, 0x00,
    });
    // clang-format on
    const Ack ack = parse_ack(MessageView(uncapped));
    EXPECT_EQ(ack.error, -EINVAL);
    EXPECT_EQ(ack.extack.message, "");
    EXPECT_EQ(ack.extack.missing_attr, 1U);
    EXPECT_EQ(ack.extack.missing_in_nest, 20U);
    EXPECT_FALSE(ack.extack.attr_offset.has_value());
}

TEST(AckTest, ParsesPlainAck) {
    // clang-format off
    const std::vector<std::byte> ack_message = bytes({
        // len 36, NLMSG_ERROR, NLM_F_CAPPED, seq 7, pid 1234
        0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x07, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
        // error 0: success
        0x00, 0x00, 0x00, 0x00,
        // the request's struct nlmsghdr
        0x24, 0x00, 0x00, 0x00, 0x14, 0x00, 0x05, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    });
    // clang-format on
    const Ack ack = parse_ack(MessageView(ack_message));
    EXPECT_EQ(ack.error, 0);
    EXPECT_TRUE(ack.extack.empty());
}

TEST(AckTest, ParsesDoneWithErrorAndExtack) {
    // clang-format off
    const std::vector<std::byte> done = bytes({
        // len 32, NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS
        0x20, 0x00, 0x00, 0x00, 0x03, 0x00, 0x02, 0x02, 0x08, 0x00, 0x00, 0x00, 0xd2, 0x04, 0x00, 0x00,
        // -EOPNOTSUPP (-95)
        0xa1, 0xff, 0xff, 0xff,
        // NLMSGERR_ATTR_MSG "nope"
        0x09, 0x00, 0x01, 0x00, 'n', 'o', 'p', 'e', 0x00, 0x00, 0x00, 0x00,
    });
    // clang-format on
    const Ack ack = parse_ack(MessageView(done));
    EXPECT_EQ(ack.error, -EOPNOTSUPP);
    EXPECT_EQ(ack.extack.message, "nope");
}

TEST(AckTest, MalformedAcksAreCleanErrors) {
    // clang-format off
    const std::vector<std::byte> short_error = bytes({
        // len 24, NLMSG_ERROR: 8 payload bytes where struct nlmsgerr needs 20
        0x18, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xed, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
    });
    // clang-format on
    try {
        static_cast<void>(parse_ack(MessageView(short_error)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EBADMSG);
    }
    // Extack message attribute running past the end.
    std::vector<std::byte> truncated_tlv = capped_error;
    truncated_tlv[36] = std::byte{0x40};
    try {
        static_cast<void>(parse_ack(MessageView(truncated_tlv)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EBADMSG);
    }
    // Not an ACK at all.
    std::vector<std::byte> not_ack = capped_error;
    not_ack[4] = std::byte{0x14};
    try {
        static_cast<void>(parse_ack(MessageView(not_ack)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EPROTO);
    }
}

TEST(ErrorTest, CarriesKernelExtackToTheUser) {
    const Ack ack = parse_ack(MessageView(capped_error));
    const Error error(-ack.error, "ethtool rings get on eth9", ack.extack, true);
    EXPECT_EQ(error.errnum(), ENODEV);
    EXPECT_EQ(error.code(), std::errc::no_such_device);
    EXPECT_TRUE(error.from_kernel());
    EXPECT_EQ(error.reason(), "no device matches name");
    EXPECT_EQ(error.extack().attr_offset, 24U);
    EXPECT_EQ(std::string(error.what()),
              "ethtool rings get on eth9: no device matches name (No such device) "
              "[offending attribute at offset 24]");
}

TEST(ErrorTest, FallsBackToStrerror) {
    const Error error(EOPNOTSUPP, "ethtool rings get on lo", {}, true);
    EXPECT_EQ(error.reason(), "Operation not supported");
    EXPECT_EQ(std::string(error.what()), "ethtool rings get on lo: Operation not supported");
}

}  // namespace
}  // namespace refnic::nl
