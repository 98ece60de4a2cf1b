// SPDX-License-Identifier: GPL-2.0-only
// refnic-devmem's command line: what each invocation means, and what is refused before
// anything is done.
#include "cli.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::devmem_cli {
namespace {

Command parse(std::initializer_list<std::string_view> words) {
    const std::vector<std::string_view> args(words);
    return parse_command_line(args);
}

Rx parse_rx(std::initializer_list<std::string_view> words) {
    const Command command = parse(words);
    EXPECT_TRUE(std::holds_alternative<Rx>(command));
    return std::get<Rx>(command);
}

// The UsageError message of `words`, or "" if they parse.
std::string usage_error(std::initializer_list<std::string_view> words) {
    try {
        static_cast<void>(parse(words));
    } catch (const UsageError& error) {
        return error.what();
    }
    return "";
}

constexpr Ipv6Address any{};

TEST(DevmemCliTest, MinimalRx) {
    Rx expected;
    expected.ifname = "eth1";
    expected.queues = {8};
    expected.port = 5201;
    EXPECT_EQ(parse_rx({"rx", "-i", "eth1", "-q", "8", "-p", "5201"}), expected);
    EXPECT_EQ(expected.listen, "::");
    EXPECT_EQ(expected.listen_address, any);
    EXPECT_EQ(expected.size_mib, 64U);
    EXPECT_FALSE(expected.validate);
    EXPECT_EQ(expected.release, devmem::Release::batched);
    EXPECT_FALSE(expected.json);
}

TEST(DevmemCliTest, EveryOptionLongAndShort) {
    Rx expected;
    expected.ifname = "r0";
    expected.queues = {3, 1, 2};
    expected.port = 9000;
    expected.listen = "192.168.1.4";
    expected.listen_address = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 4};
    expected.size_mib = 32;
    expected.validate = 7;
    expected.release = devmem::Release::per_frag;
    expected.json = true;
    EXPECT_EQ(parse_rx({"rx", "--ifname", "r0", "--queue", "3", "-q", "1", "--queue=2", "--port",
                        "9000", "--listen", "192.168.1.4", "--size", "32", "--validate", "7",
                        "--release", "per-frag", "--json"}),
              expected);
    EXPECT_EQ(parse_rx({"rx", "-j",   "-r", "per-frag", "-v", "7", "-s", "32", "-l", "192.168.1.4",
                        "-p", "9000", "-q", "3",        "-q", "1", "-q", "2",  "-i", "r0"}),
              expected);
    EXPECT_EQ(parse_rx({"rx", "--ifname=r0", "--queue=3", "--queue=1", "--queue=2", "--port=9000",
                        "--listen=192.168.1.4", "--size=32", "--validate=7", "--release=per-frag",
                        "--json"}),
              expected);
}

TEST(DevmemCliTest, HelpAndVersionAnywhere) {
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"--help"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"-h"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"rx", "--help"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"rx", "-i", "eth1", "help"})));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"-V"})));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"--version"})));
}

TEST(DevmemCliTest, RefusedBeforeAnythingIsDone) {
    EXPECT_EQ(usage_error({}), "no command given");
    EXPECT_EQ(usage_error({"tx"}), "unknown command \"tx\"");
    EXPECT_EQ(usage_error({"-i", "eth1", "rx"}), "--ifname before the command (rx)");
    EXPECT_EQ(usage_error({"rx", "-q", "0", "-p", "1"}), "rx needs an interface (-i IFNAME)");
    EXPECT_EQ(usage_error({"rx", "-i", "eth1", "-p", "1"}),
              "rx needs at least one RX queue (-q QUEUE)");
    EXPECT_EQ(usage_error({"rx", "-i", "eth1", "-q", "0"}), "rx needs a port (-p PORT)");
    EXPECT_EQ(usage_error({"rx", "-x"}), "unknown option \"-x\"");
    EXPECT_EQ(usage_error({"rx", "--frob=1"}), "unknown option \"--frob\"");
    EXPECT_EQ(usage_error({"rx", "-i"}), "--ifname needs a value");
    EXPECT_EQ(usage_error({"rx", "--json=yes"}), "--json takes no value");
    EXPECT_EQ(usage_error({"rx", "rx"}), "unexpected \"rx\"");
    EXPECT_EQ(usage_error({"rx", "-p", "1", "--port", "2"}), "--port given twice");
    EXPECT_EQ(usage_error({"rx", "-q", "1", "-q", "1"}), "queue 1 given twice");
    EXPECT_EQ(usage_error({"rx", "-i", "a/b"}),
              "invalid interface name \"a/b\": 1 to 15 characters, without '/', ':' or spaces");
    EXPECT_EQ(usage_error({"rx", "-i", "0123456789abcdef"}).substr(0, 22),
              "invalid interface name");
    EXPECT_EQ(usage_error({"rx", "-p", "0"}),
              "invalid port \"0\": expected a number from 1 to 65535");
    EXPECT_EQ(usage_error({"rx", "-p", "65536"}),
              "invalid port \"65536\": expected a number from 1 to 65535");
    EXPECT_EQ(usage_error({"rx", "-p", "+5"}),
              "invalid port \"+5\": expected a number from 1 to 65535");
    EXPECT_EQ(usage_error({"rx", "-q", "-1"}),
              "invalid queue \"-1\": expected a number from 0 to 4294967295");
    EXPECT_EQ(usage_error({"rx", "-s", "0"}),
              "invalid size \"0\": expected a number from 1 to 65536");
    EXPECT_EQ(usage_error({"rx", "-v", "1"}),
              "invalid validate period \"1\": expected a number from 2 to 4294967295");
    EXPECT_EQ(usage_error({"rx", "-r", "lazy"}),
              "invalid release mode \"lazy\": expected per-frag or batched");
    EXPECT_EQ(usage_error({"rx", "-l", "fe80::1%eth0"}),
              "invalid listen address \"fe80::1%eth0\": expected an IPv6 or IPv4 address");
}

TEST(DevmemCliTest, ListenAddresses) {
    EXPECT_EQ(parse_listen_address("::"), any);
    EXPECT_EQ(parse_listen_address("::1"),
              (Ipv6Address{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    EXPECT_EQ(parse_listen_address("127.0.0.1"),
              (Ipv6Address{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1}));
    EXPECT_EQ(parse_listen_address("2001:db8::42"),
              (Ipv6Address{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42}));
    EXPECT_FALSE(parse_listen_address(""));
    EXPECT_FALSE(parse_listen_address("localhost"));
    EXPECT_FALSE(parse_listen_address("1.2.3"));
}

TEST(DevmemCliTest, ReleaseModes) {
    EXPECT_EQ(parse_release("per-frag"), devmem::Release::per_frag);
    EXPECT_EQ(parse_release("batched"), devmem::Release::batched);
    EXPECT_FALSE(parse_release("per_frag"));
}

TEST(DevmemCliTest, HelpSaysWhatToSetUpFirst) {
    const std::string help = help_text();
    EXPECT_NE(help.find("refnic-ethtool -G IFNAME tcp-data-split on"), std::string::npos);
    EXPECT_NE(help.find("ethtool -N IFNAME flow-type tcp4"), std::string::npos);
    EXPECT_NE(help.find("/dev/udmabuf"), std::string::npos);
    EXPECT_EQ(version_text().rfind("refnic-devmem ", 0), 0U);
}

}  // namespace
}  // namespace refnic::devmem_cli
