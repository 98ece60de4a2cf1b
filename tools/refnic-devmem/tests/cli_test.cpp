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
    EXPECT_EQ(parse_rx({"rx", "-f", "eth1", "-t", "8", "-p", "5201"}), expected);
    EXPECT_EQ(expected.server, "::");
    EXPECT_EQ(expected.server_address, any);
    EXPECT_EQ(expected.size_mib, 64U);
    EXPECT_FALSE(expected.validate);
    EXPECT_EQ(expected.release, devmem::Release::batched);
    EXPECT_FALSE(expected.json);
    // Options before the command too, and bundled with attached values.
    EXPECT_EQ(parse_rx({"-feth1", "rx", "-t8", "-p5201"}), expected);
}

Rx every_option() {
    Rx expected;
    expected.ifname = "r0";
    expected.queues = {3, 4, 5};
    expected.port = 9000;
    expected.server = "192.168.1.4";
    expected.server_address = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 4};
    expected.size_mib = 32;
    expected.validate = 7;
    expected.release = devmem::Release::per_frag;
    expected.json = true;
    return expected;
}

TEST(DevmemCliTest, EveryOptionLongAndShort) {
    const Rx expected = every_option();
    EXPECT_EQ(parse_rx({"rx",         "--ifname",     "r0",          "--start-queue",
                        "3",          "--num-queues", "3",           "--port",
                        "9000",       "--server",     "192.168.1.4", "--udmabuf-size",
                        "32",         "--validate",   "7",           "--release",
                        "per-frag",   "--json",       "--listen",    "--fail-on-linear",
                        "--no-config"}),
              expected);
    EXPECT_EQ(parse_rx({"rx", "-j", "--release",   "per-frag", "-v",   "7",  "--udmabuf-size",
                        "32", "-s", "192.168.1.4", "-p",       "9000", "-t", "3",
                        "-q", "3",  "-f",          "r0",       "-l",   "-L", "-n"}),
              expected);
    EXPECT_EQ(parse_rx({"rx", "--ifname=r0", "--start-queue=3", "--num-queues=3", "--port=9000",
                        "--server=192.168.1.4", "--udmabuf-size=32", "--validate=7",
                        "--release=per-frag", "--json"}),
              expected);
    // Long-option prefixes, as getopt_long takes them.
    EXPECT_EQ(parse_rx({"rx", "--if=r0", "--start=3", "--num=3", "--po=9000", "--se=192.168.1.4",
                        "--ud=32", "--va=7", "--rel=per-frag", "--j"}),
              expected);
    Rx unbinding = expected;
    unbinding.unbind_after_mib = 2;
    EXPECT_EQ(parse_rx({"rx",
                        "-f",
                        "r0",
                        "-t",
                        "3",
                        "-q",
                        "3",
                        "-p",
                        "9000",
                        "-s",
                        "192.168.1.4",
                        "--udmabuf-size",
                        "32",
                        "-v",
                        "7",
                        "--release",
                        "per-frag",
                        "-j",
                        "--unbind-after",
                        "2"}),
              unbinding);
    Rx pretty = expected;
    pretty.pretty = true;
    EXPECT_EQ(parse_rx({"rx", "-f", "r0", "-t", "3", "-q", "3", "-p", "9000", "-s", "192.168.1.4",
                        "--udmabuf-size", "32", "-v", "7", "--release", "per-frag", "--pretty"}),
              pretty);
}

TEST(DevmemCliTest, NcdevmemServerLines) {
    // ncdevmem's own server line, "ncdevmem" replaced by "refnic-devmem rx".
    Rx expected;
    expected.ifname = "eth1";
    expected.queues = {2};
    expected.port = 5201;
    expected.server = "10.0.0.2";
    expected.server_address = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 2};
    expected.validate = 7;
    EXPECT_EQ(parse_rx({"rx", "-s", "10.0.0.2", "-f", "eth1", "-l", "-p", "5201", "-v", "7", "-t",
                        "2", "-q", "1"}),
              expected);
    EXPECT_EQ(parse_rx({"rx", "-lL", "-n", "-s", "10.0.0.2", "-f", "eth1", "-p", "5201", "-v", "7",
                        "-t", "2"}),
              expected);
    // -v 0 is ncdevmem's default: off.
    expected.validate.reset();
    EXPECT_EQ(parse_rx({"rx", "-s", "10.0.0.2", "-f", "eth1", "-p", "5201", "-v", "0", "-t", "2"}),
              expected);
}

TEST(DevmemCliTest, RefusedNcdevmemLetters) {
    EXPECT_EQ(usage_error({"rx", "-f", "e", "-t", "0", "-p", "1", "-c", "10.0.0.1"}),
              "option \"-c\" is not rx's (tx takes it)");
    EXPECT_EQ(usage_error({"zcrx", "-f", "e", "-t", "0", "-p", "1", "-z", "4096"}),
              "option \"-z\" is not zcrx's (tx takes it)");
    EXPECT_EQ(usage_error({"rx", "-b", "4096"}),
              "option \"-b\" (ncdevmem's rx-page-size) is not taken");
}

TEST(DevmemCliTest, OldSpellingsNameTheNewOnes) {
    EXPECT_EQ(usage_error({"rx", "-i", "eth1"}), "option \"-i\" is now \"-f\" (ncdevmem's letter)");
    EXPECT_EQ(usage_error({"rx", "-r", "batched"}), "option \"-r\" is now \"--release\"");
    EXPECT_EQ(usage_error({"rx", "-f", "eth1", "-l", "10.0.0.2"}),
              "unexpected \"10.0.0.2\": \"-l 10.0.0.2\" is now \"-s 10.0.0.2\" (ncdevmem's "
              "letters)");
    EXPECT_EQ(usage_error({"rx", "--listen", "::"}),
              "unexpected \"::\": \"-l ::\" is now \"-s ::\" (ncdevmem's letters)");
    EXPECT_EQ(usage_error({"rx", "-s", "64"}),
              "invalid server address \"64\": \"-s MIB\" is now \"--udmabuf-size MIB\"");
    EXPECT_EQ(usage_error({"rx", "--size", "64"}), "option \"--size\" is now \"--udmabuf-size\"");
    EXPECT_EQ(usage_error({"rx", "--size=64"}), "option \"--size\" is now \"--udmabuf-size\"");
    EXPECT_EQ(usage_error({"rx", "--queue", "1"}),
              "option \"--queue\" is now \"-t/--start-queue\" (and \"-q\" the number of queues, "
              "as ncdevmem's)");
    EXPECT_EQ(usage_error({"rx", "-f", "eth1", "-q", "1", "-p", "5201"}),
              "rx needs a start queue (-t QUEUE); \"-q\" is now the number of queues, as "
              "ncdevmem's");
}

TEST(DevmemCliTest, HelpAndVersionAnywhere) {
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"--help"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"-h"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"help"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"help", "rx"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"rx", "--help"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"rx", "--he"})));
    // -h wins over a usage error, wherever it stands.
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"rx", "-i", "eth1", "-h"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"tx", "-h"})));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"-V"})));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"--version"})));
    EXPECT_TRUE(std::holds_alternative<Version>(parse({"rx", "-V"})));
    EXPECT_TRUE(std::holds_alternative<Help>(parse({"-V", "-h"})));
}

TEST(DevmemCliTest, RefusedBeforeAnythingIsDone) {
    EXPECT_EQ(usage_error({}), "no command given");
    EXPECT_EQ(usage_error({"-j"}), "no command given");
    EXPECT_EQ(usage_error({"rxx"}), "unknown command \"rxx\": expected rx, zcrx or tx");
    EXPECT_EQ(usage_error({"rx", "-t", "0", "-p", "1"}), "rx needs an interface (-f IFNAME)");
    EXPECT_EQ(usage_error({"rx", "-f", "eth1", "-p", "1"}), "rx needs a start queue (-t QUEUE)");
    EXPECT_EQ(usage_error({"rx", "-f", "eth1", "-t", "0"}), "rx needs a port (-p PORT)");
    EXPECT_EQ(usage_error({"rx", "-x"}), "unknown option \"-x\"");
    EXPECT_EQ(usage_error({"rx", "--frob=1"}), "unknown option \"--frob\"");
    EXPECT_EQ(usage_error({"rx", "-f"}), "option \"-f\" needs a value");
    EXPECT_EQ(usage_error({"rx", "--ifname"}), "option \"--ifname\" needs a value");
    EXPECT_EQ(usage_error({"rx", "--json=yes"}), "option \"--json\" takes no value");
    EXPECT_EQ(usage_error({"rx", "rx"}), "unexpected \"rx\"");
    EXPECT_EQ(usage_error({"rx", "-p", "1", "--port", "2"}), "option \"--port\" given twice");
    EXPECT_EQ(usage_error({"rx", "-t", "0", "-t", "1"}), "option \"--start-queue\" given twice");
    EXPECT_EQ(usage_error({"rx", "-f", "a/b"}),
              "invalid interface name \"a/b\": 1 to 15 characters, without '/', ':' or spaces");
    EXPECT_EQ(usage_error({"rx", "-f", "0123456789abcdef"}).substr(0, 22),
              "invalid interface name");
    EXPECT_EQ(usage_error({"rx", "-p", "0"}),
              "invalid port \"0\": expected a number from 1 to 65535");
    EXPECT_EQ(usage_error({"rx", "-p", "65536"}),
              "invalid port \"65536\": expected a number from 1 to 65535");
    EXPECT_EQ(usage_error({"rx", "-p", "+5"}),
              "invalid port \"+5\": expected a number from 1 to 65535");
    EXPECT_EQ(usage_error({"rx", "-t", "-1"}),
              "invalid start queue \"-1\": expected a number from 0 to 4294967295");
    EXPECT_EQ(usage_error({"rx", "-q", "0"}),
              "invalid number of queues \"0\": expected a number from 1 to 1024");
    EXPECT_EQ(usage_error({"rx", "--udmabuf-size", "0"}),
              "invalid udmabuf size \"0\": expected a number from 1 to 65536");
    EXPECT_EQ(usage_error({"rx", "--unbind-after", "0"}),
              "invalid unbind point \"0\": expected a number from 1 to 65536");
    EXPECT_EQ(usage_error({"zcrx", "-f", "e", "-t", "0", "-p", "1", "--unbind-after", "4"}),
              "option \"--unbind-after\" is not zcrx's (rx takes it)");
    EXPECT_EQ(usage_error({"rx", "-v", "1"}),
              "invalid validate period \"1\": expected 0 (off) or a number from 2 to 4294967295");
    EXPECT_EQ(usage_error({"rx", "--release", "lazy"}),
              "invalid release mode \"lazy\": expected per-frag or batched");
    EXPECT_EQ(usage_error({"rx", "-s", "fe80::1%eth0"}),
              "invalid server address \"fe80::1%eth0\": expected an IPv6 or IPv4 address");
    EXPECT_EQ(usage_error({"rx", "-f", "eth1", "-t", "4294967295", "-q", "2", "-p", "1"}),
              "queues 4294967295 to 4294967296: past the largest queue number");
}

TEST(DevmemCliTest, Zcrx) {
    Zcrx expected;
    expected.ifname = "eth1";
    expected.queue = 3;
    expected.port = 5201;
    Command command = parse({"zcrx", "-f", "eth1", "-t", "3", "-p", "5201"});
    ASSERT_TRUE(std::holds_alternative<Zcrx>(command));
    EXPECT_EQ(std::get<Zcrx>(command), expected);
    EXPECT_EQ(expected.area_mib, 32U);
    EXPECT_EQ(expected.refill_batch, 64U);

    expected.server = "192.0.2.2";
    expected.server_address = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 2};
    expected.area_mib = 4;
    expected.refill_batch = 1;
    expected.validate = 7;
    expected.json = true;
    expected.pretty = true;
    command = parse({"zcrx", "--ifname=eth1", "--start-queue", "3", "-p5201", "-s", "192.0.2.2",
                     "--area-size", "4", "--refill-batch", "1", "-v", "7", "--pretty"});
    ASSERT_TRUE(std::holds_alternative<Zcrx>(command));
    EXPECT_EQ(std::get<Zcrx>(command), expected);
    expected.validate = std::nullopt;
    expected.refill_garbage = true;
    command = parse({"zcrx", "--ifname=eth1", "--start-queue", "3", "-p5201", "-s", "192.0.2.2",
                     "--area-size", "4", "--refill-batch", "1", "--refill-garbage", "--pretty"});
    ASSERT_TRUE(std::holds_alternative<Zcrx>(command));
    EXPECT_EQ(std::get<Zcrx>(command), expected);
    expected.rx_buf_len = 8192;
    command = parse({"zcrx", "--ifname=eth1", "--start-queue", "3", "-p5201", "-s", "192.0.2.2",
                     "--area-size", "4", "--refill-batch", "1", "--refill-garbage", "--pretty",
                     "--rx-buf-len", "8192"});
    ASSERT_TRUE(std::holds_alternative<Zcrx>(command));
    EXPECT_EQ(std::get<Zcrx>(command), expected);
}

TEST(DevmemCliTest, ZcrxRefusesWhatIsNotItsOwn) {
    EXPECT_EQ(usage_error({"zcrx", "-t", "0", "-p", "1"}), "zcrx needs an interface (-f IFNAME)");
    EXPECT_EQ(usage_error({"zcrx", "-f", "e", "-t", "0", "-p", "1", "-q", "2"}),
              "zcrx receives on one queue: \"-q 2\" is rx's (an io_uring interface queue is one "
              "RX queue)");
    EXPECT_EQ(usage_error({"zcrx", "-f", "e", "-t", "0", "-p", "1", "--release", "batched"}),
              "option \"--release\" is not zcrx's (rx takes it)");
    EXPECT_EQ(usage_error({"zcrx", "-f", "e", "-t", "0", "-p", "1", "--udmabuf-size", "4"}),
              "option \"--udmabuf-size\" is not zcrx's (rx and tx take it)");
    EXPECT_EQ(usage_error({"rx", "-f", "e", "-t", "0", "-p", "1", "--area-size", "4"}),
              "option \"--area-size\" is not rx's (zcrx takes it)");
    EXPECT_EQ(usage_error({"rx", "-f", "e", "-t", "0", "-p", "1", "--refill-batch", "4"}),
              "option \"--refill-batch\" is not rx's (zcrx takes it)");
    EXPECT_EQ(usage_error({"zcrx", "--area-size", "0"}),
              "invalid area size \"0\": expected a number from 1 to 65536");
    EXPECT_EQ(usage_error({"zcrx", "--refill-batch", "0"}),
              "invalid refill batch \"0\": expected a number from 1 to 32768");
    EXPECT_EQ(usage_error({"rx", "-f", "e", "-t", "0", "-p", "1", "--refill-garbage"}),
              "option \"--refill-garbage\" is not rx's (zcrx takes it)");
    EXPECT_EQ(usage_error({"zcrx", "-f", "e", "-t", "0", "-p", "1", "-v", "7", "--refill-garbage"}),
              "--refill-garbage hands back buffers the process may still read: it does not go "
              "with -v");
    EXPECT_EQ(usage_error({"zcrx", "--rx-buf-len", "2048"}),
              "invalid rx buffer length \"2048\": expected a number from 4096 to 1048576");
    EXPECT_EQ(usage_error({"zcrx", "--rx-buf-len", "12288"}),
              "--rx-buf-len 12288: a power of two from 4096 to 1048576");
    EXPECT_EQ(usage_error({"rx", "-f", "e", "-t", "0", "-p", "1", "--rx-buf-len", "8192"}),
              "option \"--rx-buf-len\" is not rx's (zcrx takes it)");
    EXPECT_EQ(usage_error({"zcrx", "zcrx"}), "unexpected \"zcrx\"");
}

TEST(DevmemCliTest, Tx) {
    Tx expected;
    expected.ifname = "eth1";
    expected.port = 5201;
    expected.server = "192.0.2.2";
    expected.server_address = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 2};
    Command command = parse({"tx", "-f", "eth1", "-s", "192.0.2.2", "-p", "5201"});
    ASSERT_TRUE(std::holds_alternative<Tx>(command));
    EXPECT_EQ(std::get<Tx>(command), expected);
    EXPECT_EQ(expected.period, 7U);
    EXPECT_EQ(expected.chunk, 0U);
    EXPECT_EQ(expected.bytes, std::uint64_t{64} << 20U);
    EXPECT_EQ(expected.size_mib, 64U);
    EXPECT_FALSE(expected.client);

    // ncdevmem's client letters: -c the local address, -z the chunk size.
    expected.client = "2001:db8::1";
    expected.client_address = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    expected.period = 256;
    expected.chunk = 3000;
    expected.bytes = 1000000;
    expected.size_mib = 4;
    expected.json = true;
    command = parse({"tx", "-f", "eth1", "-s", "192.0.2.2", "-p", "5201", "-c", "2001:db8::1", "-v",
                     "256", "-z", "3000", "--bytes", "1000000", "--udmabuf-size", "4", "-j"});
    ASSERT_TRUE(std::holds_alternative<Tx>(command));
    EXPECT_EQ(std::get<Tx>(command), expected);
}

TEST(DevmemCliTest, TxRefusesWhatIsNotItsOwn) {
    EXPECT_EQ(usage_error({"tx", "-s", "::1", "-p", "1"}), "tx needs an interface (-f IFNAME)");
    EXPECT_EQ(usage_error({"tx", "-f", "e", "-p", "1"}),
              "tx needs the receiver's address (-s ADDR)");
    EXPECT_EQ(usage_error({"tx", "-f", "e", "-s", "::1"}), "tx needs a port (-p PORT)");
    EXPECT_EQ(usage_error({"tx", "-f", "e", "-s", "::1", "-p", "1", "-t", "2"}),
              "option \"-t\" is not tx's (rx and zcrx take it)");
    EXPECT_EQ(usage_error({"tx", "-f", "e", "-s", "::1", "-p", "1", "--release", "batched"}),
              "option \"--release\" is not tx's (rx takes it)");
    EXPECT_EQ(usage_error({"tx", "-f", "e", "-s", "::1", "-p", "1", "-l"}),
              "option \"-l\" is not tx's (rx and zcrx take it)");
    EXPECT_EQ(usage_error({"rx", "-f", "e", "-t", "0", "-p", "1", "--bytes", "4"}),
              "option \"--bytes\" is not rx's (tx takes it)");
    EXPECT_EQ(usage_error({"tx", "-f", "e", "-s", "::1", "-p", "1", "-v", "0"}),
              "tx always sends the pattern: \"-v 0\" is rx's (off); -v takes 2 to 4294967295, "
              "default 7");
    EXPECT_EQ(usage_error({"tx", "-z", "0"}),
              "invalid chunk size \"0\": expected a number from 1 to 1073741824");
    EXPECT_EQ(usage_error({"tx", "-c", "host"}),
              "invalid client address \"host\": expected an IPv6 or IPv4 address");
}

TEST(DevmemCliTest, ServerAddresses) {
    EXPECT_EQ(parse_server_address("::"), any);
    EXPECT_EQ(parse_server_address("::1"),
              (Ipv6Address{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
    EXPECT_EQ(parse_server_address("127.0.0.1"),
              (Ipv6Address{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1}));
    EXPECT_EQ(parse_server_address("2001:db8::42"),
              (Ipv6Address{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42}));
    EXPECT_FALSE(parse_server_address(""));
    EXPECT_FALSE(parse_server_address("localhost"));
    EXPECT_FALSE(parse_server_address("1.2.3"));
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
