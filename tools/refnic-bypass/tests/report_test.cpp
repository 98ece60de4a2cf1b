// SPDX-License-Identifier: GPL-2.0-only
// refnic-bypass's rate line and summary.
#include "report.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

namespace refnic::bypass_cli {
namespace {

using std::chrono::milliseconds;

TEST(RateMeterTest, OnceASecond) {
    const RateMeter::Clock::time_point start{};
    RateMeter meter(Mode::rx, start);
    Totals totals;
    totals.packets = 1000;
    totals.bytes = 64000;
    EXPECT_FALSE(meter.tick(start + milliseconds(999), totals));
    EXPECT_EQ(meter.tick(start + milliseconds(1000), totals),
              "rx: 1000 pps, 0.5 Mbit/s, 1000 packets");
    totals.packets = 3000;
    totals.bytes = 192000;
    EXPECT_FALSE(meter.tick(start + milliseconds(1500), totals));
    // What the last 1.5 s brought.
    EXPECT_EQ(meter.tick(start + milliseconds(2500), totals),
              "rx: 1333 pps, 0.7 Mbit/s, 3000 packets");
}

Summary rx_summary() {
    Summary summary;
    summary.run.mode = Mode::rx;
    summary.run.ifname = "r1";
    summary.run.queue = 2;
    summary.run.verify = true;
    summary.totals =
        Totals{.packets = 1000, .bytes = 60000, .good = 990, .bad = 10, .other = 0, .dropped = 0};
    summary.elapsed = std::chrono::seconds(2);
    return summary;
}

TEST(SummaryTest, Line) {
    EXPECT_EQ(summary_text(rx_summary()),
              "rx: 1000 packets, 60000 bytes in 2.000 s: 500 pps, 0.2 Mbit/s; verify: 990 good, "
              "10 bad, 0 other\n");
    Summary echo = rx_summary();
    echo.run.mode = Mode::echo;
    echo.run.verify = false;
    echo.totals.dropped = 3;
    EXPECT_EQ(summary_text(echo),
              "echo: 1000 packets, 60000 bytes in 2.000 s: 500 pps, 0.2 Mbit/s; 3 dropped\n");
}

TEST(SummaryTest, JsonWithoutSession) {
    EXPECT_EQ(summary_json(rx_summary()),
              "{\"mode\":\"rx\",\"ifname\":\"r1\",\"queue\":2,\"packets\":1000,\"bytes\":60000,"
              "\"elapsed_ns\":2000000000,\"rate_pps\":500.0,\"throughput_bps\":240000.0,"
              "\"good\":990,\"bad\":10,\"other\":0,\"dropped\":0,\"session\":null}\n");
    // No time, no rate.
    Summary instant = rx_summary();
    instant.elapsed = std::chrono::nanoseconds(0);
    const std::string json = summary_json(instant);
    EXPECT_NE(json.find("\"rate_pps\":null,\"throughput_bps\":null"), std::string::npos) << json;
    // -p: the same value, indented by 4 spaces.
    const std::string pretty = summary_json(rx_summary(), true);
    EXPECT_EQ(pretty.rfind("{\n    \"mode\": \"rx\",\n", 0), 0U) << pretty;
    EXPECT_EQ(nlohmann::json::parse(pretty), nlohmann::json::parse(summary_json(rx_summary())));
}

TEST(SummaryTest, JsonNamesEverySessionCounter) {
    Summary summary = rx_summary();
    summary.session = bypass::Stats{};
    summary.session->rx_frames = 1000;
    summary.session->bad_index = 7;
    const std::string json = summary_json(summary);
    EXPECT_NE(json.find(",\"session\":{\"rx_frames\":1000,\"rx_bytes\":0,"), std::string::npos)
        << json;
    EXPECT_NE(json.find(",\"wakeups_avoided\":0,"), std::string::npos) << json;
    EXPECT_NE(json.find(",\"bad_index\":7}}\n"), std::string::npos) << json;
    for (const bypass::StatsField& field : bypass::stats_fields) {
        EXPECT_NE(json.find("\"" + std::string(field.name) + "\":"), std::string::npos)
            << field.name;
    }
}

}  // namespace
}  // namespace refnic::bypass_cli
