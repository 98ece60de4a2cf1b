/* SPDX-License-Identifier: GPL-2.0-only */
// What refnic-bypass prints, without side effects so it can be unit tested: the rate line once a
// second and the summary of a run as a line or as JSON.
#pragma once

#include "cli.hpp"

#include <refnic/bypass.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace refnic::bypass_cli {

// Counts of one run.
struct Totals {
    std::uint64_t packets = 0;  // rx: received, tx: sent (completed), echo: sent back.
    std::uint64_t bytes = 0;    // Frame bytes of those packets, without the FCS.
    std::uint64_t good = 0;     // rx --verify: IPv4/UDP frames that passed.
    std::uint64_t bad = 0;      // rx --verify: IPv4/UDP frames that did not.
    std::uint64_t other = 0;    // rx --verify: frames that are not IPv4/UDP.
    std::uint64_t dropped = 0;  // rx: entries with rx_error; echo: frames not sent back.

    friend bool operator==(const Totals&, const Totals&) = default;
};

// "12345 pps, 98.8 Mbit/s" for `packets` and `bytes` in `seconds`.
[[nodiscard]] std::string rate_text(std::uint64_t packets, std::uint64_t bytes, double seconds);

// Says what a second brought, once a second: feed it the running totals.
class RateMeter {
public:
    using Clock = std::chrono::steady_clock;

    RateMeter(Mode mode, Clock::time_point start) noexcept
        : mode_(mode), last_time_(start), next_(start + std::chrono::seconds(1)) {}

    // "rx: 812345 pps, 415.9 Mbit/s, 1234567 packets" when a second or more has passed since
    // the last line, else nullopt.
    [[nodiscard]] std::optional<std::string> tick(Clock::time_point now, const Totals& totals);

private:
    Mode mode_;
    Clock::time_point last_time_;
    Clock::time_point next_;
    std::uint64_t last_packets_ = 0;
    std::uint64_t last_bytes_ = 0;
};

// One run, for the summary.
struct Summary {
    Invocation run;
    Totals totals;
    std::chrono::nanoseconds elapsed{0};
    std::optional<bypass::Stats> session;  // The kernel's counters, if they could be read.
};

// "rx: 1000 packets, 60000 bytes in 2.000 s: 500 pps, 0.2 Mbit/s; verify: 990 good, 10 bad,
// 0 other", with a trailing newline.
[[nodiscard]] std::string summary_text(const Summary& summary);
// One JSON object (docs/cli.md, "JSON"), compact on one line or indented by 4 spaces, with a
// trailing newline: mode, ifname, queue, packets, bytes, elapsed_ns, rate_pps, throughput_bps,
// good, bad, other, dropped and session (the bypass::Stats fields by name, or null).
[[nodiscard]] std::string summary_json(const Summary& summary, bool pretty = false);

}  // namespace refnic::bypass_cli
