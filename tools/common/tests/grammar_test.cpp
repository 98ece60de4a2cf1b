// SPDX-License-Identifier: GPL-2.0-only
// The word matcher of refnicctl's grammar: names, synonyms, prefixes, ambiguity.
#include "grammar.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace refnic::tool_cli {
namespace {

constexpr std::array<std::string_view, 1> add_synonyms{"new"};
constexpr std::array<std::string_view, 1> del_synonyms{"delete"};
constexpr std::array<std::string_view, 2> show_synonyms{"list", "ls"};

const std::array<WordSpec, 5> verbs{{
    {"add", add_synonyms},
    {"del", del_synonyms},
    {"set"},
    {"show", show_synonyms},
    {"help"},
}};

const std::array<WordSpec, 4> keywords{{{"name"}, {"peer"}, {"netns"}, {"peer-netns"}}};

std::string match(std::string_view word, std::span<const WordSpec> table) {
    const WordMatch found = match_word(word, table);
    switch (found.kind) {
        case WordMatch::Kind::found:
            return std::string(table[found.index].name);
        case WordMatch::Kind::unknown:
            return "unknown";
        case WordMatch::Kind::ambiguous:
            break;
    }
    std::string text = "ambiguous:";
    for (const std::string_view candidate : found.candidates) {
        text += " " + std::string(candidate);
    }
    return text;
}

TEST(GrammarTest, NamesSynonymsAndPrefixes) {
    EXPECT_EQ(match("show", verbs), "show");
    EXPECT_EQ(match("ls", verbs), "show");
    EXPECT_EQ(match("l", verbs), "show");  // list and ls are one name
    EXPECT_EQ(match("d", verbs), "del");
    EXPECT_EQ(match("n", verbs), "add");
    EXPECT_EQ(match("sh", verbs), "show");
    EXPECT_EQ(match("se", verbs), "set");
    EXPECT_EQ(match("s", verbs), "ambiguous: set show");
    EXPECT_EQ(match("frob", verbs), "unknown");
    EXPECT_EQ(match("", verbs), "unknown");
    EXPECT_EQ(match("shows", verbs), "unknown");
}

TEST(GrammarTest, NearMissesAreTyposNotDevices) {
    EXPECT_TRUE(near_miss("shwo", verbs));    // swapped neighbours
    EXPECT_TRUE(near_miss("shw", verbs));     // a letter left out
    EXPECT_TRUE(near_miss("shoow", verbs));   // a letter added
    EXPECT_TRUE(near_miss("lst", verbs));     // a synonym's
    EXPECT_TRUE(near_miss("shwoo", verbs));   // 2 edits, allowed from 5 letters
    EXPECT_FALSE(near_miss("shxyz", verbs));  // 3 from show
    EXPECT_FALSE(near_miss("r0", verbs));
    EXPECT_FALSE(near_miss("eth0", verbs));
    EXPECT_FALSE(near_miss("lo", verbs));
    EXPECT_FALSE(near_miss("veth1", verbs));
}

TEST(GrammarTest, ExactBeatsPrefix) {
    EXPECT_EQ(match("peer", keywords), "peer");
    EXPECT_EQ(match("pee", keywords), "ambiguous: peer peer-netns");
    EXPECT_EQ(match("peer-", keywords), "peer-netns");
    EXPECT_EQ(match("n", keywords), "ambiguous: name netns");
    EXPECT_EQ(match("na", keywords), "name");
}

}  // namespace
}  // namespace refnic::tool_cli
