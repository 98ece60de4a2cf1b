// SPDX-License-Identifier: GPL-2.0-only
// Kernel-bypass rings, offline: the ring views over plain memory with a fake kernel at the other
// end (free-running indices across 2^32, full and empty rings, cached peer indices, the flags),
// the umem allocator, a BypassQueue adopted over anonymous memory, and open() failing cleanly on a
// host without the module.
#include <refnic/bypass.h>
#include <refnic/bypass.hpp>
#include <refnic/error.hpp>
#include <refnic/fd.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace refnic::bypass {
namespace {

constexpr std::uint32_t near_wrap = std::numeric_limits<std::uint32_t>::max() - 20;

// The kernel's end of one ring, over the same memory as the view under test.
template <typename Entry>
class FakeKernel {
public:
    FakeKernel(void* mapping, std::uint32_t size)
        : header_(static_cast<RingHeader*>(mapping)),
          entries_(
              reinterpret_cast<Entry*>(static_cast<std::byte*>(mapping) + ring_entries_offset)),
          size_(size) {}

    // Consumer of a process -> kernel ring: takes up to `max` published entries.
    std::vector<Entry> consume(std::uint32_t max = std::numeric_limits<std::uint32_t>::max()) {
        const std::uint32_t producer = load(header_->producer);
        const std::uint32_t consumer = header_->consumer;
        std::vector<Entry> taken;
        for (std::uint32_t i = consumer; i != producer && taken.size() < max; ++i) {
            taken.push_back(entries_[i & (size_ - 1)]);
        }
        store(header_->consumer, consumer + static_cast<std::uint32_t>(taken.size()));
        return taken;
    }

    // Producer of a kernel -> process ring: publishes as many of `entries` as fit.
    std::size_t produce(const std::vector<Entry>& entries) {
        const std::uint32_t producer = header_->producer;
        const std::uint32_t free = size_ - (producer - load(header_->consumer));
        const std::size_t count = std::min<std::size_t>(free, entries.size());
        for (std::size_t i = 0; i < count; ++i) {
            entries_[(producer + i) & (size_ - 1)] = entries[i];
        }
        store(header_->producer, producer + static_cast<std::uint32_t>(count));
        return count;
    }

    void set_flags(std::uint32_t flags) { store(header_->flags, flags); }
    [[nodiscard]] std::uint32_t producer() const { return load(header_->producer); }
    [[nodiscard]] std::uint32_t consumer() const { return load(header_->consumer); }

private:
    static std::uint32_t load(std::uint32_t& index) {
        return std::atomic_ref<std::uint32_t>(index).load(std::memory_order_acquire);
    }
    static void store(std::uint32_t& index, std::uint32_t value) {
        std::atomic_ref<std::uint32_t>(index).store(value, std::memory_order_release);
    }

    RingHeader* header_;
    Entry* entries_;
    std::uint32_t size_;
};

// A ring mapping in a plain, 64-byte aligned buffer, its indices starting at `start`.
template <typename Entry>
class RingMemory {
public:
    explicit RingMemory(std::uint32_t size, std::uint32_t start = 0)
        : words_((ring_entries_offset + size * sizeof(Entry)) / sizeof(Word)), size_(size) {
        header().producer = start;
        header().consumer = start;
    }

    [[nodiscard]] void* data() noexcept { return words_.data(); }
    [[nodiscard]] RingHeader& header() noexcept { return *static_cast<RingHeader*>(data()); }
    [[nodiscard]] FakeKernel<Entry> kernel() noexcept { return {data(), size_}; }
    [[nodiscard]] std::uint32_t size() const noexcept { return size_; }

private:
    struct alignas(64) Word {
        std::array<std::byte, 64> bytes;
    };
    std::vector<Word> words_;
    std::uint32_t size_;
};

// The Error that `action` throws, or Error(0) if it throws none.
template <typename Action>
Error error_of(Action action) {
    try {
        action();
    } catch (const Error& error) {
        return error;
    }
    return {0, "no error"};
}

// --- The ABI copy ----------------------------------------------------------------------------

TEST(BypassAbiTest, LayoutsAndSizes) {
    EXPECT_EQ(sizeof(RingHeader), 192U);
    EXPECT_EQ(offsetof(RingHeader, consumer), 64U);
    EXPECT_EQ(offsetof(RingHeader, flags), 128U);
    EXPECT_EQ(sizeof(RxDesc), 24U);
    EXPECT_EQ(sizeof(TxDesc), 16U);
    EXPECT_EQ(sizeof(Stats), 19 * sizeof(std::uint64_t));
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    EXPECT_EQ(ring_mapping_size(64, 8), page);
    EXPECT_EQ(ring_mapping_size(1024, sizeof(RxDesc)) % page, 0U);
    EXPECT_GE(ring_mapping_size(1024, sizeof(RxDesc)), 256U + 1024 * 24);
    EXPECT_LT(ring_mapping_size(1024, sizeof(RxDesc)), 256U + 1024 * 24 + page);
    EXPECT_TRUE(valid_ring_size(64));
    EXPECT_TRUE(valid_ring_size(4096));
    EXPECT_FALSE(valid_ring_size(32));
    EXPECT_FALSE(valid_ring_size(8192));
    EXPECT_FALSE(valid_ring_size(1000));
}

TEST(BypassAbiTest, StatsFieldsNameEveryCounterOnce) {
    Stats stats;
    std::uint64_t value = 1;
    for (const StatsField& field : stats_fields) {
        stats.*field.member = value++;
    }
    std::array<std::uint64_t, stats_fields.size()> words{};
    std::memcpy(words.data(), &stats, sizeof(stats));
    for (std::size_t i = 0; i < words.size(); ++i) {
        EXPECT_EQ(words[i], i + 1) << stats_fields[i].name;
    }
    EXPECT_EQ(stats_fields.front().name, "rx_frames");
    EXPECT_EQ(stats_fields.back().name, "bad_index");
}

// --- Producer rings (fill, tx) ---------------------------------------------------------------

TEST(ProducerRingTest, RefusesABadSize) {
    RingMemory<std::uint64_t> memory(64);
    EXPECT_EQ(error_of([&] { FillRing ring(memory.data(), 100); }).errnum(), EINVAL);
    EXPECT_EQ(error_of([&] { FillRing ring(nullptr, 64); }).errnum(), EINVAL);
}

TEST(ProducerRingTest, ReserveWriteSubmit) {
    RingMemory<std::uint64_t> memory(64);
    FillRing ring(memory.data(), 64);
    FakeKernel<std::uint64_t> kernel = memory.kernel();

    EXPECT_EQ(ring.reserve(3), 3U);
    EXPECT_EQ(ring.reserved(), 3U);
    ring.slot(0) = 2048;
    ring.slot(1) = 4096;
    ring.slot(2) = 6144;
    EXPECT_TRUE(kernel.consume().empty()) << "nothing is visible before submit";
    ring.submit(2);
    EXPECT_EQ(kernel.producer(), 2U);
    EXPECT_EQ(ring.reserved(), 1U);
    EXPECT_EQ(kernel.consume(), (std::vector<std::uint64_t>{2048, 4096}));
    // The slot left reserved is the oldest now.
    EXPECT_EQ(ring.slot(0), 6144U);
    ring.submit(5);  // Only what was reserved.
    EXPECT_EQ(kernel.producer(), 3U);
    EXPECT_EQ(kernel.consume(), (std::vector<std::uint64_t>{6144}));
}

TEST(ProducerRingTest, ReserveWhenFull) {
    RingMemory<std::uint64_t> memory(64);
    FillRing ring(memory.data(), 64);
    FakeKernel<std::uint64_t> kernel = memory.kernel();

    EXPECT_EQ(ring.reserve(100), 64U) << "as many as there are";
    EXPECT_EQ(ring.reserve(1), 0U);
    ring.submit(64);
    EXPECT_EQ(ring.reserve(1), 0U) << "the kernel has consumed nothing";
    EXPECT_EQ(kernel.consume(10).size(), 10U);
    EXPECT_EQ(ring.reserve(20), 10U) << "the consumer index is read again when short";
    EXPECT_EQ(ring.free_slots(), 0U);
    ring.cancel(4);
    EXPECT_EQ(ring.reserved(), 6U);
    EXPECT_EQ(ring.free_slots(), 4U);
    ring.submit(6);
    EXPECT_EQ(kernel.consume().size(), 60U);
    EXPECT_EQ(ring.free_slots(), 64U);
}

// `rounds` of: reserve up to `batch`, write 0, 1, 2, ... and submit; the kernel takes up to
// `take`. Returns what the kernel read, in order, the rest of the ring drained at the end.
std::vector<std::uint64_t> produce_rounds(FillRing& ring, FakeKernel<std::uint64_t>& kernel,
                                          int rounds, std::uint32_t batch, std::uint32_t take) {
    std::uint64_t next = 0;
    std::vector<std::uint64_t> read;
    for (int round = 0; round < rounds; ++round) {
        const std::uint32_t reserved = ring.reserve(batch);
        for (std::uint32_t i = 0; i < reserved; ++i) {
            ring.slot(i) = next++;
        }
        ring.submit(reserved);
        const std::vector<std::uint64_t> taken = kernel.consume(take);
        read.insert(read.end(), taken.begin(), taken.end());
    }
    const std::vector<std::uint64_t> rest = kernel.consume();
    read.insert(read.end(), rest.begin(), rest.end());
    return read;
}

std::vector<std::uint64_t> iota(std::size_t count) {
    std::vector<std::uint64_t> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        values[i] = i;
    }
    return values;
}

TEST(ProducerRingTest, FreeRunningIndicesWrap) {
    RingMemory<std::uint64_t> memory(64, near_wrap);
    FillRing ring(memory.data(), 64);
    FakeKernel<std::uint64_t> kernel = memory.kernel();
    EXPECT_EQ(ring.producer(), near_wrap);

    const std::vector<std::uint64_t> read = produce_rounds(ring, kernel, 50, 23, 17);
    EXPECT_GT(read.size(), 64U * 4);
    EXPECT_EQ(read, iota(read.size())) << "every entry once, in order";
    // Past 2^32: the indices wrapped, and the distance between them stayed right.
    EXPECT_EQ(kernel.producer(), static_cast<std::uint32_t>(near_wrap + read.size()));
    EXPECT_LT(kernel.producer(), near_wrap);
    EXPECT_EQ(ring.producer(), kernel.producer());
    EXPECT_EQ(ring.free_slots(), 64U);
}

TEST(ProducerRingTest, TxDescriptors) {
    RingMemory<TxDesc> memory(64, near_wrap);
    TxRing ring(memory.data(), 64);
    FakeKernel<TxDesc> kernel = memory.kernel();
    std::vector<TxDesc> sent;
    for (std::uint32_t round = 0; round < 5; ++round) {
        const std::uint32_t reserved = ring.reserve(30);
        for (std::uint32_t i = 0; i < reserved; ++i) {
            ring.slot(i) = TxDesc{.addr = std::uint64_t{2048} * i, .len = 60 + round, .flags = 0};
        }
        ring.submit(reserved);
        sent = kernel.consume();
    }
    ASSERT_EQ(sent.size(), 30U);
    EXPECT_EQ(sent[29].addr, std::uint64_t{2048} * 29);
    EXPECT_EQ(sent[29].len, 64U);
    EXPECT_EQ(kernel.consumer(), static_cast<std::uint32_t>(near_wrap + 150));
}

// --- Consumer rings (rxc, txc) ---------------------------------------------------------------

TEST(ConsumerRingTest, PeekAndTheCachedProducer) {
    RingMemory<std::uint64_t> memory(64);
    TxcRing ring(memory.data(), 64);
    FakeKernel<std::uint64_t> kernel = memory.kernel();

    EXPECT_EQ(ring.peek(8), 0U);
    EXPECT_EQ(kernel.produce({1, 2, 3, 4, 5}), 5U);
    EXPECT_EQ(ring.peek(2), 2U);
    EXPECT_EQ(ring.slot(0), 1U);
    EXPECT_EQ(ring.slot(1), 2U);
    EXPECT_EQ(kernel.produce({6, 7, 8, 9, 10}), 5U);
    // Three cached entries are left: as in libxdp, the producer index is not read again for more.
    EXPECT_EQ(ring.peek(10), 3U);
    EXPECT_EQ(ring.peeked(), 5U);
    EXPECT_EQ(ring.slot(4), 5U);
    EXPECT_EQ(ring.peek(10), 5U) << "none cached: the producer index is read again";
    EXPECT_EQ(ring.slot(9), 10U);
    EXPECT_EQ(kernel.consumer(), 0U) << "nothing released yet";
}

TEST(ConsumerRingTest, ReleaseAndCancel) {
    RingMemory<std::uint64_t> memory(64);
    TxcRing ring(memory.data(), 64);
    FakeKernel<std::uint64_t> kernel = memory.kernel();

    EXPECT_EQ(kernel.produce({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 10U);
    EXPECT_EQ(ring.peek(10), 10U);
    ring.release(4);
    EXPECT_EQ(kernel.consumer(), 4U);
    EXPECT_EQ(ring.peeked(), 6U);
    EXPECT_EQ(ring.slot(0), 5U);
    EXPECT_EQ(ring.index(0), 4U);
    ring.cancel(2);
    EXPECT_EQ(ring.peeked(), 4U);
    EXPECT_EQ(ring.peek(10), 2U) << "the cancelled entries again";
    EXPECT_EQ(ring.slot(5), 10U);
    ring.release(100);  // Only what was peeked.
    EXPECT_EQ(kernel.consumer(), 10U);
    EXPECT_EQ(ring.consumer(), 10U);
    EXPECT_EQ(ring.available(), 0U);
}

TEST(ConsumerRingTest, AFullRing) {
    RingMemory<std::uint64_t> memory(64);
    TxcRing ring(memory.data(), 64);
    FakeKernel<std::uint64_t> kernel = memory.kernel();
    const std::vector<std::uint64_t> many(100, 7);
    EXPECT_EQ(kernel.produce(many), 64U);
    EXPECT_EQ(kernel.produce(many), 0U) << "the kernel waits for the process";
    EXPECT_EQ(ring.available(), 64U);
    EXPECT_EQ(ring.peek(100), 64U);
    ring.release(10);
    EXPECT_EQ(kernel.produce(many), 10U);
    EXPECT_EQ(ring.peek(100), 10U);
    EXPECT_EQ(ring.peeked(), 64U);
    ring.release(64);
    EXPECT_EQ(kernel.consumer(), 74U);
    EXPECT_EQ(ring.peek(100), 0U);
}

// `rounds` of: the kernel produces `batch` entries numbered on from 0 (as many as fit), the
// process peeks up to `take` and releases them. Returns the addresses the process read and, in
// `indices`, the ring index of each.
std::vector<std::uint64_t> consume_rounds(RxcRing& ring, FakeKernel<RxDesc>& kernel, int rounds,
                                          std::uint32_t batch, std::uint32_t take,
                                          std::vector<std::uint32_t>& indices) {
    std::uint64_t produced = 0;
    std::vector<std::uint64_t> read;
    const auto drain = [&](std::uint32_t max) {
        const std::uint32_t count = ring.peek(max);
        for (std::uint32_t i = 0; i < count; ++i) {
            read.push_back(ring.slot(i).addr);
            indices.push_back(ring.index(i));
        }
        ring.release(count);
        return count;
    };
    for (int round = 0; round < rounds; ++round) {
        std::vector<RxDesc> entries(batch);
        for (std::uint32_t i = 0; i < batch; ++i) {
            entries[i].addr = produced + i;
        }
        produced += kernel.produce(entries);
        drain(take);
    }
    while (drain(ring.size()) > 0) {
    }
    return read;
}

TEST(ConsumerRingTest, FreeRunningIndicesWrap) {
    RingMemory<RxDesc> memory(64, near_wrap);
    RxcRing ring(memory.data(), 64);
    FakeKernel<RxDesc> kernel = memory.kernel();

    std::vector<std::uint32_t> indices;
    const std::vector<std::uint64_t> read = consume_rounds(ring, kernel, 40, 13, 11, indices);
    EXPECT_GT(read.size(), 256U);
    EXPECT_EQ(read, iota(read.size())) << "every entry once, in order";
    std::vector<std::uint32_t> expected_indices(read.size());
    for (std::size_t i = 0; i < read.size(); ++i) {
        expected_indices[i] = static_cast<std::uint32_t>(near_wrap + i);
    }
    EXPECT_EQ(indices, expected_indices);
    EXPECT_EQ(kernel.consumer(), static_cast<std::uint32_t>(near_wrap + read.size()));
    EXPECT_LT(kernel.consumer(), near_wrap);
}

// A kernel whose producer index jumps is not believed past the ring's size.
TEST(ConsumerRingTest, NeverMoreThanTheRingHolds) {
    RingMemory<std::uint64_t> memory(64);
    TxcRing ring(memory.data(), 64);
    memory.header().producer = 1000;
    EXPECT_EQ(ring.peek(5000), 64U);
    EXPECT_EQ(ring.peek(5000), 0U);
    EXPECT_EQ(ring.available(), 0U);
    ring.release(10);
    EXPECT_EQ(ring.available(), 10U);
}

// --- Flags -----------------------------------------------------------------------------------

TEST(RingFlagsTest, NeedWakeupAndBroken) {
    RingMemory<std::uint64_t> memory(64);
    FillRing fill(memory.data(), 64);
    TxcRing txc(memory.data(), 64);  // Any view reads the same header.
    FakeKernel<std::uint64_t> kernel = memory.kernel();
    EXPECT_FALSE(fill.need_wakeup());
    EXPECT_FALSE(fill.broken());
    kernel.set_flags(ring_need_wakeup);
    EXPECT_TRUE(fill.need_wakeup());
    EXPECT_TRUE(txc.need_wakeup());
    EXPECT_FALSE(fill.broken());
    kernel.set_flags(ring_need_wakeup | ring_broken);
    EXPECT_TRUE(fill.broken());
    EXPECT_TRUE(txc.broken());
    kernel.set_flags(0);
    EXPECT_FALSE(fill.need_wakeup());
    EXPECT_EQ(fill.flags(), 0U);
}

// --- Two threads -----------------------------------------------------------------------------

constexpr std::uint64_t threaded_total = 200000;

// The process: numbers 0 .. total - 1 into the fill ring, and expects them back through txc.
void threaded_process(void* fill_mapping, void* txc_mapping, std::atomic<bool>& failed) {
    FillRing fill(fill_mapping, 64);
    TxcRing txc(txc_mapping, 64);
    std::uint64_t next = 0;
    std::uint64_t expected = 0;
    while ((next < threaded_total || expected < threaded_total) && !failed) {
        const auto want =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(16, threaded_total - next));
        const std::uint32_t reserved = fill.reserve(want);
        for (std::uint32_t i = 0; i < reserved; ++i) {
            fill.slot(i) = next++;
        }
        fill.submit(reserved);
        const std::uint32_t count = txc.peek(16);
        for (std::uint32_t i = 0; i < count; ++i, ++expected) {
            if (txc.slot(i) != expected) {
                failed = true;
            }
        }
        txc.release(count);
    }
}

// The kernel: everything the fill ring brings goes back through txc, in order.
void threaded_kernel(FakeKernel<std::uint64_t>& fill, FakeKernel<std::uint64_t>& txc,
                     std::atomic<bool>& failed) {
    std::uint64_t expected = 0;
    std::vector<std::uint64_t> pending;
    while ((expected < threaded_total || !pending.empty()) && !failed) {
        const auto room = static_cast<std::uint32_t>(64 - pending.size());
        for (const std::uint64_t value : fill.consume(room)) {
            if (value != expected++) {
                failed = true;
            }
            pending.push_back(value);
        }
        const std::size_t sent = txc.produce(pending);
        pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(sent));
    }
}

// A producer thread and a consumer thread through 64-entry rings across the 2^32 wrap: every
// value arrives once, in order; the acquire/release pairs are what makes the entries visible.
TEST(RingThreadsTest, ProcessAndKernelConcurrently) {
    RingMemory<std::uint64_t> fill_memory(64, near_wrap);
    RingMemory<std::uint64_t> txc_memory(64, near_wrap);
    FakeKernel<std::uint64_t> fill = fill_memory.kernel();
    FakeKernel<std::uint64_t> txc = txc_memory.kernel();
    std::atomic<bool> failed{false};
    std::thread process(threaded_process, fill_memory.data(), txc_memory.data(), std::ref(failed));
    threaded_kernel(fill, txc, failed);
    process.join();
    EXPECT_FALSE(failed) << "an entry arrived out of order";
    EXPECT_EQ(fill.consumer(), static_cast<std::uint32_t>(near_wrap + threaded_total));
    EXPECT_EQ(txc.consumer(), static_cast<std::uint32_t>(near_wrap + threaded_total));
}

// --- The C ring interface (refnic/bypass.h) from C++ -----------------------------------------

// The C header's rings against the same fake kernel, across the 2^32 wrap (its own test,
// bypass_ring_test.c, is C): this compiles it as C++ under the project's warnings.
TEST(CRingInterfaceTest, FillAgainstTheFakeKernel) {
    RingMemory<std::uint64_t> memory(64, near_wrap);
    FakeKernel<std::uint64_t> kernel = memory.kernel();
    refnic_ring_prod fill{};
    ASSERT_EQ(refnic_ring_prod__init(&fill, memory.data(), 64), 0);
    std::uint32_t index = 0;
    EXPECT_EQ(refnic_ring_prod__reserve(&fill, 40, &index), 40U);
    for (std::uint32_t i = 0; i < 40; ++i) {
        *refnic_ring_prod__fill_addr(&fill, index + i) = std::uint64_t{i} * 2048;
    }
    refnic_ring_prod__submit(&fill, 40);
    EXPECT_EQ(refnic_ring_prod__reserve(&fill, 25, &index), 0U) << "all or nothing";
    const std::vector<std::uint64_t> taken = kernel.consume();
    ASSERT_EQ(taken.size(), 40U);
    EXPECT_EQ(taken.back(), std::uint64_t{39} * 2048);
    EXPECT_EQ(refnic_ring_prod__reserve(&fill, 64, &index), 64U);
    EXPECT_EQ(index, static_cast<std::uint32_t>(near_wrap + 40));
}

// ... and a C++ view of a ring continues where a C one left off.
TEST(CRingInterfaceTest, RxcAgainstTheFakeKernelAndACppView) {
    RingMemory<RxDesc> memory(64, near_wrap);
    FakeKernel<RxDesc> kernel = memory.kernel();
    refnic_ring_cons rxc{};
    ASSERT_EQ(refnic_ring_cons__init(&rxc, memory.data(), 64), 0);
    std::vector<RxDesc> frames(30);
    for (std::uint32_t i = 0; i < frames.size(); ++i) {
        frames[i] = RxDesc{.addr = i,
                           .len = 60 + i,
                           .hdr_len = 0,
                           .flags = rx_csum_ok,
                           .rss_hash = 7,
                           .reserved = 0};
    }
    ASSERT_EQ(kernel.produce(frames), 30U);
    std::uint32_t index = 0;
    EXPECT_EQ(refnic_ring_cons__peek(&rxc, 20, &index), 20U);
    EXPECT_EQ(refnic_ring_cons__rx_desc(&rxc, index + 19)->len, 79U);
    refnic_ring_cons__release(&rxc, 20);
    EXPECT_EQ(kernel.consumer(), static_cast<std::uint32_t>(near_wrap + 20));
    RxcRing view(memory.data(), 64);
    EXPECT_EQ(view.peek(64), 10U);
    EXPECT_EQ(view.slot(0).addr, 20U);
}

TEST(CRingInterfaceTest, TheKernelsFlags) {
    RingMemory<std::uint64_t> fill_memory(64);
    RingMemory<RxDesc> rxc_memory(64);
    refnic_ring_prod fill{};
    refnic_ring_cons rxc{};
    ASSERT_EQ(refnic_ring_prod__init(&fill, fill_memory.data(), 64), 0);
    ASSERT_EQ(refnic_ring_cons__init(&rxc, rxc_memory.data(), 64), 0);
    EXPECT_FALSE(refnic_ring_prod__needs_wakeup(&fill));
    fill_memory.kernel().set_flags(ring_need_wakeup);
    EXPECT_TRUE(refnic_ring_prod__needs_wakeup(&fill));
    EXPECT_FALSE(refnic_ring_prod__broken(&fill));
    EXPECT_FALSE(refnic_ring_cons__broken(&rxc));
    rxc_memory.kernel().set_flags(ring_broken);
    EXPECT_TRUE(refnic_ring_cons__broken(&rxc));
}

// --- UmemAllocator ---------------------------------------------------------------------------

TEST(UmemAllocatorTest, EveryBufferOnceAndLifo) {
    UmemAllocator allocator(std::uint64_t{8} * 2048, 2048);
    EXPECT_EQ(allocator.capacity(), 8U);
    EXPECT_EQ(allocator.available(), 8U);
    std::array<std::uint64_t, 10> offsets{};
    EXPECT_EQ(allocator.allocate(offsets), 8U);
    EXPECT_EQ(offsets[0], 0U);
    EXPECT_EQ(offsets[7], std::uint64_t{7} * 2048);
    std::uint64_t offset = 0;
    EXPECT_FALSE(allocator.allocate(offset));
    EXPECT_EQ(allocator.in_use(), 8U);

    allocator.release(std::uint64_t{3} * 2048);
    allocator.release(std::uint64_t{5} * 2048 + 100);  // Any offset in it: a tx frame address.
    EXPECT_TRUE(allocator.allocate(offset));
    EXPECT_EQ(offset, std::uint64_t{5} * 2048) << "the buffer freed last comes first";
    EXPECT_TRUE(allocator.allocate(offset));
    EXPECT_EQ(offset, std::uint64_t{3} * 2048);
    EXPECT_EQ(allocator.buffer_of(std::uint64_t{5} * 2048 + 100), std::uint64_t{5} * 2048);
}

TEST(UmemAllocatorTest, RefusesDoubleAndForeignBuffers) {
    UmemAllocator allocator(std::uint64_t{4} * 4096, 4096);
    std::uint64_t offset = 0;
    EXPECT_TRUE(allocator.allocate(offset));
    allocator.release(offset);
    const Error twice = error_of([&] { allocator.release(offset); });
    EXPECT_EQ(twice.errnum(), EINVAL);
    EXPECT_EQ(twice.context(), "umem buffer at 0 given back twice");
    EXPECT_EQ(error_of([&] { allocator.release(std::uint64_t{4} * 4096); }).context(),
              "umem offset 16384 is past the umem (4 buffers of 4096 bytes)");
    EXPECT_EQ(allocator.available(), 4U);
    EXPECT_EQ(error_of([] { UmemAllocator tiny(100, 2048); }).errnum(), EINVAL);
    EXPECT_EQ(error_of([] { UmemAllocator none(4096, 0); }).errnum(), EINVAL);
}

// --- BypassQueue::open -----------------------------------------------------------------------

Error open_error(Config config) {
    return error_of([&] { static_cast<void>(BypassQueue::open(std::move(config))); });
}

TEST(BypassQueueTest, OpenWithoutTheModuleNamesTheDevice) {
    if (::access(std::string(device_path).c_str(), F_OK) == 0) {
        GTEST_SKIP() << device_path << " exists: the module is loaded";
    }
    Config config;
    config.ifindex = 1;
    const Error error = open_error(config);
    EXPECT_EQ(error.errnum(), ENOENT);
    EXPECT_EQ(error.context(), "opening /dev/refnic");
    EXPECT_NE(std::string(error.what()).find("/dev/refnic"), std::string::npos) << error.what();

    config.ifindex = 0;
    config.ifname = "lo";
    EXPECT_EQ(open_error(config).context(), "opening /dev/refnic");
}

TEST(BypassQueueTest, OpenRefusesBadSizesFirst) {
    Config config;
    config.ifindex = 1;
    config.buf_size = 1500;
    const Error error = open_error(config);
    EXPECT_EQ(error.errnum(), EINVAL);
    EXPECT_EQ(error.context(), "buffer size 1500 is neither 2048 nor 4096");

    config = Config{};
    config.ifindex = 1;
    config.rxc_size = 1000;
    EXPECT_EQ(open_error(config).context(),
              "rxc ring size 1000 is not a power of two from 64 to 4096");
    config.rxc_size = 8192;
    EXPECT_EQ(open_error(config).context(),
              "rxc ring size 8192 is not a power of two from 64 to 4096");

    config = Config{};
    config.ifindex = 1;
    config.umem_size = 1000;
    EXPECT_EQ(open_error(config).context(),
              "umem size 1000 bytes is not a page multiple from one buffer to 1 GiB");
    config.umem_size = std::size_t{2} << 30U;
    EXPECT_EQ(open_error(config).context(),
              "umem size 2048 MiB is not a page multiple from one buffer to 1 GiB");
}

TEST(BypassQueueTest, OpenNeedsAnInterface) {
    EXPECT_EQ(open_error(Config{}).context(),
              "a bypass queue needs an ifindex or an interface name");
    Config config;
    config.ifname = "refnic-nodev0";
    const Error error = open_error(config);
    EXPECT_EQ(error.errnum(), ENODEV);
    EXPECT_EQ(error.context(), "interface refnic-nodev0");
}

// --- BypassQueue over plain memory -----------------------------------------------------------

// "addr 4096 index 2 len 100 last 0x03 header 42 first 0xee flags 0x6 rss 0x1234".
std::string describe(const Frame& frame) {
    std::ostringstream text;
    text << "addr " << frame.addr << " index " << frame.index << " len " << frame.data.size()
         << " last 0x" << std::hex
         << (frame.data.empty() ? 0 : static_cast<unsigned>(frame.data.back())) << " header "
         << std::dec << frame.header.size() << " first 0x" << std::hex
         << (frame.header.empty() ? 0 : static_cast<unsigned>(frame.header.front())) << " flags 0x"
         << frame.flags << " rss 0x" << frame.rss_hash;
    return text.str();
}

// A session over anonymous memory, the kernel's ends of its rings faked over the same pages.
class AdoptedQueue : public ::testing::Test {
protected:
    static constexpr std::uint32_t buffers = 64;
    static constexpr std::size_t umem_size = std::size_t{buffers} * 2048;

    void SetUp() override { adopt(make_eventfd()); }

    static UniqueFd make_eventfd() { return UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)); }

    void adopt(UniqueFd fd) {
        BypassQueue::Parts parts;
        parts.config.ifindex = 7;
        parts.config.ifname = "r0";
        parts.config.queue = 3;
        parts.config.fill_size = 64;
        parts.config.rxc_size = 64;
        parts.config.tx_size = 64;
        parts.config.txc_size = 64;
        parts.config.header_split = true;
        parts.config.umem_size = umem_size;
        parts.fd = std::move(fd);
        parts.umem = Mapping::anonymous(parts.config.umem_size);
        parts.fill = Mapping::anonymous(ring_mapping_size(64, 8));
        parts.rxc = Mapping::anonymous(ring_mapping_size(64, sizeof(RxDesc)));
        parts.tx = Mapping::anonymous(ring_mapping_size(64, sizeof(TxDesc)));
        parts.txc = Mapping::anonymous(ring_mapping_size(64, 8));
        parts.headers = Mapping::anonymous(64 * header_slot_size);
        fill_ = std::make_unique<FakeKernel<std::uint64_t>>(parts.fill.data(), 64);
        rxc_ = std::make_unique<FakeKernel<RxDesc>>(parts.rxc.data(), 64);
        tx_ = std::make_unique<FakeKernel<TxDesc>>(parts.tx.data(), 64);
        txc_ = std::make_unique<FakeKernel<std::uint64_t>>(parts.txc.data(), 64);
        headers_ = parts.headers.bytes();
        queue_ = std::make_unique<BypassQueue>(BypassQueue::adopt(std::move(parts)));
    }

    // The device receives `frames` into posted fill buffers: frame i has `len` bytes of value
    // i + 1 and, with `hdr_len`, that many header bytes 0xee in its header slot.
    std::vector<RxDesc> receive_frames(std::size_t frames, std::uint32_t len,
                                       std::uint16_t hdr_len = 0) {
        const std::vector<std::uint64_t> posted =
            fill_->consume(static_cast<std::uint32_t>(frames));
        std::vector<RxDesc> written(posted.size());
        for (std::size_t i = 0; i < posted.size(); ++i) {
            std::memset(queue_->umem().subspan(posted[i]).data(), static_cast<int>(i + 1), len);
            const std::uint32_t index = rxc_->producer() + static_cast<std::uint32_t>(i);
            std::memset(headers_.subspan((index % 64) * header_slot_size).data(), 0xee, hdr_len);
            written[i] = RxDesc{.addr = posted[i],
                                .len = len,
                                .hdr_len = hdr_len,
                                .flags = static_cast<std::uint16_t>(rx_csum_ok | rx_rss_valid |
                                                                    (hdr_len > 0 ? rx_split : 0)),
                                .rss_hash = 0x1234,
                                .reserved = 0};
        }
        rxc_->produce(written);
        return written;
    }

    // What describe() says of the frames receive_frames() wrote, from rxc index 0.
    static std::vector<std::string> expected_frames(const std::vector<RxDesc>& written) {
        std::vector<std::string> expected;
        expected.reserve(written.size());
        for (std::size_t i = 0; i < written.size(); ++i) {
            std::ostringstream text;
            text << "addr " << written[i].addr << " index " << i << " len " << written[i].len
                 << " last 0x" << std::hex << i + 1 << " header " << std::dec << written[i].hdr_len
                 << " first 0x" << (written[i].hdr_len > 0 ? "ee" : "0") << " flags 0x" << std::hex
                 << written[i].flags << " rss 0x1234";
            expected.push_back(text.str());
        }
        return expected;
    }

    // Sends back every peeked rxc entry from its own buffer and releases them with Recycle::keep.
    std::uint32_t bounce_all() {
        const std::uint32_t count = queue_->rxc().peeked();
        std::uint32_t queued = 0;
        for (std::uint32_t i = 0; i < count; ++i) {
            const Frame frame = queue_->rx_frame(i);
            if (queue_->send_buffer(frame.addr, static_cast<std::uint32_t>(frame.size()))) {
                ++queued;
            }
        }
        queue_->rx_release(count, Recycle::keep);
        return queued;
    }

    // Copies `frame` into the tx ring until send() says no; returns how many went in.
    std::size_t send_until_full(std::span<const std::byte> frame) {
        std::size_t queued = 0;
        while (queue_->send(frame)) {
            ++queued;
        }
        return queued;
    }

    // The kernel sends what the tx ring holds and completes it through txc; returns the
    // descriptors.
    std::vector<TxDesc> transmit() {
        std::vector<TxDesc> sent = tx_->consume();
        std::vector<std::uint64_t> done;
        done.reserve(sent.size());
        for (const TxDesc& desc : sent) {
            done.push_back(desc.addr);
        }
        txc_->produce(done);
        return sent;
    }

    std::unique_ptr<BypassQueue> queue_;
    std::unique_ptr<FakeKernel<std::uint64_t>> fill_;
    std::unique_ptr<FakeKernel<RxDesc>> rxc_;
    std::unique_ptr<FakeKernel<TxDesc>> tx_;
    std::unique_ptr<FakeKernel<std::uint64_t>> txc_;
    std::span<std::byte> headers_;
};

TEST_F(AdoptedQueue, AdoptChecksTheMappings) {
    BypassQueue::Parts parts;
    parts.config.ifindex = 1;
    parts.umem = Mapping::anonymous(std::size_t{1} << 20U);
    parts.fill = Mapping::anonymous(4096);
    const Error error = error_of([&] { static_cast<void>(BypassQueue::adopt(std::move(parts))); });
    EXPECT_EQ(error.errnum(), EINVAL);
    EXPECT_EQ(error.context().rfind("fill ring mapping of 4096 bytes", 0), 0U) << error.context();
}

TEST_F(AdoptedQueue, RefillReceiveRecycle) {
    EXPECT_EQ(queue_->allocator().capacity(), buffers);
    EXPECT_EQ(queue_->refill(), 64U) << "the fill ring holds 64";
    EXPECT_EQ(queue_->allocator().available(), 0U);
    EXPECT_EQ(queue_->refill(), 0U);

    const std::vector<RxDesc> written = receive_frames(10, 100, 42);
    EXPECT_TRUE(queue_->wait_rx(Wait::busy_poll, std::chrono::milliseconds(0)));
    std::vector<std::string> seen;
    EXPECT_EQ(queue_->receive(64, [&](const Frame& frame) { seen.push_back(describe(frame)); }),
              10U);
    EXPECT_EQ(seen, expected_frames(written));
    EXPECT_EQ(rxc_->consumer(), 10U);
    EXPECT_EQ(queue_->allocator().available(), 10U) << "released to the free list";

    EXPECT_EQ(queue_->refill(4), 4U);
    EXPECT_EQ(queue_->refill(), 6U);
    EXPECT_EQ(queue_->allocator().available(), 0U);
    EXPECT_EQ(fill_->consume().size(), 64U) << "54 posted before, 10 new";
    EXPECT_FALSE(queue_->wait_rx(Wait::busy_poll, std::chrono::milliseconds(1)));
}

TEST_F(AdoptedQueue, FramesWithoutHeaderSplit) {
    EXPECT_EQ(queue_->refill(3), 3U);
    const std::vector<RxDesc> written = receive_frames(3, 1514);
    EXPECT_EQ(queue_->rx_peek(8), 3U);
    EXPECT_EQ(describe(queue_->rx_frame(2)), expected_frames(written)[2]);
    EXPECT_TRUE(queue_->rx_frame(2).header.empty());
    queue_->rx_release(3);
    EXPECT_EQ(queue_->allocator().in_use(), 0U);
}

TEST_F(AdoptedQueue, PeekKeepAndSendBack) {
    EXPECT_EQ(queue_->refill(8), 8U);
    const std::vector<RxDesc> written = receive_frames(8, 60);
    EXPECT_EQ(queue_->rx_peek(8), 8U);
    EXPECT_EQ(bounce_all(), 8U);
    EXPECT_EQ(queue_->allocator().in_use(), 8U) << "the buffers belong to tx now";
    EXPECT_TRUE(tx_->consume().empty()) << "queued, not submitted";
    EXPECT_EQ(queue_->flush_tx(), 8U);

    const std::vector<TxDesc> sent = transmit();
    ASSERT_EQ(sent.size(), 8U);
    EXPECT_EQ(sent[7].addr, written[7].addr) << "zero copy: the rx buffer itself";
    EXPECT_EQ(sent[7].len, 60U);
    EXPECT_EQ(sent[7].flags, 0U);
    EXPECT_EQ(queue_->reap_tx(), 8U);
    EXPECT_EQ(queue_->allocator().in_use(), 0U);
    EXPECT_EQ(txc_->consumer(), 8U);
}

TEST_F(AdoptedQueue, SendCopiesAndReapRecycles) {
    std::array<std::byte, 60> frame{};
    frame[0] = std::byte{0x02};
    frame[59] = std::byte{0x5a};
    EXPECT_EQ(send_until_full(frame), 64U) << "as many as the tx ring holds";
    EXPECT_EQ(queue_->flush_tx(), 64U);
    const std::vector<TxDesc> sent = transmit();
    ASSERT_EQ(sent.size(), 64U);
    EXPECT_EQ(queue_->umem()[sent[3].addr + 59], std::byte{0x5a});
    EXPECT_EQ(sent[3].len, 60U);
    EXPECT_EQ(queue_->reap_tx(4), 4U);
    EXPECT_EQ(queue_->reap_tx(), 60U);
    EXPECT_EQ(queue_->allocator().available(), 64U);
}

TEST_F(AdoptedQueue, SendRefusesAFrameLargerThanABuffer) {
    const std::vector<std::byte> huge(4096);
    const Error error = error_of([&] { static_cast<void>(queue_->send(huge)); });
    EXPECT_EQ(error.errnum(), EMSGSIZE);
    EXPECT_EQ(error.context(), "a frame of 4096 bytes does not fit a buffer of 2048");
    EXPECT_EQ(queue_->allocator().in_use(), 0U);
}

// An eventfd is no /dev/refnic: a kick shows as the ioctl failing with ENOTTY.
TEST_F(AdoptedQueue, RefillKicksOnlyWhenTheKernelAsks) {
    EXPECT_EQ(queue_->refill(4), 4U);
    fill_->set_flags(ring_need_wakeup);
    const Error error = error_of([&] { static_cast<void>(queue_->refill(4)); });
    EXPECT_EQ(error.errnum(), ENOTTY);
    EXPECT_EQ(error.context(), "REFNIC_BYPASS_IOC_KICK on queue 3 of ifindex 7 (r0)");
    EXPECT_EQ(fill_->consume().size(), 8U) << "submitted before the kick";
    EXPECT_EQ(error_of([&] { static_cast<void>(queue_->stats()); }).context(),
              "REFNIC_BYPASS_IOC_STATS on queue 3 of ifindex 7 (r0)");
}

TEST_F(AdoptedQueue, FlushKicksOnlyWhenTheKernelAsks) {
    const std::array<std::byte, 60> frame{};
    EXPECT_TRUE(queue_->send(frame));
    EXPECT_EQ(queue_->flush_tx(), 1U) << "the tx ring does not need a wakeup";
    tx_->set_flags(ring_need_wakeup);
    EXPECT_TRUE(queue_->send(frame));
    EXPECT_EQ(error_of([&] { static_cast<void>(queue_->flush_tx()); }).errnum(), ENOTTY);
    EXPECT_EQ(tx_->consume().size(), 2U);
    EXPECT_EQ(queue_->flush_tx(), 0U) << "nothing queued: no kick";
}

TEST_F(AdoptedQueue, WaitForReadable) {
    EXPECT_FALSE(queue_->wait(0));
    const std::uint64_t one = 1;
    EXPECT_EQ(::write(queue_->fd(), &one, sizeof(one)), 8);
    EXPECT_TRUE(queue_->wait(0));
    EXPECT_FALSE(queue_->wait_rx(Wait::block, std::chrono::milliseconds(0)))
        << "readable, but rxc is empty";
    EXPECT_EQ(queue_->refill(1), 1U);
    receive_frames(1, 64);
    EXPECT_TRUE(queue_->wait_rx(Wait::block, std::chrono::milliseconds(0)));
}

TEST_F(AdoptedQueue, TornDown) {
    // The write end of a pipe whose read end is closed polls as POLLERR, as a session the kernel
    // tore down does.
    std::array<int, 2> pipe{};
    ASSERT_EQ(::pipe2(pipe.data(), O_CLOEXEC), 0);
    ::close(pipe[0]);
    adopt(UniqueFd(pipe[1]));
    Error error = error_of([&] { static_cast<void>(queue_->wait(100)); });
    EXPECT_EQ(error.errnum(), EPIPE);
    EXPECT_EQ(error.context(), "queue 3 of ifindex 7 (r0): session torn down by the kernel");

    rxc_->set_flags(ring_broken);
    error = error_of([&] {
        static_cast<void>(queue_->wait_rx(Wait::busy_poll, std::chrono::milliseconds(100)));
    });
    EXPECT_EQ(error.errnum(), EPIPE);
    EXPECT_NE(error.context().find("rings marked broken"), std::string::npos) << error.context();
}

TEST_F(AdoptedQueue, BuffersAndHeaderSlots) {
    EXPECT_EQ(queue_->umem().size(), umem_size);
    EXPECT_EQ(queue_->buffer(2048).size(), 2048U);
    EXPECT_EQ(queue_->buffer(2048 + 48).size(), 2000U);
    EXPECT_EQ(queue_->buffer(2048 + 48).data(), queue_->umem().data() + 2096);
    EXPECT_EQ(error_of([&] { static_cast<void>(queue_->buffer(umem_size)); }).errnum(), ERANGE);
    EXPECT_EQ(queue_->header(0).size(), header_slot_size);
    EXPECT_EQ(queue_->header(65).data(), headers_.data() + header_slot_size);
    EXPECT_EQ(queue_->header(0xffffffffU).data(), headers_.data() + 63 * header_slot_size);
    EXPECT_EQ(queue_->config().ifindex, 7U);

    BypassQueue moved = std::move(*queue_);
    EXPECT_EQ(moved.umem().size(), umem_size);
    EXPECT_EQ(moved.refill(3), 3U);
    EXPECT_EQ(fill_->consume().size(), 3U);
}

TEST_F(AdoptedQueue, AFrameOutsideTheUmemIsRefused) {
    RxDesc desc{};
    desc.addr = umem_size - 100;
    desc.len = 200;
    EXPECT_EQ(rxc_->produce({desc}), 1U);
    EXPECT_EQ(queue_->rx_peek(1), 1U);
    const Error error = error_of([&] { static_cast<void>(queue_->rx_frame(0)); });
    EXPECT_EQ(error.errnum(), EPROTO);
    EXPECT_NE(error.context().find("past the umem"), std::string::npos) << error.context();
}

}  // namespace
}  // namespace refnic::bypass
