// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// Kernel-bypass queues: mappings, the umem allocator and the bound queue pair.
#include <refnic/bypass.hpp>
#include <refnic/error.hpp>

#include <fcntl.h>
#include <linux/refnic_bypass.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

namespace refnic::bypass {

namespace {

// librefnic's copy of the ABI must be the uAPI header's, field for field.
static_assert(device_path == REFNIC_BYPASS_DEV);
static_assert(abi_version == REFNIC_BYPASS_ABI_VERSION);
static_assert(fill_offset == REFNIC_BYPASS_OFF_FILL && rxc_offset == REFNIC_BYPASS_OFF_RXC &&
              tx_offset == REFNIC_BYPASS_OFF_TX && txc_offset == REFNIC_BYPASS_OFF_TXC &&
              header_area_offset == REFNIC_BYPASS_OFF_HDR);
static_assert(header_slot_size == REFNIC_BYPASS_HDR_SLOT &&
              ring_entries_offset == REFNIC_BYPASS_RING_DESC_OFF &&
              ring_min_size == REFNIC_BYPASS_RING_MIN && ring_max_size == REFNIC_BYPASS_RING_MAX);
static_assert(ring_need_wakeup == REFNIC_BYPASS_RING_NEED_WAKEUP &&
              ring_broken == REFNIC_BYPASS_RING_BROKEN);
static_assert(rx_more == REFNIC_BYPASS_RX_MORE && rx_split == REFNIC_BYPASS_RX_SPLIT &&
              rx_csum_ok == REFNIC_BYPASS_RX_CSUM_OK && rx_csum_bad == REFNIC_BYPASS_RX_CSUM_BAD &&
              rx_rss_valid == REFNIC_BYPASS_RX_RSS_VALID && rx_error == REFNIC_BYPASS_RX_ERROR);

static_assert(sizeof(RingHeader) == sizeof(refnic_bypass_ring_hdr) &&
              offsetof(RingHeader, producer) == offsetof(refnic_bypass_ring_hdr, producer) &&
              offsetof(RingHeader, consumer) == offsetof(refnic_bypass_ring_hdr, consumer) &&
              offsetof(RingHeader, flags) == offsetof(refnic_bypass_ring_hdr, flags));
static_assert(sizeof(RxDesc) == sizeof(refnic_bypass_rx_desc) &&
              offsetof(RxDesc, addr) == offsetof(refnic_bypass_rx_desc, addr) &&
              offsetof(RxDesc, len) == offsetof(refnic_bypass_rx_desc, len) &&
              offsetof(RxDesc, hdr_len) == offsetof(refnic_bypass_rx_desc, hdr_len) &&
              offsetof(RxDesc, flags) == offsetof(refnic_bypass_rx_desc, flags) &&
              offsetof(RxDesc, rss_hash) == offsetof(refnic_bypass_rx_desc, rss_hash) &&
              offsetof(RxDesc, reserved) == offsetof(refnic_bypass_rx_desc, reserved));
static_assert(sizeof(TxDesc) == sizeof(refnic_bypass_tx_desc) &&
              offsetof(TxDesc, addr) == offsetof(refnic_bypass_tx_desc, addr) &&
              offsetof(TxDesc, len) == offsetof(refnic_bypass_tx_desc, len) &&
              offsetof(TxDesc, flags) == offsetof(refnic_bypass_tx_desc, flags));
// Stats is read straight from the kernel's struct: the same u64s in the same order.
static_assert(sizeof(Stats) == sizeof(refnic_bypass_stats) &&
              sizeof(Stats) == stats_fields.size() * sizeof(std::uint64_t) &&
              offsetof(Stats, rx_frames) == offsetof(refnic_bypass_stats, rx_frames) &&
              offsetof(Stats, fill_bufs) == offsetof(refnic_bypass_stats, fill_bufs) &&
              offsetof(Stats, kicks) == offsetof(refnic_bypass_stats, kicks) &&
              offsetof(Stats, bad_index) == offsetof(refnic_bypass_stats, bad_index));

std::size_t page_size() {
    static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return size;
}

std::size_t page_align(std::size_t size) {
    const std::size_t page = page_size();
    return (size + page - 1) / page * page;
}

std::string size_text(std::size_t size) {
    constexpr std::size_t mib = std::size_t{1} << 20U;
    return size % mib == 0 ? std::to_string(size / mib) + " MiB" : std::to_string(size) + " bytes";
}

std::string hex(std::uint64_t value) {
    std::array<char, 24> text{};
    const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), value, 16);
    static_cast<void>(error);  // 24 characters hold any u64.
    return "0x" + std::string(text.data(), end);
}

// "queue 3 of ifindex 7 (r0)" for messages.
std::string describe_queue(const Config& config) {
    std::string text =
        "queue " + std::to_string(config.queue) + " of ifindex " + std::to_string(config.ifindex);
    if (!config.ifname.empty()) {
        text += " (" + config.ifname + ")";
    }
    return text;
}

void require_ring_size(std::string_view ring, std::uint32_t entries) {
    if (!valid_ring_size(entries)) {
        throw Error(EINVAL, std::string(ring) + " ring size " + std::to_string(entries) +
                                " is not a power of two from " + std::to_string(ring_min_size) +
                                " to " + std::to_string(ring_max_size));
    }
}

// What the kernel would refuse with EINVAL, refused before anything is done.
void validate(const Config& config) {
    if (config.buf_size != 2048 && config.buf_size != 4096) {
        throw Error(EINVAL,
                    "buffer size " + std::to_string(config.buf_size) + " is neither 2048 nor 4096");
    }
    require_ring_size("fill", config.fill_size);
    require_ring_size("rxc", config.rxc_size);
    require_ring_size("tx", config.tx_size);
    require_ring_size("txc", config.txc_size);
    if (config.umem_size == 0 || config.umem_size % page_size() != 0 ||
        config.umem_size > umem_max_size || config.umem_size < config.buf_size) {
        throw Error(EINVAL, "umem size " + size_text(config.umem_size) +
                                " is not a page multiple from one buffer to 1 GiB");
    }
    if (config.ifindex == 0 && config.ifname.empty()) {
        throw Error(EINVAL, "a bypass queue needs an ifindex or an interface name");
    }
}

void require_mapping(const Mapping& mapping, std::size_t size, std::string_view what) {
    if (!mapping || mapping.size() < size) {
        throw Error(EINVAL, std::string(what) + " mapping of " + std::to_string(mapping.size()) +
                                " bytes, " + std::to_string(size) + " needed");
    }
}

}  // namespace

std::size_t ring_mapping_size(std::uint32_t entries, std::size_t entry_size) {
    return page_align(ring_entries_offset + std::size_t{entries} * entry_size);
}

// --- Mapping ---------------------------------------------------------------------------------

Mapping& Mapping::operator=(Mapping&& other) noexcept {
    if (this != &other) {
        reset();
        address_ = std::exchange(other.address_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

Mapping::~Mapping() { reset(); }

void Mapping::reset() noexcept {
    if (address_ != nullptr) {
        ::munmap(address_, size_);
    }
    address_ = nullptr;
    size_ = 0;
}

Mapping Mapping::anonymous(std::size_t size, bool populate, std::string_view what) {
    const std::size_t length = page_align(size);
    if (length == 0) {
        throw Error(EINVAL, "mmap of " + std::string(what) + ": size 0");
    }
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0);
    void* address = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (address == MAP_FAILED) {
        throw Error(errno, "mmap of " + std::string(what) + " (" + size_text(length) + ")");
    }
    return {address, length};
}

Mapping Mapping::shared(int fd, std::uint64_t offset, std::size_t size, int prot,
                        std::string_view what) {
    void* address = ::mmap(nullptr, size, prot, MAP_SHARED, fd, static_cast<off_t>(offset));
    if (address == MAP_FAILED) {
        throw Error(errno, "mmap of " + std::string(what) + " (" + size_text(size) + " at offset " +
                               hex(offset) + ")");
    }
    return {address, size};
}

// --- UmemAllocator ---------------------------------------------------------------------------

UmemAllocator::UmemAllocator(std::uint64_t umem_size, std::uint32_t buf_size)
    : buf_size_(buf_size) {
    if (buf_size == 0 || umem_size < buf_size) {
        throw Error(EINVAL, "a umem of " + std::to_string(umem_size) + " bytes has no buffer of " +
                                std::to_string(buf_size) + " bytes");
    }
    const std::uint64_t count = umem_size / buf_size;
    free_.reserve(count);
    // Popped from the back: buffer 0 comes first.
    for (std::uint64_t i = count; i > 0; --i) {
        free_.push_back((i - 1) * buf_size);
    }
    is_free_.assign(count, true);
}

bool UmemAllocator::allocate(std::uint64_t& offset) noexcept {
    if (free_.empty()) {
        return false;
    }
    offset = free_.back();
    free_.pop_back();
    is_free_[offset / buf_size_] = false;
    return true;
}

std::size_t UmemAllocator::allocate(std::span<std::uint64_t> offsets) noexcept {
    std::size_t count = 0;
    while (count < offsets.size() && allocate(offsets[count])) {
        ++count;
    }
    return count;
}

void UmemAllocator::release(std::uint64_t addr) {
    const std::uint64_t buffer = addr / buf_size_;
    if (buffer >= is_free_.size()) {
        throw Error(EINVAL, "umem offset " + std::to_string(addr) + " is past the umem (" +
                                std::to_string(is_free_.size()) + " buffers of " +
                                std::to_string(buf_size_) + " bytes)");
    }
    if (is_free_[buffer]) {
        throw Error(EINVAL,
                    "umem buffer at " + std::to_string(buffer * buf_size_) + " given back twice");
    }
    is_free_[buffer] = true;
    free_.push_back(buffer * buf_size_);
}

// --- BypassQueue -----------------------------------------------------------------------------

BypassQueue BypassQueue::open(Config config) {
    validate(config);
    if (config.ifindex == 0) {
        const unsigned int ifindex = ::if_nametoindex(config.ifname.c_str());
        if (ifindex == 0) {
            throw Error(errno, "interface " + config.ifname);
        }
        config.ifindex = ifindex;
    }

    Parts parts;
    parts.fd.reset(::open(std::string(device_path).c_str(), O_RDWR | O_CLOEXEC));
    if (!parts.fd) {
        throw Error(errno, "opening " + std::string(device_path));
    }
    parts.umem = Mapping::anonymous(config.umem_size, true,
                                    "the umem (" + size_text(config.umem_size) + ")");

    refnic_bypass_bind bind{};
    bind.abi_version = abi_version;
    bind.ifindex = config.ifindex;
    bind.queue = config.queue;
    bind.flags = (config.header_split ? REFNIC_BYPASS_F_HDR_SPLIT : 0U) |
                 (config.whole_port ? REFNIC_BYPASS_F_WHOLE_PORT : 0U);
    bind.umem_addr = reinterpret_cast<std::uintptr_t>(parts.umem.data());
    bind.umem_len = parts.umem.size();
    bind.buf_size = config.buf_size;
    bind.fill_size = config.fill_size;
    bind.rxc_size = config.rxc_size;
    bind.tx_size = config.tx_size;
    bind.txc_size = config.txc_size;
    if (::ioctl(parts.fd.get(), REFNIC_BYPASS_IOC_BIND, &bind) != 0) {
        throw Error(errno, "bind " + describe_queue(config));
    }

    const int fd = parts.fd.get();
    constexpr int read_write = PROT_READ | PROT_WRITE;
    parts.fill =
        Mapping::shared(fd, fill_offset, ring_mapping_size(config.fill_size, sizeof(std::uint64_t)),
                        read_write, "the fill ring");
    parts.rxc = Mapping::shared(fd, rxc_offset, ring_mapping_size(config.rxc_size, sizeof(RxDesc)),
                                read_write, "the rxc ring");
    parts.tx = Mapping::shared(fd, tx_offset, ring_mapping_size(config.tx_size, sizeof(TxDesc)),
                               read_write, "the tx ring");
    parts.txc =
        Mapping::shared(fd, txc_offset, ring_mapping_size(config.txc_size, sizeof(std::uint64_t)),
                        read_write, "the txc ring");
    if (config.header_split) {
        parts.headers = Mapping::shared(fd, header_area_offset,
                                        page_align(std::size_t{config.rxc_size} * header_slot_size),
                                        PROT_READ, "the header area");
    }
    parts.config = std::move(config);
    return adopt(std::move(parts));
}

BypassQueue BypassQueue::adopt(Parts parts) {
    const Config& config = parts.config;
    if (config.buf_size == 0) {
        throw Error(EINVAL, "adopting a bypass queue: buffer size 0");
    }
    require_ring_size("fill", config.fill_size);
    require_ring_size("rxc", config.rxc_size);
    require_ring_size("tx", config.tx_size);
    require_ring_size("txc", config.txc_size);
    require_mapping(parts.umem, config.buf_size, "umem");
    require_mapping(parts.fill, ring_mapping_size(config.fill_size, sizeof(std::uint64_t)),
                    "fill ring");
    require_mapping(parts.rxc, ring_mapping_size(config.rxc_size, sizeof(RxDesc)), "rxc ring");
    require_mapping(parts.tx, ring_mapping_size(config.tx_size, sizeof(TxDesc)), "tx ring");
    require_mapping(parts.txc, ring_mapping_size(config.txc_size, sizeof(std::uint64_t)),
                    "txc ring");
    if (config.header_split) {
        require_mapping(parts.headers, std::size_t{config.rxc_size} * header_slot_size,
                        "header area");
    }
    return BypassQueue(std::move(parts));
}

BypassQueue::BypassQueue(Parts parts)
    : umem_(std::move(parts.umem)),
      fd_(std::move(parts.fd)),
      fill_map_(std::move(parts.fill)),
      rxc_map_(std::move(parts.rxc)),
      tx_map_(std::move(parts.tx)),
      txc_map_(std::move(parts.txc)),
      headers_(std::move(parts.headers)),
      config_(std::move(parts.config)),
      fill_(fill_map_.data(), config_.fill_size),
      rxc_(rxc_map_.data(), config_.rxc_size),
      tx_(tx_map_.data(), config_.tx_size),
      txc_(txc_map_.data(), config_.txc_size),
      allocator_(umem_.size(), config_.buf_size) {
    if (!config_.header_split) {
        headers_.reset();
    }
}

std::span<std::byte> BypassQueue::buffer(std::uint64_t offset) const {
    if (offset >= umem_.size()) {
        throw Error(ERANGE, "umem offset " + std::to_string(offset) + " is past the umem (" +
                                size_text(umem_.size()) + ")");
    }
    const std::uint64_t end =
        std::min<std::uint64_t>(allocator_.buffer_of(offset) + config_.buf_size, umem_.size());
    return umem_.bytes().subspan(offset, end - offset);
}

std::span<const std::byte> BypassQueue::header(std::uint32_t rxc_index) const noexcept {
    if (!headers_) {
        return {};
    }
    const std::size_t slot = rxc_index & (config_.rxc_size - 1);
    return headers_.bytes().subspan(slot * header_slot_size, header_slot_size);
}

void BypassQueue::kick() {
    while (::ioctl(fd_.get(), REFNIC_BYPASS_IOC_KICK) != 0) {
        if (errno != EINTR) {
            throw Error(errno, "REFNIC_BYPASS_IOC_KICK on " + describe_queue(config_));
        }
    }
}

Stats BypassQueue::stats() const {
    refnic_bypass_stats kernel{};
    if (::ioctl(fd_.get(), REFNIC_BYPASS_IOC_STATS, &kernel) != 0) {
        throw Error(errno, "REFNIC_BYPASS_IOC_STATS on " + describe_queue(config_));
    }
    return std::bit_cast<Stats>(kernel);
}

void BypassQueue::torn_down() const {
    const bool broken = (rxc_.valid() && rxc_.broken()) || (fill_.valid() && fill_.broken());
    throw Error(EPIPE, describe_queue(config_) + ": session torn down by the kernel" +
                           (broken ? " (rings marked broken: a producer index jumped)" : ""));
}

bool BypassQueue::wait(int timeout_ms) {
    pollfd descriptor{.fd = fd_.get(), .events = POLLIN, .revents = 0};
    const int ready = ::poll(&descriptor, 1, timeout_ms);
    if (ready < 0) {
        if (errno == EINTR) {
            return false;
        }
        throw Error(errno, "poll on " + describe_queue(config_));
    }
    if ((static_cast<unsigned>(descriptor.revents) & (POLLERR | POLLNVAL)) != 0) {
        torn_down();
    }
    return (static_cast<unsigned>(descriptor.revents) & POLLIN) != 0;
}

std::size_t BypassQueue::refill(std::size_t max) {
    const auto wanted = static_cast<std::uint32_t>(
        std::min({max, allocator_.available(), std::size_t{config_.fill_size}}));
    const std::uint32_t reserved = fill_.reserve(wanted);
    if (reserved == 0) {
        return 0;
    }
    // A reservation goes from the oldest unsubmitted slot: any left reserved before come first.
    const std::uint32_t first = fill_.reserved() - reserved;
    std::uint32_t filled = 0;
    while (filled < reserved && allocator_.allocate(fill_.slot(first + filled))) {
        ++filled;
    }
    fill_.cancel(reserved - filled);
    fill_.submit(fill_.reserved());
    if (fill_.need_wakeup()) {
        kick();
    }
    return filled;
}

bool BypassQueue::wait_rx(Wait how, std::chrono::milliseconds timeout) {
    if (rxc_.available() > 0) {
        return true;
    }
    if (how == Wait::block) {
        const auto timeout_ms =
            static_cast<int>(std::min<std::chrono::milliseconds::rep>(timeout.count(), 0x7fffffff));
        return wait(timeout_ms) && rxc_.available() > 0;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    constexpr unsigned spins_per_clock_read = 256;
    for (;;) {
        for (unsigned i = 0; i < spins_per_clock_read; ++i) {
            if (rxc_.available() > 0) {
                return true;
            }
        }
        if (rxc_.broken()) {
            torn_down();
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
    }
}

Frame BypassQueue::rx_frame(std::uint32_t i) const {
    const RxDesc& desc = rxc_.slot(i);
    const std::uint64_t addr = desc.addr;
    const std::uint32_t len = desc.len;
    if (addr > umem_.size() || len > umem_.size() - addr) {
        throw Error(EPROTO, "rxc entry " + std::to_string(rxc_.index(i)) + " of " +
                                describe_queue(config_) + ": " + std::to_string(len) +
                                " bytes at umem offset " + std::to_string(addr) +
                                " are past the umem (" + size_text(umem_.size()) + ")");
    }
    Frame frame;
    frame.data = umem_.bytes().subspan(addr, len);
    frame.addr = addr;
    frame.index = rxc_.index(i);
    frame.rss_hash = desc.rss_hash;
    frame.flags = desc.flags;
    if ((frame.flags & rx_split) != 0 && headers_) {
        frame.header =
            header(frame.index).first(std::min<std::size_t>(desc.hdr_len, header_slot_size));
    }
    return frame;
}

void BypassQueue::rx_release(std::uint32_t n, Recycle recycle) {
    n = std::min(n, rxc_.peeked());
    if (recycle == Recycle::to_allocator) {
        for (std::uint32_t i = 0; i < n; ++i) {
            allocator_.release(rxc_.slot(i).addr);
        }
    }
    rxc_.release(n);
    // The kernel stops taking fill entries while the rxc ring has no room for their completions;
    // room it gets back here, it sees only if told.
    if (n > 0 && fill_.pending() > 0 && fill_.need_wakeup()) {
        kick();
    }
}

void BypassQueue::tx_submit(std::uint32_t n) {
    tx_.submit(n);
    if (tx_.need_wakeup()) {
        kick();
    }
}

bool BypassQueue::send_buffer(std::uint64_t addr, std::uint32_t len) noexcept {
    if (tx_.reserve(1) == 0) {
        return false;
    }
    tx_.slot(tx_.reserved() - 1) = TxDesc{.addr = addr, .len = len, .flags = 0};
    return true;
}

bool BypassQueue::send(std::span<const std::byte> frame) {
    if (frame.size() > config_.buf_size) {
        throw Error(EMSGSIZE, "a frame of " + std::to_string(frame.size()) +
                                  " bytes does not fit a buffer of " +
                                  std::to_string(config_.buf_size));
    }
    std::uint64_t addr = 0;
    if (!allocator_.allocate(addr)) {
        return false;
    }
    if (!send_buffer(addr, static_cast<std::uint32_t>(frame.size()))) {
        allocator_.release(addr);
        return false;
    }
    std::memcpy(umem_.bytes().subspan(addr).data(), frame.data(), frame.size());
    return true;
}

std::uint32_t BypassQueue::flush_tx() {
    const std::uint32_t count = tx_.reserved();
    if (count > 0) {
        tx_submit(count);
    }
    return count;
}

std::size_t BypassQueue::reap_tx(std::size_t max) {
    std::size_t reaped = 0;
    while (reaped < max) {
        const std::uint32_t count = txc_.peek(static_cast<std::uint32_t>(
            std::min<std::size_t>(max - reaped, std::numeric_limits<std::uint32_t>::max())));
        if (count == 0) {
            break;
        }
        for (std::uint32_t i = 0; i < count; ++i) {
            allocator_.release(txc_.slot(i));
        }
        txc_.release(count);
        reaped += count;
    }
    // Likewise tx entries wait while the txc ring has no room for their completions.
    if (reaped > 0 && tx_.pending() > 0 && tx_.need_wakeup()) {
        kick();
    }
    return reaped;
}

}  // namespace refnic::bypass
