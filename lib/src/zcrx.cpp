// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
#include "zcrx_uapi.hpp"

#include <refnic/error.hpp>
#include <refnic/zcrx.hpp>

#include <linux/io_uring.h>
#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <utility>

namespace refnic::zcrx {

namespace {

namespace uapi = compat::zcrx;

// RECV_ZC ended by ENOMEM this many times in a row, with no data in between, is a failure.
constexpr std::uint32_t max_no_buffer_streak = 1000;

// The rings' indices are shared with the kernel, which reads and writes them concurrently.
std::uint32_t load_acquire(std::uint32_t& index) noexcept {
    return std::atomic_ref<std::uint32_t>(index).load(std::memory_order_acquire);
}

void store_release(std::uint32_t& index, std::uint32_t value) noexcept {
    std::atomic_ref<std::uint32_t>(index).store(value, std::memory_order_release);
}

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

std::size_t align_up(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// An anonymous, populated, private mapping; throws Error naming `what`.
void* map_anonymous(std::size_t size, const std::string& what) {
    void* address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                           MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE, -1, 0);
    if (address == MAP_FAILED) {
        throw Error(errno, "mmap of " + std::to_string(size) + " bytes for " + what);
    }
    return address;
}

// Huge pages of 2 MiB: io_uring takes a buffer larger than a page only where the area's memory
// is that contiguous.
constexpr std::size_t huge_page_size = std::size_t{2} << 20U;

void* map_huge(std::size_t size, const std::string& what) {
    void* address =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
               MAP_ANONYMOUS | MAP_PRIVATE | MAP_POPULATE | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
    if (address == MAP_FAILED) {
        throw Error(errno, "mmap of " + std::to_string(size) + " bytes of 2 MiB huge pages for " +
                               what + " (buffers larger than a page need them: vm.nr_hugepages)");
    }
    return address;
}

void* map_ring(int fd, std::size_t size, off_t offset, const char* what) {
    void* address =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
    if (address == MAP_FAILED) {
        throw Error(errno, std::string("mmap of the io_uring ") + what);
    }
    return address;
}

}  // namespace

// --- RefillQueue ------------------------------------------------------------------------------

RefillQueue::RefillQueue(std::uint32_t* head, std::uint32_t* tail, void* rqes,
                         std::uint32_t entries, std::uint64_t area_token, std::uint32_t batch)
    : head_(head),
      tail_(tail),
      rqes_(rqes),
      mask_(entries - 1),
      area_token_(area_token),
      batch_(batch),
      local_tail_(tail != nullptr ? *tail : 0) {
    if (head == nullptr || tail == nullptr || rqes == nullptr || !std::has_single_bit(entries) ||
        batch == 0 || batch > entries) {
        throw Error(EINVAL,
                    "zcrx refill queue: needs memory, a power-of-two size and a batch "
                    "from 1 to that size");
    }
}

bool RefillQueue::room() const noexcept { return local_tail_ - load_acquire(*head_) <= mask_; }

void RefillQueue::write(const Chunk& chunk) {
    auto* entry = static_cast<uapi::rqe*>(rqes_) + (local_tail_ & mask_);
    entry->off = (chunk.offset & uapi::area_offset_mask) | area_token_;
    entry->len = chunk.size;
    entry->pad = 0;
    ++local_tail_;
    ++given_;
    ++pending_;
}

void RefillQueue::give(const Chunk& chunk) {
    if (!backlog_.empty() || !room()) {
        backlog_.push_back(chunk);
        flush();
        return;
    }
    write(chunk);
    if (pending_ >= batch_) {
        flush();
    }
}

bool RefillQueue::flush() {
    std::size_t moved = 0;
    while (moved < backlog_.size() && room()) {
        write(backlog_[moved++]);
    }
    backlog_.erase(backlog_.begin(), backlog_.begin() + static_cast<std::ptrdiff_t>(moved));
    if (pending_ == 0) {
        return false;
    }
    store_release(*tail_, local_tail_);
    pending_ = 0;
    ++stores_;
    return true;
}

// --- Receiver ---------------------------------------------------------------------------------

Receiver::Mapping::Mapping(Mapping&& other) noexcept
    : address_(std::exchange(other.address_, nullptr)), size_(std::exchange(other.size_, 0)) {}

Receiver::Mapping& Receiver::Mapping::operator=(Mapping&& other) noexcept {
    if (this != &other) {
        if (address_ != nullptr) {
            ::munmap(address_, size_);
        }
        address_ = std::exchange(other.address_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

Receiver::Mapping::~Mapping() {
    if (address_ != nullptr) {
        ::munmap(address_, size_);
    }
}

Receiver::Receiver(std::uint32_t ifindex, std::uint32_t rx_queue, ReceiverOptions options)
    : options_(options) {
    if (options_.area_size == 0 || options_.area_size % page_size() != 0 ||
        options_.refill_batch == 0 || options_.ring_entries == 0 ||
        options_.completion_entries < options_.ring_entries) {
        throw Error(EINVAL,
                    "zcrx receiver: the area size must be a nonzero multiple of the "
                    "page size, the refill batch and ring entries nonzero, the "
                    "completion entries at least the ring entries");
    }
    if (options_.rx_buf_len != 0 &&
        (!std::has_single_bit(options_.rx_buf_len) || options_.rx_buf_len < page_size() ||
         options_.area_size % options_.rx_buf_len != 0 ||
         (options_.rx_buf_len > page_size() && options_.area_size % huge_page_size != 0))) {
        throw Error(EINVAL,
                    "zcrx receiver: the buffer length must be a power of two of a page or "
                    "more that divides the area size (a multiple of 2 MiB for buffers larger "
                    "than a page)");
    }
    setup_ring();
    register_ifq(ifindex, rx_queue);
}

// The socket and the ring close; the kernel tears the ring, and with it the registration,
// down later (io_ring_exit_work). The area and the region stay pinned until then.
Receiver::~Receiver() = default;

void Receiver::setup_ring() {
    io_uring_params params{};
    // CQE32: a RECV_ZC completion carries struct io_uring_zcrx_cqe in its second half.
    // Deferred task work runs completions only in io_uring_enter(GETEVENTS), on this thread.
    params.flags = IORING_SETUP_CQE32 | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
                   IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CQSIZE;
    params.cq_entries = options_.completion_entries;
    const long fd = ::syscall(__NR_io_uring_setup, options_.ring_entries, &params);
    if (fd < 0) {
        throw Error(errno, "io_uring_setup");
    }
    ring_fd_.reset(static_cast<int>(fd));

    const std::size_t cqe_size = 2 * sizeof(io_uring_cqe);
    std::size_t sq_size = params.sq_off.array + params.sq_entries * sizeof(std::uint32_t);
    const std::size_t cq_size = params.cq_off.cqes + params.cq_entries * cqe_size;
    const bool single_mmap = (params.features & IORING_FEAT_SINGLE_MMAP) != 0;
    if (single_mmap) {
        sq_size = std::max(sq_size, cq_size);
    }
    sq_ring_ = Mapping(map_ring(ring_fd_.get(), sq_size, IORING_OFF_SQ_RING, "SQ ring"), sq_size);
    if (!single_mmap) {
        cq_ring_ =
            Mapping(map_ring(ring_fd_.get(), cq_size, IORING_OFF_CQ_RING, "CQ ring"), cq_size);
    }
    const std::size_t sqes_size = params.sq_entries * sizeof(io_uring_sqe);
    sqes_ = Mapping(map_ring(ring_fd_.get(), sqes_size, IORING_OFF_SQES, "SQEs"), sqes_size);

    std::byte* sq = sq_ring_.get();
    std::byte* cq = single_mmap ? sq : cq_ring_.get();
    sq_head_ = reinterpret_cast<std::uint32_t*>(sq + params.sq_off.head);
    sq_tail_ = reinterpret_cast<std::uint32_t*>(sq + params.sq_off.tail);
    sq_mask_ = *reinterpret_cast<std::uint32_t*>(sq + params.sq_off.ring_mask);
    sq_local_tail_ = *sq_tail_;
    // SQ slot i names SQE i: SQEs are used in ring order.
    auto* array = reinterpret_cast<std::uint32_t*>(sq + params.sq_off.array);
    for (std::uint32_t i = 0; i <= sq_mask_; ++i) {
        array[i] = i;
    }
    cq_head_ = reinterpret_cast<std::uint32_t*>(cq + params.cq_off.head);
    cq_tail_ = reinterpret_cast<std::uint32_t*>(cq + params.cq_off.tail);
    cq_mask_ = *reinterpret_cast<std::uint32_t*>(cq + params.cq_off.ring_mask);
    cqes_ = cq + params.cq_off.cqes;
}

void Receiver::register_ifq(std::uint32_t ifindex, std::uint32_t rx_queue) {
    const bool huge = options_.rx_buf_len > page_size();
    area_ = Mapping(huge ? map_huge(options_.area_size, "the zcrx area")
                         : map_anonymous(options_.area_size, "the zcrx area"),
                    options_.area_size);

    // As many refill entries as the area has buffers, up to the kernel's limit: the queue
    // fills only past that, and RefillQueue keeps the rest in its backlog.
    const std::size_t buffers =
        options_.area_size / (options_.rx_buf_len != 0 ? options_.rx_buf_len : page_size());
    const auto wanted = static_cast<std::uint32_t>(
        std::min<std::size_t>(std::bit_ceil(buffers), max_refill_entries));
    // The region holds the queue's head and tail (a page is room enough) and its entries.
    const std::size_t region_size = align_up(page_size() + wanted * sizeof(uapi::rqe), page_size());
    refill_region_ = Mapping(map_anonymous(region_size, "the zcrx refill queue"), region_size);

    uapi::region_desc region{};
    region.user_addr = reinterpret_cast<std::uintptr_t>(refill_region_.get());
    region.size = region_size;
    region.flags = uapi::mem_region_type_user;
    uapi::area_reg area{};
    area.addr = reinterpret_cast<std::uintptr_t>(area_.get());
    area.len = options_.area_size;
    uapi::ifq_reg reg{};
    reg.if_idx = ifindex;
    reg.if_rxq = rx_queue;
    reg.rq_entries = wanted;
    reg.area_ptr = reinterpret_cast<std::uintptr_t>(&area);
    reg.region_ptr = reinterpret_cast<std::uintptr_t>(&region);
    reg.rx_buf_len = options_.rx_buf_len;
    if (::syscall(__NR_io_uring_register, ring_fd_.get(), uapi::register_zcrx_ifq, &reg, 1) < 0) {
        throw Error(errno, "IORING_REGISTER_ZCRX_IFQ for RX queue " + std::to_string(rx_queue) +
                               " of ifindex " + std::to_string(ifindex));
    }
    zcrx_id_ = reg.zcrx_id;
    rq_entries_ = reg.rq_entries;
    std::byte* base = refill_region_.get();
    refill_.emplace(reinterpret_cast<std::uint32_t*>(base + reg.offsets.head),
                    reinterpret_cast<std::uint32_t*>(base + reg.offsets.tail),
                    base + reg.offsets.rqes, rq_entries_, area.rq_area_token,
                    std::min(options_.refill_batch, rq_entries_ / 2 + 1));
}

void Receiver::attach(UniqueFd socket) {
    if (socket_) {
        throw Error(EBUSY, "zcrx receiver: a socket is attached already");
    }
    if (!socket) {
        throw Error(EINVAL, "zcrx receiver: no socket");
    }
    socket_ = std::move(socket);
    eof_ = false;
    submit_recv();
}

void Receiver::submit_recv() {
    if (sq_local_tail_ - load_acquire(*sq_head_) > sq_mask_) {
        throw Error(EBUSY, "io_uring submission queue full");
    }
    auto* sqe = reinterpret_cast<io_uring_sqe*>(sqes_.get()) + (sq_local_tail_ & sq_mask_);
    std::memset(sqe, 0, sizeof(*sqe));
    sqe->opcode = uapi::op_recv_zc;
    sqe->fd = socket_.get();
    sqe->ioprio = IORING_RECV_MULTISHOT;
    sqe->file_index = zcrx_id_;  // zcrx_ifq_idx in 7.3's union
    ++sq_local_tail_;
    store_release(*sq_tail_, sq_local_tail_);
    armed_ = true;
    ++stats_.submissions;
}

bool Receiver::cq_empty() const noexcept { return *cq_head_ == load_acquire(*cq_tail_); }

// Submits what is queued and waits for a completion, at most `timeout` if one is given;
// false when none came (the timeout or a signal ended the wait).
bool Receiver::wait_completion(std::optional<std::chrono::milliseconds> timeout) {
    unsigned int flags = IORING_ENTER_GETEVENTS;
    const void* arg = nullptr;
    std::size_t arg_size = _NSIG / 8;  // the sigmask's size, with no sigmask
    __kernel_timespec ts{};
    io_uring_getevents_arg getevents{};
    if (timeout) {
        const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*timeout);
        ts.tv_sec = seconds.count();
        ts.tv_nsec =
            std::chrono::duration_cast<std::chrono::nanoseconds>(*timeout - seconds).count();
        getevents.sigmask_sz = _NSIG / 8;
        getevents.ts = reinterpret_cast<std::uintptr_t>(&ts);
        flags |= IORING_ENTER_EXT_ARG;
        arg = &getevents;
        arg_size = sizeof(getevents);
    }
    const std::uint32_t to_submit = sq_local_tail_ - load_acquire(*sq_head_);
    ++stats_.enter_calls;
    // With submissions the call returns their count even when the wait timed out: what
    // counts is whether a completion is there.
    if (::syscall(__NR_io_uring_enter, ring_fd_.get(), to_submit, 1, flags, arg, arg_size) < 0 &&
        errno != ETIME && errno != EINTR) {
        throw Error(errno, "io_uring_enter");
    }
    return !cq_empty();
}

bool Receiver::in_area(const Chunk& chunk) const noexcept {
    return chunk.offset <= area_.size() && chunk.size <= area_.size() - chunk.offset;
}

void Receiver::throw_failure() {
    const Error error = *failed_;
    failed_.reset();
    throw error;
}

// What the refill queue did, into the stats: it may publish entries from its backlog on any
// flush.
void Receiver::count_refills() noexcept {
    stats_.refill_entries = refill_->entries_given();
    stats_.refill_batches = refill_->tail_stores();
}

void Receiver::reap() {
    std::uint32_t head = *cq_head_;
    const std::uint32_t tail = load_acquire(*cq_tail_);
    for (; head != tail; ++head) {
        // CQE32: each entry is two struct io_uring_cqe slots, the zcrx CQE in the second.
        const std::byte* slot =
            cqes_ + static_cast<std::size_t>(head & cq_mask_) * 2 * sizeof(io_uring_cqe);
        io_uring_cqe cqe{};
        uapi::cqe zcqe{};
        std::memcpy(&cqe, slot, sizeof(cqe));
        std::memcpy(&zcqe, slot + sizeof(cqe), sizeof(zcqe));
        ++stats_.completions;
        if ((cqe.flags & IORING_CQE_F_MORE) == 0) {
            armed_ = false;
        }
        if (cqe.res == -ENOSPC) {
            // The completion queue filled up: the data waits in the socket; the request is
            // armed again once the queue is drained.
            ++stats_.cq_full;
            continue;
        }
        if (cqe.res == -ENOMEM && ++no_buffer_streak_ <= max_no_buffer_streak) {
            // No free buffer in the area (the copy path takes from the free list only): the
            // refills held back go out and the request is armed again.
            ++stats_.no_buffers;
            flush();
            continue;
        }
        if (cqe.res < 0) {
            failed_.emplace(-cqe.res, "IORING_OP_RECV_ZC");
            ++head;
            break;
        }
        if (cqe.res == 0) {
            eof_ = eof_ || !armed_;
            continue;
        }
        const Chunk chunk{zcqe.off & uapi::area_offset_mask, static_cast<std::uint32_t>(cqe.res)};
        if (!in_area(chunk)) {
            failed_.emplace(EPROTO, "RECV_ZC completion outside the area: offset " +
                                        std::to_string(chunk.offset) + ", " +
                                        std::to_string(chunk.size) + " bytes");
            ++head;
            break;
        }
        no_buffer_streak_ = 0;
        chunks_.push_back(chunk);
        stats_.bytes += chunk.size;
    }
    store_release(*cq_head_, head);
}

Received Receiver::receive() {
    if (!socket_) {
        throw Error(ENOTCONN, "zcrx receiver: no socket attached");
    }
    chunks_.clear();
    if (failed_) {
        throw_failure();
    }
    while (chunks_.empty() && !eof_ && !failed_) {
        if (!armed_) {
            // A multishot RECV_ZC ended without the peer closing (its CQ was full, say).
            submit_recv();
        }
        if (cq_empty()) {
            // About to block: the queue may need the buffers held back to deliver more.
            const bool holding = refill_->pending() > 0 || refill_->backlog() > 0;
            if (!holding || options_.batch_idle.count() <= 0 ||
                !wait_completion(options_.batch_idle)) {
                flush();
                static_cast<void>(wait_completion(std::nullopt));
            }
        }
        reap();
    }
    if (failed_ && chunks_.empty()) {
        throw_failure();
    }
    Received received;
    received.chunks = chunks_;
    for (const Chunk& chunk : chunks_) {
        received.bytes += chunk.size;
    }
    received.eof = eof_ && chunks_.empty();
    return received;
}

std::span<const std::byte> Receiver::bytes(const Chunk& chunk) const {
    if (!in_area(chunk)) {
        throw Error(ERANGE, "chunk outside the zcrx area");
    }
    return {area_.get() + chunk.offset, chunk.size};
}

void Receiver::release(std::span<const Chunk> chunks) {
    for (const Chunk& chunk : chunks) {
        refill_->give(chunk);
    }
    count_refills();
}

void Receiver::flush() {
    if (refill_) {
        refill_->flush();
        count_refills();
    }
}

}  // namespace refnic::zcrx
