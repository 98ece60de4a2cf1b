// SPDX-License-Identifier: GPL-2.0-only
#include "report.hpp"

#include "json.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string_view>

namespace refnic::devmem_cli {

namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

std::string hex_byte(std::uint8_t value) {
    std::array<char, 8> text{};
    std::snprintf(text.data(), text.size(), "0x%02x", static_cast<unsigned>(value));
    return text.data();
}

std::string fixed(double value, int decimals) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(decimals) << value;
    return out.str();
}

double seconds(std::chrono::nanoseconds time) {
    return std::chrono::duration<double>(time).count();
}

// A derived value, or null.
tool_cli::Json json_number(std::optional<double> value) {
    return value ? tool_cli::Json(*value) : tool_cli::Json(nullptr);
}

// A count that may not apply, or null.
tool_cli::Json json_optional(std::optional<std::uint64_t> value) {
    return value ? tool_cli::Json(*value) : tool_cli::Json(nullptr);
}

std::string line(std::string_view name, const std::string& value) {
    constexpr std::size_t width = 18;
    std::string text(name);
    text += ':';
    text.resize(std::max(text.size() + 1, width), ' ');
    return text + value + "\n";
}

std::optional<double> per_gib(std::uint64_t count, std::uint64_t bytes) noexcept {
    if (bytes == 0) {
        return std::nullopt;
    }
    return static_cast<double>(count) / (static_cast<double>(bytes) / gib);
}

std::optional<double> bits_per_second(std::uint64_t bytes,
                                      std::chrono::nanoseconds elapsed) noexcept {
    if (bytes == 0 || elapsed.count() <= 0) {
        return std::nullopt;
    }
    return static_cast<double>(bytes) * 8 / seconds(elapsed);
}

// "N (B bytes average)" for N pieces (frags, chunks) carrying `bytes`; just "N" for none.
std::string count_with_average(std::uint64_t count, std::uint64_t bytes) {
    if (count == 0) {
        return "0";
    }
    return std::to_string(count) + " (" +
           fixed(static_cast<double>(bytes) / static_cast<double>(count), 0) + " bytes average)";
}

// A derived figure, or why there is none.
std::string or_none(std::optional<double> value, int decimals, std::string_view unit) {
    return value ? fixed(*value, decimals) + std::string(unit) : "n/a (no payload)";
}

// The lines every summary ends with: CPU, throughput.
template <typename RunSummary>
std::string time_lines(const RunSummary& summary) {
    std::string text;
    const std::optional<double> cpu_per_gib = summary.cpu_ns_per_gib();
    text += line("cpu per GiB",
                 or_none(cpu_per_gib ? std::optional(*cpu_per_gib / 1e9) : std::nullopt, 3, " s") +
                     " (user " + fixed(seconds(summary.cpu_user), 3) + " s, system " +
                     fixed(seconds(summary.cpu_system), 3) + " s in all)");
    const std::optional<double> bps = summary.throughput_bps();
    text +=
        line("throughput", or_none(bps ? std::optional(*bps / 1e9) : std::nullopt, 3, " Gbit/s") +
                               " in " + fixed(seconds(summary.elapsed), 3) + " s");
    return text;
}

// A receiver's last line.
std::string validated_line(std::optional<std::uint64_t> validate) {
    return line("validated",
                validate ? "yes, period " + std::to_string(*validate) : std::string("no (-v N)"));
}

// The JSON keys every summary ends with ("validate": the period checked or, for tx, sent).
template <typename RunSummary>
void put_times(tool_cli::Json& object, const RunSummary& summary) {
    object["cpu_user_ns"] = summary.cpu_user.count();
    object["cpu_system_ns"] = summary.cpu_system.count();
    object["cpu_ns_per_gib"] = json_number(summary.cpu_ns_per_gib());
    object["elapsed_ns"] = summary.elapsed.count();
    object["throughput_bps"] = json_number(summary.throughput_bps());
    object["validate"] = json_optional(summary.validate);
}

}  // namespace

std::string describe(const Mismatch& mismatch) {
    return "stream offset " + std::to_string(mismatch.offset) + ": expected " +
           hex_byte(mismatch.expected) + ", got " + hex_byte(mismatch.actual);
}

std::optional<Mismatch> PatternValidator::check(std::span<const std::byte> bytes) noexcept {
    for (const std::byte byte : bytes) {
        const auto actual = static_cast<std::uint8_t>(byte);
        if (actual != seed_) {
            return Mismatch{.offset = checked_, .expected = seed_, .actual = actual};
        }
        ++seed_;  // An unsigned char in ncdevmem too: 255 wraps to 0.
        if (seed_ == period_) {
            seed_ = 0;
        }
        ++checked_;
    }
    return std::nullopt;
}

std::uint64_t pattern_cycle(std::uint64_t period) noexcept {
    return std::min<std::uint64_t>(period, 256);
}

std::vector<std::byte> pattern_bytes(std::uint64_t period, std::size_t size) {
    std::vector<std::byte> bytes(size);
    const std::uint64_t cycle = pattern_cycle(period);
    for (std::size_t i = 0; i < size; ++i) {
        bytes[i] = static_cast<std::byte>((i + 1) % cycle);
    }
    return bytes;
}

std::optional<double> TxSummary::syscalls_per_gib() const noexcept {
    return per_gib(stats.syscalls(), stats.bytes);
}

std::optional<double> TxSummary::cpu_ns_per_gib() const noexcept {
    return per_gib(static_cast<std::uint64_t>((cpu_user + cpu_system).count()), stats.bytes);
}

std::optional<double> TxSummary::throughput_bps() const noexcept {
    return bits_per_second(stats.bytes, elapsed);
}

std::string summary_text(const TxSummary& summary) {
    const devmem::SenderStats& stats = summary.stats;
    std::string text;
    text += line("bytes", std::to_string(stats.bytes) + " (from the udmabuf, binding " +
                              std::to_string(summary.binding) + ")");
    text += line("sendmsg calls",
                 count_with_average(stats.sendmsg_calls, stats.bytes) +
                     (summary.chunk > 0 ? ", iovecs of " + std::to_string(summary.chunk) + " bytes"
                                        : std::string()) +
                     (stats.enobufs > 0 ? ", " + std::to_string(stats.enobufs) + " ENOBUFS"
                                        : std::string()));
    text += line("completions", std::to_string(stats.completed) + " sends in " +
                                    std::to_string(stats.errqueue_reads) + " notifications (" +
                                    std::to_string(stats.copied) + " copied)");
    text += line("syscalls per GiB",
                 or_none(summary.syscalls_per_gib(), 1, " (sendmsg, MSG_ERRQUEUE, poll)"));
    return text + time_lines(summary) +
           line("pattern", "ncdevmem -v " + std::to_string(summary.validate.value_or(0)) +
                               " (what a receiver with that -v validates)");
}

std::string summary_json(const TxSummary& summary, bool pretty) {
    const devmem::SenderStats& stats = summary.stats;
    tool_cli::Json object = tool_cli::Json::object();
    object["ifname"] = summary.ifname;
    object["binding"] = summary.binding;
    object["udmabuf_bytes"] = summary.udmabuf_bytes;
    object["bytes"] = stats.bytes;
    object["chunk"] = summary.chunk;
    object["sendmsg_calls"] = stats.sendmsg_calls;
    object["enobufs"] = stats.enobufs;
    object["errqueue_reads"] = stats.errqueue_reads;
    object["poll_calls"] = stats.poll_calls;
    object["completed"] = stats.completed;
    object["copied"] = stats.copied;
    object["syscalls"] = stats.syscalls();
    object["syscalls_per_gib"] = json_number(summary.syscalls_per_gib());
    put_times(object, summary);
    return tool_cli::dump_json(object, pretty) + "\n";
}

std::optional<double> Summary::syscalls_per_gib() const noexcept {
    return per_gib(stats.syscalls(), stats.bytes());
}

std::optional<double> Summary::cpu_ns_per_gib() const noexcept {
    return per_gib(static_cast<std::uint64_t>((cpu_user + cpu_system).count()), stats.bytes());
}

std::optional<double> Summary::throughput_bps() const noexcept {
    return bits_per_second(stats.bytes(), elapsed);
}

std::optional<double> ZcrxSummary::syscalls_per_gib() const noexcept {
    return per_gib(stats.syscalls(), stats.bytes);
}

std::optional<double> ZcrxSummary::cpu_ns_per_gib() const noexcept {
    return per_gib(static_cast<std::uint64_t>((cpu_user + cpu_system).count()), stats.bytes);
}

std::optional<double> ZcrxSummary::throughput_bps() const noexcept {
    return bits_per_second(stats.bytes, elapsed);
}

std::string summary_text(const Summary& summary) {
    const devmem::ReceiverStats& stats = summary.stats;
    std::string text;
    text += line("bytes", std::to_string(stats.bytes()));
    text += line("frags", count_with_average(stats.frags, stats.devmem_bytes));
    text += line("recvmsg calls", std::to_string(stats.recvmsg_calls));
    text += line("poll calls", std::to_string(stats.poll_calls) + " (tokens held, waiting)");
    text += line("dontneed calls", std::to_string(stats.dontneed_calls) + " (" +
                                       std::string(devmem::to_string(summary.release)) + ", " +
                                       std::to_string(stats.frags_released) + " frags freed)");
    text += line("syscalls per GiB",
                 or_none(summary.syscalls_per_gib(), 1, " (recvmsg, poll, SO_DEVMEM_DONTNEED)"));
    if (summary.validate) {
        text += line("dma-buf syncs", std::to_string(summary.sync_ioctls) + " (to validate)");
    }
    if (summary.unbound_at) {
        text += line("unbound at", std::to_string(*summary.unbound_at) + " bytes, " +
                                       std::to_string(summary.held_at_unbind.value_or(0)) +
                                       " frags held; " + std::to_string(stats.plain_bytes) +
                                       " bytes plain after it");
    }
    return text + time_lines(summary) + validated_line(summary.validate);
}

std::string summary_text(const ZcrxSummary& summary) {
    const zcrx::ReceiverStats& stats = summary.stats;
    std::string text;
    text += line("bytes", std::to_string(stats.bytes));
    text += line("chunks", count_with_average(summary.chunks, stats.bytes));
    text +=
        line("io_uring_enter",
             std::to_string(stats.enter_calls) + " (" + std::to_string(stats.completions) +
                 " completions, " + std::to_string(stats.submissions) + " RECV_ZC armed" +
                 (stats.cq_full > 0 ? ", " + std::to_string(stats.cq_full) + " ended by a full CQ"
                                    : std::string()) +
                 ")");
    text += line("refill", std::to_string(stats.refill_entries) + " entries in " +
                               std::to_string(stats.refill_batches) + " tail stores (batch " +
                               std::to_string(summary.refill_batch) + ")" +
                               (summary.refill_garbage > 0
                                    ? ", " + std::to_string(summary.refill_garbage) + " of them bad"
                                    : std::string()));
    text += line("syscalls per GiB", or_none(summary.syscalls_per_gib(), 1, " (io_uring_enter)"));
    return text + time_lines(summary) + validated_line(summary.validate);
}

std::string summary_json(const ZcrxSummary& summary, bool pretty) {
    const zcrx::ReceiverStats& stats = summary.stats;
    tool_cli::Json object = tool_cli::Json::object();
    object["ifname"] = summary.ifname;
    object["queue"] = summary.queue;
    object["zcrx_id"] = summary.zcrx_id;
    object["area_bytes"] = summary.area_bytes;
    object["bytes"] = stats.bytes;
    object["chunks"] = summary.chunks;
    object["enter_calls"] = stats.enter_calls;
    object["submissions"] = stats.submissions;
    object["cq_full"] = stats.cq_full;
    object["no_buffers"] = stats.no_buffers;
    object["refill_entries"] = stats.refill_entries;
    object["refill_batches"] = stats.refill_batches;
    object["refill_batch"] = summary.refill_batch;
    object["refill_garbage"] = summary.refill_garbage;
    object["syscalls"] = stats.syscalls();
    object["syscalls_per_gib"] = json_number(summary.syscalls_per_gib());
    put_times(object, summary);
    return tool_cli::dump_json(object, pretty) + "\n";
}

std::string summary_json(const Summary& summary, bool pretty) {
    const devmem::ReceiverStats& stats = summary.stats;
    tool_cli::Json object = tool_cli::Json::object();
    object["ifname"] = summary.ifname;
    object["queues"] = summary.queues;
    object["binding"] = summary.binding;
    object["bytes"] = stats.bytes();
    object["devmem_bytes"] = stats.devmem_bytes;
    object["plain_bytes"] = stats.plain_bytes;
    object["frags"] = stats.frags;
    object["recvmsg_calls"] = stats.recvmsg_calls;
    object["dontneed_calls"] = stats.dontneed_calls;
    object["poll_calls"] = stats.poll_calls;
    object["frags_freed"] = stats.frags_released;
    object["release"] = std::string(devmem::to_string(summary.release));
    object["syscalls"] = stats.syscalls();
    object["syscalls_per_gib"] = json_number(summary.syscalls_per_gib());
    object["sync_ioctls"] = summary.sync_ioctls;
    object["unbound_at"] = json_optional(summary.unbound_at);
    object["held_at_unbind"] = json_optional(summary.held_at_unbind);
    put_times(object, summary);
    return tool_cli::dump_json(object, pretty) + "\n";
}

}  // namespace refnic::devmem_cli
