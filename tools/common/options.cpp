// SPDX-License-Identifier: GPL-2.0-only
#include "options.hpp"

#include "cli_args.hpp"

#include <getopt.h>

#include <algorithm>
#include <cstring>

namespace refnic::tool_cli {

namespace {

constexpr int long_only_base = 256;  // getopt_long's value of option i without a letter.

int value_of(const OptionSpec& spec, std::size_t index) {
    return spec.short_name != 0 ? static_cast<unsigned char>(spec.short_name)
                                : long_only_base + static_cast<int>(index);
}

// "--ifname", or "-c" for a short-only option.
std::string long_form(const OptionSpec& spec) {
    return spec.long_name.empty() ? std::string("-") + spec.short_name
                                  : "--" + std::string(spec.long_name);
}

// Why getopt_long refused the long option `word` ("--frob", "--s", "--json=1").
[[noreturn]] void refuse_long(std::span<const OptionSpec> specs, std::string_view word) {
    const std::string_view body = word.substr(2);
    const std::size_t equals = body.find('=');
    const std::string_view name = body.substr(0, equals);
    const std::string_view given = word.substr(0, 2 + name.size());
    std::vector<const OptionSpec*> matches;
    for (const OptionSpec& spec : specs) {
        if (!spec.long_name.empty() && spec.long_name == name) {
            matches = {&spec};
            break;
        }
        if (!name.empty() && !spec.long_name.empty() && spec.long_name.starts_with(name)) {
            matches.push_back(&spec);
        }
    }
    if (matches.size() > 1) {
        std::string candidates;
        for (const OptionSpec* spec : matches) {
            candidates += (candidates.empty() ? "" : ", ") + long_form(*spec);
        }
        throw UsageError("ambiguous option " + quoted(given) + ": " + candidates);
    }
    if (matches.size() == 1 && equals != std::string_view::npos && !matches.front()->takes_value) {
        throw UsageError("option " + quoted(long_form(*matches.front())) + " takes no value");
    }
    throw UsageError("unknown option " + quoted(given));
}

// getopt_long's view of a table: its long options and its short option string.
struct GetoptTable {
    std::vector<option> longopts;
    std::string shortopts = "+:";  // '+': stop at the first word; ':': report a missing value.

    explicit GetoptTable(std::span<const OptionSpec> specs) {
        for (std::size_t i = 0; i < specs.size(); ++i) {
            const OptionSpec& spec = specs[i];
            // The long names are string_views into string literals: getopt_long needs them
            // NUL-terminated, which every table's literals are.
            if (!spec.long_name.empty()) {
                longopts.push_back({spec.long_name.data(),
                                    spec.takes_value ? required_argument : no_argument, nullptr,
                                    value_of(spec, i)});
            }
            if (spec.short_name != 0) {
                shortopts += spec.short_name;
                if (spec.takes_value) {
                    shortopts += ':';
                }
            }
        }
        longopts.push_back({nullptr, 0, nullptr, 0});
    }
};

// A NUL-terminated argv of {"", args...} for getopt_long, which wants char*.
struct Argv {
    std::vector<std::string> storage{""};
    std::vector<char*> pointers;

    explicit Argv(std::span<const std::string_view> args) {
        storage.insert(storage.end(), args.begin(), args.end());
        pointers.reserve(storage.size() + 1);
        for (std::string& arg : storage) {
            pointers.push_back(arg.data());
        }
        pointers.push_back(nullptr);
    }
    [[nodiscard]] int argc() const { return static_cast<int>(storage.size()); }
};

// What getopt_long refused ('?' or ':') in `element`, as a UsageError.
[[noreturn]] void refuse(std::span<const OptionSpec> specs, std::string_view element, int c) {
    if (element.starts_with("--")) {
        if (c == ':') {
            for (std::size_t i = 0; i < specs.size(); ++i) {
                if (value_of(specs[i], i) == optopt) {
                    throw UsageError("option " + quoted(long_form(specs[i])) + " needs a value");
                }
            }
        }
        refuse_long(specs, element);
    }
    const std::string letter = std::string("-") + static_cast<char>(optopt);
    throw UsageError(c == ':' ? "option " + quoted(letter) + " needs a value"
                              : "unknown option " + quoted(letter));
}

}  // namespace

std::vector<OptionHit> OptionParser::options() {
    std::vector<OptionHit> hits;
    if (options_ended_ || position_ >= args_.size()) {
        return hits;
    }
    // getopt_long reads a fresh argv from the current position.
    Argv argv(args_.subspan(position_));
    const GetoptTable table(specs_);
    opterr = 0;
    optind = 0;  // Resets glibc's state, including a bundle left half read.
    for (;;) {
        const int current = optind == 0 ? 1 : optind;
        const int c = getopt_long(argv.argc(), argv.pointers.data(), table.shortopts.c_str(),
                                  table.longopts.data(), nullptr);
        if (c == -1) {
            // "--" is stepped over by getopt_long: every later argument is a word.
            options_ended_ = optind == current + 1 && current < argv.argc() &&
                             argv.storage[static_cast<std::size_t>(current)] == "--";
            position_ += static_cast<std::size_t>(optind - 1);
            return hits;
        }
        const std::string_view element = argv.storage[static_cast<std::size_t>(current)];
        if (c == '?' || c == ':') {
            refuse(specs_, element, c);
        }
        for (std::size_t i = 0; i < specs_.size(); ++i) {
            if (value_of(specs_[i], i) == c) {
                hits.push_back({i,
                                element.starts_with("--") ? long_form(specs_[i])
                                                          : std::string("-") + static_cast<char>(c),
                                specs_[i].takes_value && optarg != nullptr ? optarg : ""});
                break;
            }
        }
    }
}

std::optional<std::string_view> OptionParser::take() {
    if (position_ >= args_.size()) {
        return std::nullopt;
    }
    return args_[position_++];
}

ScannedLine scan_all(std::span<const OptionSpec> specs, std::span<const std::string_view> args) {
    ScannedLine line;
    OptionParser parser(specs, args);
    for (;;) {
        std::vector<OptionHit> hits = parser.options();
        line.options.insert(line.options.end(), hits.begin(), hits.end());
        const std::optional<std::string_view> word = parser.take();
        if (!word) {
            return line;
        }
        line.words.push_back(*word);
    }
}

bool asks_for(std::span<const OptionSpec> specs, std::span<const std::string_view> args,
              std::string_view long_name, char short_name) {
    const auto is_flag_letter = [&specs](char c) {
        return std::any_of(specs.begin(), specs.end(), [c](const OptionSpec& spec) {
            return spec.short_name == c && !spec.takes_value;
        });
    };
    for (const std::string_view arg : args) {
        if (arg == "--") {
            return false;
        }
        if (arg.starts_with("--")) {
            const std::string_view name = arg.substr(2);
            if (name.empty() || !long_name.starts_with(name)) {
                continue;
            }
            const auto prefixes = std::count_if(specs.begin(), specs.end(), [name](const auto& s) {
                return !s.long_name.empty() && s.long_name.starts_with(name);
            });
            if (name == long_name || prefixes == 1) {
                return true;
            }
        } else if (short_name != 0 && arg.size() > 1 && arg.starts_with('-') &&
                   arg.find(short_name) != std::string_view::npos &&
                   std::all_of(arg.begin() + 1, arg.end(), is_flag_letter)) {
            return true;
        }
    }
    return false;
}

std::string given_twice(const OptionSpec& spec) {
    return "option " + quoted(long_form(spec)) + " given twice";
}

std::string one_of(std::span<const std::string_view> words, std::string_view last_joiner) {
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) {
            text += i + 1 == words.size() ? std::string(last_joiner) : std::string(", ");
        }
        text += words[i];
    }
    return text;
}

}  // namespace refnic::tool_cli
