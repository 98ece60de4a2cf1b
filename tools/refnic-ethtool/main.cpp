// SPDX-License-Identifier: GPL-2.0-only
// refnic-ethtool: an ethtool front end that can set tcp-data-split on systems whose ethtool
// cannot (Debian 12 ships 6.1). See help_text() in cli.cpp.
#include "cli.hpp"
#include "process.hpp"

#include <refnic/error.hpp>
#include <refnic/ethtool.hpp>

#include <cstdlib>
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

int set_ring(const SetRing& plan) {
    // The real ethtool validates its own parameters, so it goes first: if it rejects them,
    // nothing has been changed yet.
    if (!plan.other_params.empty()) {
        std::vector<std::string> args{"-G", plan.device};
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
        print_error(error);
        return exit_set_failed;
    }
    return 0;
}

int show_ring(const ShowRing& plan, std::string_view mode) {
    const CapturedRun run = run_capturing_stdout(real_ethtool(), {std::string(mode), plan.device});
    std::cout << run.output << std::flush;
    if (run.exit_status != 0 || shows_tcp_data_split(run.output)) {
        return run.exit_status;
    }
    try {
        refnic::ethtool::Rings rings;
        const refnic::ethtool::RingParams params = rings.get(plan.device);
        // The kernel leaves the attribute out while the driver reports "unknown".
        std::cout << tcp_data_split_line(
            params.tcp_data_split.value_or(refnic::ethtool::TcpDataSplit::unknown));
    } catch (const refnic::Error& error) {
        print_error(error);
        return exit_get_failed;
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
    if (const auto* set = std::get_if<SetRing>(&plan)) {
        return set_ring(*set);
    }
    if (const auto* show = std::get_if<ShowRing>(&plan)) {
        return show_ring(*show, args.front());
    }
    // argv is still null-terminated (argv[argc] == nullptr), as execv() needs.
    exec_program(real_ethtool(), argv.data());
}

}  // namespace

int main(int argc, char* argv[]) {
    try {
        return run(std::span<char*>(argv, static_cast<std::size_t>(argc)));
    } catch (const ToolError& error) {
        print_error(error.what());
        return error.exit_status();
    } catch (const refnic::Error& error) {
        // Failing to run the real ethtool (exec, spawn, pipe).
        print_error(error);
        return exit_cannot_run_real;
    }
}
