// SPDX-License-Identifier: GPL-2.0-only
// refnicctl's command-line grammar, without running anything.
#include "cli.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::refnicctl {
namespace {

Invocation parse(std::initializer_list<std::string_view> args) {
    const std::vector<std::string_view> argv(args);
    return parse_command_line(argv);
}

Command command(std::initializer_list<std::string_view> args) { return parse(args).command; }

// The usage error's help topic, or "no error".
std::string usage_error(std::initializer_list<std::string_view> args) {
    try {
        static_cast<void>(parse(args));
    } catch (const UsageError& error) {
        return error.topic() + ": " + error.what();
    }
    return "no error";
}

TEST(CliDevTest, AddWithEveryOption) {
    DevAdd expected;
    expected.name = "r0";
    expected.peer = "r1";
    expected.netns = "ns0";
    expected.peer_netns = "/proc/1/ns/net";
    expected.queues = 4;
    expected.rx_ring = 1024;
    expected.tx_ring = 4096;
    EXPECT_EQ(command({"dev", "add", "name", "r0", "peer", "r1", "netns", "ns0", "peer-netns",
                       "/proc/1/ns/net", "queues", "4", "rx-ring", "1024", "tx-ring", "4k"}),
              Command(expected));
    EXPECT_EQ(command({"dev", "add"}), Command(DevAdd{}));
}

TEST(CliDevTest, DelAndShow) {
    EXPECT_EQ(command({"dev", "del", "r0"}), Command(DevDel{"r0"}));
    EXPECT_EQ(command({"dev", "delete", "7"}), Command(DevDel{"7"}));
    EXPECT_EQ(command({"dev", "show"}), Command(DevShow{}));
    EXPECT_EQ(command({"dev"}), Command(DevShow{}));
    EXPECT_EQ(command({"dev", "show", "r0"}), Command(DevShow{"r0"}));
    EXPECT_EQ(command({"dev", "list"}), Command(DevShow{}));
}

TEST(CliDevTest, RejectsBadArguments) {
    EXPECT_EQ(usage_error({"dev", "add", "queues", "0"}), "dev: invalid queues 0: 1 to 16");
    EXPECT_EQ(usage_error({"dev", "add", "queues", "17"}), "dev: invalid queues 17: 1 to 16");
    EXPECT_EQ(usage_error({"dev", "add", "queues", "four"}),
              "dev: invalid queues \"four\": expected a number");
    EXPECT_EQ(usage_error({"dev", "add", "rx-ring", "1000"}),
              "dev: invalid rx-ring 1000: a power of two from 64 to 4096");
    EXPECT_EQ(usage_error({"dev", "add", "tx-ring", "32"}),
              "dev: invalid tx-ring 32: a power of two from 64 to 4096");
    EXPECT_EQ(usage_error({"dev", "add", "name"}), "dev: \"name\" needs a value");
    EXPECT_EQ(usage_error({"dev", "add", "name", "a-name-that-is-too-long"}).substr(0, 27),
              "dev: invalid name \"a-name-t");
    EXPECT_EQ(usage_error({"dev", "add", "name", "a/b"}).substr(0, 23),
              "dev: invalid name \"a/b\"");
    EXPECT_EQ(usage_error({"dev", "add", "name", "a", "name", "b"}), "dev: \"name\" given twice");
    EXPECT_EQ(usage_error({"dev", "add", "mtu", "9000"}), "dev: unknown \"mtu\" for dev add");
    EXPECT_EQ(usage_error({"dev", "del"}), "dev: dev del needs a device");
    EXPECT_EQ(usage_error({"dev", "del", "r0", "r1"}), "dev: unexpected \"r1\"");
    EXPECT_EQ(usage_error({"dev", "frob"}),
              "dev: unknown dev command \"frob\": expected add, del, set or show");
}

TEST(CliDevTest, SetTcpDataSplit) {
    EXPECT_EQ(command({"dev", "set", "r0", "tcp-data-split", "on"}),
              Command(DevSet{"r0", ethtool::TcpDataSplit::enabled}));
    EXPECT_EQ(command({"dev", "set", "r0", "tcp-data-split", "off"}),
              Command(DevSet{"r0", ethtool::TcpDataSplit::disabled}));
    // auto asks the driver for its default: ETHTOOL_TCP_DATA_SPLIT_UNKNOWN on the wire.
    EXPECT_EQ(command({"dev", "set", "7", "tcp-data-split", "auto"}),
              Command(DevSet{"7", ethtool::TcpDataSplit::unknown}));
    EXPECT_EQ(parse({"-j", "dev", "set", "r0", "tcp-data-split", "on"}),
              (Invocation{Options{true, 0}, DevSet{"r0", ethtool::TcpDataSplit::enabled}}));
    EXPECT_EQ(command({"dev", "set", "r0", "tcp-data-split", "on", "--help"}),
              Command(Help{"dev"}));
}

TEST(CliDevTest, SetRejectsBadArguments) {
    EXPECT_EQ(usage_error({"dev", "set", "r0", "tcp-data-split", "yes"}),
              "dev: invalid tcp-data-split \"yes\": expected on, off or auto");
    EXPECT_EQ(usage_error({"dev", "set", "r0", "tcp-data-split", "ON"}),
              "dev: invalid tcp-data-split \"ON\": expected on, off or auto");
    EXPECT_EQ(usage_error({"dev", "set", "r0", "tcp-data-split", "unknown"}),
              "dev: invalid tcp-data-split \"unknown\": expected on, off or auto");
    // A value is the keyword's even when it looks like an option.
    EXPECT_EQ(usage_error({"dev", "set", "r0", "tcp-data-split", "-j"}),
              "dev: invalid tcp-data-split \"-j\": expected on, off or auto");
    EXPECT_EQ(usage_error({"dev", "set", "r0", "tcp-data-split"}),
              "dev: \"tcp-data-split\" needs a value: on, off or auto");
    EXPECT_EQ(usage_error({"dev", "set", "r0"}), "dev: dev set needs tcp-data-split on|off|auto");
    EXPECT_EQ(usage_error({"dev", "set"}), "dev: dev set needs a device");
    EXPECT_EQ(usage_error({"dev", "set", "r0", "mtu", "9000"}), "dev: unknown \"mtu\" for dev set");
    EXPECT_EQ(usage_error({"dev", "set", "r0", "on"}), "dev: unknown \"on\" for dev set");
    EXPECT_EQ(usage_error({"dev", "set", "r0", "tcp-data-split", "on", "tcp-data-split", "off"}),
              "dev: \"tcp-data-split\" given twice");
}

TEST(CliLinkTest, SetTakesAnyNonEmptySubset) {
    LinkSet expected{"r0", {}};
    expected.link.rate_bps = 25'000'000'000;
    expected.link.latency_us = 20;
    expected.link.loss_ppm = 1000;
    expected.link.carrier = false;
    EXPECT_EQ(command({"link", "set", "r0", "rate", "25gbit", "latency", "20us", "loss", "0.1%",
                       "carrier", "off"}),
              Command(expected));
    LinkSet rate_only{"5", {}};
    rate_only.link.rate_bps = 0;
    EXPECT_EQ(command({"link", "set", "5", "rate", "0"}), Command(rate_only));
    LinkSet latency_only{"r0", {}};
    latency_only.link.latency_us = 1000;
    EXPECT_EQ(command({"link", "set", "r0", "latency", "1ms"}), Command(latency_only));
}

TEST(CliLinkTest, ShowAndErrors) {
    EXPECT_EQ(command({"link", "show"}), Command(LinkShow{}));
    EXPECT_EQ(command({"link"}), Command(LinkShow{}));
    EXPECT_EQ(command({"link", "show", "r0"}), Command(LinkShow{"r0"}));
    EXPECT_EQ(usage_error({"link", "set", "r0"}),
              "link: link set needs at least one of rate, latency, loss, carrier");
    EXPECT_EQ(usage_error({"link", "set"}), "link: link set needs a device");
    EXPECT_EQ(usage_error({"link", "set", "r0", "rate", "fast"}),
              "link: invalid rate \"fast\": expected a rate such as 25gbit, 100mbit or 0 "
              "(unlimited)");
    EXPECT_EQ(usage_error({"link", "set", "r0", "latency", "11s"}),
              "link: invalid latency 11s: at most 10s");
    EXPECT_EQ(usage_error({"link", "set", "r0", "loss", "101%"}),
              "link: invalid loss \"101%\": expected a percentage such as 0.1%");
    EXPECT_EQ(usage_error({"link", "set", "r0", "carrier", "up"}),
              "link: invalid carrier \"up\": expected on or off");
    EXPECT_EQ(usage_error({"link", "set", "r0", "rate"}), "link: \"rate\" needs a value");
    EXPECT_EQ(usage_error({"link", "set", "r0", "rate", "1", "rate", "2"}),
              "link: \"rate\" given twice");
}

TEST(CliStatsTest, DeviceIsOptional) {
    EXPECT_EQ(command({"stats", "r0"}), Command(StatsShow{"r0"}));
    EXPECT_EQ(command({"stats"}), Command(StatsShow{}));
    EXPECT_EQ(command({"stats", "show", "r0"}), Command(StatsShow{"r0"}));
    EXPECT_EQ(parse({"-s", "stats", "r0"}).options.stats_level, 1);
    EXPECT_EQ(parse({"stats", "r0", "-s", "-s"}).options.stats_level, 2);
    EXPECT_EQ(usage_error({"stats", "r0", "r1"}), "stats: unexpected \"r1\"");
}

TEST(CliFaultTest, SetClearShow) {
    FaultSet rate{"r0", {}};
    rate.setting.type = control::Fault::stall_txq;
    rate.setting.queue = 1;
    rate.setting.rate_ppm = 50'000;
    EXPECT_EQ(command({"fault", "r0", "set", "stall-txq", "queue", "1", "rate", "5%"}),
              Command(rate));
    FaultSet count{"r0", {}};
    count.setting.type = control::Fault::drop_completion;
    count.setting.queue = 0;
    count.setting.count = 10;
    EXPECT_EQ(command({"fault", "r0", "set", "drop-completion", "count", "10", "queue", "0"}),
              Command(count));
    FaultSet clear{"r0", {}};
    clear.setting.type = control::Fault::fail_alloc;
    clear.setting.queue = 3;
    EXPECT_EQ(command({"fault", "r0", "clear", "fail-alloc", "queue", "3"}), Command(clear));
    FaultSet wedge{"r0", {}};
    wedge.setting.type = control::Fault::wedge_txq;
    wedge.setting.queue = 1;
    wedge.setting.count = 1;
    EXPECT_EQ(command({"fault", "r0", "set", "wedge-txq", "queue", "1", "count", "1"}),
              Command(wedge));
    FaultSet unwedge{"r0", {}};
    unwedge.setting.type = control::Fault::wedge_txq;
    unwedge.setting.queue = 1;
    EXPECT_EQ(command({"fault", "r0", "clear", "wedge-txq", "queue", "1"}), Command(unwedge));
    FaultSet lie{"r0", {}};
    lie.setting.type = control::Fault::gro_bad_len;
    lie.setting.queue = 0;
    lie.setting.count = 3;
    EXPECT_EQ(command({"fault", "r0", "set", "gro-bad-len", "queue", "0", "count", "3"}),
              Command(lie));
    FaultSet stall{"r0", {}};
    stall.setting.type = control::Fault::stall_rxq;
    stall.setting.queue = 2;
    stall.setting.count = 1;
    EXPECT_EQ(command({"fault", "r0", "set", "stall-rxq", "queue", "2", "count", "1"}),
              Command(stall));
    FaultSet lose{"r0", {}};
    lose.setting.type = control::Fault::lose_irq;
    lose.setting.queue = 3;
    lose.setting.rate_ppm = 10'000;
    EXPECT_EQ(command({"fault", "r0", "set", "lose-irq", "queue", "3", "rate", "1%"}),
              Command(lose));
    EXPECT_EQ(command({"fault", "show"}), Command(FaultShow{}));
    EXPECT_EQ(command({"fault"}), Command(FaultShow{}));
    EXPECT_EQ(command({"fault", "r0", "show"}), Command(FaultShow{"r0"}));
    EXPECT_EQ(command({"fault", "r0"}), Command(FaultShow{"r0"}));
}

TEST(CliFaultTest, RejectsIncompleteOrContradictorySettings) {
    EXPECT_EQ(usage_error({"fault", "r0", "set", "stall-txq", "queue", "1"}),
              "fault: fault set needs either rate R% or count N");
    EXPECT_EQ(
        usage_error({"fault", "r0", "set", "stall-txq", "queue", "1", "rate", "1%", "count", "2"}),
        "fault: fault set needs either rate R% or count N");
    EXPECT_EQ(usage_error({"fault", "r0", "set", "stall-txq", "rate", "1%"}),
              "fault: fault set needs queue Q");
    EXPECT_EQ(usage_error({"fault", "r0", "set", "stall_txq", "queue", "1", "rate", "1%"}),
              "fault: invalid fault type \"stall_txq\": expected drop-completion, "
              "corrupt-dma-addr, stall-txq, fail-alloc, wedge-txq, gro-bad-len, stall-rxq or "
              "lose-irq");
    EXPECT_EQ(usage_error({"fault", "r0", "set", "stall-txq", "queue", "16", "count", "1"}),
              "fault: invalid queue 16: 0 to 15");
    EXPECT_EQ(usage_error({"fault", "r0", "clear", "stall-txq", "queue", "1", "rate", "1%"}),
              "fault: unknown \"rate\" for fault clear");
    EXPECT_EQ(usage_error({"fault", "r0", "frob"}),
              "fault: unknown fault command \"frob\": expected set, clear or show");
}

TEST(CliGlobalTest, OptionsAnywhereAKeywordMayStand) {
    EXPECT_TRUE(parse({"-j", "dev", "show"}).options.json);
    EXPECT_TRUE(parse({"dev", "show", "--json"}).options.json);
    EXPECT_TRUE(parse({"dev", "-j", "show", "r0"}).options.json);
    EXPECT_EQ(parse({"dev", "-j", "show", "r0"}).command, Command(DevShow{"r0"}));
    // A value is always the keyword's, even when it looks like an option.
    DevAdd dash;
    dash.name = "-j";
    EXPECT_EQ(parse({"dev", "add", "name", "-j"}), (Invocation{Options{}, dash}));
    EXPECT_EQ(command({"monitor"}), Command(Monitor{}));
    EXPECT_TRUE(parse({"-j", "monitor"}).options.json);
    EXPECT_EQ(usage_error({"-x", "dev"}), ": unknown option \"-x\"");
    EXPECT_EQ(usage_error({}), ": no command given");
    EXPECT_EQ(usage_error({"frob"}), ": unknown object \"frob\"");
    EXPECT_EQ(usage_error({"monitor", "now"}), "monitor: unexpected \"now\"");
}

TEST(CliGlobalTest, HelpAnywhere) {
    EXPECT_EQ(command({"--help"}), Command(Help{""}));
    EXPECT_EQ(command({"-h"}), Command(Help{""}));
    EXPECT_EQ(command({"help"}), Command(Help{""}));
    EXPECT_EQ(command({"dev", "--help"}), Command(Help{"dev"}));
}

TEST(CliGlobalTest, HelpOfAnObjectAndVersion) {
    EXPECT_EQ(command({"dev", "help"}), Command(Help{"dev"}));
    EXPECT_EQ(command({"link", "set", "-h"}), Command(Help{"link"}));
    // Help wins over a command line it would explain.
    EXPECT_EQ(command({"fault", "r0", "set", "--help"}), Command(Help{"fault"}));
    EXPECT_EQ(command({"monitor", "--help"}), Command(Help{"monitor"}));
    EXPECT_EQ(command({"stats", "-h"}), Command(Help{"stats"}));
    EXPECT_EQ(command({"-V"}), Command(Version{}));
    EXPECT_EQ(command({"--version"}), Command(Version{}));
}

TEST(CliGlobalTest, HelpTextsDocumentExitStatusAndJson) {
    for (const char* topic : {"", "dev", "link", "stats", "fault", "monitor"}) {
        const std::string text = help_text(topic);
        EXPECT_NE(text.find("Exit status: 0 success; 1 runtime error"), std::string::npos);
        EXPECT_NE(text.find("Usage:"), std::string::npos) << topic;
    }
    EXPECT_NE(help_text("dev").find("\"rx_ring_size\""), std::string::npos);

    EXPECT_NE(help_text("stats").find("\"irq_moderated\""), std::string::npos);
    EXPECT_NE(help_text("fault").find("\"injected\""), std::string::npos);
    EXPECT_EQ(version_text().rfind("refnicctl ", 0), 0U);
}

TEST(CliGlobalTest, HelpTextsDocumentDevSet) {
    constexpr std::string_view usage = "refnicctl dev set DEV tcp-data-split on|off|auto";
    EXPECT_NE(help_text("").find(usage), std::string::npos);
    EXPECT_NE(help_text("dev").find(usage), std::string::npos);
    EXPECT_NE(help_text("dev").find("tcp-data-split off\n"), std::string::npos);
    EXPECT_NE(help_text("dev").find("\"tcp_data_split\": \"off\""), std::string::npos);
}

}  // namespace
}  // namespace refnic::refnicctl
