// SPDX-License-Identifier: GPL-2.0-only
// The getopt_long wrapper the tools share: bundling, values, prefixes, "--", and its messages.
#include "options.hpp"

#include "cli_args.hpp"

#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::tool_cli {
namespace {

constexpr std::array<OptionSpec, 6> specs{{
    {"json", 'j', false},
    {"pretty", 'p', false},
    {"ifname", 'f', true},
    {"size", 's', true},
    {"src-ip", 0, true},
    {"src-mac", 0, true},
}};

// "j p f=r1 | word word" style summary of a scan.
std::string scan(std::initializer_list<std::string_view> args) {
    const std::vector<std::string_view> argv(args);
    std::string text;
    try {
        const ScannedLine line = scan_all(specs, argv);
        for (const OptionHit& hit : line.options) {
            text += hit.given + (specs[hit.index].takes_value ? "=" + hit.value : "") + " ";
        }
        text += "|";
        for (const std::string_view word : line.words) {
            text += " " + std::string(word);
        }
    } catch (const UsageError& error) {
        return std::string("error: ") + error.what();
    }
    return text;
}

TEST(OptionsTest, BundlesAndAttachedValues) {
    EXPECT_EQ(scan({"-jp"}), "-j -p |");
    EXPECT_EQ(scan({"-jfr1", "rx"}), "-j -f=r1 | rx");
    EXPECT_EQ(scan({"-f", "r1"}), "-f=r1 |");
    EXPECT_EQ(scan({"-f", "-j"}), "-f=-j |");
}

TEST(OptionsTest, LongFormsAndPrefixes) {
    EXPECT_EQ(scan({"--ifname=r1", "--json"}), "--ifname=r1 --json |");
    EXPECT_EQ(scan({"--ifname", "r1"}), "--ifname=r1 |");
    EXPECT_EQ(scan({"--pre"}), "--pretty |");
    EXPECT_EQ(scan({"--si=4"}), "--size=4 |");
    EXPECT_EQ(scan({"--s", "x"}), "error: ambiguous option \"--s\": --size, --src-ip, --src-mac");
    EXPECT_EQ(scan({"--src=1"}), "error: ambiguous option \"--src\": --src-ip, --src-mac");
}

TEST(OptionsTest, OptionsAnywhereAndDoubleDash) {
    EXPECT_EQ(scan({"rx", "-j", "r1", "--pretty"}), "-j --pretty | rx r1");
    EXPECT_EQ(scan({"rx", "--", "-j", "--pretty"}), "| rx -j --pretty");
    EXPECT_EQ(scan({"-", "x"}), "| - x");
}

TEST(OptionsTest, Messages) {
    EXPECT_EQ(scan({"-x"}), "error: unknown option \"-x\"");
    EXPECT_EQ(scan({"-jx"}), "error: unknown option \"-x\"");
    EXPECT_EQ(scan({"--frob"}), "error: unknown option \"--frob\"");
    EXPECT_EQ(scan({"--frob=1"}), "error: unknown option \"--frob\"");
    EXPECT_EQ(scan({"-f"}), "error: option \"-f\" needs a value");
    EXPECT_EQ(scan({"--ifname"}), "error: option \"--ifname\" needs a value");
    EXPECT_EQ(scan({"--ifn"}), "error: option \"--ifname\" needs a value");
    EXPECT_EQ(scan({"--json=1"}), "error: option \"--json\" takes no value");
    // The state of a previous scan does not leak into the next one.
    EXPECT_EQ(scan({"-jp", "x"}), "-j -p | x");
}

TEST(OptionsTest, AsksForHelpLeniently) {
    constexpr std::array<OptionSpec, 3> with_help{{
        {"json", 'j', false},
        {"help", 'h', false},
        {"hdr-split", 0, false},
    }};
    const auto asks = [&](std::initializer_list<std::string_view> args) {
        const std::vector<std::string_view> argv(args);
        return asks_for(with_help, argv, "help", 'h');
    };
    EXPECT_TRUE(asks({"rx", "-x", "-h"}));
    EXPECT_TRUE(asks({"--help"}));
    EXPECT_TRUE(asks({"--hel"}));
    EXPECT_TRUE(asks({"-jh"}));
    EXPECT_FALSE(asks({"--h"}));
    EXPECT_FALSE(asks({"--", "-h"}));
    EXPECT_FALSE(asks({"help"}));
}

TEST(OptionsTest, OneOf) {
    const std::array<std::string_view, 3> three{"a", "b", "c"};
    EXPECT_EQ(one_of(three), "a, b or c");
    EXPECT_EQ(one_of(std::span(three).first(1)), "a");
    EXPECT_EQ(one_of(std::span(three).first(2)), "a or b");
}

}  // namespace
}  // namespace refnic::tool_cli
