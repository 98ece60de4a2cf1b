// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <system_error>

namespace refnic::ethtool_cli {

namespace {

bool is_one_of(std::string_view word, std::string_view short_option, std::string_view long_option) {
    return word == short_option || word == long_option;
}

// -G DEV PARAM VALUE ...: every ring parameter is a keyword followed by its value, so the
// command line is walked in pairs. Anything odd is left for the real ethtool to complain about.
Plan plan_set_ring(std::span<const std::string_view> args) {
    if (args.size() < 2) {
        return Passthrough{};
    }
    SetRing plan;
    plan.device = args[1];
    bool has_tcp_data_split = false;
    for (std::size_t i = 2; i < args.size(); i += 2) {
        const std::string_view keyword = args[i];
        const bool has_value = i + 1 < args.size();
        if (keyword != "tcp-data-split") {
            plan.other_params.emplace_back(keyword);
            if (has_value) {
                plan.other_params.emplace_back(args[i + 1]);
            }
            continue;
        }
        if (has_tcp_data_split) {
            throw ToolError(exit_bad_arguments, "tcp-data-split given more than once");
        }
        if (!has_value) {
            throw ToolError(exit_bad_arguments, "tcp-data-split needs a value: on, off or auto");
        }
        const std::optional<ethtool::TcpDataSplit> value =
            ethtool::parse_tcp_data_split(args[i + 1]);
        if (!value) {
            throw ToolError(exit_bad_arguments, "invalid tcp-data-split value '" +
                                                    std::string(args[i + 1]) +
                                                    "', expected on, off or auto");
        }
        plan.tcp_data_split = *value;
        has_tcp_data_split = true;
    }
    if (!has_tcp_data_split) {
        return Passthrough{};
    }
    return plan;
}

}  // namespace

Plan plan_invocation(std::span<const std::string_view> args) {
    if (args.empty()) {
        return Passthrough{};
    }
    const std::string_view mode = args[0];
    if (is_one_of(mode, "-h", "--help")) {
        return ShowHelp{};
    }
    if (is_one_of(mode, "-G", "--set-ring")) {
        return plan_set_ring(args);
    }
    if (is_one_of(mode, "-g", "--show-ring") && args.size() == 2) {
        return ShowRing{.device = std::string(args[1])};
    }
    return Passthrough{};
}

std::filesystem::path resolve_real_ethtool(std::optional<std::string_view> configured,
                                           const std::filesystem::path& self) {
    std::filesystem::path real(configured.value_or(default_real_ethtool));
    const std::string name = "real ethtool " + real.string() + " (" +
                             (configured ? std::string(real_ethtool_env) : "the default") + ")";
    const auto cannot_run = [](const std::string& why) {
        return ToolError(exit_cannot_run_real, why);
    };
    if (!real.is_absolute()) {
        // A relative name would be looked up on PATH, where `ethtool` may be this program.
        throw cannot_run(name + ": must be an absolute path");
    }
    struct stat real_stat {};
    if (::stat(real.c_str(), &real_stat) != 0) {
        throw cannot_run(name + ": " + std::generic_category().message(errno));
    }
    struct stat self_stat {};
    if (::stat(self.c_str(), &self_stat) != 0) {
        throw cannot_run(name + ": cannot compare it with " + self.string() + ": " +
                         std::generic_category().message(errno));
    }
    // Comparing inodes catches symlinks and hard links alike.
    if (real_stat.st_dev == self_stat.st_dev && real_stat.st_ino == self_stat.st_ino) {
        throw cannot_run(name + " is refnic-ethtool itself; set " + std::string(real_ethtool_env) +
                         " to the real ethtool");
    }
    return real;
}

bool shows_tcp_data_split(std::string_view ring_output) {
    constexpr std::string_view label = "TCP data split:";
    for (std::size_t start = 0; start < ring_output.size();) {
        const std::size_t end = ring_output.find('\n', start);
        const std::string_view line = ring_output.substr(start, end - start);
        if (line.starts_with(label)) {
            return true;
        }
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    return false;
}

std::string tcp_data_split_line(ethtool::TcpDataSplit value) {
    return "TCP data split:\t" + std::string(ethtool::to_string(value)) + "\n";
}

std::string help_text() {
    return R"(refnic-ethtool )" REFNIC_VERSION R"( - ethtool front end with tcp-data-split support

Usage:
  refnic-ethtool -G|--set-ring DEV [ring parameters] [tcp-data-split on|off|auto]
  refnic-ethtool -g|--show-ring DEV
  refnic-ethtool -h|--help
  refnic-ethtool ANYTHING ELSE          (runs the real ethtool with the same arguments)

-G sets tcp-data-split through ethtool netlink (on = enabled, off = disabled, auto = the
driver's default) and passes the other ring parameters to `ethtool -G DEV ...` first; if that
fails, tcp-data-split is left alone.
-g runs `ethtool -g DEV` and appends "TCP data split:" if that ethtool does not print it.

The real ethtool is $REFNIC_REAL_ETHTOOL (an absolute path) or /usr/sbin/ethtool. refnic-ethtool
may be installed as `ethtool` on PATH; it refuses to run itself as the real ethtool.

Exit status: that of the real ethtool when it runs; 1 for a bad tcp-data-split or when reading
it fails; 81 when setting it fails; 127 when the real ethtool cannot be run.
)";
}

}  // namespace refnic::ethtool_cli
