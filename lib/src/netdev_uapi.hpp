/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// COMPAT: the "netdev" generic netlink family's numbering from Linux 6.12
// include/uapi/linux/netdev.h (generated from Documentation/netlink/specs/netdev.yaml). Debian
// 12's linux-libc-dev 6.1 has no <linux/netdev.h> at all, so the values are copied here, in a
// namespace of their own so they never collide with a newer installed header. Attribute and
// command numbers of a YNL family only ever grow, so these stay valid on newer kernels.
#pragma once

#include <cstdint>

namespace refnic::compat::netdev {

inline constexpr std::uint8_t NETDEV_FAMILY_VERSION = 1;

inline constexpr std::uint32_t NETDEV_QUEUE_TYPE_RX = 0;
inline constexpr std::uint32_t NETDEV_QUEUE_TYPE_TX = 1;
inline constexpr std::uint32_t NETDEV_QSTATS_SCOPE_QUEUE = 1;

// enum NETDEV_A_PAGE_POOL_*
inline constexpr std::uint16_t NETDEV_A_PAGE_POOL_ID = 1;
inline constexpr std::uint16_t NETDEV_A_PAGE_POOL_IFINDEX = 2;
inline constexpr std::uint16_t NETDEV_A_PAGE_POOL_NAPI_ID = 3;
inline constexpr std::uint16_t NETDEV_A_PAGE_POOL_INFLIGHT = 4;
inline constexpr std::uint16_t NETDEV_A_PAGE_POOL_INFLIGHT_MEM = 5;
inline constexpr std::uint16_t NETDEV_A_PAGE_POOL_DETACH_TIME = 6;
inline constexpr std::uint16_t NETDEV_A_PAGE_POOL_DMABUF = 7;

// enum NETDEV_A_NAPI_*
inline constexpr std::uint16_t NETDEV_A_NAPI_IFINDEX = 1;
inline constexpr std::uint16_t NETDEV_A_NAPI_ID = 2;
inline constexpr std::uint16_t NETDEV_A_NAPI_IRQ = 3;
inline constexpr std::uint16_t NETDEV_A_NAPI_PID = 4;

// enum NETDEV_A_QUEUE_*
inline constexpr std::uint16_t NETDEV_A_QUEUE_ID = 1;
inline constexpr std::uint16_t NETDEV_A_QUEUE_IFINDEX = 2;
inline constexpr std::uint16_t NETDEV_A_QUEUE_TYPE = 3;
inline constexpr std::uint16_t NETDEV_A_QUEUE_NAPI_ID = 4;
inline constexpr std::uint16_t NETDEV_A_QUEUE_DMABUF = 5;

// enum NETDEV_A_QSTATS_*: the counters run on from RX_PACKETS (8) to TX_WAKE (34).
inline constexpr std::uint16_t NETDEV_A_QSTATS_IFINDEX = 1;
inline constexpr std::uint16_t NETDEV_A_QSTATS_QUEUE_TYPE = 2;
inline constexpr std::uint16_t NETDEV_A_QSTATS_QUEUE_ID = 3;
inline constexpr std::uint16_t NETDEV_A_QSTATS_SCOPE = 4;
inline constexpr std::uint16_t NETDEV_A_QSTATS_RX_PACKETS = 8;
inline constexpr std::uint16_t NETDEV_A_QSTATS_TX_WAKE = 34;

// enum NETDEV_A_DMABUF_*
inline constexpr std::uint16_t NETDEV_A_DMABUF_IFINDEX = 1;
inline constexpr std::uint16_t NETDEV_A_DMABUF_QUEUES = 2;
inline constexpr std::uint16_t NETDEV_A_DMABUF_FD = 3;
inline constexpr std::uint16_t NETDEV_A_DMABUF_ID = 4;

// enum NETDEV_CMD_*
inline constexpr std::uint8_t NETDEV_CMD_PAGE_POOL_GET = 5;
inline constexpr std::uint8_t NETDEV_CMD_PAGE_POOL_ADD_NTF = 6;
inline constexpr std::uint8_t NETDEV_CMD_PAGE_POOL_DEL_NTF = 7;
inline constexpr std::uint8_t NETDEV_CMD_PAGE_POOL_CHANGE_NTF = 8;
inline constexpr std::uint8_t NETDEV_CMD_QUEUE_GET = 10;
inline constexpr std::uint8_t NETDEV_CMD_NAPI_GET = 11;
inline constexpr std::uint8_t NETDEV_CMD_QSTATS_GET = 12;
inline constexpr std::uint8_t NETDEV_CMD_BIND_RX = 13;
// Linux 6.16 and later (devmem TX).
inline constexpr std::uint8_t NETDEV_CMD_BIND_TX = 15;

}  // namespace refnic::compat::netdev
