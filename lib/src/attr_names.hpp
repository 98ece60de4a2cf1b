/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Naming the attribute a kernel extack points at (NLMSGERR_ATTR_OFFS, NLMSGERR_ATTR_MISS_*),
// for the family clients that know the request they sent.
#pragma once

#include <refnic/error.hpp>
#include <refnic/netlink.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace refnic::nl::detail {

// The name of an attribute given its path of types in the request, outermost first ("" if
// unknown).
using AttrNamer = std::function<std::string(const std::vector<std::uint16_t>& path)>;

// `error` with Extack::attr_name and Extack::missing_attr_name filled in from `request`.
[[nodiscard]] Error with_attribute_names(const Error& error, const MessageBuilder& request,
                                         const AttrNamer& name_of);

// A name table entry: attribute set name, then names indexed by attribute type (index 0 unused).
struct AttrSet {
    const char* set_name;
    std::vector<const char*> names;
    // Attribute set nested in each attribute type, or null.
    std::vector<const AttrSet*> nested;
};

// "set.attr" for `path` walked through `top`, "" when a step is not in the tables.
[[nodiscard]] std::string name_in(const AttrSet& top, const std::vector<std::uint16_t>& path);

}  // namespace refnic::nl::detail
