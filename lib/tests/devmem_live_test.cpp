// SPDX-License-Identifier: GPL-2.0-only
// Devmem TCP receive against the running kernel (ctest label "live"), without a devmem-capable
// NIC: a loopback TCP flow arrives as plain data, SO_DEVMEM_DONTNEED of tokens the socket never
// got frees nothing (so every release is an error, which shows when the receiver flushes), and
// a udmabuf is made if the kernel has /dev/udmabuf and we may open it.
#include <refnic/devmem.hpp>
#include <refnic/error.hpp>
#include <refnic/fd.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::devmem {
namespace {

UniqueFd checked(int fd, const char* what) {
    if (fd < 0) {
        throw Error(errno, what);
    }
    return UniqueFd(fd);
}

// A connected loopback TCP pair: {sender, receiver}.
std::pair<UniqueFd, UniqueFd> tcp_pair() {
    UniqueFd listener = checked(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    auto* generic = reinterpret_cast<sockaddr*>(&address);
    if (::bind(listener.get(), generic, length) != 0 || ::listen(listener.get(), 1) != 0 ||
        ::getsockname(listener.get(), generic, &length) != 0) {
        throw Error(errno, "loopback listener");
    }
    UniqueFd sender = checked(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
    if (::connect(sender.get(), generic, length) != 0) {
        throw Error(errno, "connect");
    }
    UniqueFd receiver =
        checked(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC), "accept");
    return {std::move(sender), std::move(receiver)};
}

std::vector<Frag> frags_with_tokens(const std::vector<std::uint32_t>& tokens) {
    std::vector<Frag> frags;
    frags.reserve(tokens.size());
    for (const std::uint32_t token : tokens) {
        frags.push_back(Frag{.offset = 0, .size = 4096, .token = token, .dmabuf_id = 1});
    }
    return frags;
}

// The host kernel may be built without page pools, and so without SO_DEVMEM_DONTNEED.
#define SKIP_WITHOUT_DONTNEED(error)                                                \
    if ((error).errnum() == ENOPROTOOPT) {                                          \
        GTEST_SKIP() << "no SO_DEVMEM_DONTNEED in this kernel: " << (error).what(); \
    }

// Everything until the end of the stream, as text; counts the receive() calls that brought
// devmem cmsgs or frags, or whose linear bytes were not the whole of what they returned.
std::string receive_all(Receiver& receiver, int& odd_receives) {
    std::string text;
    for (;;) {
        const Received received = receiver.receive();
        if (received.eof()) {
            return text;
        }
        if (received.devmem || !received.frags.empty() ||
            received.linear.size() != received.bytes) {
            ++odd_receives;
        }
        std::transform(received.linear.begin(), received.linear.end(), std::back_inserter(text),
                       [](std::byte b) { return static_cast<char>(b); });
    }
}

TEST(LiveDevmemTest, LoopbackFlowArrivesAsPlainData) {
    auto [sender, socket] = tcp_pair();
    Receiver receiver(std::move(socket));
    constexpr std::string_view payload = "not steered to any dmabuf";
    ASSERT_EQ(::send(sender.get(), payload.data(), payload.size(), 0),
              static_cast<ssize_t>(payload.size()));
    ASSERT_EQ(::shutdown(sender.get(), SHUT_WR), 0);

    int odd_receives = 0;
    EXPECT_EQ(receive_all(receiver, odd_receives), payload);
    EXPECT_EQ(odd_receives, 0);
    const ReceiverStats& stats = receiver.stats();
    EXPECT_EQ(stats.plain_bytes, payload.size());
    EXPECT_EQ(stats.bytes(), payload.size());
    EXPECT_EQ(stats.devmem_bytes, 0U);
    EXPECT_EQ(stats.frags, 0U);
    EXPECT_GE(stats.recvmsg_calls, 2U);  // The data, then the end of the stream.
    EXPECT_EQ(stats.dontneed_calls, 0U);
    EXPECT_EQ(stats.syscalls(), stats.recvmsg_calls);
}

TEST(LiveDevmemTest, PerFragReleaseIsOneCallPerFragAndChecksTheCount) {
    auto [sender, socket] = tcp_pair();
    Receiver receiver(std::move(socket), ReceiverOptions{.release = Release::per_frag});
    try {
        receiver.release(frags_with_tokens({41, 42}));
        FAIL() << "the kernel freed tokens this socket never received";
    } catch (const Error& error) {
        SKIP_WITHOUT_DONTNEED(error);
        EXPECT_EQ(error.errnum(), EINVAL);
        EXPECT_NE(std::string(error.what()).find("freed 0 of token 41 (1 frag)"), std::string::npos)
            << error.what();
    }
    EXPECT_EQ(receiver.stats().dontneed_calls, 1U);
    EXPECT_EQ(receiver.stats().frags_released, 0U);
    EXPECT_EQ(receiver.pending_frags(), 0U);
}

TEST(LiveDevmemTest, BatchedReleaseFlushesOnlyWhen1024FragsWouldBeExceeded) {
    auto [sender, socket] = tcp_pair();
    Receiver receiver(std::move(socket));
    std::vector<std::uint32_t> tokens(1024);
    for (std::uint32_t i = 0; i < tokens.size(); ++i) {
        tokens[i] = 100 + i;
    }
    receiver.release(frags_with_tokens(tokens));
    EXPECT_EQ(receiver.stats().dontneed_calls, 0U);
    EXPECT_EQ(receiver.pending_frags(), 1024U);
    try {
        receiver.release(frags_with_tokens({5000}));
        FAIL() << "the kernel freed tokens this socket never received";
    } catch (const Error& error) {
        SKIP_WITHOUT_DONTNEED(error);
        EXPECT_NE(std::string(error.what()).find("freed 0 of tokens 100-1123 (1024 frags)"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_EQ(receiver.stats().dontneed_calls, 1U);
    EXPECT_EQ(receiver.pending_frags(), 0U);  // Not sent again.
}

TEST(LiveDevmemTest, BatchedReleaseFlushesOnlyWhen128RangesWouldBeExceeded) {
    auto [sender, socket] = tcp_pair();
    Receiver receiver(std::move(socket));
    std::vector<std::uint32_t> tokens;
    for (std::uint32_t i = 0; i < 128; ++i) {
        tokens.push_back(i * 2);  // 128 ranges of one.
    }
    receiver.release(frags_with_tokens(tokens));
    receiver.release(frags_with_tokens({255}));  // Continues the last range.
    EXPECT_EQ(receiver.stats().dontneed_calls, 0U);
    EXPECT_EQ(receiver.pending_frags(), 129U);
    try {
        receiver.release(frags_with_tokens({1000}));
        FAIL() << "the kernel freed tokens this socket never received";
    } catch (const Error& error) {
        SKIP_WITHOUT_DONTNEED(error);
        // The kernel took all 128 ranges (129 tokens): more would have been EINVAL from
        // setsockopt itself rather than a short count.
        EXPECT_NE(std::string(error.what())
                      .find("SO_DEVMEM_DONTNEED freed 0 of tokens 0, 2, 4, 6 "
                            "and 124 more ranges (129 frags)"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_EQ(receiver.stats().dontneed_calls, 1U);
}

TEST(LiveDevmemTest, ExplicitFlushSendsAPartialBatch) {
    auto [sender, socket] = tcp_pair();
    Receiver receiver(std::move(socket));
    receiver.flush();  // Nothing batched: no call.
    EXPECT_EQ(receiver.stats().dontneed_calls, 0U);
    receiver.release(frags_with_tokens({7, 8, 9}));
    EXPECT_EQ(receiver.pending_frags(), 3U);
    try {
        receiver.flush();
        FAIL() << "the kernel freed tokens this socket never received";
    } catch (const Error& error) {
        SKIP_WITHOUT_DONTNEED(error);
        EXPECT_NE(std::string(error.what()).find("freed 0 of tokens 7-9 (3 frags)"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_EQ(receiver.stats().dontneed_calls, 1U);
    EXPECT_EQ(receiver.pending_frags(), 0U);
}

TEST(LiveDevmemTest, ReceiveKeepsTheBatchWhileDataWaits) {
    auto [sender, socket] = tcp_pair();
    Receiver receiver(std::move(socket));
    receiver.release(frags_with_tokens({7, 8}));
    constexpr std::string_view payload = "ready";
    ASSERT_EQ(::send(sender.get(), payload.data(), payload.size(), 0),
              static_cast<ssize_t>(payload.size()));
    // One poll finds the data: no SO_DEVMEM_DONTNEED.
    EXPECT_EQ(receiver.receive().bytes, payload.size());
    EXPECT_EQ(receiver.stats().poll_calls, 1U);
    EXPECT_EQ(receiver.stats().dontneed_calls, 0U);
    EXPECT_EQ(receiver.pending_frags(), 2U);
}

TEST(LiveDevmemTest, ReceiveSendsTheBatchWhenNoDataComes) {
    auto [sender, socket] = tcp_pair();
    Receiver receiver(std::move(socket));
    receiver.release(frags_with_tokens({7, 8}));
    // Nothing comes: after batch_idle the batch goes, before the wait goes on. This socket
    // never held the tokens, so sending them fails, and receive() says so instead of waiting.
    try {
        static_cast<void>(receiver.receive());
        FAIL() << "receive() returned with nothing sent and the batch not sent";
    } catch (const Error& error) {
        SKIP_WITHOUT_DONTNEED(error);
        EXPECT_NE(std::string(error.what()).find("freed 0 of tokens 7-8 (2 frags)"),
                  std::string::npos)
            << error.what();
    }
    EXPECT_EQ(receiver.stats().dontneed_calls, 1U);
    EXPECT_EQ(receiver.pending_frags(), 0U);
}

// A udmabuf of `size` bytes, or why this machine cannot make one (in `reason`).
std::optional<Udmabuf> try_udmabuf(std::size_t size, std::string& reason) {
    try {
        return Udmabuf(size);
    } catch (const Error& error) {
        if (error.errnum() != ENOENT && error.errnum() != EACCES && error.errnum() != EPERM) {
            throw;
        }
        reason = error.what();
        return std::nullopt;
    }
}

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

// A udmabuf of 4 pages, or the test skipped where the kernel has none or we may not open it.
class LiveUdmabufTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string reason;
        buffer_ = try_udmabuf(4 * page_size(), reason);
        if (!buffer_) {
            EXPECT_NE(reason.find("/dev/udmabuf"), std::string::npos) << reason;
            GTEST_SKIP() << reason;
        }
    }

    std::optional<Udmabuf> buffer_;
};

TEST_F(LiveUdmabufTest, OwnsItsFdsAndMapping) {
    const Udmabuf buffer = std::move(*buffer_);
    EXPECT_EQ(buffer.size(), 4 * page_size());
    EXPECT_EQ(buffer.bytes().size(), 4 * page_size());
    EXPECT_GE(buffer.fd(), 0);
    EXPECT_GE(buffer.memfd(), 0);
}

TEST_F(LiveUdmabufTest, RefusesBytesPastTheEnd) {
    EXPECT_EQ(buffer_->bytes(4 * page_size() - 2, 2).size(), 2U);
    EXPECT_THROW(static_cast<void>(buffer_->bytes(4 * page_size() - 1, 2)), Error);
}

TEST_F(LiveUdmabufTest, ShowsTheMemfdsPagesToCpuReads) {
    constexpr std::string_view text = "devmem";
    ASSERT_EQ(::pwrite(buffer_->memfd(), text.data(), text.size(), static_cast<off_t>(page_size())),
              static_cast<ssize_t>(text.size()));
    CpuAccess access = buffer_->cpu_read();
    const std::span<const std::byte> bytes = buffer_->bytes(page_size(), text.size());
    EXPECT_EQ(std::memcmp(bytes.data(), text.data(), text.size()), 0);
    access.end();
    EXPECT_FALSE(access.active());
}

}  // namespace
}  // namespace refnic::devmem
