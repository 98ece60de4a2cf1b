/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// COMPAT: the io_uring zero-copy receive (zcrx) uAPI of Linux 7.3, absent from Debian 12's
// linux-libc-dev 6.1 (which has the rest of io_uring that librefnic uses): IORING_OP_RECV_ZC,
// IORING_REGISTER_ZCRX_IFQ and IORING_MEM_REGION_TYPE_USER (enum values in
// include/uapi/linux/io_uring.h), struct io_uring_region_desc (same file) and
// include/uapi/linux/io_uring/zcrx.h. Spelled in lower case in a namespace of their own, as
// devmem_uapi.hpp does, so that newer headers' names cannot collide with them.
#pragma once

#include <array>
#include <cstdint>

namespace refnic::compat::zcrx {

inline constexpr std::uint8_t op_recv_zc = 58;            // IORING_OP_RECV_ZC
inline constexpr unsigned int register_zcrx_ifq = 32;     // IORING_REGISTER_ZCRX_IFQ
inline constexpr std::uint32_t mem_region_type_user = 1;  // IORING_MEM_REGION_TYPE_USER

// An offset in a zcrx CQE or refill entry carries the area's id from this bit up.
inline constexpr unsigned int area_shift = 48;  // IORING_ZCRX_AREA_SHIFT
inline constexpr std::uint64_t area_offset_mask = (std::uint64_t{1} << area_shift) - 1;

// struct io_uring_zcrx_rqe: one buffer given back through the refill queue.
struct rqe {
    std::uint64_t off;  // rq_area_token | offset in the area
    std::uint32_t len;
    std::uint32_t pad;
};

// struct io_uring_zcrx_cqe: the second half of a RECV_ZC completion in a CQE32 ring.
struct cqe {
    std::uint64_t off;  // area id << area_shift | offset in the area
    std::uint64_t pad;
};

// struct io_uring_zcrx_offsets: where the refill queue's fields are in its region.
struct zcrx_offsets {
    std::uint32_t head;
    std::uint32_t tail;
    std::uint32_t rqes;
    std::uint32_t resv2;
    std::array<std::uint64_t, 2> resv;
};

// struct io_uring_zcrx_area_reg
struct area_reg {
    std::uint64_t addr;
    std::uint64_t len;
    std::uint64_t rq_area_token;  // Out: what refill entries carry in their offset's top bits.
    std::uint32_t flags;
    std::uint32_t dmabuf_fd;
    std::array<std::uint64_t, 2> resv2;
};

// struct io_uring_region_desc
struct region_desc {
    std::uint64_t user_addr;
    std::uint64_t size;
    std::uint32_t flags;
    std::uint32_t id;
    std::uint64_t mmap_offset;
    std::array<std::uint64_t, 4> resv;
};

// struct io_uring_zcrx_ifq_reg: IORING_REGISTER_ZCRX_IFQ's argument.
struct ifq_reg {
    std::uint32_t if_idx;
    std::uint32_t if_rxq;
    std::uint32_t rq_entries;  // In: wanted; out: granted (a power of two).
    std::uint32_t flags;
    std::uint64_t area_ptr;    // struct area_reg *
    std::uint64_t region_ptr;  // struct region_desc *
    zcrx_offsets offsets;      // Out.
    std::uint32_t zcrx_id;     // Out: RECV_ZC's sqe->zcrx_ifq_idx.
    std::uint32_t rx_buf_len;  // 0: the kernel's choice (a page).
    std::uint64_t event_desc;
    std::array<std::uint64_t, 2> resv;
};

static_assert(sizeof(rqe) == 16 && sizeof(cqe) == 16 && sizeof(zcrx_offsets) == 32);
static_assert(sizeof(area_reg) == 48 && sizeof(region_desc) == 64 && sizeof(ifq_reg) == 96);

}  // namespace refnic::compat::zcrx
