// SPDX-License-Identifier: GPL-2.0-only
// The netlink core against hand-written byte fixtures: building, parsing, malformed input.
#include "fixture.hpp"

#include <refnic/error.hpp>
#include <refnic/netlink.hpp>

#include <gtest/gtest.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <cerrno>
#include <cstdint>
#include <string_view>
#include <vector>

namespace refnic::nl {
namespace {

using test::bytes;
using test::hex;

// A generic netlink message: family 0x1a, cmd 5, version 1, with a nest (string + u32), a u8,
// u16, u64, flag, 3-byte binary and an empty string. Little-endian, as on every refnic host.
// clang-format off
const std::vector<std::byte> genl_fixture = bytes({
    // struct nlmsghdr: len 92, type 0x1a, flags NLM_F_REQUEST, seq 0x01020304, pid 0
    0x5c, 0x00, 0x00, 0x00, 0x1a, 0x00, 0x01, 0x00, 0x04, 0x03, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00,
    // struct genlmsghdr: cmd 5, version 1
    0x05, 0x01, 0x00, 0x00,
    // nest type 1 | NLA_F_NESTED, len 24
    0x18, 0x00, 0x01, 0x80,
    //   string type 2 "eth0": len 9, 3 bytes of padding
    0x09, 0x00, 0x02, 0x00, 'e', 't', 'h', '0', 0x00, 0x00, 0x00, 0x00,
    //   u32 type 3 0xdeadbeef
    0x08, 0x00, 0x03, 0x00, 0xef, 0xbe, 0xad, 0xde,
    // u8 type 4 0xab: len 5, padded
    0x05, 0x00, 0x04, 0x00, 0xab, 0x00, 0x00, 0x00,
    // u16 type 5 0x1234: len 6, padded
    0x06, 0x00, 0x05, 0x00, 0x34, 0x12, 0x00, 0x00,
    // u64 type 6 0x1122334455667788: len 12
    0x0c, 0x00, 0x06, 0x00, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
    // flag type 7: len 4, no payload
    0x04, 0x00, 0x07, 0x00,
    // binary type 8 {1, 2, 3}: len 7, padded
    0x07, 0x00, 0x08, 0x00, 0x01, 0x02, 0x03, 0x00,
    // empty string type 9: just the NUL, len 5, padded
    0x05, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00,
});
// clang-format on

MessageBuilder build_genl_fixture() {
    MessageBuilder message(0x1a, NLM_F_REQUEST);
    message.set_seq(0x01020304);
    message.put_genl_header(5, 1);
    message.put_nested(1, [](MessageBuilder& nest) {
        nest.put_string(2, "eth0");
        nest.put_u32(3, 0xdeadbeef);
    });
    message.put_u8(4, 0xab);
    message.put_u16(5, 0x1234);
    message.put_u64(6, 0x1122334455667788);
    message.put_flag(7);
    const std::vector<std::byte> blob = bytes({1, 2, 3});
    message.put_binary(8, blob);
    message.put_string(9, "");
    return message;
}

template <typename Callable>
Error catch_error(Callable&& callable) {
    try {
        callable();
    } catch (const Error& error) {
        return error;
    }
    ADD_FAILURE() << "expected refnic::Error";
    return {0, "no error thrown"};
}

// --- Building -------------------------------------------------------------------------------

TEST(MessageBuilderTest, EncodesGenlMessageWithNestsAndPadding) {
    const MessageBuilder message = build_genl_fixture();
    EXPECT_EQ(hex(message.bytes()), hex(genl_fixture));
}

TEST(MessageBuilderTest, NestGuardClosesAtScopeExit) {
    MessageBuilder with_guard(0x1a, NLM_F_REQUEST);
    with_guard.set_seq(0x01020304);
    with_guard.put_genl_header(5, 1);
    {
        const NestGuard nest = with_guard.open_nest(1);
        with_guard.put_string(2, "eth0");
        with_guard.put_u32(3, 0xdeadbeef);
    }
    with_guard.put_u8(4, 0xab);
    const std::span<const std::byte> expected_prefix(genl_fixture.data(), 16 + 4 + 24 + 8);
    const Bytes actual = with_guard.bytes();
    ASSERT_EQ(actual.size(), expected_prefix.size());
    // Only nlmsg_len differs from the full fixture.
    EXPECT_EQ(hex(actual.subspan(4)), hex(expected_prefix.subspan(4)));
}

TEST(MessageBuilderTest, PutsFixedFamilyHeader) {
    MessageBuilder message(RTM_NEWLINK, NLM_F_REQUEST);
    ifinfomsg link{};
    link.ifi_family = AF_UNSPEC;
    link.ifi_index = 1;
    link.ifi_flags = IFF_UP;
    link.ifi_change = IFF_UP;
    message.put_header(link);
    message.put_u32(IFLA_MTU, 1500);
    // clang-format off
    const std::vector<std::byte> expected = bytes({
        // len 40, RTM_NEWLINK, NLM_F_REQUEST
        0x28, 0x00, 0x00, 0x00, 0x10, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        // struct ifinfomsg: AF_UNSPEC, index 1, flags IFF_UP, change IFF_UP
        0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
        // IFLA_MTU 1500
        0x08, 0x00, 0x04, 0x00, 0xdc, 0x05, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(hex(message.bytes()), hex(expected));
}

TEST(MessageBuilderTest, RejectsFixedHeaderAfterAttributes) {
    MessageBuilder message(RTM_NEWLINK, 0);
    message.put_u32(1, 1);
    EXPECT_EQ(catch_error([&] { message.put_genl_header(1, 1); }).errnum(), EINVAL);
}

TEST(MessageBuilderTest, RejectsStringWithEmbeddedNul) {
    MessageBuilder message(0x1a, 0);
    const Bytes before(message.bytes());
    using namespace std::string_view_literals;
    EXPECT_EQ(catch_error([&] { message.put_string(1, "et\0h0"sv); }).errnum(), EINVAL);
    EXPECT_EQ(message.bytes().size(), before.size());
}

TEST(MessageBuilderTest, ThrowsWhenFullAndKeepsTheMessage) {
    MessageBuilder message(0x1a, 0, 28);
    message.put_u32(1, 7);  // 16 + 8 = 24 bytes.
    EXPECT_EQ(catch_error([&] { message.put_u32(2, 8); }).errnum(), EMSGSIZE);
    EXPECT_EQ(message.bytes().size(), 24U);
    EXPECT_NO_THROW(message.put_flag(3));  // 4 more bytes fill it exactly.
    EXPECT_EQ(message.bytes().size(), 28U);
    EXPECT_EQ(catch_error([&] { static_cast<void>(message.open_nest(4)); }).errnum(), EMSGSIZE);
}

TEST(MessageBuilderTest, RejectsCapacityBeyondAttributeLengthRange) {
    EXPECT_EQ(catch_error([] { static_cast<void>(MessageBuilder(1, 0, 0x10000)); }).errnum(),
              EINVAL);
    EXPECT_EQ(catch_error([] { static_cast<void>(MessageBuilder(1, 0, 8)); }).errnum(), EINVAL);
}

// --- Parsing --------------------------------------------------------------------------------

std::vector<std::uint16_t> types_of(const AttrRange& attrs) {
    std::vector<std::uint16_t> types;
    for (const Attr attr : attrs) {
        types.push_back(attr.type());
    }
    return types;
}

TEST(MessageViewTest, ParsesFixtureHeaders) {
    const MessageView message(genl_fixture);
    EXPECT_EQ(message.type(), 0x1a);
    EXPECT_EQ(message.flags(), NLM_F_REQUEST);
    EXPECT_EQ(message.seq(), 0x01020304U);
    EXPECT_EQ(message.port_id(), 0U);
    EXPECT_EQ(message.genl_cmd(), 5);
    EXPECT_EQ(message.genl_version(), 1);
    EXPECT_EQ(message.payload().size(), genl_fixture.size() - 16);
}

TEST(MessageViewTest, IteratesAttributesWithRangeFor) {
    const MessageView message(genl_fixture);
    EXPECT_EQ(types_of(message.genl_attrs()), (std::vector<std::uint16_t>{1, 4, 5, 6, 7, 8, 9}));

    const Attr nest = *message.genl_attrs().find(1);
    EXPECT_TRUE(nest.has_nested_flag());
    EXPECT_EQ(nest.type(), 1);
    EXPECT_EQ(types_of(nest.nested()), (std::vector<std::uint16_t>{2, 3}));
    EXPECT_EQ(nest.nested().find(2)->as_string(), "eth0");
    EXPECT_EQ(nest.nested().find(3)->as_u32(), 0xdeadbeefU);
    EXPECT_FALSE(message.genl_attrs().find(10).has_value());
}

TEST(MessageViewTest, ReadsTypedValues) {
    const AttrRange attrs = MessageView(genl_fixture).genl_attrs();
    EXPECT_EQ(attrs.find(4)->as_u8(), 0xab);
    EXPECT_EQ(attrs.find(5)->as_u16(), 0x1234);
    EXPECT_EQ(attrs.find(6)->as_u64(), 0x1122334455667788U);
    EXPECT_EQ(attrs.find(6)->as_uint(), 0x1122334455667788U);
    EXPECT_TRUE(attrs.find(7)->as_flag());
    EXPECT_EQ(hex(attrs.find(8)->payload()), hex(bytes({1, 2, 3})));
    EXPECT_EQ(attrs.find(9)->as_string(), "");
}

TEST(MessageViewTest, ParsesMisalignedBuffer) {
    std::vector<std::byte> shifted(genl_fixture.size() + 1);
    std::copy(genl_fixture.begin(), genl_fixture.end(), shifted.begin() + 1);
    const MessageView message(Bytes(shifted).subspan(1));
    EXPECT_EQ(message.genl_attrs().find(6)->as_u64(), 0x1122334455667788U);
}

TEST(MessageViewTest, RejectsBadMessageLengths) {
    const std::vector<std::byte> too_short = bytes({0x10, 0x00, 0x00, 0x00, 0x1a, 0x00});
    EXPECT_EQ(catch_error([&] { static_cast<void>(MessageView{too_short}); }).errnum(), EBADMSG);

    std::vector<std::byte> overlong = genl_fixture;
    overlong[0] = std::byte{0x60};  // 96 > 92 bytes available
    EXPECT_EQ(catch_error([&] { static_cast<void>(MessageView{overlong}); }).errnum(), EBADMSG);

    std::vector<std::byte> below_header = genl_fixture;
    below_header[0] = std::byte{0x0c};
    EXPECT_EQ(catch_error([&] { static_cast<void>(MessageView{below_header}); }).errnum(), EBADMSG);

    // A header with no room for struct genlmsghdr.
    const std::vector<std::byte> no_genl =
        bytes({0x12, 0x00, 0x00, 0x00, 0x1a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
               0x00, 0x00, 0x05, 0x01});
    const MessageView message(no_genl);
    EXPECT_EQ(catch_error([&] { static_cast<void>(message.genl_cmd()); }).errnum(), EBADMSG);
    EXPECT_EQ(catch_error([&] { static_cast<void>(message.genl_attrs()); }).errnum(), EBADMSG);
}

TEST(AttrRangeTest, TruncatedAttributeIsACleanError) {
    // Declares 8 bytes, only 6 present.
    const std::vector<std::byte> stream = bytes({0x08, 0x00, 0x03, 0x00, 0xef, 0xbe});
    const Error error = catch_error([&] {
        for (const Attr attr : AttrRange(stream)) {
            static_cast<void>(attr);
        }
    });
    EXPECT_EQ(error.errnum(), EBADMSG);
    EXPECT_FALSE(error.from_kernel());
    EXPECT_NE(std::string_view(error.what()).find("declares length 8"), std::string_view::npos)
        << error.what();
}

TEST(AttrRangeTest, LengthShorterThanHeaderIsACleanError) {
    const std::vector<std::byte> stream = bytes({0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00});
    EXPECT_EQ(catch_error([&] { static_cast<void>(AttrRange(stream).begin()); }).errnum(), EBADMSG);
}

TEST(AttrRangeTest, TrailingBytesAfterLastAttributeAreACleanError) {
    const std::vector<std::byte> stream =
        bytes({0x05, 0x00, 0x01, 0x00, 0xaa, 0x00, 0x00, 0x00, 0xff, 0xff});
    AttrRange::iterator it = AttrRange(stream).begin();
    EXPECT_EQ((*it).as_u8(), 0xaa);
    EXPECT_EQ(catch_error([&] { ++it; }).errnum(), EBADMSG);
}

TEST(AttrRangeTest, LastAttributeMayLackPadding) {
    const std::vector<std::byte> stream =
        bytes({0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x02, 0x00, 0x07});
    std::vector<std::uint16_t> types;
    for (const Attr attr : AttrRange(stream)) {
        types.push_back(attr.type());
    }
    EXPECT_EQ(types, (std::vector<std::uint16_t>{1, 2}));
    EXPECT_EQ(AttrRange(stream).find(2)->as_u8(), 7);
}

TEST(AttrRangeTest, EmptyStreamHasNoAttributes) {
    const AttrRange range{Bytes{}};
    EXPECT_EQ(range.begin(), range.end());
}

TEST(AttrTest, WrongLengthForTypedGetterIsACleanError) {
    // Two payload bytes: a valid u16, but not a u32, u8, u64 or uint.
    const std::vector<std::byte> stream = bytes({0x06, 0x00, 0x01, 0x00, 0x01, 0x02, 0x00, 0x00});
    const Attr attr = *AttrRange(stream).begin();
    EXPECT_EQ(attr.as_u16(), 0x0201);
    const Error error = catch_error([&] { static_cast<void>(attr.as_u32()); });
    EXPECT_EQ(error.errnum(), EBADMSG);
    EXPECT_NE(std::string_view(error.what()).find("u32 needs 4"), std::string_view::npos)
        << error.what();
    EXPECT_EQ(catch_error([&] { static_cast<void>(attr.as_u8()); }).errnum(), EBADMSG);
    EXPECT_EQ(catch_error([&] { static_cast<void>(attr.as_u64()); }).errnum(), EBADMSG);
    EXPECT_EQ(catch_error([&] { static_cast<void>(attr.as_uint()); }).errnum(), EBADMSG);
    EXPECT_EQ(catch_error([&] { static_cast<void>(attr.as_flag()); }).errnum(), EBADMSG);
}

TEST(AttrTest, UintAcceptsFourOrEightBytes) {
    // clang-format off
    const std::vector<std::byte> stream = bytes({
        0x08, 0x00, 0x01, 0x00, 0x78, 0x56, 0x34, 0x12,
        0x0c, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    });
    // clang-format on
    EXPECT_EQ(AttrRange(stream).find(1)->as_uint(), 0x12345678U);
    EXPECT_EQ(AttrRange(stream).find(2)->as_uint(), 0x0000000200000001U);
}

TEST(AttrTest, StringWithoutNulIsACleanError) {
    const std::vector<std::byte> stream = bytes({0x08, 0x00, 0x01, 0x00, 'e', 't', 'h', '0'});
    EXPECT_EQ(
        catch_error([&] { static_cast<void>((*AttrRange(stream).begin()).as_string()); }).errnum(),
        EBADMSG);
}

TEST(MessageRangeTest, IteratesMessagesOfADatagram) {
    // Two NLMSG_NOOPs, the first with a 1-byte payload padded to 4, the second unpadded.
    // clang-format off
    const std::vector<std::byte> datagram = bytes({
        // len 17, NLMSG_NOOP, seq 1; payload 0xaa and 3 bytes of padding
        0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xaa, 0x00, 0x00, 0x00,
        // len 17, NLMSG_NOOP, seq 2; payload 0xbb, the datagram ends without padding
        0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xbb,
    });
    // clang-format on
    std::vector<std::uint32_t> seqs;
    for (const MessageView message : MessageRange(datagram)) {
        EXPECT_EQ(message.type(), NLMSG_NOOP);
        EXPECT_EQ(message.payload().size(), 1U);
        seqs.push_back(message.seq());
    }
    EXPECT_EQ(seqs, (std::vector<std::uint32_t>{1, 2}));
}

TEST(MessageRangeTest, TruncatedMessageIsACleanError) {
    std::vector<std::byte> datagram = genl_fixture;
    datagram.resize(40);
    EXPECT_EQ(catch_error([&] {
                  for (const MessageView message : MessageRange(datagram)) {
                      static_cast<void>(message);
                  }
              }).errnum(),
              EBADMSG);
}

}  // namespace
}  // namespace refnic::nl
