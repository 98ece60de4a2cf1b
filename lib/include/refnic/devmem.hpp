/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Devmem TCP receive (Linux 6.12, Documentation/networking/devmem.rst): a udmabuf to bind to RX
// queues with netdev::DmabufBinding::bind_rx, and a receiver that reads a TCP flow steered to
// those queues with recvmsg(MSG_SOCK_DEVMEM) and gives each frag back to the kernel with
// setsockopt(SO_DEVMEM_DONTNEED), one call per frag or batched. And devmem TX (Linux 6.16 and
// later): a sender whose payload the NIC reads from a dmabuf bound with
// netdev::DmabufBinding::bind_tx, sendmsg(MSG_ZEROCOPY) with an SCM_DEVMEM_DMABUF cmsg.
//
// Debian 12's uapi headers (6.1) have none of the devmem socket uAPI; librefnic carries the
// 6.12 values itself, so nothing here needs newer kernel headers.
#pragma once

#include <refnic/export.hpp>
#include <refnic/fd.hpp>

#include <sys/socket.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace refnic::devmem {

// What one SO_DEVMEM_DONTNEED call may carry on Linux 6.12 (net/core/sock.c): at most 128 token
// ranges (MAX_DONTNEED_TOKENS; more is EINVAL) and 1024 frags (MAX_DONTNEED_FRAGS; the kernel
// stops freeing after that many).
inline constexpr std::size_t max_dontneed_ranges = 128;
inline constexpr std::size_t max_dontneed_frags = 1024;

inline constexpr std::string_view udmabuf_device = "/dev/udmabuf";

// --- CPU access to a dmabuf -----------------------------------------------------------------

// Brackets CPU access to a dmabuf's mapping: DMA_BUF_IOCTL_SYNC with DMA_BUF_SYNC_START on
// construction, DMA_BUF_SYNC_END on end() or destruction. Move-only.
class REFNIC_EXPORT CpuAccess {
public:
    enum class Mode : std::uint8_t {
        read,
        write,
        read_write,
    };

    // `dmabuf_fd` is borrowed and must stay open until the access ends. Throws Error.
    explicit CpuAccess(int dmabuf_fd, Mode mode = Mode::read);
    CpuAccess(const CpuAccess&) = delete;
    CpuAccess& operator=(const CpuAccess&) = delete;
    CpuAccess(CpuAccess&& other) noexcept;
    CpuAccess& operator=(CpuAccess&& other) noexcept;
    // Ends the access if end() was not called; a failure is ignored there.
    ~CpuAccess();

    // Ends the access now; throws Error if the kernel refuses. Does nothing the second time.
    void end();
    [[nodiscard]] bool active() const noexcept { return fd_ >= 0; }

private:
    int fd_ = -1;
    Mode mode_ = Mode::read;
};

// --- Udmabuf --------------------------------------------------------------------------------

// Host memory exported as a dmabuf through /dev/udmabuf: a sealed memfd (F_SEAL_SHRINK) of
// `size` bytes, the dmabuf made from it (UDMABUF_CREATE), and a read-only shared mapping of the
// dmabuf. Owns all three. Move-only.
class REFNIC_EXPORT Udmabuf {
public:
    // `size` must be a nonzero multiple of the page size. Throws Error naming the step that
    // failed: opening /dev/udmabuf (ENOENT without the udmabuf driver, CONFIG_UDMABUF),
    // memfd_create, sealing, ftruncate, UDMABUF_CREATE (EINVAL above the driver's
    // size_limit_mb, 64 MiB by default) or mmap.
    explicit Udmabuf(std::size_t size);
    Udmabuf(const Udmabuf&) = delete;
    Udmabuf& operator=(const Udmabuf&) = delete;
    Udmabuf(Udmabuf&& other) noexcept;
    Udmabuf& operator=(Udmabuf&& other) noexcept;
    ~Udmabuf();

    // The dmabuf, for netdev::DmabufBinding::bind_rx and DMA_BUF_IOCTL_SYNC.
    [[nodiscard]] int fd() const noexcept { return dmabuf_.get(); }
    // The memfd whose pages back the dmabuf.
    [[nodiscard]] int memfd() const noexcept { return memfd_.get(); }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

    // The whole buffer. Read it only while a CpuAccess (cpu_read()) is active.
    [[nodiscard]] std::span<const std::byte> bytes() const noexcept;
    // `size` bytes at `offset`, e.g. a received frag; throws Error(ERANGE) past the end.
    [[nodiscard]] std::span<const std::byte> bytes(std::uint64_t offset, std::size_t size) const;
    // A CpuAccess of mode read on this dmabuf.
    [[nodiscard]] CpuAccess cpu_read() const { return CpuAccess(fd(), CpuAccess::Mode::read); }
    // Writes `data` at `offset` through the memfd, inside a CpuAccess of mode write (the mapping
    // is read-only); throws Error(ERANGE) past the end, Error for a failed write or sync.
    void write(std::uint64_t offset, std::span<const std::byte> data);

private:
    void unmap() noexcept;

    UniqueFd memfd_;
    UniqueFd dmabuf_;
    void* mapping_ = nullptr;
    std::size_t size_ = 0;
};

// --- Received data --------------------------------------------------------------------------

// One SCM_DEVMEM_DMABUF cmsg: `size` payload bytes at `offset` in the dmabuf of binding
// `dmabuf_id`, held by the socket until `token` is given back (Receiver::release).
struct Frag {
    std::uint64_t offset = 0;
    std::uint32_t size = 0;
    std::uint32_t token = 0;
    std::uint32_t dmabuf_id = 0;

    friend bool operator==(const Frag&, const Frag&) = default;
};

// What the cmsgs of one recvmsg(MSG_SOCK_DEVMEM) said besides the frags.
struct ControlSummary {
    std::uint64_t linear_bytes = 0;  // Sum of the SCM_DEVMEM_LINEAR sizes.
    std::size_t devmem_cmsgs = 0;    // SCM_DEVMEM_LINEAR and SCM_DEVMEM_DMABUF cmsgs.

    friend bool operator==(const ControlSummary&, const ControlSummary&) = default;
};

// Decodes the control data (msg_control, msg_controllen bytes) of one recvmsg(MSG_SOCK_DEVMEM):
// appends a Frag per SCM_DEVMEM_DMABUF to `frags`, in order. Other cmsgs are skipped. Throws
// Error(EPROTO) for a truncated cmsg or a devmem cmsg that is not a struct dmabuf_cmsg.
[[nodiscard]] REFNIC_EXPORT ControlSummary parse_control(std::span<const std::byte> control,
                                                         std::vector<Frag>& frags);

// --- Giving frags back ----------------------------------------------------------------------

// One struct dmabuf_token: tokens start .. start + count - 1 (same layout as the kernel's).
struct TokenRange {
    std::uint32_t start = 0;
    std::uint32_t count = 0;

    friend bool operator==(const TokenRange&, const TokenRange&) = default;
};

// The tokens of one SO_DEVMEM_DONTNEED call, no syscalls involved: a token that continues the
// last range (last.start + last.count) extends it, any other token opens a new range, and the
// batch refuses a token that would take it past `max_ranges` ranges or `max_frags` tokens.
class REFNIC_EXPORT TokenBatch {
public:
    // The kernel's limits by default; smaller ones for tests. Both must be at least 1.
    explicit TokenBatch(std::size_t max_ranges = max_dontneed_ranges,
                        std::size_t max_frags = max_dontneed_frags);

    // Adds `token`, or returns false and leaves the batch as it was if it does not fit: send
    // the batch, clear() it and add the token again.
    [[nodiscard]] bool add(std::uint32_t token);
    // Whether add(token) would succeed.
    [[nodiscard]] bool fits(std::uint32_t token) const noexcept;

    [[nodiscard]] std::span<const TokenRange> ranges() const noexcept { return ranges_; }
    [[nodiscard]] std::size_t frags() const noexcept { return frags_; }
    [[nodiscard]] bool empty() const noexcept { return frags_ == 0; }
    [[nodiscard]] std::size_t max_ranges() const noexcept { return max_ranges_; }
    [[nodiscard]] std::size_t max_frags() const noexcept { return max_frags_; }
    void clear() noexcept;

private:
    [[nodiscard]] bool extends_last(std::uint32_t token) const noexcept;

    std::vector<TokenRange> ranges_;
    std::size_t frags_ = 0;
    std::size_t max_ranges_;
    std::size_t max_frags_;
};

// --- The receiver ---------------------------------------------------------------------------

// How Receiver::release gives tokens back.
enum class Release : std::uint8_t {
    per_frag,  // One SO_DEVMEM_DONTNEED per frag, as the kernel's ncdevmem does.
    batched,   // Tokens merged into ranges; one call per full TokenBatch, flush(), destruction,
               // or ReceiverOptions::batch_idle with nothing to read.
};

// "per-frag", "batched".
[[nodiscard]] REFNIC_EXPORT std::string_view to_string(Release release) noexcept;

struct ReceiverOptions {
    Release release = Release::batched;
    // The iov's length: recvmsg returns at most this many bytes, devmem or not.
    std::size_t max_bytes = std::size_t{4} << 20U;
    // Room in the control buffer for this many devmem cmsgs, so at most that many frags per
    // recvmsg (the kernel stops early rather than truncate one).
    std::size_t max_frags = max_dontneed_frags;
    // How long receive() waits for data holding batched tokens before it sends them: they are
    // buffers the bound queue may need to deliver that data. Count or time, as interrupt
    // coalescing: a steady flow fills batches, a pause empties them.
    std::chrono::milliseconds batch_idle{10};
};

// Counters for everything a Receiver did, so that a caller can report syscalls per GiB.
struct ReceiverStats {
    std::uint64_t recvmsg_calls = 0;   // Including EINTR retries and the final 0 (EOF).
    std::uint64_t dontneed_calls = 0;  // setsockopt(SO_DEVMEM_DONTNEED), failed ones too.
    std::uint64_t poll_calls = 0;      // poll() before a recvmsg, with tokens batched.
    std::uint64_t frags = 0;           // SCM_DEVMEM_DMABUF frags received.
    std::uint64_t frags_released = 0;  // Frags the kernel confirmed freed.
    std::uint64_t devmem_bytes = 0;    // Payload in dmabuf frags.
    std::uint64_t linear_bytes = 0;    // Payload copied into the iov, announced by
                                       // SCM_DEVMEM_LINEAR.
    std::uint64_t plain_bytes = 0;     // Payload copied into the iov without any devmem cmsg:
                                       // the flow did not arrive on a bound queue.

    [[nodiscard]] std::uint64_t bytes() const noexcept {
        return devmem_bytes + linear_bytes + plain_bytes;
    }
    [[nodiscard]] std::uint64_t syscalls() const noexcept {
        return recvmsg_calls + dontneed_calls + poll_calls;
    }

    friend bool operator==(const ReceiverStats&, const ReceiverStats&) = default;
};

// The outcome of one Receiver::receive(). The spans point into the receiver and stay valid
// until its next receive().
struct Received {
    std::size_t bytes = 0;              // recvmsg's return value; 0 is the end of the stream.
    std::span<const Frag> frags;        // Payload in the dmabuf, in stream order.
    std::span<const std::byte> linear;  // Payload copied into the iov instead.
    bool devmem = false;                // Whether the kernel sent devmem cmsgs at all; when
                                        // false, `linear` is plain TCP data.

    [[nodiscard]] bool eof() const noexcept { return bytes == 0; }
};

// Receives a devmem TCP flow on a connected, blocking TCP socket that it owns. Not copyable or
// movable (the spans of Received point into it).
class REFNIC_EXPORT Receiver {
public:
    // Throws Error(EINVAL) for max_bytes or max_frags of 0 or an invalid socket.
    explicit Receiver(UniqueFd socket, ReceiverOptions options = {});
    Receiver(const Receiver&) = delete;
    Receiver& operator=(const Receiver&) = delete;
    Receiver(Receiver&&) = delete;
    Receiver& operator=(Receiver&&) = delete;
    // Sends the tokens still batched (a failure is ignored there: call flush() to see it), then
    // closes the socket, which frees whatever frags it still held.
    ~Receiver();

    // One recvmsg(MSG_SOCK_DEVMEM), repeated on EINTR. With tokens batched it first polls the
    // socket for options().batch_idle and, nothing to read by then, sends the batch before it
    // waits on: the tokens held are buffers the queue may need to deliver more. Throws Error
    // when poll or recvmsg fails, when
    // the control data was truncated (MSG_CTRUNC: tokens would be lost) or does not account
    // for the bytes received.
    [[nodiscard]] Received receive();

    // Gives the tokens of `frags` back once their payload has been read: per_frag sends each
    // at once, batched adds them to the batch and sends it whenever the next token would not
    // fit. Throws Error when setsockopt fails or the kernel frees fewer frags than given.
    void release(std::span<const Frag> frags);
    // Sends the batched tokens now (nothing to do if none, or with per_frag).
    void flush();

    [[nodiscard]] std::size_t pending_frags() const noexcept { return batch_.frags(); }
    [[nodiscard]] const ReceiverStats& stats() const noexcept { return stats_; }
    [[nodiscard]] const ReceiverOptions& options() const noexcept { return options_; }
    [[nodiscard]] int fd() const noexcept { return socket_.get(); }

private:
    void dontneed(std::span<const TokenRange> ranges, std::size_t frags);
    void wait_or_flush();

    UniqueFd socket_;
    ReceiverOptions options_;
    std::vector<std::byte> iov_;
    std::vector<std::uint64_t> control_;  // 8-byte aligned, as cmsghdr needs.
    std::vector<Frag> frags_;
    TokenBatch batch_;
    ReceiverStats stats_;
};

// --- Sending from a dmabuf (devmem TX) ------------------------------------------------------

struct SenderOptions {
    // Longest iovec: a send is cut into iovecs of at most this many bytes, as ncdevmem -z does
    // (each becomes a frag of its own). 0: one iovec per send.
    std::size_t max_chunk = 0;
    // Most bytes one sendmsg carries.
    std::size_t max_send = std::size_t{1} << 20U;
    // How long wait_completions() waits for the kernel's notifications before it throws.
    std::chrono::milliseconds completion_timeout{30000};
};

// Counters for everything a Sender did.
struct SenderStats {
    std::uint64_t sendmsg_calls = 0;   // Successful ones, each a zerocopy notification id.
    std::uint64_t enobufs = 0;         // sendmsg refused for lack of notification memory
                                       // (optmem): completions were read, then it retried.
    std::uint64_t errqueue_reads = 0;  // recvmsg(MSG_ERRQUEUE) that returned a notification.
    std::uint64_t poll_calls = 0;      // Waits for notifications.
    std::uint64_t completed = 0;       // sendmsg calls the kernel reported done with the
                                       // dmabuf (SO_EE_ORIGIN_ZEROCOPY ranges).
    std::uint64_t copied = 0;          // Of those, reported SO_EE_CODE_ZEROCOPY_COPIED.
    std::uint64_t bytes = 0;           // Payload the kernel took.

    [[nodiscard]] std::uint64_t syscalls() const noexcept {
        return sendmsg_calls + enobufs + errqueue_reads + poll_calls;
    }

    friend bool operator==(const SenderStats&, const SenderStats&) = default;
};

// Sends from a dmabuf bound for TX on a connected TCP socket that it owns and that is bound to
// the binding's device (SO_BINDTODEVICE: the kernel drops devmem frames routed elsewhere). The
// payload stays in the dmabuf: the NIC reads it there. A range sent must not change until the
// kernel reports its send complete (wait_completions()). Not copyable or movable.
class REFNIC_EXPORT Sender {
public:
    // Turns SO_ZEROCOPY on. Throws Error(EINVAL) for an invalid socket or max_send of 0, Error
    // when the kernel refuses SO_ZEROCOPY.
    Sender(UniqueFd socket, std::uint32_t binding_id, SenderOptions options = {});
    Sender(const Sender&) = delete;
    Sender& operator=(const Sender&) = delete;
    Sender(Sender&&) = delete;
    Sender& operator=(Sender&&) = delete;
    ~Sender();

    // Sends `size` bytes at `offset` of the dmabuf, in sendmsg calls of at most max_send bytes,
    // blocking until the kernel took them all. Reads notifications on the way. Throws Error when
    // sendmsg fails: EFAULT for a range outside the dmabuf, EINVAL for a binding that is gone,
    // ENODEV for a route through another device than the binding's, ENOBUFS when the socket's
    // option memory cannot hold even one notification.
    void send(std::uint64_t offset, std::size_t size);
    // Reads the notifications already queued, without waiting; returns the sends they complete.
    std::uint64_t read_completions();
    // Waits until every send so far is complete; throws Error(ETIMEDOUT) after
    // options().completion_timeout without news, Error(EIO) for a notification with an error,
    // the socket's error when the connection failed.
    void wait_completions();

    // Sends not yet reported complete.
    [[nodiscard]] std::uint64_t outstanding() const noexcept {
        return stats_.sendmsg_calls - stats_.completed;
    }
    [[nodiscard]] const SenderStats& stats() const noexcept { return stats_; }
    [[nodiscard]] const SenderOptions& options() const noexcept { return options_; }
    [[nodiscard]] std::uint32_t binding_id() const noexcept { return binding_id_; }
    [[nodiscard]] int fd() const noexcept { return socket_.get(); }

private:
    std::size_t send_once(std::uint64_t offset, std::size_t size);
    bool wait_for_notification(std::chrono::steady_clock::time_point deadline);
    void check_socket_error();
    std::uint64_t count_notification(msghdr& message);

    UniqueFd socket_;
    std::uint32_t binding_id_ = 0;
    SenderOptions options_;
    std::vector<iovec> iov_;
    SenderStats stats_;
};

}  // namespace refnic::devmem
