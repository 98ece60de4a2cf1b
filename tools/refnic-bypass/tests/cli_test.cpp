// SPDX-License-Identifier: GPL-2.0-only
// refnic-bypass's command line: every command and option, and what is refused before anything is
// done.
#include "cli.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::bypass_cli {
namespace {

Command parse(std::initializer_list<std::string_view> words) {
    const std::vector<std::string_view> args(words);
    return parse_command_line(args);
}

Invocation parse_run(std::initializer_list<std::string_view> words) {
    const Command command = parse(words);
    EXPECT_TRUE(std::holds_alternative<Invocation>(command));
    return std::holds_alternative<Invocation>(command) ? std::get<Invocation>(command)
                                                       : Invocation{};
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

TEST(BypassCliTest, MinimalRx) {
    Invocation expected;
    expected.mode = Mode::rx;
    expected.ifname = "r1";
    expected.queue = 3;
    EXPECT_EQ(parse_run({"rx", "-i", "r1", "-q", "3"}), expected);
    EXPECT_FALSE(expected.count);
    EXPECT_FALSE(expected.duration);
    EXPECT_EQ(expected.batch, 64U);
    EXPECT_FALSE(expected.busy_poll);
    EXPECT_FALSE(expected.verify);
    EXPECT_FALSE(expected.json);
}

TEST(BypassCliTest, EveryRxOption) {
    Invocation expected;
    expected.ifname = "r1";
    expected.queue = 0;
    expected.count = 1000;
    expected.duration = 2.5;
    expected.batch = 32;
    expected.header_split = true;
    expected.whole_port = true;
    expected.busy_poll = true;
    expected.verify = true;
    expected.quiet = true;
    expected.json = true;
    EXPECT_EQ(parse_run({"rx", "-i", "r1", "-q", "0", "--count", "1000", "--duration", "2.5",
                         "--batch", "32", "--hdr-split", "--whole-port", "--busy-poll", "--verify",
                         "--quiet", "--json"}),
              expected);
    EXPECT_EQ(parse_run({"rx", "--json", "--quiet", "--verify", "--busy-poll", "--whole-port",
                         "--hdr-split", "--batch=32", "--duration=2.5", "--count=1000", "-i", "r1",
                         "-q", "0"}),
              expected);
}

TEST(BypassCliTest, Tx) {
    Invocation expected;
    expected.mode = Mode::tx;
    expected.ifname = "r0";
    expected.queue = 2;
    expected.flow.dst_mac = {0x02, 0, 0, 0, 0, 0xb1};
    expected.flow.src_ip = {10, 0, 0, 1};
    expected.flow.dst_ip = {10, 0, 0, 2};
    expected.flow.src_port = 9999;
    expected.flow.dst_port = 7000;
    EXPECT_EQ(parse_run({"tx", "-i", "r0", "-q", "2", "--dst-mac", "02:00:00:00:00:B1", "--src-ip",
                         "10.0.0.1", "--dst-ip", "10.0.0.2", "--dst-port", "7000"}),
              expected);
    EXPECT_EQ(expected.size, 60U);
    EXPECT_FALSE(expected.src_mac);

    expected.src_mac = MacAddress{0x02, 0, 0, 0, 0, 0xa1};
    expected.flow.src_port = 5000;
    expected.size = 1514;
    expected.count = 10;
    expected.batch = 16;
    expected.rate = 20000;
    EXPECT_EQ(parse_run({"tx", "-i", "r0", "-q", "2", "--dst-mac=02:00:00:00:00:b1",
                         "--src-ip=10.0.0.1", "--dst-ip=10.0.0.2", "--dst-port=7000",
                         "--src-mac=02:00:00:00:00:a1", "--src-port=5000", "--size=1514",
                         "--count=10", "--batch=16", "--rate", "20000"}),
              expected);
}

TEST(BypassCliTest, Echo) {
    Invocation expected;
    expected.mode = Mode::echo;
    expected.ifname = "r1";
    expected.queue = 1;
    expected.whole_port = true;
    expected.duration = 10;
    EXPECT_EQ(parse_run({"echo", "-i", "r1", "-q", "1", "--whole-port", "--duration", "10"}),
              expected);
}

TEST(BypassCliTest, ShortOptionsAndOptionsBeforeTheCommand) {
    Invocation expected;
    expected.mode = Mode::rx;
    expected.ifname = "r1";
    expected.queue = 1;
    expected.count = 5;
    expected.duration = 3;
    expected.batch = 8;
    expected.busy_poll = true;
    expected.quiet = true;
    expected.json = true;
    EXPECT_EQ(
        parse_run({"-j", "rx", "-i", "r1", "-q", "1", "-c", "5", "-d", "3", "-b", "8", "-BQ"}),
        expected);
    EXPECT_EQ(parse_run({"-jBQir1", "-q1", "-c5", "-d3", "-b8", "rx"}), expected);
    expected.pretty = true;
    EXPECT_EQ(parse_run({"rx", "-i", "r1", "-q", "1", "-c", "5", "-d", "3", "-b", "8", "-BQp"}),
              expected);
    Invocation tx;
    tx.mode = Mode::tx;
    tx.ifname = "r0";
    tx.queue = 2;
    tx.flow.dst_mac = {0x02, 0, 0, 0, 0, 0xb1};
    tx.flow.src_ip = {10, 0, 0, 1};
    tx.flow.dst_ip = {10, 0, 0, 2};
    tx.flow.src_port = 9999;
    tx.flow.dst_port = 7000;
    tx.size = 128;
    EXPECT_EQ(parse_run({"tx", "-i", "r0", "-q", "2", "--dst-mac", "02:00:00:00:00:b1", "--src-ip",
                         "10.0.0.1", "--dst-ip", "10.0.0.2", "--dst-p", "7000", "-s", "128"}),
              tx);
    EXPECT_EQ(usage_error({"tx", "--s", "1"}),
              "ambiguous option \"--s\": --src-mac, --src-ip, --src-port, --size");
}

TEST(BypassCliTest, OldPositionalsNameTheNewSpelling) {
    EXPECT_EQ(usage_error({"rx", "r1", "1"}),
              "unexpected \"r1\": the device and queue are options now (rx -i r1 -q 1)");
    EXPECT_EQ(usage_error({"tx", "r0", "1", "--dst-mac", "02:00:00:00:00:01"}),
              "unexpected \"r0\": the device and queue are options now (tx -i r0 -q 1)");
    EXPECT_EQ(usage_error({"echo", "r1"}),
              "unexpected \"r1\": the device and queue are options now (echo -i r1 -q QUEUE)");
}

TEST(BypassCliTest, HelpAndVersionAnywhere) {
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"--help"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"-h"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"help"})));
    // A command named beside the request asks for its own help.
    EXPECT_EQ(parse({"help"}), Command(Help{}));
    EXPECT_EQ(parse({"help", "tx"}), Command(Help{Mode::tx}));
    EXPECT_EQ(parse({"rx", "-i", "r1", "--help"}), Command(Help{Mode::rx}));
    EXPECT_EQ(parse({"tx", "help"}), Command(Help{Mode::tx}));
    EXPECT_EQ(usage_error({"help", "frob"}), "unknown command \"frob\": expected rx, tx or echo");
    EXPECT_EQ(usage_error({"rxx", "help"}), "unknown command \"rxx\": expected rx, tx or echo");
    // -h wins over a usage error, and the command is read loosely there: after options and
    // their separate values, not inside them.
    EXPECT_EQ(parse({"echo", "r1", "0", "-h"}), Command(Help{Mode::echo}));
    EXPECT_EQ(parse({"-Q", "tx", "--frob", "-h"}), Command(Help{Mode::tx}));
    EXPECT_EQ(parse({"-i", "rx", "tx", "--bogus", "-h"}), Command(Help{Mode::tx}));
    EXPECT_EQ(parse({"--ifname", "echo", "--bogus", "-h"}), Command(Help{}));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"-V"})));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"--version"})));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"frob", "-V"})));
}

TEST(BypassCliTest, RefusesMissingPieces) {
    EXPECT_EQ(usage_error({}), "no command given");
    EXPECT_EQ(usage_error({"listen"}), "unknown command \"listen\": expected rx, tx or echo");
    EXPECT_EQ(usage_error({"-x"}), "unknown option \"-x\"");
    EXPECT_EQ(usage_error({"rx"}), "rx needs a device (-i DEV)");
    EXPECT_EQ(usage_error({"echo", "-i", "r1"}), "echo needs a queue (-q QUEUE)");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0"}), "tx needs --dst-mac MAC");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--dst-mac", "02:00:00:00:00:01"}),
              "tx needs --src-ip A");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--dst-mac", "02:00:00:00:00:01",
                           "--src-ip", "1.2.3.4", "--dst-ip", "1.2.3.5"}),
              "tx needs --dst-port P");
}

TEST(BypassCliTest, RefusesOptionsOfOtherCommands) {
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--verify"}),
              "--verify is an option of rx, not tx");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--rate", "10"}),
              "--rate is an option of tx, not rx");
    EXPECT_EQ(usage_error({"echo", "-i", "r0", "-q", "0", "--hdr-split"}),
              "--hdr-split is an option of rx, not echo");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--dst-port", "1"}),
              "--dst-port is an option of tx, not rx");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--whole-port"}),
              "--whole-port is an option of rx and echo, not tx");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--frob"}), "unknown option \"--frob\"");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--count"}),
              "option \"--count\" needs a value");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "-c"}), "option \"-c\" needs a value");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--json=yes"}),
              "option \"--json\" takes no value");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--batch", "1", "-b", "2"}),
              "option \"--batch\" given twice");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "-s", "60"}),
              "--size is an option of tx, not rx");
}

TEST(BypassCliTest, RefusesBadValues) {
    EXPECT_EQ(usage_error({"rx", "-i", "a/b", "-q", "0"}),
              "invalid interface name \"a/b\": 1 to 15 characters, without '/', ':' or spaces");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "x"}),
              "invalid queue \"x\": expected a number from 0 to 4294967295");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--count", "0"}),
              "invalid count \"0\": expected a number from 1 to 18446744073709551615");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--batch", "5000"}),
              "invalid batch \"5000\": expected a number from 1 to 4096");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--duration", "-1"}),
              "invalid duration \"-1\": expected a number of seconds above 0, such as 10 or 0.5");
    EXPECT_EQ(usage_error({"rx", "-i", "r0", "-q", "0", "--duration", "0"}).substr(0, 24),
              "invalid duration \"0\": ex");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--rate", "0"}),
              "invalid rate \"0\": expected a number from 1 to 100000000");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--size", "49"}),
              "invalid frame size \"49\": expected a number from 50 to 2048");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--dst-port", "65536"}),
              "invalid destination port \"65536\": expected a number from 1 to 65535");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--dst-mac", "02:00:00:00:00"}),
              "invalid --dst-mac \"02:00:00:00:00\": expected six hex pairs such as "
              "02:00:00:00:00:01");
    EXPECT_EQ(usage_error({"tx", "-i", "r0", "-q", "0", "--src-ip", "10.0.0"}),
              "invalid --src-ip \"10.0.0\": expected an IPv4 address");
}

TEST(BypassCliTest, MacAndIpv4Addresses) {
    EXPECT_EQ(parse_mac("00:1b:21:AB:cd:ef"), (MacAddress{0x00, 0x1b, 0x21, 0xab, 0xcd, 0xef}));
    EXPECT_FALSE(parse_mac("00-1b-21-ab-cd-ef"));
    EXPECT_FALSE(parse_mac("00:1b:21:ab:cd:eg"));
    EXPECT_FALSE(parse_mac("0:1b:21:ab:cd:ef0"));
    EXPECT_FALSE(parse_mac(""));
    EXPECT_EQ(parse_ipv4("192.168.1.4"), (Ipv4Address{192, 168, 1, 4}));
    EXPECT_FALSE(parse_ipv4("192.168.1.256"));
    EXPECT_FALSE(parse_ipv4("::1"));
}

TEST(BypassCliTest, HelpAndUsage) {
    EXPECT_NE(help_text().find(usage_text()), std::string::npos);
    EXPECT_NE(usage_text().find("refnic-bypass tx   -i DEV -q QUEUE --dst-mac MAC --src-ip ADDR"),
              std::string::npos);
    EXPECT_NE(help_text().find("elapsed_ns, rate_pps, throughput_bps"), std::string::npos);
    EXPECT_NE(help_text().find("/dev/refnic"), std::string::npos);
    EXPECT_EQ(version_text().rfind("refnic-bypass ", 0), 0U);
}

TEST(BypassCliTest, HelpOfOneCommand) {
    const std::string tx = help_text(Mode::tx);
    EXPECT_NE(tx.find("refnic-bypass tx   -i DEV"), std::string::npos);
    EXPECT_NE(tx.find("--dst-mac MAC        tx:"), std::string::npos);
    EXPECT_NE(tx.find("  -i, --ifname DEV"), std::string::npos);
    EXPECT_EQ(tx.find("refnic-bypass rx   -i DEV"), std::string::npos);
    EXPECT_EQ(tx.find("  --verify "), std::string::npos);
    EXPECT_EQ(tx.find("  echo  sends"), std::string::npos);
    const std::string echo = help_text(Mode::echo);
    EXPECT_NE(echo.find("--whole-port"), std::string::npos);
    EXPECT_EQ(echo.find("--hdr-split"), std::string::npos);
    EXPECT_EQ(echo.find("--rate"), std::string::npos);
}

TEST(BypassCliTest, HelpFitsEightyColumns) {
    for (const std::string& text :
         {help_text(), help_text(Mode::rx), help_text(Mode::tx), help_text(Mode::echo)}) {
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
            EXPECT_LE(line.size(), 80U) << line;
        }
    }
}

}  // namespace
}  // namespace refnic::bypass_cli
