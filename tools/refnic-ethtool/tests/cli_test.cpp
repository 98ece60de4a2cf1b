// SPDX-License-Identifier: GPL-2.0-only
// refnic-ethtool's command-line decisions, without running anything.
#include "cli.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::ethtool_cli {
namespace {

using ethtool::TcpDataSplit;

Plan plan(std::initializer_list<std::string_view> args) {
    const std::vector<std::string_view> argv(args);
    return plan_invocation(argv);
}

SetRing set_ring(std::string device, TcpDataSplit split, std::vector<std::string> others) {
    SetRing result;
    result.device = std::move(device);
    result.tcp_data_split = split;
    result.other_params = std::move(others);
    return result;
}

int bad_arguments_status(std::initializer_list<std::string_view> args) {
    try {
        static_cast<void>(plan(args));
    } catch (const ToolError& error) {
        return error.exit_status();
    }
    return -1;
}

TEST(PlanTest, OnlyTcpDataSplitSkipsTheRealEthtool) {
    EXPECT_EQ(plan({"-G", "eth0", "tcp-data-split", "on"}),
              Plan(set_ring("eth0", TcpDataSplit::enabled, {})));
    EXPECT_EQ(plan({"--set-ring", "eth0", "tcp-data-split", "off"}),
              Plan(set_ring("eth0", TcpDataSplit::disabled, {})));
    EXPECT_EQ(plan({"-G", "eth0", "tcp-data-split", "auto"}),
              Plan(set_ring("eth0", TcpDataSplit::unknown, {})));
}

TEST(PlanTest, SplitsOtherRingParametersOffInOrder) {
    EXPECT_EQ(plan({"-G", "eth0", "rx", "512", "tcp-data-split", "on", "tx", "1024", "rx-buf-len",
                    "4096"}),
              Plan(set_ring("eth0", TcpDataSplit::enabled,
                            {"rx", "512", "tx", "1024", "rx-buf-len", "4096"})));
    EXPECT_EQ(plan({"-G", "eth0", "tcp-data-split", "off", "rx", "64"}),
              Plan(set_ring("eth0", TcpDataSplit::disabled, {"rx", "64"})));
}

TEST(PlanTest, LeavesOddParametersToTheRealEthtool) {
    // A dangling keyword goes through as is, for the real ethtool to reject.
    EXPECT_EQ(plan({"-G", "eth0", "tcp-data-split", "on", "rx"}),
              Plan(set_ring("eth0", TcpDataSplit::enabled, {"rx"})));
}

TEST(PlanTest, SetRingWithoutTcpDataSplitPassesThrough) {
    EXPECT_EQ(plan({"-G", "eth0", "rx", "512"}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"-G", "eth0"}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"-G"}), Plan(Passthrough{}));
    // Values are never mistaken for keywords.
    EXPECT_EQ(plan({"-G", "eth0", "rx", "tcp-data-split"}), Plan(Passthrough{}));
}

TEST(PlanTest, RejectsBadTcpDataSplitBeforeDoingAnything) {
    EXPECT_EQ(bad_arguments_status({"-G", "eth0", "tcp-data-split"}), exit_bad_arguments);
    EXPECT_EQ(bad_arguments_status({"-G", "eth0", "tcp-data-split", "yes"}), exit_bad_arguments);
    EXPECT_EQ(bad_arguments_status({"-G", "eth0", "tcp-data-split", "ON"}), exit_bad_arguments);
    EXPECT_EQ(bad_arguments_status({"-G", "eth0", "tcp-data-split", "on", "tcp-data-split", "off"}),
              exit_bad_arguments);
}

TEST(PlanTest, ShowRingNeedsExactlyADevice) {
    EXPECT_EQ(plan({"-g", "eth0"}),
              Plan(ShowRing{.device = "eth0", .global_flags = {}, .json = false}));
    EXPECT_EQ(plan({"--show-ring", "eth0"}),
              Plan(ShowRing{.device = "eth0", .global_flags = {}, .json = false}));
    EXPECT_EQ(plan({"-g"}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"-g", "eth0", "extra"}), Plan(Passthrough{}));
}

TEST(PlanTest, EverythingElsePassesThrough) {
    EXPECT_EQ(plan({}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"-i", "eth0"}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"-K", "eth0", "tcp-data-split", "on"}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"eth0"}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"--version"}), Plan(Passthrough{}));
    EXPECT_EQ(plan({"--debug", "1", "-i", "eth0"}), Plan(Passthrough{}));
}

TEST(PlanTest, GlobalFlagsComeFirst) {
    SetRing set = set_ring("eth0", TcpDataSplit::enabled, {"rx", "64"});
    set.global_flags = {"--debug", "1"};
    EXPECT_EQ(plan({"--debug", "1", "-G", "eth0", "tcp-data-split", "on", "rx", "64"}), Plan(set));
    EXPECT_EQ(plan({"--json", "-g", "eth0"}),
              Plan(ShowRing{.device = "eth0", .global_flags = {"--json"}, .json = true}));
    // -j is ethtool 6.14's --json; 6.1 knows only --json.
    EXPECT_EQ(plan({"-j", "-I", "--show-ring", "eth0"}),
              Plan(ShowRing{.device = "eth0", .global_flags = {"--json", "-I"}, .json = true}));
    EXPECT_EQ(
        plan({"--disable-netlink", "-g", "eth0"}),
        Plan(ShowRing{.device = "eth0", .global_flags = {"--disable-netlink"}, .json = false}));
}

TEST(PlanTest, PassthroughArgumentsSpellJsonLong) {
    const auto passed = [](std::initializer_list<std::string_view> args) {
        const std::vector<std::string_view> argv(args);
        return passthrough_arguments(argv);
    };
    EXPECT_EQ(passed({"-j", "-S", "eth0"}), (std::vector<std::string>{"--json", "-S", "eth0"}));
    EXPECT_EQ(passed({"--debug", "-j", "-S", "eth0"}),
              (std::vector<std::string>{"--debug", "-j", "-S", "eth0"}));
    EXPECT_EQ(passed({"-S", "-j"}), (std::vector<std::string>{"-S", "-j"}));
    EXPECT_EQ(passed({}), std::vector<std::string>{});
}

TEST(PlanTest, Version) {
    EXPECT_EQ(plan({"-V"}), Plan(ShowVersion{}));
    EXPECT_EQ(version_text("/usr/sbin/ethtool").rfind("refnic-ethtool ", 0), 0U);
    EXPECT_NE(version_text("/usr/sbin/ethtool").find("(real ethtool: /usr/sbin/ethtool)\n"),
              std::string::npos);
}

TEST(ShowRingTest, AddsTcpDataSplitToEthtoolsJson) {
    const std::string ring = R"([ {
        "ifname": "eth0",
        "rx-max": 4096,
        "rx": 256
    } ])";
    const std::optional<std::string> on = add_tcp_data_split_json(ring, TcpDataSplit::enabled);
    ASSERT_TRUE(on);
    EXPECT_NE(on->find("\"rx\": 256,\n        \"tcp-data-split\": \"on\""), std::string::npos)
        << *on;
    // Unknown is left out, as ethtool leaves it out.
    const std::optional<std::string> unknown = add_tcp_data_split_json(ring, TcpDataSplit::unknown);
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->find("tcp-data-split"), std::string::npos);
    EXPECT_FALSE(add_tcp_data_split_json("not json", TcpDataSplit::enabled));
    EXPECT_FALSE(add_tcp_data_split_json("{}", TcpDataSplit::enabled));
}

TEST(PlanTest, Help) {
    EXPECT_EQ(plan({"-h"}), Plan(ShowHelp{}));
    EXPECT_EQ(plan({"--help"}), Plan(ShowHelp{}));
    EXPECT_NE(help_text().find("tcp-data-split on|off|auto"), std::string::npos);
}

TEST(ShowRingTest, DetectsTcpDataSplitLine) {
    EXPECT_TRUE(
        shows_tcp_data_split("Ring parameters for eth0:\nTX Push:\toff\n"
                             "TCP data split:\tn/a\n"));
    EXPECT_TRUE(shows_tcp_data_split("TCP data split:\ton"));
    EXPECT_FALSE(shows_tcp_data_split("Ring parameters for eth0:\nTX:\t256\n"));
    EXPECT_FALSE(shows_tcp_data_split("  TCP data split:\ton\n"));
    EXPECT_FALSE(shows_tcp_data_split(""));
    EXPECT_EQ(tcp_data_split_line(TcpDataSplit::enabled), "TCP data split:\ton\n");
    EXPECT_EQ(tcp_data_split_line(TcpDataSplit::disabled), "TCP data split:\toff\n");
    // ethtool's own word for unknown.
    EXPECT_EQ(tcp_data_split_line(TcpDataSplit::unknown), "TCP data split:\tn/a\n");
}

class ResolveTest : public testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("refnic-cli-test-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir_);
        self_ = dir_ / "refnic-ethtool";
        real_ = dir_ / "real-ethtool";
        std::ofstream(self_) << "self";
        std::ofstream(real_) << "real";
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    static int status_of(std::optional<std::string_view> configured,
                         const std::filesystem::path& self) {
        try {
            static_cast<void>(resolve_real_ethtool(configured, self));
        } catch (const ToolError& error) {
            return error.exit_status();
        }
        return 0;
    }

    std::filesystem::path dir_;
    std::filesystem::path self_;
    std::filesystem::path real_;
};

TEST_F(ResolveTest, AcceptsAnAbsolutePathToAnotherFile) {
    EXPECT_EQ(resolve_real_ethtool(real_.string(), self_), real_);
}

TEST_F(ResolveTest, RefusesItselfThroughSymlinksAndHardLinks) {
    const std::filesystem::path symlink = dir_ / "ethtool";
    std::filesystem::create_symlink(self_, symlink);
    EXPECT_EQ(status_of(symlink.string(), self_), exit_cannot_run_real);
    const std::filesystem::path hard_link = dir_ / "ethtool-hard";
    std::filesystem::create_hard_link(self_, hard_link);
    EXPECT_EQ(status_of(hard_link.string(), self_), exit_cannot_run_real);
    EXPECT_EQ(status_of(self_.string(), self_), exit_cannot_run_real);
}

TEST_F(ResolveTest, RefusesRelativeAndMissingPaths) {
    EXPECT_EQ(status_of("ethtool", self_), exit_cannot_run_real);
    EXPECT_EQ(status_of((dir_ / "missing").string(), self_), exit_cannot_run_real);
    // Cannot prove it is not itself.
    EXPECT_EQ(status_of(real_.string(), dir_ / "no-self"), exit_cannot_run_real);
}

TEST_F(ResolveTest, DefaultsToUsrSbinEthtool) {
    if (!std::filesystem::exists(default_real_ethtool)) {
        GTEST_SKIP() << "no " << default_real_ethtool << " here";
    }
    EXPECT_EQ(resolve_real_ethtool(std::nullopt, self_),
              std::filesystem::path(default_real_ethtool));
}

}  // namespace
}  // namespace refnic::ethtool_cli
