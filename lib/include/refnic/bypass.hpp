/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
// Kernel-bypass queues (uapi/linux/refnic_bypass.h): a refnic queue pair bound to a process
// through /dev/refnic. The device writes received frames into buffers of the process's own memory
// (the umem) and sends frames the process wrote there; four single-producer single-consumer
// rings carry buffer offsets and descriptors between the two sides:
//
//   fill  process -> kernel  buffer offsets to receive into     FillRing
//   rxc   kernel -> process  RxDesc, one per buffer written     RxcRing
//   tx    process -> kernel  TxDesc, frames to send             TxRing
//   txc   kernel -> process  buffer offsets sent from           TxcRing
//
// The ring views follow libxdp's xsk rings: a producer reserve()s slots, writes them and
// submit()s them with a store-release of its index; a consumer peek()s entries after a
// load-acquire of the producer index, reads them and release()s them with a store-release of its
// own index. Each side caches the other's index and reads it again only when the cache says the
// ring is full (producer) or empty (consumer).
//
// librefnic carries the ABI's constants and layouts itself (checked against the uAPI header when
// the library is built), so nothing here needs the uAPI header installed.
#pragma once

#include <refnic/error.hpp>
#include <refnic/export.hpp>
#include <refnic/fd.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace refnic::bypass {

// --- The ABI (REFNIC_BYPASS_*) ---------------------------------------------------------------

inline constexpr std::string_view device_path = "/dev/refnic";
inline constexpr std::uint32_t abi_version = 1;

// mmap() offsets of the rings and the header area on the /dev/refnic descriptor.
inline constexpr std::uint64_t fill_offset = 0x00000000;
inline constexpr std::uint64_t rxc_offset = 0x10000000;
inline constexpr std::uint64_t tx_offset = 0x20000000;
inline constexpr std::uint64_t txc_offset = 0x30000000;
inline constexpr std::uint64_t header_area_offset = 0x40000000;

inline constexpr std::size_t header_slot_size = 256;     // Bytes per header slot.
inline constexpr std::size_t ring_entries_offset = 256;  // Entries start here in a ring mapping.
inline constexpr std::uint32_t ring_min_size = 64;
inline constexpr std::uint32_t ring_max_size = 4096;
inline constexpr std::uint64_t umem_max_size = std::uint64_t{1} << 30U;

// Bits of RingHeader::flags, written by the kernel.
inline constexpr std::uint32_t ring_need_wakeup = 1U << 0U;  // Kick after producing.
inline constexpr std::uint32_t ring_broken = 1U << 1U;       // The session is over.

// The first ring_entries_offset bytes of every ring mapping: the indices on separate cache lines.
struct RingHeader {
    std::uint32_t producer;
    std::array<std::uint32_t, 15> pad0;
    std::uint32_t consumer;
    std::array<std::uint32_t, 15> pad1;
    std::uint32_t flags;
    std::array<std::uint32_t, 15> pad2;
};
static_assert(sizeof(RingHeader) == 192 && sizeof(RingHeader) <= ring_entries_offset);

// Bits of RxDesc::flags.
inline constexpr std::uint16_t rx_more = 1U << 0U;       // The frame continues in the next entry.
inline constexpr std::uint16_t rx_split = 1U << 1U;      // Headers in the header slot.
inline constexpr std::uint16_t rx_csum_ok = 1U << 2U;    // L4 checksum good.
inline constexpr std::uint16_t rx_csum_bad = 1U << 3U;   // L4 checksum bad.
inline constexpr std::uint16_t rx_rss_valid = 1U << 4U;  // rss_hash is set.
inline constexpr std::uint16_t rx_error = 1U << 5U;      // Truncated or bad: drop the frame.

// An rxc entry: one buffer the device wrote.
struct RxDesc {
    std::uint64_t addr;     // umem offset of the buffer.
    std::uint32_t len;      // Bytes in the buffer.
    std::uint16_t hdr_len;  // Bytes in the header slot (split frames).
    std::uint16_t flags;    // rx_*.
    std::uint32_t rss_hash;
    std::uint32_t reserved;
};

// A tx entry: one frame in one buffer.
struct TxDesc {
    std::uint64_t addr;   // umem offset of the frame's first byte.
    std::uint32_t len;    // 14 bytes up to the port's MTU + 18.
    std::uint32_t flags;  // None defined yet: must be 0.
};

// REFNIC_BYPASS_IOC_STATS: the session's counters, kept by the kernel.
struct Stats {
    std::uint64_t rx_frames = 0;  // Frames written to rxc.
    std::uint64_t rx_bytes = 0;
    std::uint64_t rx_errors = 0;  // Entries with rx_error.
    std::uint64_t tx_frames = 0;  // Frames the device sent.
    std::uint64_t tx_bytes = 0;
    std::uint64_t fill_batches = 0;  // Fill ring acquisitions with entries.
    std::uint64_t fill_bufs = 0;     // Buffers taken from the fill ring.
    std::uint64_t rx_doorbells = 0;  // RX tail writes (one per refill batch).
    std::uint64_t tx_doorbells = 0;
    std::uint64_t polls = 0;            // NAPI polls of the session.
    std::uint64_t irqs = 0;             // Interrupts of the queue's vector.
    std::uint64_t kicks = 0;            // REFNIC_BYPASS_IOC_KICK and write(2).
    std::uint64_t wakeups_avoided = 0;  // Ring entries NAPI found without a kick.
    std::uint64_t bad_addr = 0;         // Offset outside the umem.
    std::uint64_t bad_align = 0;        // Fill offset not a buffer start.
    std::uint64_t bad_len = 0;          // Tx length out of range or past its buffer.
    std::uint64_t bad_flags = 0;        // Tx flags not 0.
    std::uint64_t dup_buf = 0;          // Buffer already owned by the kernel.
    std::uint64_t bad_index = 0;        // Producer index jumped: session broken.

    friend bool operator==(const Stats&, const Stats&) = default;
};

// Every Stats counter with the name the uAPI gives it, in the uAPI's order.
struct StatsField {
    std::string_view name;
    std::uint64_t Stats::*member;
};
inline constexpr std::array<StatsField, 19> stats_fields{{
    {"rx_frames", &Stats::rx_frames},
    {"rx_bytes", &Stats::rx_bytes},
    {"rx_errors", &Stats::rx_errors},
    {"tx_frames", &Stats::tx_frames},
    {"tx_bytes", &Stats::tx_bytes},
    {"fill_batches", &Stats::fill_batches},
    {"fill_bufs", &Stats::fill_bufs},
    {"rx_doorbells", &Stats::rx_doorbells},
    {"tx_doorbells", &Stats::tx_doorbells},
    {"polls", &Stats::polls},
    {"irqs", &Stats::irqs},
    {"kicks", &Stats::kicks},
    {"wakeups_avoided", &Stats::wakeups_avoided},
    {"bad_addr", &Stats::bad_addr},
    {"bad_align", &Stats::bad_align},
    {"bad_len", &Stats::bad_len},
    {"bad_flags", &Stats::bad_flags},
    {"dup_buf", &Stats::dup_buf},
    {"bad_index", &Stats::bad_index},
}};

// Bytes to mmap() for a ring of `entries` entries of `entry_size` bytes: the header and the
// entries, rounded up to the page size.
[[nodiscard]] REFNIC_EXPORT std::size_t ring_mapping_size(std::uint32_t entries,
                                                          std::size_t entry_size);
// Whether `entries` is a ring size the kernel takes: a power of two from 64 to 4096.
[[nodiscard]] constexpr bool valid_ring_size(std::uint32_t entries) noexcept {
    return std::has_single_bit(entries) && entries >= ring_min_size && entries <= ring_max_size;
}

// --- Ring views ------------------------------------------------------------------------------

namespace detail {

inline std::uint32_t load_acquire(std::uint32_t& index) noexcept {
    return std::atomic_ref<std::uint32_t>(index).load(std::memory_order_acquire);
}
inline void store_release(std::uint32_t& index, std::uint32_t value) noexcept {
    std::atomic_ref<std::uint32_t>(index).store(value, std::memory_order_release);
}
static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free &&
              std::atomic_ref<std::uint32_t>::required_alignment <= alignof(RingHeader));

// What both ends of a ring share: the mapping's header and entries, and its size.
template <typename Entry>
class RingBase {
public:
    RingBase() noexcept = default;
    // `mapping` is a ring mapping: a RingHeader, then `size` entries at ring_entries_offset.
    // Throws Error(EINVAL) for a null mapping or a size that is not a power of two.
    RingBase(void* mapping, std::uint32_t size)
        : header_(static_cast<RingHeader*>(mapping)),
          entries_(
              reinterpret_cast<Entry*>(static_cast<std::byte*>(mapping) + ring_entries_offset)),
          size_(size),
          mask_(size - 1) {
        if (mapping == nullptr || !std::has_single_bit(size)) {
            throw Error(EINVAL, "a ring needs a mapping and a power-of-two size, not " +
                                    std::to_string(size));
        }
    }
    RingBase(const RingBase&) = delete;
    RingBase& operator=(const RingBase&) = delete;
    RingBase(RingBase&& other) noexcept
        : header_(std::exchange(other.header_, nullptr)),
          entries_(std::exchange(other.entries_, nullptr)),
          size_(std::exchange(other.size_, 0)),
          mask_(std::exchange(other.mask_, 0)) {}
    RingBase& operator=(RingBase&& other) noexcept {
        header_ = std::exchange(other.header_, nullptr);
        entries_ = std::exchange(other.entries_, nullptr);
        size_ = std::exchange(other.size_, 0);
        mask_ = std::exchange(other.mask_, 0);
        return *this;
    }
    ~RingBase() = default;

    [[nodiscard]] std::uint32_t size() const noexcept { return size_; }
    [[nodiscard]] bool valid() const noexcept { return header_ != nullptr; }

    // Whether the kernel wants a kick (BypassQueue::kick) to see what was produced. A full fence
    // first orders the earlier submit() before the flag is read, so that either the kernel's NAPI
    // poll sees the new entries or this sees the flag it set before it stopped polling.
    [[nodiscard]] bool need_wakeup() const noexcept {
        std::atomic_thread_fence(std::memory_order_seq_cst);
        return (flags() & ring_need_wakeup) != 0;
    }
    // Whether the kernel gave up on the session (a producer index jumped): only close is left.
    [[nodiscard]] bool broken() const noexcept { return (flags() & ring_broken) != 0; }
    [[nodiscard]] std::uint32_t flags() const noexcept {
        return std::atomic_ref<std::uint32_t>(header_->flags).load(std::memory_order_acquire);
    }

protected:
    [[nodiscard]] RingHeader& header() const noexcept { return *header_; }
    [[nodiscard]] Entry& entry(std::uint32_t index) const noexcept {
        return entries_[index & mask_];
    }

private:
    RingHeader* header_ = nullptr;
    Entry* entries_ = nullptr;
    std::uint32_t size_ = 0;
    std::uint32_t mask_ = 0;
};

}  // namespace detail

// The process's end of a process -> kernel ring (fill, tx). Not thread-safe: one producer.
template <typename Entry>
class ProducerRing : public detail::RingBase<Entry> {
public:
    ProducerRing() noexcept = default;
    // Starts from the indices in the mapping's header (0 in a new session).
    ProducerRing(void* mapping, std::uint32_t size)
        : detail::RingBase<Entry>(mapping, size),
          producer_(detail::load_acquire(this->header().producer)),
          cached_producer_(producer_),
          cached_consumer_(detail::load_acquire(this->header().consumer) + size) {}

    // Reserves up to `n` slots after those reserved already and returns how many it got (0 when
    // the ring is full). Reads the kernel's consumer index only when the cached one leaves fewer
    // than `n` free.
    [[nodiscard]] std::uint32_t reserve(std::uint32_t n) noexcept {
        std::uint32_t free = cached_consumer_ - cached_producer_;
        if (free < n) {
            cached_consumer_ = detail::load_acquire(this->header().consumer) + this->size();
            free = cached_consumer_ - cached_producer_;
        }
        const std::uint32_t count = std::min(n, free);
        cached_producer_ += count;
        return count;
    }
    // Slots reserved and not yet submitted.
    [[nodiscard]] std::uint32_t reserved() const noexcept { return cached_producer_ - producer_; }
    // Reserved slot `i` (0 is the oldest reservation), i < reserved().
    [[nodiscard]] Entry& slot(std::uint32_t i) const noexcept { return this->entry(producer_ + i); }
    // Publishes the oldest `n` reserved slots (at most reserved()) to the kernel.
    void submit(std::uint32_t n) noexcept {
        producer_ += std::min(n, reserved());
        detail::store_release(this->header().producer, producer_);
    }
    // Gives back the newest `n` reserved slots (at most reserved()) unsubmitted.
    void cancel(std::uint32_t n) noexcept { cached_producer_ -= std::min(n, reserved()); }
    // Slots free now, reading the kernel's consumer index; reserve() of that many succeeds.
    [[nodiscard]] std::uint32_t free_slots() noexcept {
        cached_consumer_ = detail::load_acquire(this->header().consumer) + this->size();
        return cached_consumer_ - cached_producer_;
    }
    // The free-running index submit() last published.
    [[nodiscard]] std::uint32_t producer() const noexcept { return producer_; }
    // Submitted entries the kernel has not consumed yet (reads its consumer index).
    [[nodiscard]] std::uint32_t pending() const noexcept {
        return producer_ - detail::load_acquire(this->header().consumer);
    }

private:
    std::uint32_t producer_ = 0;         // Published.
    std::uint32_t cached_producer_ = 0;  // Published + reserved.
    std::uint32_t cached_consumer_ = 0;  // The kernel's consumer index as last read, + size.
};

// The process's end of a kernel -> process ring (rxc, txc). Not thread-safe: one consumer.
template <typename Entry>
class ConsumerRing : public detail::RingBase<Entry> {
public:
    ConsumerRing() noexcept = default;
    // Starts from the indices in the mapping's header (0 in a new session).
    ConsumerRing(void* mapping, std::uint32_t size)
        : detail::RingBase<Entry>(mapping, size),
          consumer_(detail::load_acquire(this->header().consumer)),
          cached_consumer_(consumer_),
          cached_producer_(detail::load_acquire(this->header().producer)) {}

    // Takes up to `max` entries after those peeked already and returns how many (0 when the ring
    // is empty). Reads the kernel's producer index only when no cached entry is left.
    [[nodiscard]] std::uint32_t peek(std::uint32_t max) noexcept {
        if (cached_producer_ == cached_consumer_) {
            cached_producer_ = detail::load_acquire(this->header().producer);
        }
        // Never more than the ring holds, whatever the producer index says.
        const std::uint32_t available =
            std::min(cached_producer_ - cached_consumer_, this->size() - peeked());
        const std::uint32_t count = std::min(max, available);
        cached_consumer_ += count;
        return count;
    }
    // Entries peeked and not yet released.
    [[nodiscard]] std::uint32_t peeked() const noexcept { return cached_consumer_ - consumer_; }
    // Peeked entry `i` (0 is the oldest), i < peeked().
    [[nodiscard]] const Entry& slot(std::uint32_t i) const noexcept {
        return this->entry(consumer_ + i);
    }
    // The free-running ring index of peeked entry `i` (the rxc index names the header slot).
    [[nodiscard]] std::uint32_t index(std::uint32_t i) const noexcept { return consumer_ + i; }
    // Gives the oldest `n` peeked entries (at most peeked()) back to the kernel.
    void release(std::uint32_t n) noexcept {
        consumer_ += std::min(n, peeked());
        detail::store_release(this->header().consumer, consumer_);
    }
    // Puts the newest `n` peeked entries (at most peeked()) back, to be peeked again.
    void cancel(std::uint32_t n) noexcept { cached_consumer_ -= std::min(n, peeked()); }
    // Entries ready to peek, reading the kernel's producer index if none is cached.
    [[nodiscard]] std::uint32_t available() noexcept {
        if (cached_producer_ == cached_consumer_) {
            cached_producer_ = detail::load_acquire(this->header().producer);
        }
        return std::min(cached_producer_ - cached_consumer_, this->size() - peeked());
    }
    // The free-running index release() last published.
    [[nodiscard]] std::uint32_t consumer() const noexcept { return consumer_; }

private:
    std::uint32_t consumer_ = 0;         // Published.
    std::uint32_t cached_consumer_ = 0;  // Published + peeked.
    std::uint32_t cached_producer_ = 0;  // The kernel's producer index as last read.
};

using FillRing = ProducerRing<std::uint64_t>;
using RxcRing = ConsumerRing<RxDesc>;
using TxRing = ProducerRing<TxDesc>;
using TxcRing = ConsumerRing<std::uint64_t>;

// --- Memory ----------------------------------------------------------------------------------

// An owned mmap() region, unmapped on destruction. Move-only.
class REFNIC_EXPORT Mapping {
public:
    Mapping() noexcept = default;
    // Adopts `size` bytes mapped at `address`.
    Mapping(void* address, std::size_t size) noexcept : address_(address), size_(size) {}
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    Mapping(Mapping&& other) noexcept
        : address_(std::exchange(other.address_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    Mapping& operator=(Mapping&& other) noexcept;
    ~Mapping();

    // Private anonymous read-write memory (MAP_POPULATE when `populate`), e.g. a umem. `size` is
    // rounded up to the page size. Throws Error naming `what`.
    [[nodiscard]] static Mapping anonymous(std::size_t size, bool populate = true,
                                           std::string_view what = "anonymous memory");
    // A shared mapping of `size` bytes of `fd` at `offset` with protection `prot` (PROT_*).
    // Throws Error naming `what`.
    [[nodiscard]] static Mapping shared(int fd, std::uint64_t offset, std::size_t size, int prot,
                                        std::string_view what);

    [[nodiscard]] void* data() const noexcept { return address_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::span<std::byte> bytes() const noexcept {
        return {static_cast<std::byte*>(address_), size_};
    }
    [[nodiscard]] explicit operator bool() const noexcept { return address_ != nullptr; }
    void reset() noexcept;

private:
    void* address_ = nullptr;
    std::size_t size_ = 0;
};

// The free umem buffers, named by their offsets: a LIFO free list (the buffer freed last is
// reused first, while it is warm in the cache) with a flag per buffer that catches a buffer
// given back twice. Not thread-safe.
class REFNIC_EXPORT UmemAllocator {
public:
    UmemAllocator() = default;
    // Every buffer of a `umem_size`-byte umem cut into `buf_size`-byte buffers, all free. Throws
    // Error(EINVAL) for a buf_size of 0 or a umem smaller than one buffer.
    UmemAllocator(std::uint64_t umem_size, std::uint32_t buf_size);

    // A free buffer's offset, or false when none is left.
    [[nodiscard]] bool allocate(std::uint64_t& offset) noexcept;
    // Fills `offsets` with free buffers as far as there are any; returns how many.
    [[nodiscard]] std::size_t allocate(std::span<std::uint64_t> offsets) noexcept;
    // Gives back the buffer that holds umem offset `addr` (any offset in the buffer, so a tx
    // completion's frame address will do). Throws Error(EINVAL) past the umem or for a buffer
    // that is free already.
    void release(std::uint64_t addr);

    [[nodiscard]] std::size_t available() const noexcept { return free_.size(); }
    [[nodiscard]] std::size_t capacity() const noexcept { return is_free_.size(); }
    [[nodiscard]] std::size_t in_use() const noexcept { return capacity() - available(); }
    [[nodiscard]] std::uint32_t buf_size() const noexcept { return buf_size_; }
    // The start of the buffer that holds `addr`.
    [[nodiscard]] std::uint64_t buffer_of(std::uint64_t addr) const noexcept {
        return addr - addr % buf_size_;
    }

private:
    std::vector<std::uint64_t> free_;
    std::vector<bool> is_free_;
    std::uint32_t buf_size_ = 1;
};

// --- The queue -------------------------------------------------------------------------------

struct Config {
    std::uint32_t ifindex = 0;  // The refnic port; 0: resolve `ifname` with if_nametoindex.
    std::string ifname;
    std::uint32_t queue = 0;         // Queue pair: RX queue N and TX queue N.
    std::uint32_t buf_size = 2048;   // 2048 or 4096.
    std::uint32_t fill_size = 1024;  // Ring entries: powers of two from 64 to 4096.
    std::uint32_t rxc_size = 1024;
    std::uint32_t tx_size = 512;
    std::uint32_t txc_size = 512;
    bool header_split = false;  // REFNIC_BYPASS_F_HDR_SPLIT: headers into the header area.
    bool whole_port = false;    // REFNIC_BYPASS_F_WHOLE_PORT: every frame of the port comes here.
    std::size_t umem_size = std::size_t{4} << 20U;  // A page multiple, at most 1 GiB.
};

// One rxc entry, as BypassQueue::rx_frame presents it.
struct Frame {
    std::span<const std::byte> data;    // The bytes the device wrote into the buffer.
    std::span<const std::byte> header;  // Header slot bytes (split frames), else empty.
    std::uint64_t addr = 0;             // umem offset of the buffer.
    std::uint32_t index = 0;            // Free-running rxc index.
    std::uint32_t rss_hash = 0;
    std::uint16_t flags = 0;  // rx_*.

    [[nodiscard]] bool more() const noexcept { return (flags & rx_more) != 0; }
    [[nodiscard]] bool split() const noexcept { return (flags & rx_split) != 0; }
    [[nodiscard]] bool error() const noexcept { return (flags & rx_error) != 0; }
    [[nodiscard]] std::size_t size() const noexcept { return header.size() + data.size(); }
};

// What happens to the buffers of released rxc entries.
enum class Recycle : std::uint8_t {
    to_allocator,  // Back to the free list, to be refilled.
    keep,          // The caller owns them (to send them, or UmemAllocator::release later).
};

// How to wait for received frames.
enum class Wait : std::uint8_t {
    block,      // poll(2) on the descriptor.
    busy_poll,  // Spin reading the rxc producer index.
};

// One bound queue pair: the umem (allocated here), the /dev/refnic descriptor, the four ring
// mappings and, with header split, the header area. Owns them all; closing gives the queue pair
// back to the kernel stack. Move-only; one thread at a time.
class REFNIC_EXPORT BypassQueue {
public:
    // Everything a bound session consists of, for adopt().
    struct Parts {
        Config config;  // As bound: ifindex set, sizes those of the rings.
        UniqueFd fd;
        Mapping umem;
        Mapping fill;
        Mapping rxc;
        Mapping tx;
        Mapping txc;
        Mapping headers;  // Empty without header split.
    };

    // Validates `config`, resolves ifname, opens /dev/refnic, allocates the umem (MAP_POPULATE),
    // binds (REFNIC_BYPASS_IOC_BIND) and maps the rings and the header area. Throws Error with
    // the errno of the step that failed and a message naming it: EINVAL for a bad config before
    // anything is done, "opening /dev/refnic" (ENOENT without the module), "bind queue 3 of
    // ifindex 7" (EBUSY, EPERM, ...), "mmap of the fill ring ...".
    [[nodiscard]] static BypassQueue open(Config config);
    // A session bound by someone else, or made of plain memory for tests: checks that every
    // mapping is large enough for the sizes in parts.config and takes ownership. Throws
    // Error(EINVAL).
    [[nodiscard]] static BypassQueue adopt(Parts parts);

    BypassQueue(const BypassQueue&) = delete;
    BypassQueue& operator=(const BypassQueue&) = delete;
    BypassQueue(BypassQueue&&) noexcept = default;
    BypassQueue& operator=(BypassQueue&&) noexcept = default;
    ~BypassQueue() = default;

    [[nodiscard]] FillRing& fill() noexcept { return fill_; }
    [[nodiscard]] RxcRing& rxc() noexcept { return rxc_; }
    [[nodiscard]] TxRing& tx() noexcept { return tx_; }
    [[nodiscard]] TxcRing& txc() noexcept { return txc_; }
    [[nodiscard]] UmemAllocator& allocator() noexcept { return allocator_; }
    [[nodiscard]] const Config& config() const noexcept { return config_; }
    [[nodiscard]] int fd() const noexcept { return fd_.get(); }

    [[nodiscard]] std::span<std::byte> umem() const noexcept { return umem_.bytes(); }
    // The buffer that holds umem offset `offset`, from that offset to the buffer's end. Throws
    // Error(ERANGE) past the umem.
    [[nodiscard]] std::span<std::byte> buffer(std::uint64_t offset) const;
    // The header slot of rxc index `rxc_index` (free-running or not): header_slot_size bytes,
    // empty without header split. Valid until the rxc entry is released.
    [[nodiscard]] std::span<const std::byte> header(std::uint32_t rxc_index) const noexcept;

    // REFNIC_BYPASS_IOC_KICK: the kernel looks at the fill and tx rings. Throws Error.
    void kick();
    // REFNIC_BYPASS_IOC_STATS. Throws Error.
    [[nodiscard]] Stats stats() const;
    // poll(2) for rxc or txc entries, up to `timeout_ms` (-1: forever). False on timeout or a
    // signal (EINTR). Throws Error(EPIPE) when the kernel tore the session down (POLLERR).
    [[nodiscard]] bool wait(int timeout_ms);

    // --- Receive ---

    // Moves up to `max` free buffers into the fill ring with one submit (which publishes any fill
    // slots reserved earlier too), and kicks if the fill ring needs a wakeup. Returns how many.
    std::size_t refill(std::size_t max = std::numeric_limits<std::size_t>::max());
    // Waits up to `timeout` for rxc entries: poll(2) (Wait::block; also wakes for txc entries, so
    // false may come early) or spinning on the producer index (Wait::busy_poll). True when there
    // are entries to peek. Throws Error(EPIPE) on a torn-down or broken session.
    [[nodiscard]] bool wait_rx(Wait how, std::chrono::milliseconds timeout);
    // rxc().peek(max): the number of new frames to read with rx_frame.
    [[nodiscard]] std::uint32_t rx_peek(std::uint32_t max) noexcept { return rxc_.peek(max); }
    // Peeked rxc entry `i` (i < rxc().peeked()) with its bytes. Throws Error(EPROTO) for an
    // entry that points outside the umem.
    [[nodiscard]] Frame rx_frame(std::uint32_t i) const;
    // Releases the oldest `n` peeked rxc entries; their buffers go back to the free list unless
    // `recycle` is Recycle::keep.
    void rx_release(std::uint32_t n, Recycle recycle = Recycle::to_allocator);
    // Peeks up to `max` entries, calls on_frame(const Frame&) for each, releases them to the free
    // list and returns how many there were. Does not wait and does not refill.
    template <typename OnFrame>
    std::uint32_t receive(std::uint32_t max, OnFrame&& on_frame) {
        const std::uint32_t count = rx_peek(max);
        for (std::uint32_t i = 0; i < count; ++i) {
            on_frame(rx_frame(i));
        }
        rx_release(count);
        return count;
    }

    // --- Transmit ---

    // tx().reserve(n).
    [[nodiscard]] std::uint32_t tx_reserve(std::uint32_t n) noexcept { return tx_.reserve(n); }
    // Reserved tx slot `i` (i < tx().reserved()).
    [[nodiscard]] TxDesc& tx_slot(std::uint32_t i) const noexcept { return tx_.slot(i); }
    // Submits the oldest `n` reserved tx slots and kicks if the tx ring needs a wakeup.
    void tx_submit(std::uint32_t n);
    // Queues the `len`-byte frame at umem offset `addr`, in a buffer the caller owns (it comes
    // back through txc, see reap_tx), into one reserved tx slot. False when the tx ring is full.
    // Submitted by flush_tx().
    [[nodiscard]] bool send_buffer(std::uint64_t addr, std::uint32_t len) noexcept;
    // Copies `frame` into a free buffer and queues it as send_buffer does. False when no buffer
    // or tx slot is free (reap_tx, flush_tx). Throws Error(EMSGSIZE) for a frame larger than a
    // buffer.
    [[nodiscard]] bool send(std::span<const std::byte> frame);
    // Submits every queued frame (tx_submit); returns how many.
    std::uint32_t flush_tx();
    // Gives the buffers of up to `max` tx completions back to the free list; returns how many.
    std::size_t reap_tx(std::size_t max = std::numeric_limits<std::size_t>::max());

private:
    explicit BypassQueue(Parts parts);
    [[noreturn]] void torn_down() const;

    // Destroyed last to first: the rings, the descriptor, then the umem.
    Mapping umem_;
    UniqueFd fd_;
    Mapping fill_map_;
    Mapping rxc_map_;
    Mapping tx_map_;
    Mapping txc_map_;
    Mapping headers_;
    Config config_;
    FillRing fill_;
    RxcRing rxc_;
    TxRing tx_;
    TxcRing txc_;
    UmemAllocator allocator_;
};

}  // namespace refnic::bypass
