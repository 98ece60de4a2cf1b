/* SPDX-License-Identifier: GPL-2.0-only */
// Words of an ip(8)-style grammar (OBJECT VERB [KEYWORD VALUE]...): each word may be given as
// any non-empty prefix that names one thing. A word equal to a name or synonym is that name
// (so "peer" is peer, not ambiguous with peer-netns); otherwise every name and synonym it
// begins is collected, the synonyms of one name counting once. Values are never matched here.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::tool_cli {

// A name and the synonyms that mean the same ("show": "list", "ls"). The synonyms are a view:
// keep them in a static array, as the tables are.
struct WordSpec {
    std::string_view name;
    std::span<const std::string_view> synonyms = {};
};

struct WordMatch {
    enum class Kind : unsigned char { found, unknown, ambiguous } kind = Kind::unknown;
    std::size_t index = 0;                     // Into the table, when found.
    std::vector<std::string_view> candidates;  // Main names, in table order, when ambiguous.
};

[[nodiscard]] WordMatch match_word(std::string_view word, std::span<const WordSpec> table);

// Whether WORD looks like a misspelling of a name or synonym of TABLE: one letter added, left
// out, changed, or two neighbours swapped (two such edits for words of 5 letters or more;
// none for words shorter than 3).
// Used to tell a typo'd verb from a device name where either could stand.
[[nodiscard]] bool near_miss(std::string_view word, std::span<const WordSpec> table);

// The main names of a table, in order.
[[nodiscard]] std::vector<std::string_view> names_of(std::span<const WordSpec> table);

}  // namespace refnic::tool_cli
