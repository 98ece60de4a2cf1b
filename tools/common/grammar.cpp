// SPDX-License-Identifier: GPL-2.0-only
#include "grammar.hpp"

#include <algorithm>

namespace refnic::tool_cli {

WordMatch match_word(std::string_view word, std::span<const WordSpec> table) {
    WordMatch match;
    if (word.empty()) {
        return match;
    }
    for (std::size_t i = 0; i < table.size(); ++i) {
        const WordSpec& spec = table[i];
        if (word == spec.name ||
            std::find(spec.synonyms.begin(), spec.synonyms.end(), word) != spec.synonyms.end()) {
            return {WordMatch::Kind::found, i, {}};
        }
    }
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < table.size(); ++i) {
        const WordSpec& spec = table[i];
        const bool begins = spec.name.starts_with(word) ||
                            std::any_of(spec.synonyms.begin(), spec.synonyms.end(),
                                        [word](std::string_view s) { return s.starts_with(word); });
        if (begins) {
            found.push_back(i);
        }
    }
    if (found.size() == 1) {
        return {WordMatch::Kind::found, found.front(), {}};
    }
    if (found.size() > 1) {
        match.kind = WordMatch::Kind::ambiguous;
        for (const std::size_t i : found) {
            match.candidates.push_back(table[i].name);
        }
    }
    return match;
}

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
// neighbours, each costing 1.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) {
        d[i][0] = i;
    }
    for (std::size_t j = 0; j <= b.size(); ++j) {
        d[0][j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

}  // namespace

bool near_miss(std::string_view word, std::span<const WordSpec> table) {
    if (word.size() < 3) {
        return false;  // r0, lo: too short to tell from a name
    }
    const std::size_t allowed = word.size() >= 5 ? 2 : 1;
    const auto near = [word, allowed](std::string_view name) {
        return edit_distance(word, name) <= allowed;
    };
    return std::any_of(table.begin(), table.end(), [&near](const WordSpec& spec) {
        return near(spec.name) || std::any_of(spec.synonyms.begin(), spec.synonyms.end(), near);
    });
}

std::vector<std::string_view> names_of(std::span<const WordSpec> table) {
    std::vector<std::string_view> names;
    names.reserve(table.size());
    for (const WordSpec& spec : table) {
        names.push_back(spec.name);
    }
    return names;
}

}  // namespace refnic::tool_cli
