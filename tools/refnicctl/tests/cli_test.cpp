// SPDX-License-Identifier: GPL-2.0-only
// refnicctl's command-line grammar, without running anything.
#include "cli.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
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
    EXPECT_EQ(usage_error({"dev", "add", "queues", "0"}),
              "dev: invalid queues \"0\": expected a number from 1 to 16");
    EXPECT_EQ(usage_error({"dev", "add", "queues", "17"}),
              "dev: invalid queues \"17\": expected a number from 1 to 16");
    EXPECT_EQ(usage_error({"dev", "add", "queues", "four"}),
              "dev: invalid queues \"four\": expected a number");
    EXPECT_EQ(usage_error({"dev", "add", "rx-ring", "1000"}),
              "dev: invalid rx-ring \"1000\": expected a power of two from 64 to 4096");
    EXPECT_EQ(usage_error({"dev", "add", "tx-ring", "32"}),
              "dev: invalid tx-ring \"32\": expected a power of two from 64 to 4096");
    EXPECT_EQ(usage_error({"dev", "add", "name"}), "dev: \"name\" needs a value");
    EXPECT_EQ(usage_error({"dev", "add", "name", "a-name-that-is-too-long"}).substr(0, 27),
              "dev: invalid name \"a-name-t");
    EXPECT_EQ(usage_error({"dev", "add", "name", "a/b"}).substr(0, 23),
              "dev: invalid name \"a/b\"");
    EXPECT_EQ(usage_error({"dev", "add", "name", "a", "name", "b"}), "dev: \"name\" given twice");
    EXPECT_EQ(usage_error({"dev", "add", "mtu", "9000"}),
              "dev: unknown keyword \"mtu\" for dev add: expected name, peer, netns, peer-netns, "
              "queues, rx-ring or tx-ring");
    EXPECT_EQ(usage_error({"dev", "del"}), "dev: dev del needs a device");
    EXPECT_EQ(usage_error({"dev", "del", "r0", "r1"}), "dev: unexpected \"r1\"");
    EXPECT_EQ(usage_error({"dev", "frob"}),
              "dev: unknown verb \"frob\" for dev: expected add, del, set, show or help");
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
              (Invocation{Options{true, false, 0}, DevSet{"r0", ethtool::TcpDataSplit::enabled}}));
    EXPECT_EQ(command({"dev", "set", "r0", "tcp-data-split", "on", "--help"}),
              Command(Help{"dev set"}));
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
    EXPECT_EQ(usage_error({"dev", "set", "r0", "mtu", "9000"}),
              "dev: unknown keyword \"mtu\" for dev set: expected tcp-data-split");
    EXPECT_EQ(usage_error({"dev", "set", "r0", "on"}),
              "dev: unknown keyword \"on\" for dev set: expected tcp-data-split");
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
              "link: invalid latency \"11s\": at most 10s");
    EXPECT_EQ(usage_error({"link", "set", "r0", "loss", "101%"}),
              "link: invalid loss \"101%\": expected a percentage such as 0.1%, at most 100%");
    EXPECT_EQ(usage_error({"link", "set", "r0", "carrier", "up"}),
              "link: invalid carrier \"up\": expected on or off");
    EXPECT_EQ(usage_error({"link", "set", "r0", "rate"}), "link: \"rate\" needs a value");
    EXPECT_EQ(usage_error({"link", "set", "r0", "rate", "1", "rate", "2"}),
              "link: \"rate\" given twice");
}

BusSet bus_set(std::string dev) { return BusSet{std::move(dev), {}}; }

BusSet every_bus_setting() {
    BusSet every = bus_set("r0");
    every.bus.read_ns = 1000;
    every.bus.gen = 4;
    every.bus.lanes = 8;
    every.bus.node = 1;
    every.bus.remote_ns = 200;
    return every;
}

TEST(CliBusTest, SetTakesEveryKeyword) {
    EXPECT_EQ(command({"bus", "set", "r0", "read-ns", "1000", "gen", "4", "lanes", "8", "node", "1",
                       "remote-ns", "200"}),
              Command(every_bus_setting()));
    // Prefixes, and dev DEV.
    EXPECT_EQ(command({"b", "se", "dev", "r0", "rea", "1000", "g", "4", "la", "8", "n", "1", "rem",
                       "200"}),
              Command(every_bus_setting()));
}

TEST(CliBusTest, SetTakesAnyNonEmptySubset) {
    BusSet none = bus_set("5");
    none.bus.node = control::bus_node_none;
    EXPECT_EQ(command({"bus", "set", "5", "node", "none"}), Command(none));
    BusSet off = bus_set("r0");
    off.bus.read_ns = 0;
    off.bus.gen = 0;
    off.bus.remote_ns = 0;
    EXPECT_EQ(command({"bus", "set", "r0", "gen", "0", "read-ns", "0", "remote-ns", "0"}),
              Command(off));
    BusSet limits = bus_set("r0");
    limits.bus.read_ns = 100'000;
    limits.bus.lanes = 16;
    limits.bus.node = 0;
    EXPECT_EQ(command({"bus", "set", "r0", "read-ns", "100000", "lanes", "16", "node", "0"}),
              Command(limits));
}

TEST(CliBusTest, SetTakesEachGenAndWidth) {
    for (const char* lanes : {"1", "2", "4", "8", "16"}) {
        EXPECT_TRUE(std::holds_alternative<BusSet>(command({"bus", "set", "r0", "lanes", lanes})));
    }
    for (const char* gen : {"0", "3", "4", "5"}) {
        EXPECT_TRUE(std::holds_alternative<BusSet>(command({"bus", "set", "r0", "gen", gen})));
    }
}

TEST(CliBusTest, Show) {
    EXPECT_EQ(command({"bus"}), Command(BusShow{}));
    EXPECT_EQ(command({"bus", "show"}), Command(BusShow{}));
    EXPECT_EQ(command({"bus", "ls", "r0"}), Command(BusShow{"r0"}));
    EXPECT_EQ(command({"b", "sh", "dev", "gen"}), Command(BusShow{"gen"}));
    EXPECT_EQ(command({"bus", "help"}), Command(Help{"bus"}));
    EXPECT_EQ(command({"bus", "set", "-h"}), Command(Help{"bus set"}));
    EXPECT_EQ(command({"help", "b", "sh"}), Command(Help{"bus show"}));
}

// Each command line and the usage error it gets.
using Refusals = std::vector<std::pair<std::vector<std::string_view>, std::string>>;

void expect_refusals(const Refusals& refusals) {
    for (const auto& [args, error] : refusals) {
        std::string got = "no error";
        try {
            static_cast<void>(parse_command_line(args));
        } catch (const UsageError& usage) {
            got = usage.topic() + ": " + usage.what();
        }
        EXPECT_EQ(got, error);
    }
}

TEST(CliBusTest, RefusesIncompleteLines) {
    expect_refusals({
        {{"bus", "set"}, "bus: bus set needs a device"},
        {{"bus", "set", "r0"},
         "bus: bus set needs at least one of read-ns, gen, lanes, node, remote-ns"},
        {{"bus", "s", "r0"}, "bus: ambiguous verb \"s\" for bus: set, show"},
        {{"bus", "r0"}, "bus: unknown verb \"r0\" for bus: expected set, show or help"},
        {{"bus", "set", "r0", "r", "1"},
         "bus: ambiguous keyword \"r\" for bus set: read-ns, remote-ns"},
        {{"bus", "set", "r0", "mps", "256"},
         "bus: unknown keyword \"mps\" for bus set: expected read-ns, gen, lanes, node or "
         "remote-ns"},
        {{"bus", "set", "r0", "node"}, "bus: \"node\" needs a value"},
        {{"bus", "set", "r0", "gen", "4", "g", "3"}, "bus: \"gen\" given twice"},
        {{"bus", "show", "r0", "r1"}, "bus: unexpected \"r1\""},
    });
}

TEST(CliBusTest, RefusesBadValues) {
    Refusals refusals{
        {{"bus", "set", "r0", "read-ns", "100001"},
         "bus: invalid read-ns \"100001\": expected nanoseconds from 0 to 100000"},
        {{"bus", "set", "r0", "remote-ns", "1000000"},
         "bus: invalid remote-ns \"1000000\": expected nanoseconds from 0 to 100000"},
        {{"bus", "set", "r0", "remote-ns", "1us"},
         "bus: invalid remote-ns \"1us\": expected nanoseconds from 0 to 100000"},
        {{"bus", "set", "r0", "read-ns", "-1"},
         "bus: invalid read-ns \"-1\": expected nanoseconds from 0 to 100000"},
    };
    for (const std::string_view gen : {"1", "2", "6", "gen4", "4.0", ""}) {
        refusals.push_back(
            {{"bus", "set", "r0", "gen", gen},
             "bus: invalid gen \"" + std::string(gen) + "\": expected 3, 4, 5 or 0 (no cap)"});
    }
    for (const std::string_view lanes : {"0", "3", "12", "32", "x8"}) {
        refusals.push_back(
            {{"bus", "set", "r0", "lanes", lanes},
             "bus: invalid lanes \"" + std::string(lanes) + "\": expected 1, 2, 4, 8 or 16"});
    }
    for (const std::string_view node : {"-1", "nonE", "2147483648", "1.5"}) {
        refusals.push_back({{"bus", "set", "r0", "node", node},
                            "bus: invalid node \"" + std::string(node) +
                                "\": expected a NUMA node number or none"});
    }
    expect_refusals(refusals);
}

TEST(CliStatsTest, DeviceIsOptional) {
    EXPECT_EQ(command({"stats", "show", "r0"}), Command(StatsShow{"r0"}));
    EXPECT_EQ(command({"stats"}), Command(StatsShow{}));
    EXPECT_EQ(command({"stats", "show"}), Command(StatsShow{}));
    EXPECT_EQ(command({"stats", "show", "dev", "r0"}), Command(StatsShow{"r0"}));
    EXPECT_EQ(parse({"-s", "stats", "show", "r0"}).options.stats_level, 1);
    EXPECT_EQ(parse({"stats", "show", "r0", "-s", "-s"}).options.stats_level, 2);
    EXPECT_EQ(parse({"-ss", "stats"}).options.stats_level, 2);
    EXPECT_EQ(usage_error({"stats", "show", "r0", "r1"}), "stats: unexpected \"r1\"");
}

TEST(CliStatsTest, OldOrderNamesTheNewOne) {
    EXPECT_EQ(usage_error({"stats", "r0"}), "stats: \"stats DEV\" is now \"stats show DEV\"");
    // A misspelt verb is one, not a device in the old order.
    EXPECT_EQ(usage_error({"stats", "shwo", "r0"}),
              "stats: unknown verb \"shwo\" for stats: expected show or help");
    EXPECT_EQ(usage_error({"fault", "clera"}),
              "fault: unknown verb \"clera\" for fault: expected set, clear, show or help");
    EXPECT_EQ(usage_error({"-s", "stats", "r0"}), "stats: \"stats DEV\" is now \"stats show DEV\"");
}

FaultSet fault_set(std::string dev, control::Fault type, std::uint32_t queue,
                   std::optional<std::uint32_t> rate_ppm, std::optional<std::uint32_t> count) {
    FaultSet fault{std::move(dev), {}};
    fault.setting.type = type;
    fault.setting.queue = queue;
    fault.setting.rate_ppm = rate_ppm;
    fault.setting.count = count;
    return fault;
}

TEST(CliFaultTest, SetClearShow) {
    EXPECT_EQ(command({"fault", "set", "r0", "stall-txq", "queue", "1", "rate", "5%"}),
              Command(fault_set("r0", control::Fault::stall_txq, 1, 50'000, std::nullopt)));
    EXPECT_EQ(command({"fault", "set", "r0", "drop-completion", "count", "10", "queue", "0"}),
              Command(fault_set("r0", control::Fault::drop_completion, 0, std::nullopt, 10)));
    EXPECT_EQ(command({"fault", "clear", "r0", "fail-alloc", "queue", "3"}),
              Command(fault_set("r0", control::Fault::fail_alloc, 3, std::nullopt, std::nullopt)));
    EXPECT_EQ(command({"fault", "set", "r0", "wedge-txq", "queue", "1", "count", "1"}),
              Command(fault_set("r0", control::Fault::wedge_txq, 1, std::nullopt, 1)));
    EXPECT_EQ(command({"fault", "clear", "r0", "wedge-txq", "queue", "1"}),
              Command(fault_set("r0", control::Fault::wedge_txq, 1, std::nullopt, std::nullopt)));
    EXPECT_EQ(command({"fault", "set", "r0", "gro-bad-len", "queue", "0", "count", "3"}),
              Command(fault_set("r0", control::Fault::gro_bad_len, 0, std::nullopt, 3)));
    EXPECT_EQ(command({"fault", "set", "r0", "stall-rxq", "queue", "2", "count", "1"}),
              Command(fault_set("r0", control::Fault::stall_rxq, 2, std::nullopt, 1)));
    EXPECT_EQ(command({"fault", "set", "dev", "r0", "lose-irq", "queue", "3", "rate", "1%"}),
              Command(fault_set("r0", control::Fault::lose_irq, 3, 10'000, std::nullopt)));
    EXPECT_EQ(command({"fault", "show"}), Command(FaultShow{}));
    EXPECT_EQ(command({"fault"}), Command(FaultShow{}));
    EXPECT_EQ(command({"fault", "show", "r0"}), Command(FaultShow{"r0"}));
    EXPECT_EQ(command({"fault", "ls", "r0"}), Command(FaultShow{"r0"}));
}

TEST(CliFaultTest, RejectsIncompleteOrContradictorySettings) {
    EXPECT_EQ(usage_error({"fault", "set", "r0", "stall-txq", "queue", "1"}),
              "fault: fault set needs either rate R% or count N");
    EXPECT_EQ(
        usage_error({"fault", "set", "r0", "stall-txq", "queue", "1", "rate", "1%", "count", "2"}),
        "fault: fault set takes rate R% or count N, not both");
    EXPECT_EQ(usage_error({"fault", "set", "r0", "stall-txq", "rate", "1%"}),
              "fault: fault set needs queue Q");
    EXPECT_EQ(usage_error({"fault", "set", "r0", "stall_txq", "queue", "1", "rate", "1%"}),
              "fault: invalid fault type \"stall_txq\": expected drop-completion, "
              "corrupt-dma-addr, stall-txq, fail-alloc, wedge-txq, gro-bad-len, stall-rxq or "
              "lose-irq");
    EXPECT_EQ(usage_error({"fault", "set", "r0", "stall-txq", "queue", "16", "count", "1"}),
              "fault: invalid queue \"16\": expected a number from 0 to 15");
    EXPECT_EQ(usage_error({"fault", "clear", "r0", "stall-txq", "queue", "1", "rate", "1%"}),
              "fault: unknown keyword \"rate\" for fault clear: expected queue");
    EXPECT_EQ(usage_error({"fault", "set"}), "fault: fault set needs a device");
    EXPECT_EQ(usage_error({"fault", "set", "r0"}),
              "fault: fault set needs a type: drop-completion, corrupt-dma-addr, stall-txq, "
              "fail-alloc, wedge-txq, gro-bad-len, stall-rxq or lose-irq");
}

TEST(CliFaultTest, OldOrderNamesTheNewOne) {
    EXPECT_EQ(usage_error({"fault", "r0", "set", "stall-txq", "queue", "0", "count", "1"}),
              "fault: \"fault DEV set\" is now \"fault set DEV\"");
    EXPECT_EQ(usage_error({"fault", "r0", "clear", "stall-txq", "queue", "0"}),
              "fault: \"fault DEV clear\" is now \"fault clear DEV\"");
    EXPECT_EQ(usage_error({"fault", "r0", "show"}),
              "fault: \"fault DEV show\" is now \"fault show DEV\"");
    EXPECT_EQ(usage_error({"fault", "r0"}), "fault: \"fault DEV show\" is now \"fault show DEV\"");
    EXPECT_EQ(usage_error({"fault", "r0", "frob"}),
              "fault: unknown verb \"r0\" for fault: expected set, clear, show or help");
}

TEST(CliPrefixTest, ObjectsAndVerbs) {
    EXPECT_EQ(command({"d", "sh", "r0"}), Command(DevShow{"r0"}));
    EXPECT_EQ(command({"device", "l"}), Command(DevShow{}));
    EXPECT_EQ(command({"d", "d", "r0"}), Command(DevDel{"r0"}));
    EXPECT_EQ(command({"d", "n"}), Command(DevAdd{}));
    EXPECT_EQ(command({"d", "a"}), Command(DevAdd{}));
    EXPECT_EQ(command({"d", "se", "r0", "t", "on"}),
              Command(DevSet{"r0", ethtool::TcpDataSplit::enabled}));
    EXPECT_EQ(command({"l", "sh"}), Command(LinkShow{}));
    EXPECT_EQ(command({"l", "l", "r0"}), Command(LinkShow{"r0"}));
    EXPECT_EQ(command({"b"}), Command(BusShow{}));
    EXPECT_EQ(command({"s", "s"}), Command(StatsShow{}));
    EXPECT_EQ(command({"statistics", "ls", "r0"}), Command(StatsShow{"r0"}));
    EXPECT_EQ(command({"f", "sh"}), Command(FaultShow{}));
    EXPECT_EQ(command({"f", "c", "r0", "stall-txq", "q", "1"}),
              Command(fault_set("r0", control::Fault::stall_txq, 1, std::nullopt, std::nullopt)));
    EXPECT_EQ(command({"m"}), Command(Monitor{}));
    EXPECT_EQ(command({"h"}), Command(Help{}));
    EXPECT_EQ(command({"d", "h"}), Command(Help{"dev"}));
    EXPECT_EQ(usage_error({"frob"}),
              ": unknown object \"frob\": expected dev, link, bus, stats, fault, monitor, top, "
              "ring or help");
    EXPECT_EQ(usage_error({"dev", "s"}), "dev: ambiguous verb \"s\" for dev: set, show");
    EXPECT_EQ(usage_error({"link", "s", "r0"}), "link: ambiguous verb \"s\" for link: set, show");
    EXPECT_EQ(usage_error({"fault", "s"}), "fault: ambiguous verb \"s\" for fault: set, show");
    EXPECT_EQ(usage_error({"dev", "shows"}),
              "dev: unknown verb \"shows\" for dev: expected add, del, set, show or help");
}

TEST(CliPrefixTest, Keywords) {
    DevAdd add;
    add.name = "a";
    add.netns = "ns";
    add.peer = "b";
    add.peer_netns = "ns2";
    add.queues = 2;
    add.rx_ring = 64;
    add.tx_ring = 128;
    EXPECT_EQ(command({"dev", "add", "na", "a", "ne", "ns", "peer", "b", "peer-", "ns2", "q", "2",
                       "r", "64", "t", "128"}),
              Command(add));
    EXPECT_EQ(usage_error({"dev", "add", "n", "a"}),
              "dev: ambiguous keyword \"n\" for dev add: name, netns");
    EXPECT_EQ(usage_error({"dev", "add", "pee", "a"}),
              "dev: ambiguous keyword \"pee\" for dev add: peer, peer-netns");
    EXPECT_EQ(usage_error({"dev", "add", "name", "a", "na", "b"}), "dev: \"name\" given twice");
    LinkSet set{"r0", {}};
    set.link.rate_bps = 1000;
    set.link.latency_us = 5;
    set.link.loss_ppm = 1;
    set.link.carrier = true;
    EXPECT_EQ(command({"link", "set", "r0", "r", "1000", "la", "5us", "lo", "1ppm", "c", "on"}),
              Command(set));
    EXPECT_EQ(usage_error({"link", "set", "r0", "l", "1"}),
              "link: ambiguous keyword \"l\" for link set: latency, loss");
    EXPECT_EQ(command({"fault", "set", "r0", "stall-txq", "q", "1", "c", "2"}),
              Command(fault_set("r0", control::Fault::stall_txq, 1, std::nullopt, 2)));
    EXPECT_EQ(command({"fault", "set", "r0", "stall-txq", "q", "1", "r", "2%"}),
              Command(fault_set("r0", control::Fault::stall_txq, 1, 20'000, std::nullopt)));
    // Values are whole: no prefix of "on" or of a fault type.
    EXPECT_EQ(usage_error({"dev", "set", "r0", "tcp-data-split", "o"}),
              "dev: invalid tcp-data-split \"o\": expected on, off or auto");
    EXPECT_EQ(
        usage_error({"fault", "set", "r0", "stall", "queue", "1", "count", "1"}).substr(0, 35),
        "fault: invalid fault type \"stall\": ");
}

TEST(CliPrefixTest, DevKeywordNamesAnyDevice) {
    EXPECT_EQ(command({"dev", "show", "dev", "help"}), Command(DevShow{"help"}));
    EXPECT_EQ(command({"dev", "del", "dev", "dev"}), Command(DevDel{"dev"}));
    EXPECT_EQ(command({"link", "show", "dev", "rate"}), Command(LinkShow{"rate"}));
    EXPECT_EQ(usage_error({"dev", "show", "dev"}), "dev: \"dev\" needs a value: a device");
}

TEST(CliGlobalTest, OptionsAnywhereAWordMayStand) {
    EXPECT_TRUE(parse({"-j", "dev", "show"}).options.json);
    EXPECT_TRUE(parse({"dev", "show", "--json"}).options.json);
    EXPECT_TRUE(parse({"dev", "-j", "show", "r0"}).options.json);
    EXPECT_EQ(parse({"dev", "-j", "show", "r0"}).command, Command(DevShow{"r0"}));
    // A value is always the keyword's, even when it looks like an option.
    DevAdd dash;
    dash.name = "-j";
    EXPECT_EQ(parse({"dev", "add", "name", "-j"}), (Invocation{Options{}, dash}));
    // An option after a value is an option.
    DevAdd named;
    named.name = "r0";
    EXPECT_EQ(parse({"dev", "add", "name", "r0", "-j"}),
              (Invocation{Options{true, false, 0}, named}));
    EXPECT_EQ(command({"monitor"}), Command(Monitor{}));
    EXPECT_TRUE(parse({"-j", "monitor"}).options.json);
    EXPECT_EQ(usage_error({"-x", "dev"}), ": unknown option \"-x\"");
    EXPECT_EQ(usage_error({"dev", "--frob"}), "dev: unknown option \"--frob\"");
    EXPECT_EQ(usage_error({}), ": no command given");
    EXPECT_EQ(usage_error({"monitor", "now"}), "monitor: unexpected \"now\"");
}

TEST(CliGlobalTest, BundlesPrettyAndDoubleDash) {
    EXPECT_EQ(parse({"-jp", "dev"}).options, (Options{true, true, 0}));
    // -p implies -j.
    EXPECT_EQ(parse({"-p", "dev"}).options, (Options{true, true, 0}));
    EXPECT_EQ(parse({"--pre", "dev"}).options, (Options{true, true, 0}));
    EXPECT_EQ(parse({"-sj", "stats"}).options, (Options{true, false, 1}));
    EXPECT_EQ(command({"dev", "show", "--", "-x"}), Command(DevShow{"-x"}));
    EXPECT_EQ(usage_error({"dev", "show", "-x"}), "dev: unknown option \"-x\"");
    EXPECT_EQ(usage_error({"--json=1", "dev"}), ": option \"--json\" takes no value");
}

TEST(CliGlobalTest, HelpAnywhere) {
    EXPECT_EQ(command({"--help"}), Command(Help{""}));
    EXPECT_EQ(command({"-h"}), Command(Help{""}));
    EXPECT_EQ(command({"help"}), Command(Help{""}));
    EXPECT_EQ(command({"dev", "--help"}), Command(Help{"dev"}));
}

TEST(CliGlobalTest, HelpAtEveryLevel) {
    EXPECT_EQ(command({"help", "fault"}), Command(Help{"fault"}));
    EXPECT_EQ(command({"help", "fault", "set"}), Command(Help{"fault set"}));
    EXPECT_EQ(command({"help", "f", "se"}), Command(Help{"fault set"}));
    EXPECT_EQ(command({"fault", "set", "help"}), Command(Help{"fault set"}));
    EXPECT_EQ(command({"fault", "-h"}), Command(Help{"fault"}));
    EXPECT_EQ(command({"fault", "help"}), Command(Help{"fault"}));
    EXPECT_EQ(command({"dev", "help"}), Command(Help{"dev"}));
    EXPECT_EQ(command({"link", "set", "-h"}), Command(Help{"link set"}));
    EXPECT_EQ(command({"link", "set", "r0", "--help"}), Command(Help{"link set"}));
    // Help wins over a command line it would explain, even after the mistake.
    EXPECT_EQ(command({"fault", "set", "--help"}), Command(Help{"fault set"}));
    EXPECT_EQ(command({"dev", "add", "queues", "0", "-h"}), Command(Help{"dev add"}));
    // In a value's place -h is the value, whether or not it is a good one.
    EXPECT_EQ(
        usage_error({"link", "set", "r0", "rate", "-h"}),
        "link: invalid rate \"-h\": expected a rate such as 25gbit, 100mbit or 0 (unlimited)");
    EXPECT_EQ(command({"dev", "add", "name", "-h", "-h"}), Command(Help{"dev add"}));
    EXPECT_EQ(usage_error({"fault", "set", "r0", "stall-txq", "queue", "--help"}),
              "fault: invalid queue \"--help\": expected a number");
    EXPECT_EQ(command({"dev", "frob", "-h"}), Command(Help{"dev"}));
    EXPECT_EQ(command({"monitor", "--help"}), Command(Help{"monitor"}));
    EXPECT_EQ(command({"monitor", "help"}), Command(Help{"monitor"}));
    EXPECT_EQ(command({"stats", "-h"}), Command(Help{"stats"}));
    EXPECT_EQ(usage_error({"help", "frob"}),
              ": unknown object \"frob\": expected dev, link, bus, stats, fault, monitor, top, "
              "ring or help");
    EXPECT_EQ(usage_error({"help", "fault", "s"}),
              "fault: ambiguous verb \"s\" for fault: set, show");
}

TEST(CliGlobalTest, Version) {
    EXPECT_EQ(command({"-V"}), Command(Version{}));
    EXPECT_EQ(command({"--version"}), Command(Version{}));
    EXPECT_EQ(command({"dev", "show", "-V"}), Command(Version{}));
    // -V wins over a usage error, -h over -V.
    EXPECT_EQ(command({"frob", "-V"}), Command(Version{}));
    EXPECT_EQ(command({"-V", "-h"}), Command(Help{}));
}

TEST(CliGlobalTest, HelpTextsDocumentExitStatusAndJson) {
    for (const char* topic : {"", "dev", "link", "bus", "stats", "fault", "monitor"}) {
        const std::string text = help_text(topic);
        EXPECT_NE(text.find("Exit status: 0 success; 1 runtime error"), std::string::npos);
        EXPECT_NE(text.find("Usage:"), std::string::npos) << topic;
    }
}

TEST(CliGlobalTest, HelpTextsDocumentJson) {
    EXPECT_NE(help_text("dev").find("\"rx_ring\""), std::string::npos);
    EXPECT_NE(help_text("dev").find("\"latency_ns\""), std::string::npos);
    EXPECT_NE(help_text("stats").find("\"queue_stats\""), std::string::npos);
    EXPECT_NE(help_text("stats").find("\"irq_moderated\""), std::string::npos);
    EXPECT_NE(help_text("fault").find("\"injected\""), std::string::npos);
    EXPECT_NE(help_text("bus").find("\"dma_throttled\""), std::string::npos);
    EXPECT_NE(help_text("bus show").find("\"read_charged_ns\""), std::string::npos);
    EXPECT_NE(help_text("bus show").find("read-waited-ns"), std::string::npos);
    EXPECT_NE(help_text("bus show").find("\"read_waited_ns\""), std::string::npos);
    EXPECT_NE(help_text("bus set").find("0 to 100000 ns"), std::string::npos);
    EXPECT_NE(help_text("dev").find("\"bus\""), std::string::npos);
    EXPECT_EQ(version_text().rfind("refnicctl ", 0), 0U);
}

TEST(CliGlobalTest, EveryVerbHasItsHelp) {
    for (const char* topic :
         {"dev add", "dev del", "dev set", "dev show", "link set", "link show", "bus set",
          "bus show", "stats show", "fault set", "fault clear", "fault show"}) {
        const std::string text = help_text(topic);
        EXPECT_NE(text.find(std::string("refnicctl ") + topic), std::string::npos) << topic;
    }
    EXPECT_NE(help_text("fault set").find("wedge-txq"), std::string::npos);
    EXPECT_NE(help_text("bus set").find("CAP_NET_ADMIN in the initial user namespace"),
              std::string::npos);
    EXPECT_NE(help_text("").find("refnicctl bus set [dev] DEV [read-ns N]"), std::string::npos);
}

TEST(CliGlobalTest, HelpTextsDocumentDevSet) {
    constexpr std::string_view usage = "refnicctl dev set [dev] DEV tcp-data-split on|off|auto";
    EXPECT_NE(help_text("").find(usage), std::string::npos);
    EXPECT_NE(help_text("dev").find(usage), std::string::npos);
    EXPECT_NE(help_text("dev").find("tcp-data-split off\n"), std::string::npos);
    EXPECT_NE(help_text("dev").find("\"tcp_data_split\": \"off\""), std::string::npos);
}

TEST(CliTopTest, DeviceIntervalCount) {
    EXPECT_EQ(command({"top"}), Command(Top{}));
    EXPECT_EQ(command({"top", "r0"}), Command(Top{"r0", 1000, std::nullopt}));
    EXPECT_EQ(command({"top", "dev", "once"}), Command(Top{"once", 1000, std::nullopt}));
    EXPECT_EQ(command({"top", "r0", "interval", "0.5", "count", "3"}), Command(Top{"r0", 500, 3}));
    EXPECT_EQ(command({"top", "int", "2s", "once"}), Command(Top{std::nullopt, 2000, 1}));
    EXPECT_EQ(command({"to", "interval", "250ms"}), Command(Top{std::nullopt, 250, std::nullopt}));
    EXPECT_EQ(parse({"-j", "top", "once"}).options.json, true);
    EXPECT_EQ(command({"top", "help"}), Command(Help{"top"}));
    EXPECT_EQ(command({"help", "top"}), Command(Help{"top"}));
}

TEST(CliTopTest, RejectsBadArguments) {
    EXPECT_EQ(usage_error({"top", "interval", "0.05"}),
              "top: invalid interval \"0.05\": expected seconds from 0.1 to 3600, such as 2, 0.5 "
              "or 500ms");
    EXPECT_EQ(usage_error({"top", "interval", "1h"}),
              "top: invalid interval \"1h\": expected seconds from 0.1 to 3600, such as 2, 0.5 or "
              "500ms");
    EXPECT_EQ(usage_error({"top", "count", "0"}),
              "top: invalid count \"0\": expected a number from 1");
    EXPECT_EQ(usage_error({"top", "intervall", "2"}),
              "top: unknown keyword \"intervall\" for top: expected interval, count or once");
    EXPECT_EQ(usage_error({"top", "once", "count", "2"}),
              "top: top takes count N or once, not both");
    EXPECT_EQ(usage_error({"top", "r0", "r1"}),
              "top: unknown keyword \"r1\" for top: expected interval, count or once");
    EXPECT_EQ(usage_error({"top", "once", "once"}), "top: \"once\" given twice");
    EXPECT_EQ(usage_error({"top", "interval"}), "top: \"interval\" needs a value");
}

TEST(CliRingTest, DeviceQueueSvg) {
    EXPECT_EQ(command({"ring", "show", "r0", "0"}), Command(RingShow{"r0", 0, std::nullopt}));
    EXPECT_EQ(command({"ring", "sh", "dev", "r0", "queue", "3"}),
              Command(RingShow{"r0", 3, std::nullopt}));
    EXPECT_EQ(command({"ri", "show", "r0", "15", "svg", "/tmp/r.svg"}),
              Command(RingShow{"r0", 15, "/tmp/r.svg"}));
    EXPECT_EQ(parse({"-j", "ring", "show", "r0", "0"}).options.json, true);
    EXPECT_EQ(command({"ring", "r0", "q", "2"}), Command(RingShow{"r0", 2, std::nullopt}));
    EXPECT_EQ(command({"ring", "dev", "show", "1"}), Command(RingShow{"show", 1, std::nullopt}));
    EXPECT_EQ(command({"ring", "help"}), Command(Help{"ring"}));
    EXPECT_EQ(command({"help", "ring"}), Command(Help{"ring"}));
    EXPECT_NE(help_text("ring").find("refnicctl [-j] ring show [dev] DEV [queue] Q [svg FILE]"),
              std::string::npos);
    EXPECT_NE(help_text("").find("ring show"), std::string::npos);
}

TEST(CliRingTest, RejectsBadArguments) {
    EXPECT_EQ(usage_error({"ring"}), "ring: ring show needs a device and a queue");
    EXPECT_EQ(usage_error({"ring", "show"}), "ring: ring show needs a device");
    EXPECT_EQ(usage_error({"ring", "show", "r0"}), "ring: ring show needs a queue");
    EXPECT_EQ(usage_error({"ring", "show", "r0", "16"}),
              "ring: invalid queue \"16\": expected a number from 0 to 15");
    EXPECT_EQ(usage_error({"ring", "show", "r0", "x"}),
              "ring: invalid queue \"x\": expected a number from 0 to 15");
    EXPECT_EQ(usage_error({"ring", "show", "r0", "0", "svg"}),
              "ring: \"svg\" needs a value: a file");
    EXPECT_EQ(usage_error({"ring", "show", "r0", "0", "png", "x"}),
              "ring: unknown keyword \"png\" for ring show: expected svg");
    EXPECT_EQ(usage_error({"ring", "shwo", "r0", "0"}),
              "ring: unknown verb \"shwo\" for ring: expected show or help");
}

}  // namespace
}  // namespace refnic::refnicctl
