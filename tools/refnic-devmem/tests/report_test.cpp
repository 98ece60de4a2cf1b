// SPDX-License-Identifier: GPL-2.0-only
// The payload check (ncdevmem's validate_buffer, byte for byte) and the summary.
#include "report.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace refnic::devmem_cli {
namespace {

// What `yes $(echo -e \\x01\\x02\\x03\\x04\\x05\\x06) | tr \\n \\0 | head -c SIZE` sends.
std::vector<std::byte> ncdevmem_sender(std::size_t size) {
    std::vector<std::byte> bytes;
    for (std::size_t i = 0; i < size; ++i) {
        bytes.push_back(static_cast<std::byte>(i % 7 == 6 ? 0 : i % 7 + 1));
    }
    return bytes;
}

// ncdevmem.c's validate_buffer() loop as written there, minus the printing: the expected byte
// at each offset of a stream of `size` bytes.
std::vector<std::byte> ncdevmem_expected(std::size_t do_validation, std::size_t size) {
    std::vector<std::byte> expected;
    unsigned char seed = 1;
    for (std::size_t i = 0; i < size; i++) {
        expected.push_back(static_cast<std::byte>(seed));
        seed++;
        if (seed == do_validation) {
            seed = 0;
        }
    }
    return expected;
}

TEST(PatternValidatorTest, AcceptsTheNcdevmemSenderWithPeriod7) {
    const std::vector<std::byte> stream = ncdevmem_sender(100000);
    PatternValidator validator(7);
    // Frags of odd sizes: the pattern carries over from one to the next.
    std::size_t offset = 0;
    for (std::size_t size = 1; offset < stream.size(); size = size * 3 % 4093 + 1) {
        const std::size_t take = std::min(size, stream.size() - offset);
        ASSERT_EQ(validator.check(std::span(stream).subspan(offset, take)), std::nullopt)
            << "at " << offset;
        offset += take;
    }
    EXPECT_EQ(validator.checked(), stream.size());
    EXPECT_EQ(validator.period(), 7U);
}

TEST(PatternValidatorTest, MatchesNcdevmemForEveryKindOfPeriod) {
    for (const std::uint64_t period : {2U, 3U, 7U, 100U, 255U, 256U, 257U, 1000U}) {
        const std::vector<std::byte> expected = ncdevmem_expected(period, 3000);
        PatternValidator validator(period);
        EXPECT_EQ(validator.check(expected), std::nullopt) << "period " << period;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const std::uint64_t formula = period <= 256 ? (i + 1) % period : (i + 1) % 256;
            ASSERT_EQ(static_cast<std::uint64_t>(expected[i]), formula)
                << "period " << period << " offset " << i;
        }
    }
}

TEST(PatternValidatorTest, ReportsTheFirstMismatch) {
    std::vector<std::byte> stream = ncdevmem_sender(1000);
    stream[600] = std::byte{0x42};
    stream[700] = std::byte{0x43};
    PatternValidator validator(7);
    ASSERT_EQ(validator.check(std::span(stream).first(500)), std::nullopt);
    const std::optional<Mismatch> mismatch = validator.check(std::span(stream).subspan(500));
    ASSERT_TRUE(mismatch);
    // 600 % 7 == 5, so 6 was due.
    EXPECT_EQ(*mismatch, (Mismatch{.offset = 600, .expected = 6, .actual = 0x42}));
    EXPECT_EQ(describe(*mismatch), "stream offset 600: expected 0x06, got 0x42");
    EXPECT_EQ(validator.checked(), 600U);
}

TEST(PatternValidatorTest, WrongPeriodFailsAtTheFirstWrap) {
    const std::vector<std::byte> stream = ncdevmem_sender(100);
    PatternValidator validator(8);
    EXPECT_EQ(validator.check(stream), (Mismatch{.offset = 6, .expected = 7, .actual = 0}));
}

Summary gib_summary() {
    Summary summary;
    summary.ifname = "r1";
    summary.queues = {2, 3};
    summary.binding = 9;
    summary.stats.recvmsg_calls = 1024;
    summary.stats.dontneed_calls = 192;
    summary.stats.poll_calls = 64;
    summary.stats.frags = 262144;
    summary.stats.frags_released = 262144;
    summary.stats.devmem_bytes = std::uint64_t{1} << 30U;
    summary.release = devmem::Release::batched;
    summary.elapsed = std::chrono::seconds(2);
    summary.cpu_user = std::chrono::milliseconds(250);
    summary.cpu_system = std::chrono::milliseconds(500);
    summary.sync_ioctls = 2048;
    summary.validate = 7;
    return summary;
}

TEST(SummaryTest, PerGibFigures) {
    const Summary summary = gib_summary();
    EXPECT_DOUBLE_EQ(*summary.syscalls_per_gib(), 1280);
    EXPECT_DOUBLE_EQ(*summary.cpu_ns_per_gib(), 0.75e9);
    EXPECT_DOUBLE_EQ(*summary.throughput_bps(), 8.0 * (1U << 30U) / 2);

    Summary half = summary;
    half.stats.devmem_bytes /= 2;
    EXPECT_DOUBLE_EQ(*half.syscalls_per_gib(), 2560);

    const Summary empty;
    EXPECT_FALSE(empty.syscalls_per_gib());
    EXPECT_FALSE(empty.cpu_ns_per_gib());
    EXPECT_FALSE(empty.throughput_bps());
}

TEST(SummaryTest, Json) {
    EXPECT_EQ(summary_json(gib_summary()),
              "{\"ifname\":\"r1\",\"queues\":[2,3],\"binding\":9,\"bytes\":1073741824,\"devmem_"
              "bytes\":1073741824,\"plain_bytes\":0,\"frags\":262144,"
              "\"recvmsg_calls\":1024,\"dontneed_calls\":192,\"poll_calls\":64,"
              "\"frags_freed\":262144,"
              "\"release\":\"batched\",\"syscalls\":1280,\"syscalls_per_gib\":1280.0,"
              "\"sync_ioctls\":2048,\"unbound_at\":null,\"held_at_unbind\":null,"
              "\"cpu_user_ns\":250000000,\"cpu_system_ns\":500000000,"
              "\"cpu_ns_per_gib\":750000000.0,\"elapsed_ns\":2000000000,"
              "\"throughput_bps\":4294967296.0,\"validate\":7}\n");
    Summary empty;
    empty.release = devmem::Release::per_frag;
    const std::string json = summary_json(empty);
    EXPECT_NE(json.find("\"release\":\"per-frag\""), std::string::npos);
    EXPECT_NE(json.find("\"syscalls_per_gib\":null"), std::string::npos);
    EXPECT_NE(json.find("\"throughput_bps\":null"), std::string::npos);
    EXPECT_NE(json.find("\"cpu_ns_per_gib\":null"), std::string::npos);
    EXPECT_NE(json.find("\"validate\":null"), std::string::npos);
    // --unbind-after: where, how many frags were held, and what came plain after it.
    Summary unbound = gib_summary();
    unbound.unbound_at = 2097152;
    unbound.held_at_unbind = 37;
    unbound.stats.plain_bytes = 4096;
    const std::string unbound_json = summary_json(unbound);
    EXPECT_NE(unbound_json.find("\"plain_bytes\":4096,"), std::string::npos) << unbound_json;
    EXPECT_NE(unbound_json.find("\"unbound_at\":2097152,\"held_at_unbind\":37,"), std::string::npos)
        << unbound_json;
    EXPECT_NE(summary_text(unbound).find(
                  "unbound at:       2097152 bytes, 37 frags held; 4096 bytes plain after it\n"),
              std::string::npos)
        << summary_text(unbound);
    // -p (--pretty here): the same value, indented by 4 spaces.
    const std::string pretty = summary_json(gib_summary(), true);
    EXPECT_EQ(pretty.rfind("{\n    \"ifname\": \"r1\",\n", 0), 0U) << pretty;
    EXPECT_EQ(nlohmann::json::parse(pretty), nlohmann::json::parse(summary_json(gib_summary())));
}

TEST(SummaryTest, Text) {
    EXPECT_EQ(summary_text(gib_summary()),
              "bytes:            1073741824\n"
              "frags:            262144 (4096 bytes average)\n"
              "recvmsg calls:    1024\n"
              "poll calls:       64 (tokens held, waiting)\n"
              "dontneed calls:   192 (batched, 262144 frags freed)\n"
              "syscalls per GiB: 1280.0 (recvmsg, poll, SO_DEVMEM_DONTNEED)\n"
              "dma-buf syncs:    2048 (to validate)\n"
              "cpu per GiB:      0.750 s (user 0.250 s, system 0.500 s in all)\n"
              "throughput:       4.295 Gbit/s in 2.000 s\n"
              "validated:        yes, period 7\n");
    const std::string empty = summary_text(Summary{});
    EXPECT_NE(empty.find("syscalls per GiB: n/a (no payload)\n"), std::string::npos);
    EXPECT_NE(empty.find("validated:        no (-v N)\n"), std::string::npos);
    EXPECT_EQ(empty.find("dma-buf syncs"), std::string::npos);
}

ZcrxSummary zcrx_gib_summary() {
    ZcrxSummary summary;
    summary.ifname = "r1";
    summary.queue = 2;
    summary.zcrx_id = 0;
    summary.area_bytes = std::uint64_t{32} << 20U;
    summary.refill_batch = 64;
    summary.chunks = 262144;
    summary.stats.bytes = std::uint64_t{1} << 30U;
    summary.stats.enter_calls = 2048;
    summary.stats.completions = 262145;
    summary.stats.submissions = 1;
    summary.stats.refill_entries = 262144;
    summary.stats.refill_batches = 4096;
    summary.elapsed = std::chrono::seconds(2);
    summary.cpu_user = std::chrono::milliseconds(100);
    summary.cpu_system = std::chrono::milliseconds(300);
    summary.validate = 7;
    return summary;
}

TEST(ZcrxSummaryTest, Json) {
    EXPECT_EQ(summary_json(zcrx_gib_summary()),
              "{\"ifname\":\"r1\",\"queue\":2,\"zcrx_id\":0,\"area_bytes\":33554432,"
              "\"bytes\":1073741824,\"chunks\":262144,\"enter_calls\":2048,"
              "\"submissions\":1,\"cq_full\":0,\"no_buffers\":0,\"refill_entries\":262144,\"refill_"
              "batches\":4096,"
              "\"refill_batch\":64,\"refill_garbage\":0,\"syscalls\":2048,"
              "\"syscalls_per_gib\":2048.0,"
              "\"cpu_user_ns\":100000000,\"cpu_system_ns\":300000000,"
              "\"cpu_ns_per_gib\":400000000.0,\"elapsed_ns\":2000000000,"
              "\"throughput_bps\":4294967296.0,\"validate\":7}\n");
    ZcrxSummary garbage = zcrx_gib_summary();
    garbage.refill_garbage = 12;
    EXPECT_NE(summary_json(garbage).find("\"refill_garbage\":12,"), std::string::npos);
    EXPECT_NE(
        summary_text(garbage).find("262144 entries in 4096 tail stores (batch 64), 12 of them "
                                   "bad"),
        std::string::npos);
    ZcrxSummary full = zcrx_gib_summary();
    full.stats.cq_full = 3;
    EXPECT_NE(
        summary_text(full).find("(262145 completions, 1 RECV_ZC armed, 3 ended by a full CQ)"),
        std::string::npos);
    const std::string empty = summary_json(ZcrxSummary{});
    EXPECT_NE(empty.find("\"syscalls_per_gib\":null"), std::string::npos);
    EXPECT_NE(empty.find("\"validate\":null"), std::string::npos);
}

TEST(ZcrxSummaryTest, Text) {
    EXPECT_EQ(summary_text(zcrx_gib_summary()),
              "bytes:            1073741824\n"
              "chunks:           262144 (4096 bytes average)\n"
              "io_uring_enter:   2048 (262145 completions, 1 RECV_ZC armed)\n"
              "refill:           262144 entries in 4096 tail stores (batch 64)\n"
              "syscalls per GiB: 2048.0 (io_uring_enter)\n"
              "cpu per GiB:      0.400 s (user 0.100 s, system 0.300 s in all)\n"
              "throughput:       4.295 Gbit/s in 2.000 s\n"
              "validated:        yes, period 7\n");
}

TEST(PatternTest, TxSendsWhatTheValidatorAccepts) {
    for (const std::uint64_t period : {2U, 7U, 255U, 256U, 257U, 100000U}) {
        const std::vector<std::byte> stream = pattern_bytes(period, 3 * 256 + 5);
        PatternValidator validator(period);
        EXPECT_FALSE(validator.check(stream)) << "period " << period;
        EXPECT_EQ(stream, ncdevmem_expected(period, stream.size())) << "period " << period;
    }
    EXPECT_EQ(pattern_bytes(7, 14), ncdevmem_sender(14));
    EXPECT_EQ(pattern_cycle(7), 7U);
    EXPECT_EQ(pattern_cycle(256), 256U);
    EXPECT_EQ(pattern_cycle(100000), 256U);
}

TxSummary tx_gib_summary() {
    TxSummary summary;
    summary.ifname = "r0";
    summary.binding = 3;
    summary.udmabuf_bytes = std::uint64_t{64} << 20U;
    summary.stats.bytes = std::uint64_t{1} << 30U;
    summary.stats.sendmsg_calls = 1024;
    summary.stats.errqueue_reads = 100;
    summary.stats.poll_calls = 2;
    summary.stats.completed = 1024;
    summary.elapsed = std::chrono::seconds(2);
    summary.cpu_user = std::chrono::milliseconds(10);
    summary.cpu_system = std::chrono::milliseconds(90);
    summary.validate = 7;
    return summary;
}

TEST(TxSummaryTest, Json) {
    EXPECT_EQ(summary_json(tx_gib_summary()),
              "{\"ifname\":\"r0\",\"binding\":3,\"udmabuf_bytes\":67108864,"
              "\"bytes\":1073741824,\"chunk\":0,\"sendmsg_calls\":1024,\"enobufs\":0,"
              "\"errqueue_reads\":100,\"poll_calls\":2,\"completed\":1024,\"copied\":0,"
              "\"syscalls\":1126,\"syscalls_per_gib\":1126.0,\"cpu_user_ns\":10000000,"
              "\"cpu_system_ns\":90000000,\"cpu_ns_per_gib\":100000000.0,"
              "\"elapsed_ns\":2000000000,\"throughput_bps\":4294967296.0,\"validate\":7}\n");
}

TEST(TxSummaryTest, Text) {
    TxSummary summary = tx_gib_summary();
    summary.chunk = 3000;
    summary.stats.enobufs = 4;
    EXPECT_EQ(summary_text(summary),
              "bytes:            1073741824 (from the udmabuf, binding 3)\n"
              "sendmsg calls:    1024 (1048576 bytes average), iovecs of 3000 bytes, 4 ENOBUFS\n"
              "completions:      1024 sends in 100 notifications (0 copied)\n"
              "syscalls per GiB: 1130.0 (sendmsg, MSG_ERRQUEUE, poll)\n"
              "cpu per GiB:      0.100 s (user 0.010 s, system 0.090 s in all)\n"
              "throughput:       4.295 Gbit/s in 2.000 s\n"
              "pattern:          ncdevmem -v 7 (what a receiver with that -v validates)\n");
}

}  // namespace
}  // namespace refnic::devmem_cli
