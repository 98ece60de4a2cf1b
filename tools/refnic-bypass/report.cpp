// SPDX-License-Identifier: GPL-2.0-only
#include "report.hpp"

#include "json.hpp"

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
    const double seconds = std::chrono::duration<double>(summary.elapsed).count();
    std::string text = std::string(to_string(summary.run.mode)) + ": " +
                       std::to_string(totals.packets) + " packets, " +
                       std::to_string(totals.bytes) + " bytes in " + fixed(seconds, 3) +
                       " s: " + rate_text(totals.packets, totals.bytes, seconds);
    if (summary.run.verify) {
        text += "; verify: " + std::to_string(totals.good) + " good, " +
                std::to_string(totals.bad) + " bad, " + std::to_string(totals.other) + " other";
    }
    if (totals.dropped > 0) {
        text += "; " + std::to_string(totals.dropped) + " dropped";
    }
    return text + "\n";
}

std::string summary_json(const Summary& summary, bool pretty) {
    using tool_cli::Json;
    const Totals& totals = summary.totals;
    const double seconds = std::chrono::duration<double>(summary.elapsed).count();
    // Derived rates: null without time.
    const auto rate = [seconds](double amount) {
        return seconds > 0 ? Json(amount / seconds) : Json(nullptr);
    };
    Json object = Json::object();
    object["mode"] = std::string(to_string(summary.run.mode));
    object["ifname"] = summary.run.ifname;
    object["queue"] = summary.run.queue;
    object["packets"] = totals.packets;
    object["bytes"] = totals.bytes;
    object["elapsed_ns"] = summary.elapsed.count();
    object["rate_pps"] = rate(static_cast<double>(totals.packets));
    object["throughput_bps"] = rate(static_cast<double>(totals.bytes) * 8);
    object["good"] = totals.good;
    object["bad"] = totals.bad;
    object["other"] = totals.other;
    object["dropped"] = totals.dropped;
    if (summary.session) {
        Json session = Json::object();
        for (const bypass::StatsField& counter : bypass::stats_fields) {
            session[std::string(counter.name)] = (*summary.session).*counter.member;
        }
        object["session"] = std::move(session);
    } else {
        object["session"] = nullptr;
    }
    return tool_cli::dump_json(object, pretty) + "\n";
}

}  // namespace refnic::bypass_cli
