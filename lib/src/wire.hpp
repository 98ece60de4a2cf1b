/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Netlink's 4-byte alignment as typed constants. The uapi/libmnl macros (NLA_ALIGN, MNL_ALIGN,
// NLA_HDRLEN, ...) compute with `~(4 - 1)` in int, which -Wsign-conversion rightly flags.
#pragma once

#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>

namespace refnic::nl::wire {

inline constexpr std::size_t alignment = 4;

[[nodiscard]] constexpr std::size_t align(std::size_t length) noexcept {
    return (length + alignment - 1) & ~(alignment - 1);
}

inline constexpr std::size_t message_header_size = align(sizeof(nlmsghdr));
inline constexpr std::size_t attr_header_size = align(sizeof(nlattr));

// nla_type without NLA_F_NESTED and NLA_F_NET_BYTEORDER.
inline constexpr std::uint16_t attr_type_mask = 0x3fff;
inline constexpr std::uint16_t attr_nested_flag = NLA_F_NESTED;

static_assert(attr_type_mask == static_cast<std::uint16_t>(NLA_TYPE_MASK));
static_assert(alignment == NLMSG_ALIGNTO && alignment == NLA_ALIGNTO);

}  // namespace refnic::nl::wire
