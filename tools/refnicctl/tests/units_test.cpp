// SPDX-License-Identifier: GPL-2.0-only
// refnicctl's unit parsing and printing.
#include "units.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace refnic::refnicctl {
namespace {

struct Case {
    const char* text;
    std::optional<std::uint64_t> value;
};

// Each text must parse to its value (std::nullopt: be refused).
template <typename Parse>
void check(Parse parse, std::initializer_list<Case> cases) {
    for (const Case& c : cases) {
        const auto parsed = parse(c.text);
        const std::optional<std::uint64_t> widened =
            parsed ? std::optional<std::uint64_t>(*parsed) : std::nullopt;
        EXPECT_EQ(widened, c.value) << '"' << c.text << '"';
    }
}

TEST(RateTest, ParsesDecimalBinaryAndByteUnits) {
    check(parse_rate, {{"25gbit", 25'000'000'000},
                       {"100mbit", 100'000'000},
                       {"100Mbit", 100'000'000},
                       {"2.5gbit", 2'500'000'000},
                       {"1tbit", 1'000'000'000'000},
                       {"10kbit", 10'000},
                       {"1mibit", 1'048'576},
                       {"1gibit", 1'073'741'824},
                       {"1000", 1000},
                       {"1000bit", 1000},
                       {"1mbps", 8'000'000},  // bytes per second, as in tc
                       {"0", 0},
                       {"unlimited", 0}});
}

TEST(RateTest, RefusesWhatIsNotExact) {
    check(parse_rate, {{"", {}},
                       {"gbit", {}},
                       {"fast", {}},
                       {"-1", {}},
                       {"1.5", {}},
                       {"1.5bit", {}},
                       {"1..5gbit", {}},
                       {"1.gbit", {}},
                       {"25 gbit", {}},
                       {"25gbits", {}},
                       {"1e9", {}},
                       {"99999999999999999999", {}},
                       {"20000000tbit", {}}});
}

TEST(LatencyTest, ParsesTimeUnits) {
    check(parse_latency_us, {{"20us", 20},
                             {"20", 20},
                             {"20usec", 20},
                             {"1ms", 1000},
                             {"1.5ms", 1500},
                             {"1s", 1'000'000},
                             {"10sec", 10'000'000},
                             {"0", 0},
                             {"", {}},
                             {"ms", {}},
                             {"1.5us", {}},
                             {"1h", {}},
                             {"-1ms", {}},
                             {"5000s", {}}});
}

TEST(PpmTest, ParsesPercentagesAndPpm) {
    check(parse_ppm, {{"0.1%", 1000},
                      {"0.1", 1000},
                      {"100%", 1'000'000},
                      {"0.0001%", 1},
                      {"5%", 50'000},
                      {"250ppm", 250},
                      {"0%", 0},
                      {"", {}},
                      {"%", {}},
                      {"100.1%", {}},
                      {"0.00001%", {}},
                      {"1000001ppm", {}},
                      {"half", {}},
                      {"-1%", {}}});
}

TEST(CountAndSizeTest, ParsesPlainNumbersAndK) {
    check(parse_count,
          {{"16", 16}, {"4294967295", 4'294'967'295}, {"4294967296", {}}, {"1.0", {}}, {"1k", {}}});
    check(parse_size, {{"1024", 1024}, {"4k", 4096}, {"4K", 4096}, {"0.5k", {}}, {"4m", {}}});
}

TEST(FormatTest, Rates) {
    EXPECT_EQ(format_rate(0), "unlimited");
    EXPECT_EQ(format_rate(25'000'000'000), "25gbit");
    EXPECT_EQ(format_rate(2'500'000'000), "2.5gbit");
    EXPECT_EQ(format_rate(100'000'000), "100mbit");
    EXPECT_EQ(format_rate(1'234), "1.234kbit");
    EXPECT_EQ(format_rate(999), "999bit");
}

TEST(FormatTest, RatesParseBack) {
    for (const std::uint64_t rate : {1ULL, 999ULL, 1'234ULL, 1'048'576ULL, 25'000'000'001ULL}) {
        EXPECT_EQ(parse_rate(format_rate(rate)), rate) << format_rate(rate);
    }
}

TEST(FormatTest, Latencies) {
    EXPECT_EQ(format_latency(0), "0us");
    EXPECT_EQ(format_latency(20), "20us");
    EXPECT_EQ(format_latency(1000), "1ms");
    EXPECT_EQ(format_latency(1500), "1.5ms");
    EXPECT_EQ(format_latency(10'000'000), "10s");
    for (const std::uint32_t latency : {1U, 999U, 1001U, 1'234'567U}) {
        EXPECT_EQ(parse_latency_us(format_latency(latency)), latency);
    }
}

TEST(FormatTest, Percentages) {
    EXPECT_EQ(format_ppm(0), "0%");
    EXPECT_EQ(format_ppm(1000), "0.1%");
    EXPECT_EQ(format_ppm(1), "0.0001%");
    EXPECT_EQ(format_ppm(1'000'000), "100%");
    for (const std::uint32_t ppm : {1U, 12'345U, 999'999U}) {
        EXPECT_EQ(parse_ppm(format_ppm(ppm)), ppm);
    }
}

}  // namespace
}  // namespace refnic::refnicctl
