// SPDX-License-Identifier: GPL-2.0-only
// Devmem TCP receive, offline: token batching against the kernel's SO_DEVMEM_DONTNEED limits,
// and decoding recvmsg control data from bytes laid out as Linux 6.12 sends them.
#include <refnic/devmem.hpp>
#include <refnic/error.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace refnic::devmem {
namespace {

std::vector<TokenRange> ranges_of(const TokenBatch& batch) {
    return {batch.ranges().begin(), batch.ranges().end()};
}

// `count` tokens: first, first + step, ...
std::vector<std::uint32_t> tokens(std::uint32_t first, std::uint32_t count,
                                  std::uint32_t step = 1) {
    std::vector<std::uint32_t> result(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        result[i] = first + i * step;
    }
    return result;
}

// How many of `tokens` the batch takes before it refuses one (and stops there).
std::size_t add_all(TokenBatch& batch, const std::vector<std::uint32_t>& tokens) {
    std::size_t added = 0;
    while (added < tokens.size() && batch.add(tokens[added])) {
        ++added;
    }
    return added;
}

// The batches a batched Receiver sends for `tokens`: one whenever the next token would not fit,
// and the rest on an explicit flush at the end.
std::vector<std::vector<TokenRange>> sent_batches(const std::vector<std::uint32_t>& tokens) {
    TokenBatch batch;
    std::vector<std::vector<TokenRange>> sent;
    for (const std::uint32_t token : tokens) {
        if (!batch.add(token)) {
            sent.push_back(ranges_of(batch));
            batch.clear();
            EXPECT_TRUE(batch.add(token));
        }
    }
    if (!batch.empty()) {
        sent.push_back(ranges_of(batch));
    }
    return sent;
}

TEST(TokenBatchTest, KernelLimitsByDefault) {
    const TokenBatch batch;
    EXPECT_EQ(batch.max_ranges(), 128U);
    EXPECT_EQ(batch.max_frags(), 1024U);
    EXPECT_TRUE(batch.empty());
    EXPECT_EQ(batch.frags(), 0U);
    EXPECT_TRUE(batch.ranges().empty());
}

TEST(TokenBatchTest, MergesConsecutiveTokensIntoOneRange) {
    TokenBatch batch;
    EXPECT_EQ(add_all(batch, tokens(5, 5)), 5U);
    EXPECT_EQ(ranges_of(batch), (std::vector<TokenRange>{{5, 5}}));
    EXPECT_EQ(batch.frags(), 5U);
    EXPECT_FALSE(batch.empty());
}

TEST(TokenBatchTest, NonConsecutiveTokensOpenRanges) {
    TokenBatch batch;
    // A gap, a step back, a repeat: each starts a range; only "last + 1" extends one.
    EXPECT_EQ(add_all(batch, {5, 7, 8, 6, 6, 3, 4, 100}), 8U);
    EXPECT_EQ(ranges_of(batch),
              (std::vector<TokenRange>{{5, 1}, {7, 2}, {6, 1}, {6, 1}, {3, 2}, {100, 1}}));
    EXPECT_EQ(batch.frags(), 8U);
}

TEST(TokenBatchTest, DoesNotMergeAcrossTheTokenSpaceWrap) {
    TokenBatch batch;
    constexpr std::uint32_t last = std::numeric_limits<std::uint32_t>::max();
    EXPECT_EQ(add_all(batch, {last - 1, last, 0}), 3U);
    EXPECT_EQ(ranges_of(batch), (std::vector<TokenRange>{{last - 1, 2}, {0, 1}}));
}

TEST(TokenBatchTest, TakesExactly128Ranges) {
    TokenBatch batch;
    // 0, 2, ... 254 and then 1000: the 129th range is refused, the batch left as it was.
    std::vector<std::uint32_t> isolated = tokens(0, 128, 2);
    isolated.push_back(1000);
    EXPECT_EQ(add_all(batch, isolated), 128U);
    EXPECT_FALSE(batch.fits(1000));
    EXPECT_EQ(batch.ranges().size(), 128U);
    EXPECT_EQ(batch.frags(), 128U);
    EXPECT_EQ(batch.ranges().back(), (TokenRange{254, 1}));
    // A token that continues the last range needs no new one.
    EXPECT_TRUE(batch.fits(255));
    EXPECT_TRUE(batch.add(255));
    EXPECT_EQ(batch.ranges().size(), 128U);
    EXPECT_EQ(batch.ranges().back(), (TokenRange{254, 2}));
    EXPECT_EQ(batch.frags(), 129U);
}

TEST(TokenBatchTest, TakesExactly1024Frags) {
    TokenBatch batch;
    EXPECT_EQ(add_all(batch, tokens(0, 1025)), 1024U);
    EXPECT_EQ(ranges_of(batch), (std::vector<TokenRange>{{0, 1024}}));
    EXPECT_EQ(batch.frags(), 1024U);
    // The 1025th frag does not fit, continuing the range or not.
    EXPECT_FALSE(batch.fits(1024));
    EXPECT_FALSE(batch.add(5000));
    EXPECT_EQ(batch.frags(), 1024U);
    EXPECT_EQ(ranges_of(batch), (std::vector<TokenRange>{{0, 1024}}));
}

TEST(TokenBatchTest, BothLimitsAtOnce) {
    // 128 ranges of 8 tokens: 1024 frags, both limits reached together.
    TokenBatch batch;
    for (std::uint32_t range = 0; range < 128; ++range) {
        ASSERT_EQ(add_all(batch, tokens(range * 10, 8)), 8U);
    }
    EXPECT_EQ(batch.ranges().size(), 128U);
    EXPECT_EQ(batch.frags(), 1024U);
    EXPECT_FALSE(batch.add(127 * 10 + 8));  // Would extend the last range: frag limit.
    EXPECT_FALSE(batch.add(99999));         // Would open a range: both limits.
}

TEST(TokenBatchTest, ClearEmptiesAndTakesTokensAgain) {
    TokenBatch batch;
    EXPECT_EQ(add_all(batch, tokens(0, 200, 3)), 128U);
    batch.clear();
    EXPECT_TRUE(batch.empty());
    EXPECT_TRUE(batch.ranges().empty());
    EXPECT_EQ(batch.frags(), 0U);
    ASSERT_TRUE(batch.add(7));
    EXPECT_EQ(ranges_of(batch), (std::vector<TokenRange>{{7, 1}}));
}

TEST(TokenBatchTest, FlushPointsOfConsecutiveTokens) {
    // 3000 in a row: full batches of 1024 frags in one range, the rest on the final flush.
    EXPECT_EQ(sent_batches(tokens(0, 3000)),
              (std::vector<std::vector<TokenRange>>{{{0, 1024}}, {{1024, 1024}}, {{2048, 952}}}));
}

TEST(TokenBatchTest, FlushPointsOfIsolatedTokens) {
    // 1000 tokens none of which continues the last: a batch per 128 ranges.
    const std::vector<std::vector<TokenRange>> sent = sent_batches(tokens(0, 1000, 2));
    ASSERT_EQ(sent.size(), 8U);
    for (std::size_t i = 0; i < 7; ++i) {
        EXPECT_EQ(sent[i].size(), 128U) << "batch " << i;
    }
    EXPECT_EQ(sent.back().size(), 1000U - 7 * 128);
    EXPECT_EQ(sent[1].front(), (TokenRange{256, 1}));
}

TEST(TokenBatchTest, FlushPointsOfShortRuns) {
    // Runs of 3 with gaps: 128 ranges hold 384 frags, so the range limit comes first.
    std::vector<std::uint32_t> runs;
    for (std::uint32_t run = 0; run < 300; ++run) {
        const std::vector<std::uint32_t> three = tokens(run * 10, 3);
        runs.insert(runs.end(), three.begin(), three.end());
    }
    const std::vector<std::vector<TokenRange>> sent = sent_batches(runs);
    ASSERT_EQ(sent.size(), 3U);
    EXPECT_EQ(sent[0].size(), 128U);
    EXPECT_EQ(sent[0].back(), (TokenRange{1270, 3}));
    EXPECT_EQ(sent[1].front(), (TokenRange{1280, 3}));
    EXPECT_EQ(sent[2].size(), 300U - 256);
}

TEST(TokenBatchTest, FlushPointsOfLongRuns) {
    // Runs of 10: the frag limit comes first, in the middle of the 103rd run, which the next
    // batch goes on with.
    std::vector<std::uint32_t> runs;
    for (std::uint32_t run = 0; run < 150; ++run) {
        const std::vector<std::uint32_t> ten = tokens(run * 100, 10);
        runs.insert(runs.end(), ten.begin(), ten.end());
    }
    const std::vector<std::vector<TokenRange>> sent = sent_batches(runs);
    ASSERT_EQ(sent.size(), 2U);
    EXPECT_EQ(sent[0].size(), 103U);
    EXPECT_EQ(sent[0].back(), (TokenRange{10200, 4}));
    EXPECT_EQ(sent[1].front(), (TokenRange{10204, 6}));
    EXPECT_EQ(sent[1].size(), 48U);
}

TEST(TokenBatchTest, SmallerLimits) {
    TokenBatch batch(2, 3);
    EXPECT_TRUE(batch.add(1));
    EXPECT_TRUE(batch.add(10));
    EXPECT_FALSE(batch.add(20));  // Third range.
    EXPECT_TRUE(batch.add(11));
    EXPECT_FALSE(batch.add(12));  // Fourth frag.
    EXPECT_EQ(ranges_of(batch), (std::vector<TokenRange>{{1, 1}, {10, 2}}));
}

TEST(TokenBatchTest, ZeroLimitsAreRefused) {
    EXPECT_THROW(TokenBatch(0, 1), Error);
    try {
        const TokenBatch batch(1, 0);
        FAIL() << "a batch without room for a frag";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EINVAL);
    }
}

TEST(ReleaseTest, Names) {
    EXPECT_EQ(to_string(Release::per_frag), "per-frag");
    EXPECT_EQ(to_string(Release::batched), "batched");
}

// --- Control data ---------------------------------------------------------------------------

// Linux 6.12 asm-generic numbers: SO_DEVMEM_LINEAR 78, SO_DEVMEM_DMABUF 79.
constexpr int scm_devmem_linear = 78;
constexpr int scm_devmem_dmabuf = 79;

// Control data as the kernel writes it: cmsghdr, payload, padding to sizeof(size_t).
class ControlBuilder {
public:
    ControlBuilder& cmsg(int level, int type, const std::vector<std::byte>& payload,
                         std::size_t claimed_length = 0) {
        cmsghdr header{};
        header.cmsg_len = claimed_length != 0 ? claimed_length : sizeof(cmsghdr) + payload.size();
        header.cmsg_level = level;
        header.cmsg_type = type;
        append(&header, sizeof(header));
        bytes_.insert(bytes_.end(), payload.begin(), payload.end());
        while (bytes_.size() % sizeof(std::size_t) != 0) {
            bytes_.push_back(std::byte{0});
        }
        return *this;
    }

    // struct dmabuf_cmsg {u64 frag_offset; u32 frag_size, frag_token, dmabuf_id, flags}.
    ControlBuilder& devmem(int type, std::uint64_t offset, std::uint32_t size, std::uint32_t token,
                           std::uint32_t dmabuf_id) {
        std::vector<std::byte> payload(24);
        const std::array<std::uint32_t, 4> fields{size, token, dmabuf_id, 0};
        std::memcpy(payload.data(), &offset, sizeof(offset));
        std::memcpy(payload.data() + 8, fields.data(), sizeof(fields));
        return cmsg(SOL_SOCKET, type, payload);
    }

    ControlBuilder& frag(std::uint64_t offset, std::uint32_t size, std::uint32_t token,
                         std::uint32_t dmabuf_id) {
        return devmem(scm_devmem_dmabuf, offset, size, token, dmabuf_id);
    }

    ControlBuilder& linear(std::uint32_t size) { return devmem(scm_devmem_linear, 0, size, 0, 0); }

    [[nodiscard]] const std::vector<std::byte>& bytes() const noexcept { return bytes_; }

private:
    void append(const void* data, std::size_t size) {
        const auto* begin = static_cast<const std::byte*>(data);
        bytes_.insert(bytes_.end(), begin, begin + size);
    }

    std::vector<std::byte> bytes_;
};

TEST(ParseControlTest, NothingAtAll) {
    std::vector<Frag> frags;
    EXPECT_EQ(parse_control({}, frags), ControlSummary{});
    EXPECT_TRUE(frags.empty());
}

TEST(ParseControlTest, FragsInOrderAndLinearBytes) {
    ControlBuilder control;
    control.linear(66)
        .frag(0x1000, 4096, 7, 3)
        .frag(0x3000, 1448, 8, 3)
        .linear(10)
        .frag(0x0fff'ffff'f000ULL, 12, 0x7fff'ffffU, 3);
    std::vector<Frag> frags{Frag{.offset = 1, .size = 2, .token = 3, .dmabuf_id = 4}};
    const ControlSummary summary = parse_control(control.bytes(), frags);
    EXPECT_EQ(summary.linear_bytes, 76U);
    EXPECT_EQ(summary.devmem_cmsgs, 5U);
    // Appended after what the vector held.
    EXPECT_EQ(
        frags,
        (std::vector<Frag>{
            {.offset = 1, .size = 2, .token = 3, .dmabuf_id = 4},
            {.offset = 0x1000, .size = 4096, .token = 7, .dmabuf_id = 3},
            {.offset = 0x3000, .size = 1448, .token = 8, .dmabuf_id = 3},
            {.offset = 0x0fff'ffff'f000ULL, .size = 12, .token = 0x7fff'ffffU, .dmabuf_id = 3},
        }));
}

TEST(ParseControlTest, SkipsOtherCmsgs) {
    ControlBuilder control;
    control.cmsg(SOL_SOCKET, SCM_RIGHTS, std::vector<std::byte>(4))
        .frag(0, 100, 1, 9)
        .cmsg(IPPROTO_IP, scm_devmem_dmabuf, std::vector<std::byte>(24))  // Wrong level.
        .cmsg(SOL_SOCKET, SCM_TIMESTAMP, std::vector<std::byte>(16));
    std::vector<Frag> frags;
    const ControlSummary summary = parse_control(control.bytes(), frags);
    EXPECT_EQ(summary, (ControlSummary{.linear_bytes = 0, .devmem_cmsgs = 1}));
    EXPECT_EQ(frags, (std::vector<Frag>{{.offset = 0, .size = 100, .token = 1, .dmabuf_id = 9}}));
}

TEST(ParseControlTest, DevmemCmsgOfTheWrongSizeIsEPROTO) {
    ControlBuilder control;
    control.cmsg(SOL_SOCKET, scm_devmem_dmabuf, std::vector<std::byte>(16));
    std::vector<Frag> frags;
    try {
        static_cast<void>(parse_control(control.bytes(), frags));
        FAIL() << "a 16-byte SCM_DEVMEM_DMABUF was accepted";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EPROTO);
        EXPECT_NE(std::string(error.what()).find("SCM_DEVMEM_DMABUF of 16 bytes"),
                  std::string::npos)
            << error.what();
    }
}

TEST(ParseControlTest, TruncatedCmsgIsEPROTO) {
    ControlBuilder control;
    control.frag(0, 1, 1, 1);
    std::vector<std::byte> bytes = control.bytes();
    bytes.resize(bytes.size() - 8);
    std::vector<Frag> frags;
    EXPECT_THROW(static_cast<void>(parse_control(bytes, frags)), Error);

    ControlBuilder short_length;
    short_length.cmsg(SOL_SOCKET, scm_devmem_linear, std::vector<std::byte>(24), 4);
    EXPECT_THROW(static_cast<void>(parse_control(short_length.bytes(), frags)), Error);
}

// --- Udmabuf arguments ----------------------------------------------------------------------

TEST(UdmabufTest, SizeMustBeWholePages) {
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    for (const std::size_t size : {std::size_t{0}, page + 1, page / 2}) {
        try {
            const Udmabuf buffer(size);
            FAIL() << "a udmabuf of " << size << " bytes";
        } catch (const Error& error) {
            EXPECT_EQ(error.errnum(), EINVAL);
            EXPECT_NE(std::string(error.what()).find("page size"), std::string::npos);
        }
    }
}

TEST(ReceiverTest, RefusesBadArguments) {
    EXPECT_THROW(Receiver{UniqueFd{}}, Error);
    ReceiverOptions options;
    options.max_frags = 0;
    EXPECT_THROW(Receiver(UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC)), options), Error);
}

}  // namespace
}  // namespace refnic::devmem
