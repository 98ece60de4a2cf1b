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

std::vector<std::string_view> names_of(std::span<const WordSpec> table) {
    std::vector<std::string_view> names;
    names.reserve(table.size());
    for (const WordSpec& spec : table) {
        names.push_back(spec.name);
    }
    return names;
}

}  // namespace refnic::tool_cli
