/* SPDX-License-Identifier: GPL-2.0-only */
// The refnic tools' option parsing: glibc's getopt_long, wrapped once so that every tool
// bundles short options (-jp), takes --name=value and --name value, any unambiguous prefix of a
// long option, and -- to end options, with options anywhere between the words. The wrapper
// runs getopt_long in '+' mode (stop at the first word) with opterr = 0 and steps over words
// itself, so the behaviour does not depend on POSIXLY_CORRECT, and it writes every message in
// the tools' one-line form (docs/cli.md, "Errors and exit statuses").
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::tool_cli {

// One option of a tool. `short_name` is 0 for a long-only option; `long_name` is empty for a
// short-only one. Tables are made of string literals: getopt_long needs NUL-terminated names.
struct OptionSpec {
    std::string_view long_name;  // Without the leading "--".
    char short_name;
    bool takes_value;
};

// An option met on the command line.
struct OptionHit {
    std::size_t index;  // Into the table.
    std::string given;  // As spelled: "-f" or "--ifname" (the whole name, even when abbreviated).
    std::string value;  // Empty for a flag.
};

// Walks argv[1..]: options at the current position (options()), then one word (take()).
class OptionParser {
public:
    OptionParser(std::span<const OptionSpec> specs, std::span<const std::string_view> args)
        : specs_(specs), args_(args) {}

    // The options at the current position, up to a word, the end, or "--" (consumed: every
    // later argument is a word). Throws UsageError.
    std::vector<OptionHit> options();
    // The argument at the current position, whatever it looks like (a keyword's value), or
    // nullopt at the end.
    std::optional<std::string_view> take();
    [[nodiscard]] bool at_end() const noexcept { return position_ >= args_.size(); }
    // The index in args of the word take() returns next.
    [[nodiscard]] std::size_t position() const noexcept { return position_; }
    [[nodiscard]] bool options_ended() const noexcept { return options_ended_; }

private:
    std::span<const OptionSpec> specs_;
    std::span<const std::string_view> args_;
    std::size_t position_ = 0;
    bool options_ended_ = false;
};

// Every option and word of a flag tool's command line, in order.
struct ScannedLine {
    std::vector<OptionHit> options;
    std::vector<std::string_view> words;
};
[[nodiscard]] ScannedLine scan_all(std::span<const OptionSpec> specs,
                                   std::span<const std::string_view> args);

// Whether the line asks for the option `long_name` (with short form `short_name`, or 0)
// somewhere before "--", read leniently so that it can win over a usage error met earlier:
// "--help", an unambiguous prefix of it, "-h", or a bundle of flags with 'h' in it.
[[nodiscard]] bool asks_for(std::span<const OptionSpec> specs,
                            std::span<const std::string_view> args, std::string_view long_name,
                            char short_name);

// The message of an option given twice: option "--ifname" given twice.
[[nodiscard]] std::string given_twice(const OptionSpec& spec);

// "a, b or c" ("a" alone, "a or b").
[[nodiscard]] std::string one_of(std::span<const std::string_view> words,
                                 std::string_view last_joiner = " or ");

// The one-line fix for a missing module, in the library's error and each tool's.
inline constexpr std::string_view load_module_hint =
    "load the refnic module: modprobe refnic (make dkms-install installs it)";

}  // namespace refnic::tool_cli
