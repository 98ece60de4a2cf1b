/* SPDX-License-Identifier: GPL-2.0-only */
// Running the real ethtool: replacing this process with it, or running it as a child.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace refnic::ethtool_cli {

// Replaces this process with `program`, passing `argv` (argv[0] included) exactly. Only returns
// by throwing refnic::Error.
[[noreturn]] void exec_program(const std::filesystem::path& program, char* const* argv);

// Runs `program` with argv[0] = its path followed by `args`, with this process's stdin, stdout
// and stderr, and returns its exit status (128 + signal number if a signal killed it).
[[nodiscard]] int run_program(const std::filesystem::path& program,
                              const std::vector<std::string>& args);

struct CapturedRun {
    int exit_status = 0;
    std::string output;  // Everything the program wrote to stdout.
};

// Like run_program(), but collects the program's stdout instead of passing it through.
[[nodiscard]] CapturedRun run_capturing_stdout(const std::filesystem::path& program,
                                               const std::vector<std::string>& args);

}  // namespace refnic::ethtool_cli
