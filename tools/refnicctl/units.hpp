/* SPDX-License-Identifier: GPL-2.0-only */
// refnicctl's units: parsing what users type (rates, latencies, percentages, sizes) into the
// family's integers, exactly or not at all, and printing them back the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace refnic::refnicctl {

// Bits per second. A plain number is bit/s; decimal suffixes kbit, mbit, gbit, tbit; binary
// kibit, mibit, gibit, tibit; and, as in tc, bps, kbps, mbps, gbps, tbps are *bytes* per second.
// "0" and "unlimited" are 0. Fractions are fine while the result is whole: "2.5gbit".
[[nodiscard]] std::optional<std::uint64_t> parse_rate(std::string_view text);
// Microseconds: a plain number or us/usec; ms/msec; s/sec. "1.5ms" is 1500.
[[nodiscard]] std::optional<std::uint32_t> parse_latency_us(std::string_view text);
// Parts per million of a percentage: "0.1%" (or "0.1", as netem takes it) is 1000; "250ppm"
// is 250. At most 100%; finer than 1 ppm is refused.
[[nodiscard]] std::optional<std::uint32_t> parse_ppm(std::string_view text);
// A plain decimal count.
[[nodiscard]] std::optional<std::uint32_t> parse_count(std::string_view text);
// Milliseconds of an interval given in seconds: "2" is 2000, "0.5" is 500; ms/s suffixes too
// ("500ms", "2s"). From 100 ms to 3600 s, whole milliseconds.
[[nodiscard]] std::optional<std::uint32_t> parse_interval_ms(std::string_view text);
// A size: a plain number, or with k/K (x1024): "4k" is 4096.
[[nodiscard]] std::optional<std::uint32_t> parse_size(std::string_view text);

// "25gbit", "2.5gbit", "100mbit", "1234bit"; 0 is "unlimited".
[[nodiscard]] std::string format_rate(std::uint64_t bps);
// "20us", "1ms", "1.5ms", "2s".
[[nodiscard]] std::string format_latency(std::uint32_t us);
// "0.1%", "0.0001%", "100%", "0%".
[[nodiscard]] std::string format_ppm(std::uint32_t ppm);

}  // namespace refnic::refnicctl
