// SPDX-License-Identifier: GPL-2.0-only
// refnic-ethtool: an ethtool front end that can set tcp-data-split on systems whose ethtool
// cannot (Debian 12 ships 6.1). See help_text() in cli.cpp.
#include "cli.hpp"
#include "process.hpp"

#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace {

using namespace refnic::ethtool_cli;

constexpr std::string_view self_executable = "/proc/self/exe";

void print_error(std::string_view message) { std::cerr << "refnic-ethtool: " << message << '\n'; }

// The kernel's own words (its extack message, else strerror) when it refused; the full
// description when refnic-ethtool failed on its own.
void print_error(const refnic::Error& error) {
    print_error(error.from_kernel() ? error.reason() : std::string(error.what()));
}

// A refusal as "DEVICE: cannot DOING: the kernel's words"; librefnic's own failures already say
// what was done on which device.
void print_error(std::string_view device, std::string_view doing, const refnic::Error& error) {
    if (!error.from_kernel()) {
        print_error(error.what());
        return;
    }
    std::string message(device);
    message.append(": cannot ").append(doing).append(": ").append(error.reason());
    print_error(message);
}

std::filesystem::path real_ethtool() {
    const char* configured = std::getenv(std::string(real_ethtool_env).c_str());
    return resolve_real_ethtool(
        configured != nullptr ? std::optional<std::string_view>(configured) : std::nullopt,
        self_executable);
}

int show_help() {
    std::cout << help_text();
    std::optional<std::filesystem::path> real;
    try {
        real = real_ethtool();
    } catch (const ToolError& error) {
        std::cout << "\n(The real ethtool's help is unavailable: " << error.what() << ")\n";
        return 0;
    }
    std::cout << "\nThe real ethtool's help follows.\n\n" << std::flush;
    return run_program(*real, {"--help"});
}

int show_version() {
    std::string real;
    try {
        real = real_ethtool().string();
    } catch (const ToolError& error) {
        real = std::string("unavailable: ") + error.what();
    }
    std::cout << version_text(real);
    return 0;
}

int set_ring(const SetRing& plan) {
    // The real ethtool validates its own parameters, so it goes first: if it rejects them,
    // nothing has been changed yet.
    if (!plan.other_params.empty()) {
        std::vector<std::string> args = plan.global_flags;
        args.emplace_back("-G");
        args.push_back(plan.device);
        args.insert(args.end(), plan.other_params.begin(), plan.other_params.end());
        const int status = run_program(real_ethtool(), args);
        if (status != 0) {
            return status;
        }
    }
    try {
        refnic::ethtool::RingSettings settings;
        settings.tcp_data_split = plan.tcp_data_split;
        refnic::ethtool::Rings rings;
        rings.set(plan.device, settings);
    } catch (const refnic::Error& error) {
        print_error(plan.device, "set tcp-data-split", error);
        return exit_set_failed;
    }
    return 0;
}

int show_ring(const ShowRing& plan, std::string_view mode) {
    std::vector<std::string> args = plan.global_flags;
    args.emplace_back(mode);
    args.push_back(plan.device);
    const CapturedRun run = run_capturing_stdout(real_ethtool(), args);
    // A failure, or an ethtool that prints the setting itself: its output and status stand.
    const bool shown = plan.json ? run.output.find("\"tcp-data-split\"") != std::string::npos
                                 : shows_tcp_data_split(run.output);
    if (run.exit_status != 0 || shown) {
        std::cout << run.output << std::flush;
        return run.exit_status;
    }
    refnic::ethtool::TcpDataSplit value = refnic::ethtool::TcpDataSplit::unknown;
    try {
        refnic::ethtool::Rings rings;
        // The kernel leaves the attribute out while the driver reports "unknown".
        value = rings.get(plan.device).tcp_data_split.value_or(value);
    } catch (const refnic::Error& error) {
        std::cout << run.output << std::flush;
        print_error(plan.device, "read tcp-data-split", error);
        return exit_get_failed;
    }
    if (plan.json) {
        std::cout << add_tcp_data_split_json(run.output, value).value_or(run.output);
    } else {
        std::cout << run.output << tcp_data_split_line(value);
    }
    return 0;
}

int run(std::span<char*> argv) {
    // argv[0] may be missing altogether (argc == 0) when a careless parent exec'd us.
    const std::span<char*> arguments = argv.empty() ? argv : argv.subspan(1);
    const std::vector<std::string_view> args(arguments.begin(), arguments.end());
    const Plan plan = plan_invocation(args);
    if (std::holds_alternative<ShowHelp>(plan)) {
        return show_help();
    }
    if (std::holds_alternative<ShowVersion>(plan)) {
        return show_version();
    }
    if (const auto* set = std::get_if<SetRing>(&plan)) {
        return set_ring(*set);
    }
    if (const auto* show = std::get_if<ShowRing>(&plan)) {
        return show_ring(*show, args[args.size() - 2]);
    }
    // argv[0] as we were called, then the arguments with -j as --json; null-terminated, as
    // execv() needs.
    std::vector<std::string> passed = passthrough_arguments(args);
    std::vector<char*> real_argv{argv.empty() ? nullptr : argv[0]};
    for (std::string& arg : passed) {
        real_argv.push_back(arg.data());
    }
    real_argv.push_back(nullptr);
    if (real_argv.front() == nullptr) {
        real_argv.front() =
            const_cast<char*>("ethtool");  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    }
    exec_program(real_ethtool(), real_argv.data());
}

}  // namespace

int main(int argc, char* argv[]) {
    try {
        return run(std::span<char*>(argv, static_cast<std::size_t>(argc)));
    } catch (const ToolError& error) {
        // A command line refnic-ethtool refuses (exit 1, as ethtool's bad arguments) points to
        // the help; failing to run the real ethtool does not.
        print_error(std::string(error.what()) + (error.exit_status() == exit_bad_arguments
                                                     ? "; see 'refnic-ethtool --help'"
                                                     : ""));
        return error.exit_status();
    } catch (const refnic::Error& error) {
        // Failing to run the real ethtool (exec, spawn, pipe).
        print_error(error);
        return exit_cannot_run_real;
    } catch (const std::exception& error) {  // e.g. out of memory: said, not an abort
        print_error(error.what());
        return 1;
    }
}
