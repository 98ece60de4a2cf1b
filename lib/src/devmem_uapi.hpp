/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// COMPAT: the devmem TCP socket uAPI of Linux 6.12, absent from Debian 12's linux-libc-dev 6.1:
// the SO_DEVMEM_* / SCM_DEVMEM_* options (include/uapi/asm-generic/socket.h and the arch
// variants), MSG_SOCK_DEVMEM (include/linux/socket.h, which glibc mirrors in <bits/socket.h>),
// struct dmabuf_cmsg and struct dmabuf_token (include/uapi/linux/uio.h), and the per-call limits
// of SO_DEVMEM_DONTNEED (MAX_DONTNEED_TOKENS and MAX_DONTNEED_FRAGS in net/core/sock.c, not uAPI).
//
// The kernel's names are macros in newer headers, so the copies here are spelled in lower case
// (a constant named SO_DEVMEM_DMABUF would be rewritten by the preprocessor), live in a
// namespace of their own, and are checked against the installed headers wherever those have
// them.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>

namespace refnic::compat::devmem {

#if defined(__sparc__)
inline constexpr int so_devmem_linear = 0x0057;
inline constexpr int so_devmem_dmabuf = 0x0058;
inline constexpr int so_devmem_dontneed = 0x0059;
#elif defined(__hppa__)
inline constexpr int so_devmem_linear = 0x404E;
inline constexpr int so_devmem_dmabuf = 0x404F;
inline constexpr int so_devmem_dontneed = 0x4050;
#else
// asm-generic, and the same numbers on alpha and mips.
inline constexpr int so_devmem_linear = 78;
inline constexpr int so_devmem_dmabuf = 79;
inline constexpr int so_devmem_dontneed = 80;
#endif
inline constexpr int scm_devmem_linear = so_devmem_linear;
inline constexpr int scm_devmem_dmabuf = so_devmem_dmabuf;

// recvmsg() flag: hand devmem skbs to the caller as cmsgs instead of failing with EFAULT.
inline constexpr int msg_sock_devmem = 0x2000000;

// Per SO_DEVMEM_DONTNEED call: the option may hold at most this many token ranges (more is
// EINVAL), and the kernel stops after freeing this many frags (the rest stay held).
inline constexpr std::size_t max_dontneed_tokens = 128;
inline constexpr std::size_t max_dontneed_frags = 1024;

// struct dmabuf_cmsg: the payload of SCM_DEVMEM_DMABUF (a frag in the dmabuf) and of
// SCM_DEVMEM_LINEAR (only frag_size is set: that many bytes were copied into the iov).
struct dmabuf_cmsg {
    std::uint64_t frag_offset;  // Offset into the dmabuf where the frag starts.
    std::uint32_t frag_size;
    std::uint32_t frag_token;  // For SO_DEVMEM_DONTNEED.
    std::uint32_t dmabuf_id;   // The binding id (NETDEV_A_DMABUF_ID).
    std::uint32_t flags;       // Unused, reserved.
};

// struct dmabuf_token: one SO_DEVMEM_DONTNEED range, tokens token_start .. + token_count - 1.
struct dmabuf_token {
    std::uint32_t token_start;
    std::uint32_t token_count;
};

static_assert(sizeof(dmabuf_cmsg) == 24 && offsetof(dmabuf_cmsg, frag_offset) == 0 &&
                  offsetof(dmabuf_cmsg, frag_size) == 8 &&
                  offsetof(dmabuf_cmsg, frag_token) == 12 &&
                  offsetof(dmabuf_cmsg, dmabuf_id) == 16 && offsetof(dmabuf_cmsg, flags) == 20,
              "struct dmabuf_cmsg layout of Linux 6.12 include/uapi/linux/uio.h");
static_assert(sizeof(dmabuf_token) == 8 && offsetof(dmabuf_token, token_start) == 0 &&
                  offsetof(dmabuf_token, token_count) == 4,
              "struct dmabuf_token layout of Linux 6.12 include/uapi/linux/uio.h");

// Newer installed headers define the macros: they must agree.
#ifdef SO_DEVMEM_LINEAR
static_assert(SO_DEVMEM_LINEAR == so_devmem_linear && SCM_DEVMEM_LINEAR == scm_devmem_linear);
#endif
#ifdef SO_DEVMEM_DMABUF
static_assert(SO_DEVMEM_DMABUF == so_devmem_dmabuf && SCM_DEVMEM_DMABUF == scm_devmem_dmabuf);
#endif
#ifdef SO_DEVMEM_DONTNEED
static_assert(SO_DEVMEM_DONTNEED == so_devmem_dontneed);
#endif
#ifdef MSG_SOCK_DEVMEM
static_assert(MSG_SOCK_DEVMEM == msg_sock_devmem);
#endif

}  // namespace refnic::compat::devmem
