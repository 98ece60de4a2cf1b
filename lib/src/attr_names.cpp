// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
#include "attr_names.hpp"

#include <utility>

namespace refnic::nl::detail {

namespace {

constexpr std::size_t genl_header_size = 4;

}  // namespace

Error with_attribute_names(const Error& error, const MessageBuilder& request,
                           const AttrNamer& name_of) {
    Extack extack = error.extack();
    const Bytes bytes = request.bytes();
    if (extack.attr_offset) {
        extack.attr_name = name_of(attribute_path_at(bytes, genl_header_size, *extack.attr_offset));
    }
    if (extack.missing_attr) {
        std::vector<std::uint16_t> path;
        if (extack.missing_in_nest) {
            path = attribute_path_at(bytes, genl_header_size, *extack.missing_in_nest);
        }
        if (!extack.missing_in_nest || !path.empty()) {
            path.push_back(static_cast<std::uint16_t>(*extack.missing_attr));
            extack.missing_attr_name = name_of(path);
        }
    }
    return {error.errnum(), error.context(), std::move(extack), error.from_kernel()};
}

std::string name_in(const AttrSet& top, const std::vector<std::uint16_t>& path) {
    const AttrSet* set = &top;
    std::string name;
    for (std::size_t i = 0; i < path.size(); ++i) {
        const std::uint16_t type = path[i];
        if (set == nullptr || type == 0 || type >= set->names.size() ||
            set->names[type] == nullptr) {
            return {};
        }
        name = std::string(set->set_name) + "." + set->names[type];
        if (i + 1 < path.size()) {
            set = type < set->nested.size() ? set->nested[type] : nullptr;
        }
    }
    return name;
}

}  // namespace refnic::nl::detail
