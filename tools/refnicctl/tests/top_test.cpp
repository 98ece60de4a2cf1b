// SPDX-License-Identifier: GPL-2.0-only
// refnicctl top's arithmetic and rendering, from made-up samples.
#include "top.hpp"

#include <gtest/gtest.h>

#include <string>

namespace refnic::refnicctl {
namespace {

QueueSample queue(std::uint32_t q, std::uint64_t scale) {
    QueueSample s;
    s.queue = q;
    s.rx_packets = 1000 * scale;
    s.rx_bytes = 1'500'000 * scale;
    s.tx_packets = 500 * scale;
    s.tx_bytes = 40'000 * scale;
    s.irqs = 100 * scale;
    s.polls = 200 * scale;
    s.doorbells = 300 * scale;
    s.nobuf_drops = 2 * scale;
    s.rx_posted = 512;
    s.tx_inflight = 3;
    s.rx_device = 500;
    s.rx_to_reap = 12;
    s.tx_device = 2;
    s.tx_to_reap = 1;
    s.page_pool_inflight = 600;
    return s;
}

Sample sample(std::uint64_t time_ns, std::uint64_t scale) {
    return Sample{time_ns, {PortSample{5, "r0", time_ns, {queue(0, scale), queue(1, scale)}}}};
}

TEST(TopTest, RatesOverTheInterval) {
    // Counters doubled over half a second.
    const Frame frame = make_frame(sample(1'000'000'000, 1), sample(1'500'000'000, 2));
    EXPECT_EQ(frame.interval_ns, 500'000'000U);
    ASSERT_EQ(frame.ports.size(), 1U);
    ASSERT_EQ(frame.ports[0].queues.size(), 2U);
    const QueueRates& q = frame.ports[0].queues[1];
    EXPECT_EQ(q.queue, 1U);
    EXPECT_DOUBLE_EQ(*q.rx_pps, 2000);
    EXPECT_DOUBLE_EQ(*q.rx_bps, 1'500'000 * 8 * 2);
    EXPECT_DOUBLE_EQ(*q.tx_pps, 1000);
    EXPECT_DOUBLE_EQ(*q.irqs_per_s, 200);
    EXPECT_DOUBLE_EQ(*q.polls_per_s, 400);
    EXPECT_DOUBLE_EQ(*q.packets_per_poll, 5);        // 1000 RX packets in 200 polls
    EXPECT_DOUBLE_EQ(*q.doorbells_per_packet, 0.2);  // 300 doorbells, 1500 packets
    EXPECT_DOUBLE_EQ(*q.nobuf_drops_per_s, 4);
    EXPECT_EQ(q.rx_posted, 512U);
    EXPECT_EQ(q.page_pool_inflight, 600U);
}

TEST(TopTest, EachPortItsOwnInterval) {
    const Sample before = sample(1'000'000'000, 1);
    Sample now = sample(2'000'000'000, 2);
    now.ports[0].time_ns = 1'500'000'000;  // this port's counters were read half a second in
    const Frame frame = make_frame(before, now);
    EXPECT_DOUBLE_EQ(*frame.ports[0].queues[0].rx_pps, 2000);
}

TEST(TopTest, PortsComeAndGo) {
    Sample before = sample(1'000'000'000, 1);
    before.ports.push_back(PortSample{7, "r2", 1'000'000'000, {queue(0, 1)}});
    Sample now = sample(2'000'000'000, 2);  // r2 deleted in between
    now.ports.push_back(PortSample{9, "r4", 2'000'000'000, {queue(0, 5)}});  // r4 added
    const Frame frame = make_frame(before, now);
    ASSERT_EQ(frame.ports.size(), 2U);
    EXPECT_EQ(frame.ports[0].ifname, "r0");
    EXPECT_DOUBLE_EQ(*frame.ports[0].queues[0].rx_pps, 1000);
    EXPECT_EQ(frame.ports[1].ifname, "r4");
    EXPECT_FALSE(frame.ports[1].queues[0].rx_pps);  // no earlier sample of r4
    EXPECT_EQ(frame.ports[1].queues[0].rx_posted, 512U);
    const std::string text = frame_text(frame, "");
    EXPECT_EQ(text.find("r2"), std::string::npos);
    EXPECT_NE(text.find("r4"), std::string::npos);
}

TEST(TopTest, UnknownIsNotZero) {
    Sample before = sample(0, 1);
    Sample now = sample(1'000'000'000, 1);       // nothing moved
    now.ports[0].queues[0].polls.reset();        // a source that did not answer
    now.ports[0].queues.push_back(queue(2, 1));  // a queue that appeared
    now.ports[0].queues[1].rx_packets = 10;      // went backwards: a port recreated
    const Frame frame = make_frame(before, now);
    const auto& queues = frame.ports[0].queues;
    EXPECT_DOUBLE_EQ(*queues[0].rx_pps, 0);
    EXPECT_FALSE(queues[0].polls_per_s);
    EXPECT_FALSE(queues[0].packets_per_poll);
    EXPECT_FALSE(queues[0].doorbells_per_packet);  // no packet: undefined
    EXPECT_FALSE(queues[1].rx_pps);
    EXPECT_FALSE(queues[2].rx_pps);
    EXPECT_EQ(queues[2].rx_posted, 512U);  // gauges even for a new queue
}

TEST(TopTest, TextAndJson) {
    Frame frame = make_frame(sample(0, 1), sample(1'000'000'000, 2));
    frame.ports[0].queues[1].devmem = true;
    frame.ports[0].queues[0].bypass = true;
    frame.ports[0].queues[1].page_pool_inflight.reset();
    const std::string text = frame_text(frame, "12:00:01");
    EXPECT_EQ(text.rfind("refnicctl top  12:00:01  interval 1.00 s\n", 0), 0U) << text;
    EXPECT_NE(text.find("rx-pps"), std::string::npos);
    EXPECT_NE(text.find(" rx-dev rx-reap tx-dev tx-reap "), std::string::npos) << text;
    EXPECT_NE(text.find("    500      12      2       1 "), std::string::npos) << text;
    EXPECT_NE(text.find("r0"), std::string::npos);
    EXPECT_NE(text.find("1.00k"), std::string::npos) << text;  // 1000 RX packets/s
    EXPECT_NE(text.find("  devmem\n"), std::string::npos);
    EXPECT_NE(text.find("  bypass\n"), std::string::npos);

    const tool_cli::Json json = frame_json(frame);
    EXPECT_EQ(json["interval_ns"], 1'000'000'000U);
    const tool_cli::Json& q1 = json["ports"][0]["queues"][1];
    EXPECT_EQ(json["ports"][0]["ifname"], "r0");
    EXPECT_EQ(q1["queue"], 1);
    EXPECT_DOUBLE_EQ(q1["rx_pps"].get<double>(), 1000);
    EXPECT_EQ(q1["devmem"], true);
    EXPECT_EQ(q1["bypass"], false);
    EXPECT_EQ(json["ports"][0]["queues"][0]["bypass"], true);
    EXPECT_FALSE(q1.contains("pp_inflight"));
    EXPECT_EQ(q1["rx_posted"], 512);
    EXPECT_EQ(q1["rx_device"], 500);
    EXPECT_EQ(q1["rx_to_reap"], 12);
    EXPECT_EQ(q1["tx_device"], 2);
    EXPECT_EQ(q1["tx_to_reap"], 1);

    const Frame first = make_frame(Sample{}, sample(1, 1));
    EXPECT_TRUE(frame_json(first)["ports"][0]["queues"][0]["rx_pps"].is_null());
    EXPECT_NE(frame_text(Frame{}, "").find("no refnic ports in this network namespace\n"),
              std::string::npos);
}

}  // namespace
}  // namespace refnic::refnicctl
