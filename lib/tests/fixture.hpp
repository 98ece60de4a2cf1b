/* SPDX-License-Identifier: GPL-2.0-only */
// Helpers for writing netlink byte fixtures in tests.
#pragma once

#include <refnic/netlink.hpp>

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::test {

// Bytes from a list of values 0..255 (numbers or character literals).
inline std::vector<std::byte> bytes(std::initializer_list<int> values) {
    std::vector<std::byte> result;
    result.reserve(values.size());
    for (const int value : values) {
        if (value < 0 || value > 0xff) {
            throw std::out_of_range("fixture byte out of range: " + std::to_string(value));
        }
        result.push_back(static_cast<std::byte>(value));
    }
    return result;
}

// "1a 00 ..." so that a failing comparison shows where the bytes differ.
inline std::string hex(nl::Bytes data) {
    constexpr std::string_view digits = "0123456789abcdef";
    std::string text;
    for (std::size_t i = 0; i < data.size(); ++i) {
        const auto value = static_cast<unsigned>(data[i]);
        text += (i % 16 == 0) ? (i == 0 ? "" : "\n") : " ";
        text += digits[value >> 4U];
        text += digits[value & 0xfU];
    }
    return text;
}

}  // namespace refnic::test
