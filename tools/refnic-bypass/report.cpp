// SPDX-License-Identifier: GPL-2.0-only
#include "report.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string_view>

namespace refnic::bypass_cli {

namespace {

std::string fixed(double value, int decimals) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(decimals) << value;
    return out.str();
}

// A JSON number (null if not finite).
std::string json_number(double value) {
    if (!std::isfinite(value)) {
        return "null";
    }
    std::ostringstream out;
    out << std::setprecision(9) << value;
    return out.str();
}

// A JSON string of what the command line accepted: interface names have no quotes, backslashes
// or control characters, but escape them all the same.
std::string json_string(std::string_view text) {
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            quoted += "\\u00";
            quoted += "0123456789abcdef"[(static_cast<unsigned>(c) >> 4U) & 0xfU];
            quoted += "0123456789abcdef"[static_cast<unsigned>(c) & 0xfU];
        } else {
            quoted += c;
        }
    }
    return quoted + "\"";
}

double per_second(std::uint64_t count, double seconds) {
    return seconds > 0 ? static_cast<double>(count) / seconds : 0;
}

double mbit_per_second(std::uint64_t bytes, double seconds) {
    return per_second(bytes, seconds) * 8 / 1e6;
}

}  // namespace

std::string rate_text(std::uint64_t packets, std::uint64_t bytes, double seconds) {
    return fixed(per_second(packets, seconds), 0) + " pps, " +
           fixed(mbit_per_second(bytes, seconds), 1) + " Mbit/s";
}

std::optional<std::string> RateMeter::tick(Clock::time_point now, const Totals& totals) {
    if (now < next_) {
        return std::nullopt;
    }
    const double seconds = std::chrono::duration<double>(now - last_time_).count();
    std::string line =
        std::string(to_string(mode_)) + ": " +
        rate_text(totals.packets - last_packets_, totals.bytes - last_bytes_, seconds) + ", " +
        std::to_string(totals.packets) + " packets";
    last_time_ = now;
    next_ = now + std::chrono::seconds(1);
    last_packets_ = totals.packets;
    last_bytes_ = totals.bytes;
    return line;
}

std::string summary_text(const Summary& summary) {
    const Totals& totals = summary.totals;
    std::string text = std::string(to_string(summary.run.mode)) + ": " +
                       std::to_string(totals.packets) + " packets, " +
                       std::to_string(totals.bytes) + " bytes in " + fixed(summary.seconds, 3) +
                       " s: " + rate_text(totals.packets, totals.bytes, summary.seconds);
    if (summary.run.verify) {
        text += "; verify: " + std::to_string(totals.good) + " good, " +
                std::to_string(totals.bad) + " bad, " + std::to_string(totals.other) + " other";
    }
    if (totals.dropped > 0) {
        text += "; " + std::to_string(totals.dropped) + " dropped";
    }
    return text + "\n";
}

std::string summary_json(const Summary& summary) {
    const Totals& totals = summary.totals;
    std::string text = "{";
    const auto field = [&text](std::string_view name, const std::string& value) {
        if (text.size() > 1) {
            text += ',';
        }
        text += "\"" + std::string(name) + "\":" + value;
    };
    field("mode", json_string(to_string(summary.run.mode)));
    field("ifname", json_string(summary.run.ifname));
    field("queue", std::to_string(summary.run.queue));
    field("packets", std::to_string(totals.packets));
    field("bytes", std::to_string(totals.bytes));
    field("seconds", json_number(summary.seconds));
    field("pps", json_number(per_second(totals.packets, summary.seconds)));
    field("mbps", json_number(mbit_per_second(totals.bytes, summary.seconds)));
    field("good", std::to_string(totals.good));
    field("bad", std::to_string(totals.bad));
    field("other", std::to_string(totals.other));
    field("dropped", std::to_string(totals.dropped));
    if (!summary.session) {
        field("session", "null");
        return text + "}\n";
    }
    std::string session = "{";
    for (const bypass::StatsField& counter : bypass::stats_fields) {
        session += (session.size() > 1 ? ",\"" : "\"") + std::string(counter.name) +
                   "\":" + std::to_string((*summary.session).*counter.member);
    }
    field("session", session + "}");
    return text + "}\n";
}

}  // namespace refnic::bypass_cli
