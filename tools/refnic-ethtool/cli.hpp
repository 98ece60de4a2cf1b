/* SPDX-License-Identifier: GPL-2.0-only */
// Command-line logic of refnic-ethtool, kept free of side effects so it can be unit tested:
// deciding what an invocation means, and finding the real ethtool.
#pragma once

#include <refnic/ethtool.hpp>

#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace refnic::ethtool_cli {

inline constexpr std::string_view default_real_ethtool = "/usr/sbin/ethtool";
inline constexpr std::string_view real_ethtool_env = "REFNIC_REAL_ETHTOOL";

// Exit statuses, matching what ethtool 6.1 itself returns for the same failures.
inline constexpr int exit_bad_arguments = 1;      // ethtool's exit_bad_args()
inline constexpr int exit_get_failed = 1;         // ethtool -g on a netlink error
inline constexpr int exit_set_failed = 81;        // ethtool -G on a netlink error
inline constexpr int exit_cannot_run_real = 127;  // like a shell's "command not found"

// A failure of refnic-ethtool itself (not of the kernel), with the exit status it maps to.
class ToolError : public std::runtime_error {
public:
    ToolError(int exit_status, const std::string& message)
        : std::runtime_error(message), exit_status_(exit_status) {}

    [[nodiscard]] int exit_status() const noexcept { return exit_status_; }

private:
    int exit_status_;
};

// Hand the command line to the real ethtool: passthrough_arguments() of it.
struct Passthrough {
    friend bool operator==(const Passthrough&, const Passthrough&) = default;
};

// -h / --help.
struct ShowHelp {
    friend bool operator==(const ShowHelp&, const ShowHelp&) = default;
};

// -V: refnic-ethtool's version (--version stays the real ethtool's).
struct ShowVersion {
    friend bool operator==(const ShowVersion&, const ShowVersion&) = default;
};

// -G / --set-ring with tcp-data-split among the parameters.
struct SetRing {
    std::string device;
    ethtool::TcpDataSplit tcp_data_split = ethtool::TcpDataSplit::unknown;
    // The other ring parameters, in order, for `ethtool -G <device> ...`; empty if none.
    std::vector<std::string> other_params;
    // ethtool's global flags given before -G (-j as --json), passed on with the other params.
    std::vector<std::string> global_flags;

    friend bool operator==(const SetRing&, const SetRing&) = default;
};

// -g / --show-ring <device>.
struct ShowRing {
    std::string device;
    std::vector<std::string> global_flags;  // As for SetRing.
    bool json = false;                      // --json or -j among them.

    friend bool operator==(const ShowRing&, const ShowRing&) = default;
};

using Plan = std::variant<Passthrough, ShowHelp, ShowVersion, SetRing, ShowRing>;

// Decides how to handle argv[1..], after ethtool's global flags (--debug N, --json, -j, -I,
// --include-statistics, --disable-netlink). Throws ToolError(exit_bad_arguments) for a
// tcp-data-split refnic-ethtool cannot apply (missing or bad value, given twice) before anything
// is changed.
[[nodiscard]] Plan plan_invocation(std::span<const std::string_view> args);

// argv[1..] for the real ethtool: a -j among the global flags becomes --json (ethtool 6.14 reads
// -j itself, 6.1 does not); the rest unchanged.
[[nodiscard]] std::vector<std::string> passthrough_arguments(
    std::span<const std::string_view> args);

// The real ethtool: `configured` (the REFNIC_REAL_ETHTOOL value, if set) or the default. It
// must be an absolute path to an existing file that is not `self` (this very executable, e.g.
// /proc/self/exe), which is what an `ethtool -> refnic-ethtool` symlink would make it. Throws
// ToolError(exit_cannot_run_real) otherwise.
[[nodiscard]] std::filesystem::path resolve_real_ethtool(std::optional<std::string_view> configured,
                                                         const std::filesystem::path& self);

// Whether ethtool's -g output already has a "TCP data split:" line.
[[nodiscard]] bool shows_tcp_data_split(std::string_view ring_output);
// The line refnic-ethtool appends otherwise, e.g. "TCP data split:\ton\n" ("n/a" for unknown,
// as ethtool prints it).
[[nodiscard]] std::string tcp_data_split_line(ethtool::TcpDataSplit value);
// ethtool -g --json's output with "tcp-data-split" added to each object that lacks it (ethtool's
// own key and words; unknown is left out, as ethtool leaves it out); nullopt if the output is
// not a JSON array of objects, which then stands as it is.
[[nodiscard]] std::optional<std::string> add_tcp_data_split_json(std::string_view ring_json,
                                                                 ethtool::TcpDataSplit value);

// The --help text, and -V's line.
[[nodiscard]] std::string help_text();
[[nodiscard]] std::string version_text(std::string_view real_ethtool);

}  // namespace refnic::ethtool_cli
