/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// io_uring zero-copy receive (zcrx, Linux 7.3, Documentation/networking/iou-zcrx.rst): a
// process registers an area of its own memory for one RX queue of a NIC (an "interface queue",
// with io_uring_register_ifq), the NIC's page_pool for that queue takes its buffers from the
// area, and IORING_OP_RECV_ZC completions say where in the area each piece of a TCP flow
// steered to the queue landed. The process gives buffers back through a refill queue it shares
// with the kernel.
//
// Receiver does all of it over the raw io_uring syscalls (Debian's liburing has no zcrx calls),
// publishing refill entries in batches: one store of the refill queue's tail per batch, as
// io_uring's own refill path takes them a batch at a time.
#pragma once

#include <refnic/error.hpp>
#include <refnic/export.hpp>
#include <refnic/fd.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace refnic::zcrx {

// The kernel's largest refill queue (IO_RQ_MAX_ENTRIES).
inline constexpr std::uint32_t max_refill_entries = 32768;

struct ReceiverOptions {
    // Memory registered as the area (anonymous pages of the process), a multiple of the page
    // size. Every buffer of the queue's page_pool comes from it.
    std::size_t area_size = std::size_t{32} << 20U;
    // Refill entries published with one tail store; fewer are published when no data comes
    // for `batch_idle`, since the queue may need those buffers to deliver more. Count or
    // time, as interrupt coalescing: a steady flow fills batches, a pause empties them.
    std::uint32_t refill_batch = 64;
    std::chrono::milliseconds batch_idle{10};
    // Entries of the io_uring submission and completion queues. A RECV_ZC posts one
    // completion per piece of the flow it finds in the socket, and fails with ENOSPC when the
    // completion queue is full (the receiver then drains it and arms RECV_ZC again): a deep
    // completion queue avoids that.
    std::uint32_t ring_entries = 64;
    std::uint32_t completion_entries = 4096;
    // Bytes of each buffer the queue takes from the area (IORING_REGISTER_ZCRX_IFQ's
    // rx_buf_len): 0 for the kernel's choice, a page; else a power of two of a page or more,
    // dividing the area. Larger than a page, the area is of 2 MiB huge pages (io_uring needs
    // the memory of a buffer contiguous; vm.nr_hugepages must provide them) and a multiple of
    // 2 MiB. The driver may refuse a size its device cannot fill (refnic: above 64 KiB, ERANGE).
    std::uint32_t rx_buf_len = 0;
};

// A piece of the flow in the area: `size` bytes at `offset`.
struct Chunk {
    std::uint64_t offset = 0;
    std::uint32_t size = 0;

    friend bool operator==(const Chunk&, const Chunk&) = default;
};

// Counters for everything a Receiver did, so that a caller can report syscalls per GiB.
struct ReceiverStats {
    std::uint64_t enter_calls = 0;     // io_uring_enter(2), waits and submissions.
    std::uint64_t completions = 0;     // RECV_ZC completions, the final one included.
    std::uint64_t submissions = 0;     // RECV_ZC requests (multishot; re-armed when one ends).
    std::uint64_t cq_full = 0;         // RECV_ZC ended by a full completion queue (ENOSPC).
    std::uint64_t no_buffers = 0;      // RECV_ZC ended finding no free buffer (ENOMEM).
    std::uint64_t refill_entries = 0;  // Buffers given back.
    std::uint64_t refill_batches = 0;  // Stores of the refill queue's tail.
    std::uint64_t bytes = 0;

    [[nodiscard]] std::uint64_t syscalls() const noexcept { return enter_calls; }

    friend bool operator==(const ReceiverStats&, const ReceiverStats&) = default;
};

// The process's side of a refill queue (the memory io_uring_register_ifq set up: the
// kernel's head, the shared tail, the entries): writes an entry per buffer given back and
// stores the tail once per `batch` entries or on flush(). Entries that find the queue full
// (the kernel consumes them only as its page_pool needs buffers) wait in a backlog that
// flush() moves in as room appears. Works on any memory laid out that way, so that it can be
// tested without a kernel. Not copyable or movable: it is the queue's one writer.
class REFNIC_EXPORT RefillQueue {
public:
    // `entries` a power of two; `rqes` room for that many 16-byte struct io_uring_zcrx_rqe;
    // `area_token` the area's rq_area_token; `batch` from 1 to `entries`. Throws
    // Error(EINVAL) else.
    RefillQueue(std::uint32_t* head, std::uint32_t* tail, void* rqes, std::uint32_t entries,
                std::uint64_t area_token, std::uint32_t batch);
    RefillQueue(const RefillQueue&) = delete;
    RefillQueue& operator=(const RefillQueue&) = delete;
    RefillQueue(RefillQueue&&) = delete;
    RefillQueue& operator=(RefillQueue&&) = delete;
    ~RefillQueue() = default;

    // Adds an entry for `chunk` (its offset in the area); stores the tail when a batch is
    // full. With the queue full, the chunk joins the backlog.
    void give(const Chunk& chunk);
    // Moves what it can of the backlog in and stores the tail if entries are held back;
    // returns whether it stored.
    bool flush();

    // Entries written but not yet published, and chunks waiting for room.
    [[nodiscard]] std::uint32_t pending() const noexcept { return pending_; }
    [[nodiscard]] std::size_t backlog() const noexcept { return backlog_.size(); }
    [[nodiscard]] std::uint64_t entries_given() const noexcept { return given_; }
    [[nodiscard]] std::uint64_t tail_stores() const noexcept { return stores_; }

private:
    std::uint32_t* head_;
    std::uint32_t* tail_;
    void* rqes_;
    std::uint32_t mask_;
    std::uint64_t area_token_;
    std::uint32_t batch_;
    std::uint32_t local_tail_;
    std::uint32_t pending_ = 0;
    std::uint64_t given_ = 0;
    std::uint64_t stores_ = 0;
    std::vector<Chunk> backlog_;

    [[nodiscard]] bool room() const noexcept;
    void write(const Chunk& chunk);
};

// The outcome of one Receiver::receive(). `chunks` points into the receiver and stays valid
// until its next receive().
struct Received {
    std::size_t bytes = 0;
    std::span<const Chunk> chunks;
    bool eof = false;  // The peer closed: nothing more will come.
};

// An interface queue registered for one RX queue, receiving one connected TCP socket. Owns
// the io_uring, the area and the refill queue's memory; the registration ends with the ring,
// asynchronously: the kernel tears the ring down after the destructor returns, and the RX
// queue keeps the memory provider until then (a new registration on it may meanwhile fail
// with EEXIST; netdev queue-get shows the provider while it is there). The ring is single
// issuer: use a Receiver on the thread that made it. Not copyable or movable (the spans of
// Received point into it).
class REFNIC_EXPORT Receiver {
public:
    // Sets up the ring (CQE32, single issuer, deferred task work), maps the area and the
    // refill queue's region (as many entries as the area has pages, up to
    // max_refill_entries) and registers them for RX queue `rx_queue` of device `ifindex`.
    // Throws Error naming the step: io_uring_setup, mmap, or IORING_REGISTER_ZCRX_IFQ (EINVAL
    // when the queue has no header split or hds-thresh is not 0, EOPNOTSUPP when the driver
    // cannot, EEXIST when XDP is on the device or the queue has a memory provider already,
    // EBUSY with AF_XDP on it, EPERM without CAP_NET_ADMIN).
    Receiver(std::uint32_t ifindex, std::uint32_t rx_queue, ReceiverOptions options = {});
    Receiver(const Receiver&) = delete;
    Receiver& operator=(const Receiver&) = delete;
    Receiver(Receiver&&) = delete;
    Receiver& operator=(Receiver&&) = delete;
    ~Receiver();

    // Receives `socket` from now on (a connected TCP socket whose flow the NIC steers to the
    // queue): submits a multishot RECV_ZC. Throws Error(EBUSY) if a socket is attached.
    void attach(UniqueFd socket);

    // Waits for at least one completion and returns what all completions so far brought.
    // With refill entries held back it first waits options().batch_idle, then publishes them
    // and waits on. A RECV_ZC ended by a full completion queue or by finding no free buffer
    // is armed again. Throws Error when a RECV_ZC fails otherwise (its errno) or a completion
    // points outside the area; chunks that came before the failure are returned first, and
    // the next call throws.
    [[nodiscard]] Received receive();

    // The bytes of a chunk of the last receive(), in the area.
    [[nodiscard]] std::span<const std::byte> bytes(const Chunk& chunk) const;

    // Gives the chunks' buffers back once read: refill entries, published a batch at a time.
    void release(std::span<const Chunk> chunks);
    // Publishes the held-back refill entries now.
    void flush();

    [[nodiscard]] std::uint32_t zcrx_id() const noexcept { return zcrx_id_; }
    [[nodiscard]] std::uint32_t refill_entries() const noexcept { return rq_entries_; }
    [[nodiscard]] const ReceiverStats& stats() const noexcept { return stats_; }
    [[nodiscard]] const ReceiverOptions& options() const noexcept { return options_; }

private:
    // An munmap'd-on-destruction mapping.
    class Mapping {
    public:
        Mapping() noexcept = default;
        Mapping(void* address, std::size_t size) noexcept : address_(address), size_(size) {}
        Mapping(const Mapping&) = delete;
        Mapping& operator=(const Mapping&) = delete;
        Mapping(Mapping&& other) noexcept;
        Mapping& operator=(Mapping&& other) noexcept;
        ~Mapping();
        [[nodiscard]] std::byte* get() const noexcept { return static_cast<std::byte*>(address_); }
        [[nodiscard]] std::size_t size() const noexcept { return size_; }

    private:
        void* address_ = nullptr;
        std::size_t size_ = 0;
    };

    void setup_ring();
    void register_ifq(std::uint32_t ifindex, std::uint32_t rx_queue);
    void submit_recv();
    [[nodiscard]] bool wait_completion(std::optional<std::chrono::milliseconds> timeout);
    [[nodiscard]] bool cq_empty() const noexcept;
    [[nodiscard]] bool in_area(const Chunk& chunk) const noexcept;
    [[noreturn]] void throw_failure();
    void count_refills() noexcept;
    void reap();

    ReceiverOptions options_;
    UniqueFd ring_fd_;
    Mapping sq_ring_;
    Mapping cq_ring_;  // Empty when the kernel maps both rings at once (IORING_FEAT_SINGLE_MMAP).
    Mapping sqes_;
    std::uint32_t* sq_tail_ = nullptr;
    std::uint32_t* sq_head_ = nullptr;
    std::uint32_t sq_mask_ = 0;
    std::uint32_t sq_local_tail_ = 0;
    std::uint32_t* cq_head_ = nullptr;
    std::uint32_t* cq_tail_ = nullptr;
    std::byte* cqes_ = nullptr;
    std::uint32_t cq_mask_ = 0;
    Mapping area_;
    Mapping refill_region_;
    std::uint32_t zcrx_id_ = 0;
    std::uint32_t rq_entries_ = 0;
    std::optional<RefillQueue> refill_;  // Once registered.
    UniqueFd socket_;
    bool armed_ = false;
    bool eof_ = false;
    std::optional<Error> failed_;  // A failure reap() met after chunks: thrown next.
    std::uint32_t no_buffer_streak_ = 0;
    std::vector<Chunk> chunks_;
    ReceiverStats stats_;
};

}  // namespace refnic::zcrx
