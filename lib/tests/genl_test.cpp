// SPDX-License-Identifier: GPL-2.0-only
// Generic netlink family resolution: the request we send and the reply we decode.
#include "fixture.hpp"

#include <refnic/error.hpp>
#include <refnic/genl.hpp>

#include <gtest/gtest.h>

#include <linux/genetlink.h>

#include <cerrno>
#include <vector>

namespace refnic::nl {
namespace {

using test::bytes;
using test::hex;

// CTRL_CMD_NEWFAMILY for "ethtool" as nlctrl sends it (its nests carry no NLA_F_NESTED).
// clang-format off
const std::vector<std::byte> new_family = bytes({
    // struct nlmsghdr: len 140, GENL_ID_CTRL, no flags, seq 1, pid 5678
    0x8c, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x2e, 0x16, 0x00, 0x00,
    // struct genlmsghdr: CTRL_CMD_NEWFAMILY, version 2
    0x01, 0x02, 0x00, 0x00,
    // CTRL_ATTR_FAMILY_NAME "ethtool"
    0x0c, 0x00, 0x02, 0x00, 'e', 't', 'h', 't', 'o', 'o', 'l', 0x00,
    // CTRL_ATTR_FAMILY_ID 0x14 (u16, padded)
    0x06, 0x00, 0x01, 0x00, 0x14, 0x00, 0x00, 0x00,
    // CTRL_ATTR_VERSION 1, CTRL_ATTR_HDRSIZE 0, CTRL_ATTR_MAXATTR 10
    0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x05, 0x00, 0x0a, 0x00, 0x00, 0x00,
    // CTRL_ATTR_OPS { 1: { CTRL_ATTR_OP_ID 1, CTRL_ATTR_OP_FLAGS 0xa } }
    0x18, 0x00, 0x06, 0x00, 0x14, 0x00, 0x01, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x02, 0x00, 0x0a, 0x00, 0x00, 0x00,
    // CTRL_ATTR_MCAST_GROUPS, len 52
    0x34, 0x00, 0x07, 0x00,
    //   1: { CTRL_ATTR_MCAST_GRP_NAME "monitor", CTRL_ATTR_MCAST_GRP_ID 5 }
    0x18, 0x00, 0x01, 0x00,
    0x0c, 0x00, 0x01, 0x00, 'm', 'o', 'n', 'i', 't', 'o', 'r', 0x00,
    0x08, 0x00, 0x02, 0x00, 0x05, 0x00, 0x00, 0x00,
    //   2: { CTRL_ATTR_MCAST_GRP_NAME "test", CTRL_ATTR_MCAST_GRP_ID 6 }
    0x18, 0x00, 0x02, 0x00,
    0x09, 0x00, 0x01, 0x00, 't', 'e', 's', 't', 0x00, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00,
});
// clang-format on

TEST(GenlTest, EncodesGetFamilyRequest) {
    const MessageBuilder request = make_get_family_request("ethtool");
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        // len 32, GENL_ID_CTRL, flags set by the socket
        0x20, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // CTRL_CMD_GETFAMILY, version 1
        0x03, 0x01, 0x00, 0x00,
        // CTRL_ATTR_FAMILY_NAME "ethtool"
        0x0c, 0x00, 0x02, 0x00, 'e', 't', 'h', 't', 'o', 'o', 'l', 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(request.bytes()), hex(expected));
}

TEST(GenlTest, ParsesNewFamilyWithMulticastGroups) {
    const Family family = parse_family(MessageView(new_family));
    EXPECT_EQ(family.name, "ethtool");
    EXPECT_EQ(family.id, 0x14);
    EXPECT_EQ(family.version, 1U);
    EXPECT_EQ(family.header_size, 0U);
    EXPECT_EQ(family.max_attr, 10U);
    ASSERT_EQ(family.multicast_groups.size(), 2U);
    EXPECT_EQ(family.multicast_groups[0].name, "monitor");
    EXPECT_EQ(family.multicast_groups[0].id, 5U);
    EXPECT_EQ(family.multicast_groups[1].name, "test");
    EXPECT_EQ(family.multicast_groups[1].id, 6U);
    EXPECT_EQ(family.group_id("monitor"), 5U);
    EXPECT_EQ(family.group_id("test"), 6U);
    EXPECT_FALSE(family.group_id("nope").has_value());
}

TEST(GenlTest, RejectsMalformedFamilyReplies) {
    // The "test" group's id attribute claims u16 instead of u32.
    std::vector<std::byte> bad_group_id = new_family;
    bad_group_id[132] = std::byte{0x06};
    try {
        static_cast<void>(parse_family(MessageView(bad_group_id)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EBADMSG);
    }
    // The family id attribute renamed to an unused type: no id.
    std::vector<std::byte> no_id = new_family;
    no_id[34] = std::byte{0x0f};
    try {
        static_cast<void>(parse_family(MessageView(no_id)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EBADMSG);
    }
    // CTRL_CMD_DELFAMILY is not a reply to resolve from.
    std::vector<std::byte> del_family = new_family;
    del_family[16] = std::byte{CTRL_CMD_DELFAMILY};
    try {
        static_cast<void>(parse_family(MessageView(del_family)));
        ADD_FAILURE() << "expected refnic::Error";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EPROTO);
    }
}

}  // namespace
}  // namespace refnic::nl
