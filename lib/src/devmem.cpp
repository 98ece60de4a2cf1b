// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// Devmem TCP: the udmabuf, cmsg decoding, token batching and the receiver; the TX sender.
#include "devmem_uapi.hpp"

#include <refnic/devmem.hpp>
#include <refnic/error.hpp>

#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/udmabuf.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <linux/dma-buf.h>
#include <string>
#include <thread>
#include <utility>

namespace refnic::devmem {

namespace {

namespace uapi = compat::devmem;

static_assert(max_dontneed_ranges == uapi::max_dontneed_tokens);
static_assert(max_dontneed_frags == uapi::max_dontneed_frags);
// A span of TokenRange is handed to the kernel as an array of struct dmabuf_token.
static_assert(sizeof(TokenRange) == sizeof(uapi::dmabuf_token) &&
              offsetof(TokenRange, start) == offsetof(uapi::dmabuf_token, token_start) &&
              offsetof(TokenRange, count) == offsetof(uapi::dmabuf_token, token_count));

// CMSG_ALIGN, CMSG_LEN(0) and CMSG_SPACE without the C casts of the glibc macros.
constexpr std::size_t cmsg_align(std::size_t length) {
    return (length + sizeof(std::size_t) - 1) & ~(sizeof(std::size_t) - 1);
}
constexpr std::size_t cmsg_header = cmsg_align(sizeof(cmsghdr));
constexpr std::size_t devmem_cmsg_space = cmsg_header + cmsg_align(sizeof(uapi::dmabuf_cmsg));

std::string size_text(std::size_t size) {
    constexpr std::size_t mib = std::size_t{1} << 20U;
    return size % mib == 0 ? std::to_string(size / mib) + " MiB" : std::to_string(size) + " bytes";
}

std::uint64_t sync_flags(CpuAccess::Mode mode) {
    switch (mode) {
        case CpuAccess::Mode::read:
            return DMA_BUF_SYNC_READ;
        case CpuAccess::Mode::write:
            return DMA_BUF_SYNC_WRITE;
        case CpuAccess::Mode::read_write:
            break;
    }
    return DMA_BUF_SYNC_RW;
}

// DMA_BUF_IOCTL_SYNC, repeated on EINTR and EAGAIN as the dma-buf documentation asks.
void sync_dmabuf(int fd, std::uint64_t flags) {
    dma_buf_sync sync{};
    sync.flags = flags;
    while (::ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) < 0) {
        if (errno != EINTR && errno != EAGAIN) {
            throw Error(errno, std::string("DMA_BUF_IOCTL_SYNC ") +
                                   ((flags & DMA_BUF_SYNC_END) != 0 ? "end" : "start") +
                                   " on dmabuf fd " + std::to_string(fd));
        }
    }
}

// "tokens 7-9, 12 and 2 more ranges (4 frags)" for error messages.
std::string describe_tokens(std::span<const TokenRange> ranges, std::size_t frags) {
    constexpr std::size_t shown = 4;
    std::string text = ranges.size() == 1 && ranges.front().count == 1 ? "token " : "tokens ";
    for (std::size_t i = 0; i < ranges.size() && i < shown; ++i) {
        const TokenRange& range = ranges[i];
        text += (i == 0 ? "" : ", ") + std::to_string(range.start);
        if (range.count > 1) {
            text += "-" + std::to_string(std::uint64_t{range.start} + range.count - 1);
        }
    }
    if (ranges.size() > shown) {
        text += " and " + std::to_string(ranges.size() - shown) + " more ranges";
    }
    return text + " (" + std::to_string(frags) + (frags == 1 ? " frag)" : " frags)");
}

}  // namespace

// --- CpuAccess ------------------------------------------------------------------------------

CpuAccess::CpuAccess(int dmabuf_fd, Mode mode) : mode_(mode) {
    sync_dmabuf(dmabuf_fd, DMA_BUF_SYNC_START | sync_flags(mode));
    fd_ = dmabuf_fd;
}

CpuAccess::CpuAccess(CpuAccess&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), mode_(other.mode_) {}

CpuAccess& CpuAccess::operator=(CpuAccess&& other) noexcept {
    if (this != &other) {
        try {
            end();
        } catch (...) {  // Nowhere to report it.
        }
        fd_ = std::exchange(other.fd_, -1);
        mode_ = other.mode_;
    }
    return *this;
}

CpuAccess::~CpuAccess() {
    try {
        end();
    } catch (...) {  // Nowhere to report it.
    }
}

void CpuAccess::end() {
    if (fd_ < 0) {
        return;
    }
    const int fd = std::exchange(fd_, -1);
    sync_dmabuf(fd, DMA_BUF_SYNC_END | sync_flags(mode_));
}

// --- Udmabuf --------------------------------------------------------------------------------

Udmabuf::Udmabuf(std::size_t size) : size_(size) {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (size == 0 || page <= 0 || size % static_cast<std::size_t>(page) != 0) {
        throw Error(EINVAL, "udmabuf size " + std::to_string(size) +
                                " is not a nonzero multiple of the page size (" +
                                std::to_string(page) + ")");
    }
    const std::string device_path(udmabuf_device);
    const UniqueFd device(::open(device_path.c_str(), O_RDWR | O_CLOEXEC));
    if (!device) {
        const int errnum = errno;
        throw Error(
            errnum,
            "opening " + device_path +
                (errnum == ENOENT ? " (no udmabuf driver: modprobe udmabuf, CONFIG_UDMABUF)" : ""));
    }
    memfd_.reset(::memfd_create("refnic-udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC));
    if (!memfd_) {
        throw Error(errno, "memfd_create for a udmabuf");
    }
    // udmabuf insists on F_SEAL_SHRINK (and refuses F_SEAL_WRITE): its pages must stay.
    if (::fcntl(memfd_.get(), F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
        throw Error(errno, "sealing the udmabuf's memfd (F_SEAL_SHRINK)");
    }
    if (::ftruncate(memfd_.get(), static_cast<off_t>(size)) < 0) {
        throw Error(errno, "sizing the udmabuf's memfd to " + size_text(size));
    }
    udmabuf_create create{};
    create.memfd = static_cast<std::uint32_t>(memfd_.get());
    create.flags = UDMABUF_FLAGS_CLOEXEC;
    create.offset = 0;
    create.size = size;
    dmabuf_.reset(::ioctl(device.get(), UDMABUF_CREATE, &create));
    if (!dmabuf_) {
        const int errnum = errno;
        throw Error(errnum, "UDMABUF_CREATE of " + size_text(size) + " on " + device_path +
                                (errnum == EINVAL ? " (more than the driver's limit, "
                                                    "/sys/module/udmabuf/parameters/size_limit_mb?)"
                                                  : ""));
    }
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, dmabuf_.get(), 0);
    if (mapping == MAP_FAILED) {  // NOLINT(performance-no-int-to-ptr): the libc's own macro
        throw Error(errno, "mapping the " + size_text(size) + " udmabuf");
    }
    mapping_ = mapping;
}

Udmabuf::Udmabuf(Udmabuf&& other) noexcept
    : memfd_(std::move(other.memfd_)),
      dmabuf_(std::move(other.dmabuf_)),
      mapping_(std::exchange(other.mapping_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

Udmabuf& Udmabuf::operator=(Udmabuf&& other) noexcept {
    if (this != &other) {
        unmap();
        memfd_ = std::move(other.memfd_);
        dmabuf_ = std::move(other.dmabuf_);
        mapping_ = std::exchange(other.mapping_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

Udmabuf::~Udmabuf() { unmap(); }

void Udmabuf::unmap() noexcept {
    if (mapping_ != nullptr) {
        ::munmap(mapping_, size_);
        mapping_ = nullptr;
    }
}

std::span<const std::byte> Udmabuf::bytes() const noexcept {
    if (mapping_ == nullptr) {
        return {};
    }
    return {static_cast<const std::byte*>(mapping_), size_};
}

std::span<const std::byte> Udmabuf::bytes(std::uint64_t offset, std::size_t size) const {
    if (offset > size_ || size > size_ - offset) {
        throw Error(ERANGE, std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                                " lie outside the " + size_text(size_) + " udmabuf");
    }
    return bytes().subspan(static_cast<std::size_t>(offset), size);
}

void Udmabuf::write(std::uint64_t offset, std::span<const std::byte> data) {
    if (offset > size_ || data.size() > size_ - offset) {
        throw Error(ERANGE, "writing " + std::to_string(data.size()) + " bytes at offset " +
                                std::to_string(offset) + " of the " + size_text(size_) +
                                " udmabuf");
    }
    CpuAccess access(fd(), CpuAccess::Mode::write);
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t written = ::pwrite(memfd_.get(), data.data() + done, data.size() - done,
                                         static_cast<off_t>(offset + done));
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            throw Error(written < 0 ? errno : EIO,
                        "writing the udmabuf's memfd at offset " + std::to_string(offset + done));
        }
        done += static_cast<std::size_t>(written);
    }
    access.end();
}

// --- Control messages -----------------------------------------------------------------------

ControlSummary parse_control(std::span<const std::byte> control, std::vector<Frag>& frags) {
    ControlSummary summary;
    std::size_t position = 0;
    while (control.size() - position >= sizeof(cmsghdr)) {
        cmsghdr header{};
        std::memcpy(&header, control.data() + position, sizeof(header));
        if (header.cmsg_len < cmsg_header || header.cmsg_len > control.size() - position) {
            throw Error(EPROTO, "recvmsg control data: a cmsg of " +
                                    std::to_string(header.cmsg_len) + " bytes at offset " +
                                    std::to_string(position) + " of " +
                                    std::to_string(control.size()));
        }
        const bool devmem =
            header.cmsg_level == SOL_SOCKET && (header.cmsg_type == uapi::scm_devmem_dmabuf ||
                                                header.cmsg_type == uapi::scm_devmem_linear);
        if (devmem) {
            const std::size_t length = header.cmsg_len - cmsg_header;
            if (length != sizeof(uapi::dmabuf_cmsg)) {
                throw Error(EPROTO, std::string("recvmsg control data: ") +
                                        (header.cmsg_type == uapi::scm_devmem_dmabuf
                                             ? "SCM_DEVMEM_DMABUF"
                                             : "SCM_DEVMEM_LINEAR") +
                                        " of " + std::to_string(length) + " bytes, expected " +
                                        std::to_string(sizeof(uapi::dmabuf_cmsg)));
            }
            uapi::dmabuf_cmsg payload{};
            std::memcpy(&payload, control.data() + position + cmsg_header, sizeof(payload));
            ++summary.devmem_cmsgs;
            if (header.cmsg_type == uapi::scm_devmem_linear) {
                summary.linear_bytes += payload.frag_size;
            } else {
                frags.push_back(Frag{.offset = payload.frag_offset,
                                     .size = payload.frag_size,
                                     .token = payload.frag_token,
                                     .dmabuf_id = payload.dmabuf_id});
            }
        }
        position += std::min(cmsg_align(header.cmsg_len), control.size() - position);
    }
    return summary;
}

// --- TokenBatch -----------------------------------------------------------------------------

TokenBatch::TokenBatch(std::size_t max_ranges, std::size_t max_frags)
    : max_ranges_(max_ranges), max_frags_(max_frags) {
    if (max_ranges == 0 || max_frags == 0) {
        throw Error(EINVAL, "a token batch needs room for at least one range and one frag");
    }
    ranges_.reserve(std::min(max_ranges, max_dontneed_ranges));
}

bool TokenBatch::extends_last(std::uint32_t token) const noexcept {
    if (ranges_.empty()) {
        return false;
    }
    const TokenRange& last = ranges_.back();
    return last.count < std::numeric_limits<std::uint32_t>::max() &&
           std::uint64_t{last.start} + last.count == token;
}

bool TokenBatch::fits(std::uint32_t token) const noexcept {
    return frags_ < max_frags_ && (extends_last(token) || ranges_.size() < max_ranges_);
}

bool TokenBatch::add(std::uint32_t token) {
    if (!fits(token)) {
        return false;
    }
    if (extends_last(token)) {
        ++ranges_.back().count;
    } else {
        ranges_.push_back(TokenRange{.start = token, .count = 1});
    }
    ++frags_;
    return true;
}

void TokenBatch::clear() noexcept {
    ranges_.clear();
    frags_ = 0;
}

// --- Receiver -------------------------------------------------------------------------------

std::string_view to_string(Release release) noexcept {
    switch (release) {
        case Release::per_frag:
            return "per-frag";
        case Release::batched:
            break;
    }
    return "batched";
}

Receiver::Receiver(UniqueFd socket, ReceiverOptions options)
    : socket_(std::move(socket)), options_(options) {
    if (!socket_) {
        throw Error(EINVAL, "a devmem receiver needs a connected TCP socket");
    }
    if (options_.max_bytes == 0 || options_.max_frags == 0) {
        throw Error(EINVAL, "a devmem receiver needs room for at least one byte and one frag");
    }
    iov_.resize(options_.max_bytes);
    const std::size_t control_bytes = options_.max_frags * devmem_cmsg_space;
    control_.resize((control_bytes + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t));
    frags_.reserve(options_.max_frags);
}

Receiver::~Receiver() {
    try {
        flush();
    } catch (...) {  // Closing the socket frees the frags all the same.
    }
}

Received Receiver::receive() {
    frags_.clear();
    const std::span<std::byte> control = std::as_writable_bytes(std::span(control_));
    iovec iov{.iov_base = iov_.data(), .iov_len = iov_.size()};
    msghdr message{};
    ssize_t received = 0;
    wait_or_flush();
    for (;;) {
        message = msghdr{};
        message.msg_iov = &iov;
        message.msg_iovlen = 1;
        message.msg_control = control.data();
        message.msg_controllen = control.size();
        ++stats_.recvmsg_calls;
        received = ::recvmsg(socket_.get(), &message, uapi::msg_sock_devmem);
        if (received >= 0) {
            break;
        }
        if (errno != EINTR) {
            throw Error(errno,
                        "recvmsg(MSG_SOCK_DEVMEM) on socket " + std::to_string(socket_.get()));
        }
    }
    if ((static_cast<unsigned>(message.msg_flags) & MSG_CTRUNC) != 0) {
        throw Error(EMSGSIZE,
                    "recvmsg(MSG_SOCK_DEVMEM): control data truncated (MSG_CTRUNC), frag "
                    "tokens lost");
    }
    const ControlSummary summary =
        parse_control(control.first(std::min(message.msg_controllen, control.size())), frags_);

    Received result;
    result.bytes = static_cast<std::size_t>(received);
    result.frags = frags_;
    result.devmem = summary.devmem_cmsgs > 0;
    std::uint64_t devmem_bytes = 0;
    for (const Frag& frag : frags_) {
        devmem_bytes += frag.size;
    }
    if (result.devmem) {
        if (summary.linear_bytes + devmem_bytes != result.bytes ||
            summary.linear_bytes > iov_.size()) {
            throw Error(EPROTO,
                        "recvmsg(MSG_SOCK_DEVMEM) returned " + std::to_string(result.bytes) +
                            " bytes but its cmsgs account for " + std::to_string(devmem_bytes) +
                            " in " + std::to_string(frags_.size()) + " frags and " +
                            std::to_string(summary.linear_bytes) + " linear");
        }
        result.linear = std::span<const std::byte>(iov_).first(summary.linear_bytes);
        stats_.linear_bytes += summary.linear_bytes;
    } else {
        result.linear = std::span<const std::byte>(iov_).first(result.bytes);
        stats_.plain_bytes += result.bytes;
    }
    stats_.frags += frags_.size();
    stats_.devmem_bytes += devmem_bytes;
    return result;
}

void Receiver::release(std::span<const Frag> frags) {
    for (const Frag& frag : frags) {
        if (options_.release == Release::per_frag) {
            const TokenRange range{.start = frag.token, .count = 1};
            dontneed(std::span(&range, 1), 1);
            continue;
        }
        if (!batch_.add(frag.token)) {
            flush();
            static_cast<void>(batch_.add(frag.token));  // An empty batch takes any token.
        }
    }
}

// Held tokens are buffers of the bound queue, maybe the ones it needs to deliver the data the
// receiver waits for (a small dmabuf runs dry): they are kept at most batch_idle while the
// socket has nothing to read, then sent before the wait goes on.
void Receiver::wait_or_flush() {
    if (batch_.empty()) {
        return;
    }
    pollfd readable{.fd = socket_.get(), .events = POLLIN, .revents = 0};
    const auto timeout = static_cast<int>(options_.batch_idle.count());
    for (;;) {
        ++stats_.poll_calls;
        const int ready = ::poll(&readable, 1, timeout);
        if (ready > 0) {
            return;
        }
        if (ready == 0) {
            flush();
            return;
        }
        if (errno != EINTR) {
            throw Error(errno, "poll on socket " + std::to_string(socket_.get()));
        }
    }
}

void Receiver::flush() {
    if (batch_.empty()) {
        return;
    }
    try {
        dontneed(batch_.ranges(), batch_.frags());
    } catch (const Error&) {
        // Sending them again would not help: the kernel freed what it could.
        batch_.clear();
        throw;
    }
    batch_.clear();
}

void Receiver::dontneed(std::span<const TokenRange> ranges, std::size_t frags) {
    ++stats_.dontneed_calls;
    const int freed = ::setsockopt(socket_.get(), SOL_SOCKET, uapi::so_devmem_dontneed,
                                   ranges.data(), static_cast<socklen_t>(ranges.size_bytes()));
    if (freed < 0) {
        throw Error(errno, "setsockopt(SO_DEVMEM_DONTNEED) of " + describe_tokens(ranges, frags));
    }
    stats_.frags_released += static_cast<std::uint64_t>(freed);
    if (static_cast<std::size_t>(freed) != frags) {
        throw Error(EINVAL, "SO_DEVMEM_DONTNEED freed " + std::to_string(freed) + " of " +
                                describe_tokens(ranges, frags) +
                                ": the socket did not hold them all");
    }
}

// --- Sender ---------------------------------------------------------------------------------

namespace {

// UIO_MAXIOV: the most iovecs one sendmsg takes.
constexpr std::size_t max_iovecs = 1024;
// Room for one IP_RECVERR / IPV6_RECVERR cmsg with its offender address.
constexpr std::size_t errqueue_control_size = 128;

}  // namespace

Sender::Sender(UniqueFd socket, std::uint32_t binding_id, SenderOptions options)
    : socket_(std::move(socket)), binding_id_(binding_id), options_(options) {
    if (!socket_ || options_.max_send == 0) {
        throw Error(EINVAL, "devmem sender: an invalid socket or max_send of 0");
    }
    const int on = 1;
    if (::setsockopt(socket_.get(), SOL_SOCKET, SO_ZEROCOPY, &on, sizeof(on)) != 0) {
        throw Error(errno, "setsockopt(SO_ZEROCOPY) on socket " + std::to_string(socket_.get()));
    }
}

Sender::~Sender() = default;

void Sender::send(std::uint64_t offset, std::size_t size) {
    while (size > 0) {
        const std::size_t sent = send_once(offset, size);
        offset += sent;
        size -= sent;
    }
}

// One sendmsg of up to max_send bytes; returns what the kernel took (> 0).
std::size_t Sender::send_once(std::uint64_t offset, std::size_t size) {
    std::size_t length = std::min(size, options_.max_send);
    const std::size_t chunk = options_.max_chunk == 0 ? length : options_.max_chunk;
    length = std::min(length, chunk * max_iovecs);
    iov_.clear();
    for (std::size_t at = 0; at < length; at += chunk) {
        // The kernel reads iov_base as an offset into the dmabuf, not as an address.
        iov_.push_back(
            iovec{.iov_base = reinterpret_cast<void*>(  // NOLINT(performance-no-int-to-ptr)
                      static_cast<std::uintptr_t>(offset + at)),
                  .iov_len = std::min(chunk, length - at)});
    }
    std::array<std::uint64_t, (cmsg_header + sizeof(std::uint32_t) + 7) / 8> control{};
    msghdr message{};
    message.msg_iov = iov_.data();
    message.msg_iovlen = iov_.size();
    message.msg_control = control.data();
    message.msg_controllen = CMSG_SPACE(sizeof(std::uint32_t));
    cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = uapi::scm_devmem_dmabuf;
    cmsg->cmsg_len = CMSG_LEN(sizeof(std::uint32_t));
    std::memcpy(CMSG_DATA(cmsg), &binding_id_, sizeof(binding_id_));
    for (;;) {
        const ssize_t sent = ::sendmsg(socket_.get(), &message, MSG_ZEROCOPY);
        if (sent > 0) {
            ++stats_.sendmsg_calls;
            stats_.bytes += static_cast<std::uint64_t>(sent);
            static_cast<void>(read_completions());
            return static_cast<std::size_t>(sent);
        }
        if (sent < 0 && errno == EINTR) {
            continue;
        }
        if (sent < 0 && errno == ENOBUFS) {
            // Each send in flight holds a notification charged to the socket's option memory
            // (net.core.optmem_max): wait for some to come back.
            ++stats_.enobufs;
            if (read_completions() > 0) {
                continue;
            }
            if (outstanding() == 0) {
                throw Error(ENOBUFS,
                            "sendmsg(MSG_ZEROCOPY) with no send in flight: the "
                            "socket's option memory (net.core.optmem_max) cannot hold "
                            "one notification");
            }
            if (!wait_for_notification(std::chrono::steady_clock::now() +
                                       options_.completion_timeout)) {
                throw Error(ETIMEDOUT,
                            "sendmsg(MSG_ZEROCOPY) failed with ENOBUFS and no "
                            "completion came in " +
                                std::to_string(options_.completion_timeout.count()) + " ms");
            }
            continue;
        }
        throw Error(sent < 0 ? errno : EIO, "sendmsg(MSG_ZEROCOPY) of " + std::to_string(length) +
                                                " bytes at dmabuf offset " +
                                                std::to_string(offset) + " (binding " +
                                                std::to_string(binding_id_) + ")");
    }
}

// The sends one error-queue message reports complete (SO_EE_ORIGIN_ZEROCOPY); counted.
std::uint64_t Sender::count_notification(msghdr& message) {
    std::uint64_t completed = 0;
    for (cmsghdr* cmsg = CMSG_FIRSTHDR(&message); cmsg != nullptr;
         cmsg = CMSG_NXTHDR(&message, cmsg)) {
        const bool recverr = (cmsg->cmsg_level == SOL_IP && cmsg->cmsg_type == IP_RECVERR) ||
                             (cmsg->cmsg_level == SOL_IPV6 && cmsg->cmsg_type == IPV6_RECVERR);
        if (!recverr) {
            continue;
        }
        sock_extended_err error{};
        std::memcpy(&error, CMSG_DATA(cmsg), sizeof(error));
        if (error.ee_origin != SO_EE_ORIGIN_ZEROCOPY) {
            continue;
        }
        if (error.ee_errno != 0) {
            throw Error(EIO, "a MSG_ZEROCOPY notification carries error " +
                                 std::string(std::strerror(static_cast<int>(error.ee_errno))));
        }
        // Sends ee_info to ee_data, both included, numbered modulo 2^32.
        const std::uint64_t count = std::uint32_t(error.ee_data - error.ee_info) + 1ULL;
        completed += count;
        stats_.completed += count;
        if ((error.ee_code & SO_EE_CODE_ZEROCOPY_COPIED) != 0) {
            stats_.copied += count;
        }
    }
    return completed;
}

std::uint64_t Sender::read_completions() {
    std::uint64_t completed = 0;
    for (;;) {
        std::array<std::uint64_t, errqueue_control_size / 8> control{};
        msghdr message{};
        message.msg_control = control.data();
        message.msg_controllen = sizeof(control);
        const ssize_t got = ::recvmsg(socket_.get(), &message, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == EAGAIN) {
                return completed;
            }
            throw Error(errno, "recvmsg(MSG_ERRQUEUE) on socket " + std::to_string(socket_.get()));
        }
        ++stats_.errqueue_reads;
        if ((static_cast<unsigned>(message.msg_flags) & MSG_CTRUNC) != 0) {
            throw Error(EMSGSIZE, "recvmsg(MSG_ERRQUEUE): notification truncated (MSG_CTRUNC)");
        }
        completed += count_notification(message);
    }
}

// Waits until notifications arrive, and reads them: true, or false once `deadline` passes. A
// wake-up without one checks the socket's error, and after POLLHUP (a closed connection, which
// keeps poll from blocking) backs off for a moment before it polls again.
bool Sender::wait_for_notification(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            return false;
        }
        pollfd error_queue{.fd = socket_.get(), .events = 0, .revents = 0};  // POLLERR counts.
        ++stats_.poll_calls;
        const int ready = ::poll(&error_queue, 1,
                                 static_cast<int>(std::min<std::int64_t>(
                                     left.count(), std::numeric_limits<int>::max())));
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw Error(errno, "poll on socket " + std::to_string(socket_.get()));
        }
        if (ready == 0) {
            return false;
        }
        if (read_completions() > 0) {
            return true;
        }
        check_socket_error();
        if ((static_cast<unsigned>(error_queue.revents) & (POLLHUP | POLLNVAL)) != 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
}

// POLLERR without a notification is the socket's own error (the connection reset, say).
void Sender::check_socket_error() {
    int error = 0;
    socklen_t length = sizeof(error);
    if (::getsockopt(socket_.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) {
        throw Error(errno, "getsockopt(SO_ERROR) on socket " + std::to_string(socket_.get()));
    }
    if (error != 0) {
        throw Error(error, "the socket failed with " + std::to_string(outstanding()) +
                               " MSG_ZEROCOPY sends not reported complete");
    }
}

void Sender::wait_completions() {
    while (outstanding() > 0) {
        if (read_completions() > 0) {
            continue;
        }
        if (!wait_for_notification(std::chrono::steady_clock::now() +
                                   options_.completion_timeout)) {
            throw Error(ETIMEDOUT, std::to_string(outstanding()) + " of " +
                                       std::to_string(stats_.sendmsg_calls) +
                                       " MSG_ZEROCOPY sends not reported complete after " +
                                       std::to_string(options_.completion_timeout.count()) +
                                       " ms without news");
        }
    }
}

}  // namespace refnic::devmem
