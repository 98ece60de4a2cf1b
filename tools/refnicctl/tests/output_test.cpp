// SPDX-License-Identifier: GPL-2.0-only
// refnicctl's text and JSON output for what the kernel reports.
#include "output.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace refnic::refnicctl {
namespace {

std::string compact(const tool_cli::Json& value) { return tool_cli::dump_json(value, false); }

std::string fake_names(std::uint32_t ifindex) { return ifindex == 5 ? "r0" : ""; }

control::Device device() {
    control::Device dev;
    dev.ifindex = 5;
    dev.name = "r0";
    dev.peer_ifindex = 6;
    dev.peer_name = "r1";
    dev.peer_netnsid = 2;
    dev.queues = 4;
    dev.rx_ring_size = 1024;
    dev.tx_ring_size = 512;
    dev.card = 0;
    dev.port = 1;
    dev.link.carrier = true;
    dev.link.rate_bps = 25'000'000'000;
    dev.link.latency_us = 20;
    dev.link.loss_ppm = 1000;
    return dev;
}

TEST(OutputTest, Device) {
    EXPECT_EQ(device_text(device()),
              "5: r0: peer r1 (ifindex 6, netnsid 2) card 0 port 1 queues 4 rx-ring 1024 "
              "tx-ring 512\n    link carrier on rate 25gbit latency 20us loss 0.1%\n");
    EXPECT_EQ(compact(device_json(device())),
              R"({"ifindex":5,"ifname":"r0","peer_ifindex":6,"peer_ifname":"r1",)"
              R"("peer_netnsid":2,"queues":4,"rx_ring":1024,"tx_ring":512,"card":0,)"
              R"("port":1,"link":{"carrier":true,"rate_bps":25000000000,"latency_ns":20000,)"
              R"("loss_ppm":1000}})");
    control::Device minimal;
    minimal.ifindex = 9;
    minimal.name = "x\"y";
    EXPECT_EQ(device_text(minimal), "9: x\"y:\n");
    EXPECT_EQ(compact(device_json(minimal)), R"({"ifindex":9,"ifname":"x\"y","link":{}})");
    minimal.name.clear();  // in another namespace
    EXPECT_EQ(device_text(minimal), "9: ifindex9:\n");
    EXPECT_EQ(link_text(minimal), "9: ifindex9:\n");
}

TEST(OutputTest, DeviceWithTcpDataSplit) {
    // Last on the first line and last in the object: what was there reads as before.
    EXPECT_EQ(device_text(device(), ethtool::TcpDataSplit::enabled),
              "5: r0: peer r1 (ifindex 6, netnsid 2) card 0 port 1 queues 4 rx-ring 1024 "
              "tx-ring 512 tcp-data-split on\n    link carrier on rate 25gbit latency 20us loss "
              "0.1%\n");
    EXPECT_EQ(compact(device_json(device(), ethtool::TcpDataSplit::enabled)),
              R"({"ifindex":5,"ifname":"r0","peer_ifindex":6,"peer_ifname":"r1",)"
              R"("peer_netnsid":2,"queues":4,"rx_ring":1024,"tx_ring":512,"card":0,)"
              R"("port":1,"link":{"carrier":true,"rate_bps":25000000000,"latency_ns":20000,)"
              R"("loss_ppm":1000},"tcp_data_split":"on"})");
    control::Device minimal;
    minimal.ifindex = 9;
    minimal.name = "r9";
    EXPECT_EQ(device_text(minimal, ethtool::TcpDataSplit::disabled), "9: r9: tcp-data-split off\n");
    EXPECT_EQ(compact(device_json(minimal, ethtool::TcpDataSplit::disabled)),
              R"({"ifindex":9,"ifname":"r9","link":{},"tcp_data_split":"off"})");
    EXPECT_EQ(device_text(minimal, ethtool::TcpDataSplit::unknown),
              "9: r9: tcp-data-split unknown\n");
    EXPECT_EQ(compact(device_json(minimal, ethtool::TcpDataSplit::unknown)),
              R"({"ifindex":9,"ifname":"r9","link":{},"tcp_data_split":"unknown"})");
    // Left out when ethtool was not asked (dev add, monitor).
    EXPECT_EQ(device_text(minimal, std::nullopt), "9: r9:\n");
    EXPECT_EQ(compact(device_json(minimal, std::nullopt)),
              R"({"ifindex":9,"ifname":"r9","link":{}})");
}

TEST(OutputTest, Link) {
    EXPECT_EQ(link_text(device()), "5: r0: carrier on rate 25gbit latency 20us loss 0.1%\n");
    EXPECT_EQ(compact(link_json(device())),
              R"({"ifindex":5,"ifname":"r0","link":{"carrier":true,"rate_bps":25000000000,)"
              R"("latency_ns":20000,"loss_ppm":1000}})");
}

control::Device bus_device() {
    control::Device dev;
    dev.ifindex = 5;
    dev.name = "r0";
    dev.bus = control::Bus{.read_ns = 1000, .gen = 4, .lanes = 8, .node = 0, .remote_ns = 200};
    dev.bus_counters.reads = 10;
    dev.bus_counters.remote_reads = 2;
    dev.bus_counters.read_charged_ns = 10'400;
    dev.bus_counters.read_waited_ns = 10'512;
    dev.bus_counters.writes = 40;
    dev.bus_counters.dma_tlps = 1000;
    dev.bus_counters.dma_bytes = 280'000;
    dev.bus_counters.dma_charged_ns = 12'000;
    dev.bus_counters.dma_throttled = 1;
    return dev;
}

TEST(OutputTest, Bus) {
    EXPECT_EQ(bus_text(bus_device()),
              "5: r0: read-ns 1000 gen4 x8 node 0 remote-ns 200\n"
              "    reads 10 remote-reads 2 read-charged-ns 10400 read-waited-ns 10512 writes 40\n"
              "    dma-tlps 1000 dma-bytes 280000 dma-remote-tlps 0 dma-charged-ns 12000 "
              "dma-throttled 1\n");
    EXPECT_EQ(compact(bus_json(bus_device())),
              R"({"ifindex":5,"ifname":"r0","bus":{"read_ns":1000,"gen":4,"lanes":8,"node":0,)"
              R"("remote_ns":200,"reads":10,"remote_reads":2,"read_charged_ns":10400,)"
              R"("read_waited_ns":10512,"writes":40,"dma_tlps":1000,"dma_bytes":280000,)"
              R"("dma_remote_tlps":0,"dma_charged_ns":12000,"dma_throttled":1}})");
}

TEST(OutputTest, BusOffNoCapNoNode) {
    control::Device off;
    off.ifindex = 6;
    off.name = "r1";
    off.bus = control::Bus{
        .read_ns = 0, .gen = 0, .lanes = 8, .node = control::bus_node_none, .remote_ns = 0};
    EXPECT_EQ(bus_text(off),
              "6: r1: read-ns 0 no cap node none remote-ns 0\n"
              "    reads 0 remote-reads 0 read-charged-ns 0 read-waited-ns 0 writes 0\n"
              "    dma-tlps 0 dma-bytes 0 dma-remote-tlps 0 dma-charged-ns 0 dma-throttled 0\n");
    const std::string prefix =
        R"({"ifindex":6,"ifname":"r1","bus":{"read_ns":0,"gen":0,"lanes":8,"node":-1,)"
        R"("remote_ns":0,"reads":0,)";
    EXPECT_EQ(compact(bus_json(off)).substr(0, prefix.size()), prefix);
    // A module without the bus model: nothing to show, no counters made up.
    control::Device old;
    old.ifindex = 9;
    EXPECT_EQ(bus_text(old), "9: ifindex9:\n");
    EXPECT_EQ(compact(bus_json(old)), R"({"ifindex":9,"bus":{}})");
    EXPECT_EQ(compact(device_json(old)), R"({"ifindex":9,"link":{}})");
}

TEST(OutputTest, DeviceWithBus) {
    control::Device dev = device();
    dev.bus = bus_device().bus;
    dev.bus_counters = bus_device().bus_counters;
    EXPECT_EQ(device_text(dev, ethtool::TcpDataSplit::disabled),
              "5: r0: peer r1 (ifindex 6, netnsid 2) card 0 port 1 queues 4 rx-ring 1024 "
              "tx-ring 512 tcp-data-split off\n    link carrier on rate 25gbit latency 20us loss "
              "0.1%\n    bus read-ns 1000 gen4 x8 node 0 remote-ns 200\n");
    const std::string json = compact(device_json(dev, ethtool::TcpDataSplit::disabled));
    EXPECT_NE(json.find(R"("loss_ppm":1000},"bus":{"read_ns":1000,"gen":4,"lanes":8,"node":0,)"
                        R"("remote_ns":200,"reads":10,)"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find(R"("dma_throttled":1},"tcp_data_split":"off"})"), std::string::npos)
        << json;
    // Monitor lines stay one line: the bus model is not on them.
    const control::Event added{control::EventType::dev_added, dev};
    EXPECT_EQ(event_text(added, fake_names).find("read-ns"), std::string::npos);
}

control::PortStats stats() {
    control::PortStats port;
    port.ifindex = 5;
    port.resets = 1;
    control::QueueStats rx;
    rx.type = QueueType::rx;
    rx.id = 0;
    rx.frames = 123456;
    rx.drop_nobuf = 7;
    control::QueueStats tx;
    tx.type = QueueType::tx;
    tx.id = 0;
    tx.frames = 42;
    tx.doorbells = 40;
    tx.busy_ns = 99;
    port.queues = {rx, tx};
    return port;
}

TEST(OutputTest, StatsTable) {
    EXPECT_EQ(
        stats_text(stats(), fake_names, false),
        "5: r0: mmio-bad 0 resets 1 link-drop-loss 0 link-drop-down 0\n"
        "queue  type  doorbells  desc-fetched  desc-written  frames  drop-nobuf  irq-raised\n"
        "0      rx            0             0             0  123456           7           0\n"
        "0      tx           40             0             0      42           0           0\n");
    const std::string detailed = stats_text(stats(), fake_names, true);
    EXPECT_NE(detailed.find("mmio-reads 0 mmio-writes 0"), std::string::npos);
    EXPECT_NE(detailed.find("busy-ns"), std::string::npos);
    EXPECT_NE(detailed.find("irq-moderated"), std::string::npos);
    // A port whose name is unknown here.
    control::PortStats other;
    other.ifindex = 8;
    EXPECT_EQ(stats_text(other, fake_names, false),
              "8: ifindex8: mmio-bad 0 resets 0 link-drop-loss 0 link-drop-down 0\n");
}

TEST(OutputTest, StatsJsonCarriesEveryCounter) {
    const std::string json = compact(stats_json(stats(), fake_names));
    EXPECT_EQ(json.substr(0, 158),
              R"({"ifindex":5,"ifname":"r0","mmio_reads":0,"mmio_writes":0,"mmio_bad":0,)"
              R"("resets":1,"link_drop_loss":0,"link_drop_down":0,)"
              R"("queue_stats":[{"type":"rx","queue":0,)");
    for (const char* key : {R"("frames":123456)", R"("busy_ns":99)", R"("irq_moderated":0)",
                            R"("dma_write_bytes":0)", R"("type":"tx")"}) {
        EXPECT_NE(json.find(key), std::string::npos) << key;
    }
}

TEST(OutputTest, Faults) {
    control::FaultStatus fault;
    fault.ifindex = 5;
    fault.type = control::Fault::stall_txq;
    fault.queue = 1;
    fault.rate_ppm = 50'000;
    fault.injected = 3;
    EXPECT_EQ(fault_text(fault, fake_names), "5: r0: queue 1 stall-txq rate 5% injected 3\n");
    EXPECT_EQ(compact(fault_json(fault, fake_names)),
              R"({"ifindex":5,"ifname":"r0","type":"stall-txq","queue":1,"rate_ppm":50000,)"
              R"("injected":3})");
    fault.rate_ppm.reset();
    fault.count = 10;
    EXPECT_EQ(fault_text(fault, fake_names), "5: r0: queue 1 stall-txq count 10 injected 3\n");
    fault.count = 0;
    fault.rate_ppm = 0;
    EXPECT_EQ(fault_text(fault, fake_names), "5: r0: queue 1 stall-txq disarmed injected 3\n");
    // A port without a name here: no ifname member (the text says ifindexN).
    fault.ifindex = 8;
    fault.rate_ppm.reset();
    fault.count.reset();
    EXPECT_EQ(compact(fault_json(fault, fake_names)),
              R"({"ifindex":8,"type":"stall-txq","queue":1,"injected":3})");
    control::PortStats other;
    other.ifindex = 8;
    EXPECT_EQ(compact(stats_json(other, fake_names)).substr(0, 25), R"({"ifindex":8,"mmio_reads")");
}

TEST(OutputTest, EventsAreOneLineEach) {
    const control::Event added{control::EventType::dev_added, device()};
    EXPECT_EQ(event_text(added, fake_names),
              "dev-added 5: r0: peer r1 (ifindex 6, netnsid 2) card 0 port 1 queues 4 rx-ring "
              "1024 tx-ring 512 link carrier on rate 25gbit latency 20us loss 0.1%\n");
    const control::Event link{control::EventType::link_changed, device()};
    EXPECT_EQ(event_text(link, fake_names),
              "link-changed 5: r0: carrier on rate 25gbit latency 20us loss 0.1%\n");
    control::FaultStatus status;
    status.ifindex = 5;
    status.type = control::Fault::fail_alloc;
    status.count = 1;
    const control::Event fault{control::EventType::fault, status};
    EXPECT_EQ(event_text(fault, fake_names),
              "fault 5: r0: queue 0 fail-alloc count 1 injected 0\n");
    EXPECT_EQ(compact(event_json(fault, fake_names)),
              R"({"event":"fault","fault":{"ifindex":5,"ifname":"r0","type":"fail-alloc",)"
              R"("queue":0,"count":1,"injected":0}})");
    EXPECT_EQ(compact(event_json(added, fake_names)).substr(0, 40),
              R"({"event":"dev-added","dev":{"ifindex":5,)");
}

TEST(OutputTest, JsonStringsAreEscaped) {
    control::Device odd;
    odd.ifindex = 9;
    odd.name = "a\"b\\c\n\x01";
    EXPECT_EQ(compact(link_json(odd)), R"({"ifindex":9,"ifname":"a\"b\\c\n\u0001","link":{}})");
    // Interface names are bytes: invalid UTF-8 becomes U+FFFD rather than invalid JSON.
    odd.name = "r\xff";
    EXPECT_EQ(compact(link_json(odd)), "{\"ifindex\":9,\"ifname\":\"r\xef\xbf\xbd\",\"link\":{}}");
}

TEST(OutputTest, PrettyIsTheSameValue) {
    const tool_cli::Json value = device_json(device(), ethtool::TcpDataSplit::enabled);
    const std::string pretty = tool_cli::dump_json(value, true);
    EXPECT_NE(pretty.find("\n    \"ifindex\": 5,\n"), std::string::npos) << pretty;
    EXPECT_EQ(tool_cli::Json::parse(pretty), tool_cli::Json::parse(compact(value)));
}

}  // namespace
}  // namespace refnic::refnicctl
