/* SPDX-License-Identifier: GPL-2.0-only */
// What refnic-devmem checks, sends and prints, without side effects so it can be unit tested: the
// payload pattern of ncdevmem -v N, and the summary of a run as text or JSON.
#pragma once

#include <refnic/devmem.hpp>
#include <refnic/zcrx.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace refnic::devmem_cli {

// A byte of the stream that is not what the pattern says.
struct Mismatch {
    std::uint64_t offset = 0;  // In the stream.
    std::uint8_t expected = 0;
    std::uint8_t actual = 0;

    friend bool operator==(const Mismatch&, const Mismatch&) = default;
};

// "stream offset 12: expected 0x05, got 0x00".
[[nodiscard]] std::string describe(const Mismatch& mismatch);

// validate_buffer() of the kernel's ncdevmem (tools/testing/selftests/net/ncdevmem.c), exactly:
// an unsigned char seed starts at 1; each byte must equal it, then the seed is incremented
// (wrapping at 256) and set to 0 when it equals N. So byte i is (i + 1) mod N for N from 2 to
// 256, and (i + 1) mod 256 above that. The seed carries over from one check() to the next.
class PatternValidator {
public:
    explicit PatternValidator(std::uint64_t period) noexcept : period_(period) {}

    // Checks the next bytes of the stream and stops at the first mismatch, if any.
    [[nodiscard]] std::optional<Mismatch> check(std::span<const std::byte> bytes) noexcept;

    [[nodiscard]] std::uint64_t period() const noexcept { return period_; }
    // Bytes found as expected so far.
    [[nodiscard]] std::uint64_t checked() const noexcept { return checked_; }

private:
    std::uint64_t period_;
    std::uint8_t seed_ = 1;
    std::uint64_t checked_ = 0;
};

// The cycle of the stream ncdevmem -v N validates: N bytes for N up to 256, 256 above.
[[nodiscard]] std::uint64_t pattern_cycle(std::uint64_t period) noexcept;
// The first `size` bytes of that stream: what tx fills its udmabuf with.
[[nodiscard]] std::vector<std::byte> pattern_bytes(std::uint64_t period, std::size_t size);

// One rx run, from accepting the connection to the end of the stream.
struct Summary {
    std::string ifname;                 // Where the udmabuf is bound,
    std::vector<std::uint32_t> queues;  // on these RX queues,
    std::uint32_t binding = 0;          // as this dmabuf binding (its netdev netlink id).
    devmem::ReceiverStats stats;
    devmem::Release release = devmem::Release::batched;
    std::chrono::nanoseconds elapsed{0};  // Wall clock (steady_clock).
    std::chrono::nanoseconds cpu_user{0};
    std::chrono::nanoseconds cpu_system{0};
    std::uint64_t sync_ioctls = 0;  // DMA_BUF_IOCTL_SYNC, made only to validate.
    std::optional<std::uint64_t> validate;
    // --unbind-after: the stream offset where the udmabuf was unbound, and how many frags the
    // process held then (nullopt: not unbound).
    std::optional<std::uint64_t> unbound_at;
    std::optional<std::uint64_t> held_at_unbind;

    // Per GiB (2^30 bytes) of payload; nullopt before any payload.
    [[nodiscard]] std::optional<double> syscalls_per_gib() const noexcept;
    [[nodiscard]] std::optional<double> cpu_ns_per_gib() const noexcept;
    // Payload bits per second; nullopt without payload or time.
    [[nodiscard]] std::optional<double> throughput_bps() const noexcept;
};

// One zcrx run, from accepting the connection to the end of the stream.
struct ZcrxSummary {
    std::string ifname;
    std::uint32_t queue = 0;
    std::uint32_t zcrx_id = 0;
    std::uint64_t area_bytes = 0;
    std::uint32_t refill_batch = 0;
    std::uint64_t refill_garbage = 0;  // Bad refill entries added (--refill-garbage).
    std::uint64_t chunks = 0;
    zcrx::ReceiverStats stats;
    std::chrono::nanoseconds elapsed{0};
    std::chrono::nanoseconds cpu_user{0};
    std::chrono::nanoseconds cpu_system{0};
    std::optional<std::uint64_t> validate;

    [[nodiscard]] std::optional<double> syscalls_per_gib() const noexcept;
    [[nodiscard]] std::optional<double> cpu_ns_per_gib() const noexcept;
    [[nodiscard]] std::optional<double> throughput_bps() const noexcept;
};

// One tx run, from the first send to the last completion.
struct TxSummary {
    std::string ifname;
    std::uint32_t binding = 0;
    std::uint64_t udmabuf_bytes = 0;
    std::uint64_t chunk = 0;  // -z, 0 for none.
    devmem::SenderStats stats;
    std::chrono::nanoseconds elapsed{0};
    std::chrono::nanoseconds cpu_user{0};
    std::chrono::nanoseconds cpu_system{0};
    std::optional<std::uint64_t> validate;  // The pattern's period: always set.

    [[nodiscard]] std::optional<double> syscalls_per_gib() const noexcept;
    [[nodiscard]] std::optional<double> cpu_ns_per_gib() const noexcept;
    [[nodiscard]] std::optional<double> throughput_bps() const noexcept;
};

// A few aligned "name: value" lines.
[[nodiscard]] std::string summary_text(const Summary& summary);
[[nodiscard]] std::string summary_text(const ZcrxSummary& summary);
[[nodiscard]] std::string summary_text(const TxSummary& summary);
// One JSON object (docs/cli.md, "JSON"), compact on one line or indented by 4 spaces, with a
// trailing newline.
[[nodiscard]] std::string summary_json(const Summary& summary, bool pretty = false);
[[nodiscard]] std::string summary_json(const ZcrxSummary& summary, bool pretty = false);
[[nodiscard]] std::string summary_json(const TxSummary& summary, bool pretty = false);

}  // namespace refnic::devmem_cli
