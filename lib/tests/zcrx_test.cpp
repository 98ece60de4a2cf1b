// SPDX-License-Identifier: GPL-2.0-only
// io_uring zcrx, offline: the refill queue over plain memory laid out as the kernel's (head,
// tail, 16-byte entries), with the test playing the kernel; and a Receiver refusing options
// before it asks the kernel for anything.
#include <refnic/error.hpp>
#include <refnic/zcrx.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace refnic::zcrx {
namespace {

// struct io_uring_zcrx_rqe as the kernel reads it.
struct Rqe {
    std::uint64_t off;
    std::uint32_t len;
    std::uint32_t pad;
};

constexpr std::uint64_t area_token = std::uint64_t{3} << 48U;

struct FakeQueue {
    explicit FakeQueue(std::uint32_t entries) : rqes(entries) {}
    std::uint32_t head = 0;
    std::uint32_t tail = 0;
    std::vector<Rqe> rqes;

    RefillQueue queue(std::uint32_t batch) {
        return {&head,      &tail, rqes.data(), static_cast<std::uint32_t>(rqes.size()),
                area_token, batch};
    }
    // The kernel's side: takes every published entry.
    void consume() { head = tail; }
};

TEST(ZcrxRefill, EntriesCarryTheAreaTokenAndTheLength) {
    FakeQueue fake(8);
    RefillQueue queue = fake.queue(1);
    queue.give({.offset = 0x5000, .size = 4096});
    queue.give({.offset = 0x1000, .size = 100});
    EXPECT_EQ(fake.tail, 2U);
    EXPECT_EQ(fake.rqes[0].off, area_token | 0x5000);
    EXPECT_EQ(fake.rqes[0].len, 4096U);
    EXPECT_EQ(fake.rqes[1].off, area_token | 0x1000);
    EXPECT_EQ(fake.rqes[1].len, 100U);
}

TEST(ZcrxRefill, TheAreaIdBitsOfAnOffsetAreReplacedByTheToken) {
    FakeQueue fake(4);
    RefillQueue queue = fake.queue(1);
    queue.give({.offset = (std::uint64_t{7} << 48U) | 0x2000, .size = 1});
    EXPECT_EQ(fake.rqes[0].off, area_token | 0x2000);
}

TEST(ZcrxRefill, TheTailIsStoredOncePerBatch) {
    FakeQueue fake(64);
    RefillQueue queue = fake.queue(16);
    // The kernel sees entries only a whole batch at a time.
    std::vector<std::uint32_t> tails;
    std::vector<std::uint32_t> expected;
    for (std::uint32_t i = 0; i < 40; ++i) {
        queue.give({.offset = i * 4096ULL, .size = 4096});
        tails.push_back(fake.tail);
        expected.push_back((i + 1) / 16 * 16);
    }
    EXPECT_EQ(tails, expected);
    EXPECT_EQ(queue.tail_stores(), 2U);
}

TEST(ZcrxRefill, FlushPublishesWhatIsHeldBack) {
    FakeQueue fake(64);
    RefillQueue queue = fake.queue(16);
    for (std::uint32_t i = 0; i < 40; ++i) {
        queue.give({.offset = i * 4096ULL, .size = 4096});
    }
    EXPECT_EQ(queue.pending(), 8U);
    EXPECT_TRUE(queue.flush());
    EXPECT_EQ(fake.tail, 40U);
    EXPECT_EQ(queue.tail_stores(), 3U);
    EXPECT_EQ(queue.entries_given(), 40U);
    EXPECT_FALSE(queue.flush());
    EXPECT_EQ(queue.tail_stores(), 3U);
}

TEST(ZcrxRefill, WrapsAroundTheRing) {
    FakeQueue fake(4);
    RefillQueue queue = fake.queue(2);
    for (std::uint32_t i = 0; i < 10; ++i) {
        queue.give({.offset = i * 4096ULL, .size = 4096});
        fake.consume();
    }
    EXPECT_EQ(fake.tail, 10U);
    // Entries 8 and 9 are in slots 0 and 1.
    EXPECT_EQ(fake.rqes[0].off, area_token | (8 * 4096ULL));
    EXPECT_EQ(fake.rqes[1].off, area_token | (9 * 4096ULL));
}

TEST(ZcrxRefill, AFullQueueKeepsTheRestInABacklog) {
    FakeQueue fake(4);
    RefillQueue queue = fake.queue(4);
    for (std::uint32_t i = 0; i < 6; ++i) {
        queue.give({.offset = i * 4096ULL, .size = 4096});
    }
    // Four entries went in (a whole batch, published); two wait for room.
    EXPECT_EQ(fake.tail, 4U);
    EXPECT_EQ(queue.backlog(), 2U);
    EXPECT_FALSE(queue.flush());  // the kernel has consumed nothing: no room
}

TEST(ZcrxRefill, TheBacklogGoesInOnceThereIsRoom) {
    FakeQueue fake(4);
    RefillQueue queue = fake.queue(4);
    for (std::uint32_t i = 0; i < 6; ++i) {
        queue.give({.offset = i * 4096ULL, .size = 4096});
    }
    fake.consume();
    EXPECT_TRUE(queue.flush());
    EXPECT_EQ(fake.tail, 6U);
    EXPECT_EQ(queue.backlog(), 0U);
    // In order: entries 4 and 5 in slots 0 and 1.
    EXPECT_EQ(fake.rqes[0].off, area_token | (4 * 4096ULL));
    EXPECT_EQ(fake.rqes[1].off, area_token | (5 * 4096ULL));
    EXPECT_EQ(queue.entries_given(), 6U);
}

TEST(ZcrxRefill, StartsFromTheTailItFinds) {
    FakeQueue fake(8);
    fake.head = fake.tail = 5;
    RefillQueue queue = fake.queue(1);
    queue.give({.offset = 0x3000, .size = 1});
    EXPECT_EQ(fake.tail, 6U);
    EXPECT_EQ(fake.rqes[5].off, area_token | 0x3000);
}

TEST(ZcrxRefill, RefusesBadGeometry) {
    std::uint32_t head = 0;
    std::uint32_t tail = 0;
    std::array<Rqe, 8> rqes{};
    for (const auto& [entries, batch] :
         {std::pair{6U, 1U}, std::pair{0U, 1U}, std::pair{8U, 0U}, std::pair{8U, 9U}}) {
        try {
            RefillQueue queue(&head, &tail, rqes.data(), entries, area_token, batch);
            FAIL() << entries << " entries, batch " << batch << " accepted";
        } catch (const Error& error) {
            EXPECT_EQ(error.errnum(), EINVAL);
        }
    }
}

TEST(ZcrxReceiver, RefusesAnAreaThatIsNoWholeNumberOfPages) {
    try {
        const Receiver receiver(1, 0, {.area_size = 1000});
        FAIL() << "an area of 1000 bytes was accepted";
    } catch (const Error& error) {
        EXPECT_EQ(error.errnum(), EINVAL);
    }
}

}  // namespace
}  // namespace refnic::zcrx
