// SPDX-License-Identifier: GPL-2.0-only
#include "cli.hpp"

#include "json.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <system_error>

namespace refnic::ethtool_cli {

namespace {

bool is_one_of(std::string_view word, std::string_view short_option, std::string_view long_option) {
    return word == short_option || word == long_option;
}

// ethtool's global flags before the command: how many arguments the one at args[0] takes up
// (0: not a global flag).
std::size_t global_flag_length(std::span<const std::string_view> args) {
    const std::string_view word = args[0];
    if (word == "--debug") {
        return args.size() > 1 ? 2 : 0;
    }
    if (word == "--json" || word == "-j" || word == "-I" || word == "--include-statistics" ||
        word == "--disable-netlink") {
        return 1;
    }
    return 0;
}

// -G DEV PARAM VALUE ...: every ring parameter is a keyword followed by its value, so the
// command line is walked in pairs. Anything odd is left for the real ethtool to complain about.
Plan plan_set_ring(std::span<const std::string_view> args, std::vector<std::string> global) {
    if (args.size() < 2) {
        return Passthrough{};
    }
    SetRing plan;
    plan.device = args[1];
    plan.global_flags = std::move(global);
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
            throw ToolError(exit_bad_arguments, "tcp-data-split given twice");
        }
        if (!has_value) {
            throw ToolError(exit_bad_arguments, "tcp-data-split needs a value: on, off or auto");
        }
        const std::optional<ethtool::TcpDataSplit> value =
            ethtool::parse_tcp_data_split(args[i + 1]);
        if (!value) {
            throw ToolError(exit_bad_arguments, "invalid tcp-data-split value \"" +
                                                    std::string(args[i + 1]) +
                                                    "\": expected on, off or auto");
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
    std::vector<std::string> global;
    bool json = false;
    std::size_t i = 0;
    while (i < args.size()) {
        const std::size_t length = global_flag_length(args.subspan(i));
        if (length == 0) {
            break;
        }
        const bool is_json = args[i] == "-j" || args[i] == "--json";
        json = json || is_json;
        global.emplace_back(is_json ? "--json" : args[i]);
        if (length == 2) {
            global.emplace_back(args[i + 1]);
        }
        i += length;
    }
    const std::span<const std::string_view> rest = args.subspan(i);
    if (rest.empty()) {
        return Passthrough{};
    }
    const std::string_view mode = rest[0];
    if (is_one_of(mode, "-h", "--help")) {
        return ShowHelp{};
    }
    if (mode == "-V") {
        return ShowVersion{};
    }
    if (is_one_of(mode, "-G", "--set-ring")) {
        return plan_set_ring(rest, std::move(global));
    }
    if (is_one_of(mode, "-g", "--show-ring") && rest.size() == 2) {
        return ShowRing{
            .device = std::string(rest[1]), .global_flags = std::move(global), .json = json};
    }
    return Passthrough{};
}

std::vector<std::string> passthrough_arguments(std::span<const std::string_view> args) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < args.size()) {
        const std::size_t length = global_flag_length(args.subspan(i));
        if (length == 0) {
            break;
        }
        out.emplace_back(args[i] == "-j" ? "--json" : args[i]);
        if (length == 2) {
            out.emplace_back(args[i + 1]);
        }
        i += length;
    }
    out.insert(out.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
    return out;
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
    return "TCP data split:\t" +
           std::string(value == ethtool::TcpDataSplit::unknown ? "n/a"
                                                               : ethtool::to_string(value)) +
           "\n";
}

std::optional<std::string> add_tcp_data_split_json(std::string_view ring_json,
                                                   ethtool::TcpDataSplit value) {
    tool_cli::Json parsed = tool_cli::Json::parse(ring_json, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_array() ||
        !std::all_of(parsed.begin(), parsed.end(), [](const auto& o) { return o.is_object(); })) {
        return std::nullopt;
    }
    if (value != ethtool::TcpDataSplit::unknown) {
        for (tool_cli::Json& object : parsed) {
            if (!object.contains("tcp-data-split")) {
                object["tcp-data-split"] = std::string(ethtool::to_string(value));
            }
        }
    }
    return tool_cli::dump_json(parsed, true) + "\n";
}

std::string help_text() {
    return R"(refnic-ethtool )" REFNIC_VERSION R"( - ethtool front end with tcp-data-split support

Usage:
  refnic-ethtool [FLAGS] -G|--set-ring DEV [ring parameters] [tcp-data-split on|off|auto]
  refnic-ethtool [FLAGS] -g|--show-ring DEV
  refnic-ethtool -h|--help
  refnic-ethtool -V
  refnic-ethtool ANYTHING ELSE          (runs the real ethtool with the same arguments)
FLAGS are ethtool's global flags: --debug N, --json (or -j), -I|--include-statistics,
--disable-netlink; they go to the real ethtool, -j as --json.

-G sets tcp-data-split through ethtool netlink (on = enabled, off = disabled, auto = the
driver's default) and passes the other ring parameters to `ethtool -G DEV ...` first; if that
fails, tcp-data-split is left alone.
-g runs `ethtool -g DEV` and appends "TCP data split:" (on, off or n/a) if that ethtool does
not print it; with --json it adds "tcp-data-split": "on"|"off" to ethtool's JSON objects.
-V prints refnic-ethtool's version and the real ethtool's path; --version is the real
ethtool's.

The real ethtool is $REFNIC_REAL_ETHTOOL (an absolute path) or /usr/sbin/ethtool. refnic-ethtool
may be installed as `ethtool` on PATH; it refuses to run itself as the real ethtool.

Exit status: that of the real ethtool when it runs; 1 for a bad tcp-data-split (one line on
stderr) or when reading it fails; 81 when setting it fails; 127 when the real ethtool cannot be
run.
)";
}

std::string version_text(std::string_view real_ethtool) {
    return "refnic-ethtool " REFNIC_VERSION " (real ethtool: " + std::string(real_ethtool) + ")\n";
}

}  // namespace refnic::ethtool_cli
