/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// COMPAT: uapi constants newer than the oldest kernel headers we build against.
//
// Debian 12 ships linux-libc-dev 6.1, but refnic targets Linux 6.12. The constants below are
// copied by value from Linux 6.12 include/uapi/linux/ethtool_netlink.h (enum ETHTOOL_A_RINGS_*,
// the three entries after ETHTOOL_A_RINGS_TX_PUSH, absent from 6.1). They live in their own
// namespace so they never collide with the enumerators of newer installed headers, and the
// static_assert ties them to the numbering of whatever headers are installed.
#pragma once

#include <linux/ethtool_netlink.h>

#include <cstdint>

namespace refnic::compat {

inline constexpr std::uint16_t ETHTOOL_A_RINGS_RX_PUSH = 14;              // u8
inline constexpr std::uint16_t ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN = 15;      // u32
inline constexpr std::uint16_t ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN_MAX = 16;  // u32

static_assert(::ETHTOOL_A_RINGS_TX_PUSH == 13, "uapi ETHTOOL_A_RINGS_* numbering changed");

}  // namespace refnic::compat
