// SPDX-License-Identifier: GPL-2.0-only
// refnic-bypass: receive, send and echo frames on a refnic queue pair bound to the process
// through /dev/refnic (librefnic's bypass::BypassQueue). See help_text() in cli.cpp.
#include "cli.hpp"
#include "frame.hpp"
#include "options.hpp"
#include "report.hpp"

#include <refnic/bypass.hpp>
#include <refnic/error.hpp>
#include <refnic/fd.hpp>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

namespace {

using namespace refnic::bypass_cli;
namespace bypass = refnic::bypass;
using Clock = std::chrono::steady_clock;

// How long a wait lasts before the stop conditions and the rate line are looked at again.
constexpr std::chrono::milliseconds wait_slice(100);
// The most tx and echo wait for the completions of what they sent once they stop sending: a
// working queue completes everything well within it even on a debug kernel under TCG (one
// second was not enough there), and the wait ends as soon as nothing is in flight.
constexpr std::chrono::seconds tx_drain_time(10);

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void request_stop(int /*signal*/) { stop_requested = 1; }

// SIGINT and SIGTERM end the run (with its summary) instead of the process; poll(2) returns
// EINTR for them (no SA_RESTART).
void catch_stop_signals() {
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

void print_line(std::string_view message) { std::cerr << "refnic-bypass: " << message << '\n'; }

std::uint32_t resolve_ifindex(const std::string& name) {
    const unsigned int ifindex = ::if_nametoindex(name.c_str());
    if (ifindex == 0) {
        throw refnic::Error(errno, "interface " + name);
    }
    return ifindex;
}

MacAddress device_mac(const std::string& name) {
    const refnic::UniqueFd socket(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!socket) {
        throw refnic::Error(errno, "opening a socket to read the MAC address of " + name);
    }
    ifreq request{};
    std::memcpy(request.ifr_name, name.data(), std::min(name.size(), sizeof(request.ifr_name) - 1));
    if (::ioctl(socket.get(), SIOCGIFHWADDR, &request) != 0) {
        throw refnic::Error(errno, "reading the MAC address of " + name + " (SIOCGIFHWADDR)");
    }
    MacAddress mac{};
    std::memcpy(mac.data(), request.ifr_hwaddr.sa_data, mac.size());
    return mac;
}

bypass::BypassQueue open_queue(const Invocation& run) {
    bypass::Config config;
    config.ifindex = resolve_ifindex(run.ifname);
    config.ifname = run.ifname;
    config.queue = run.queue;
    config.header_split = run.header_split;
    config.whole_port = run.whole_port;
    try {
        return bypass::BypassQueue::open(config);
    } catch (const refnic::Error& error) {
        if (error.errnum() == ENOENT &&
            error.context().find(bypass::device_path) != std::string::npos) {
            // "opening /dev/refnic: No such file or directory; load the refnic module: ..."
            throw std::runtime_error(std::string(error.what()) + "; " +
                                     std::string(refnic::tool_cli::load_module_hint));
        }
        if (error.errnum() == EPERM) {
            throw refnic::Error(error.errnum(), error.context() + " (needs CAP_NET_ADMIN)",
                                error.extack(), error.from_kernel());
        }
        throw;
    }
}

// When a run is over: a signal, --count packets, or --duration elapsed.
class Stop {
public:
    Stop(const Invocation& run, Clock::time_point start) : count_(run.count) {
        if (run.duration) {
            deadline_ = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(*run.duration));
        }
    }

    [[nodiscard]] bool now(std::uint64_t packets) const {
        return stop_requested != 0 || (count_ && packets >= *count_) ||
               (deadline_ && Clock::now() >= *deadline_);
    }
    // Packets still to go before --count, at most `batch`.
    [[nodiscard]] std::uint32_t budget(std::uint64_t packets, std::uint32_t batch) const {
        if (!count_) {
            return batch;
        }
        return static_cast<std::uint32_t>(
            std::min<std::uint64_t>(batch, *count_ > packets ? *count_ - packets : 0));
    }

private:
    std::optional<std::uint64_t> count_;
    std::optional<Clock::time_point> deadline_;
};

// tx --rate: how many packets may have gone by now, counted from the start.
class Pacer {
public:
    Pacer(const Invocation& run, Clock::time_point start) : rate_(run.rate), start_(start) {}

    // Of `budget`, the packets due by now after `sent`.
    [[nodiscard]] std::uint32_t allowed(std::uint64_t sent, std::uint32_t budget) const {
        if (!rate_) {
            return budget;
        }
        const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
        const auto due = static_cast<std::uint64_t>(elapsed * static_cast<double>(*rate_));
        return static_cast<std::uint32_t>(
            std::min<std::uint64_t>(budget, due > sent ? due - sent : 0));
    }
    // Sleeps until the packet after `sent` is due, at most `slice`.
    void wait(std::uint64_t sent, Clock::duration slice) const {
        const Clock::time_point due =
            start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         static_cast<double>(sent + 1) / static_cast<double>(*rate_)));
        std::this_thread::sleep_until(std::min(due, Clock::now() + slice));
    }
    [[nodiscard]] bool paced() const noexcept { return rate_.has_value(); }

private:
    std::optional<std::uint64_t> rate_;
    Clock::time_point start_;
};

// Prints the rate line once a second, unless --quiet.
class Progress {
public:
    Progress(const Invocation& run, Clock::time_point start)
        : meter_(run.mode, start), quiet_(run.quiet) {}

    void tick(const Totals& totals) {
        if (quiet_) {
            return;
        }
        if (const std::optional<std::string> line = meter_.tick(Clock::now(), totals)) {
            std::cerr << *line << '\n';
        }
    }

private:
    RateMeter meter_;
    bool quiet_;
};

// --- rx ----------------------------------------------------------------------------------------

// Counts received frames, rx_more chains as one, and checks them with --verify.
class RxCounter {
public:
    explicit RxCounter(bool verify) : verify_(verify) {}

    void add(const bypass::Frame& frame) {
        error_ = error_ || frame.error();
        bytes_ += frame.size();
        const bool whole = !chained_ && !frame.more() && frame.header.empty();
        if (verify_ && !whole) {
            scratch_.insert(scratch_.end(), frame.header.begin(), frame.header.end());
            scratch_.insert(scratch_.end(), frame.data.begin(), frame.data.end());
        }
        chained_ = frame.more();
        if (chained_) {
            return;
        }
        if (error_) {
            ++totals.dropped;
        } else {
            ++totals.packets;
            totals.bytes += bytes_;
            if (verify_) {
                verify(whole ? frame.data : std::span<const std::byte>(scratch_));
            }
        }
        scratch_.clear();
        bytes_ = 0;
        error_ = false;
    }

    Totals totals;
    std::string first_problem;

private:
    void verify(std::span<const std::byte> bytes) {
        const FrameCheck check = check_udp_frame(bytes);
        switch (check.verdict) {
            case FrameCheck::Verdict::good:
                ++totals.good;
                break;
            case FrameCheck::Verdict::bad:
                ++totals.bad;
                if (first_problem.empty()) {
                    first_problem = check.problem;
                }
                break;
            case FrameCheck::Verdict::not_udp:
                ++totals.other;
                break;
        }
    }

    bool verify_;
    bool chained_ = false;
    bool error_ = false;
    std::uint64_t bytes_ = 0;
    std::vector<std::byte> scratch_;
};

Totals run_rx(const Invocation& run, bypass::BypassQueue& queue, Clock::time_point start,
              std::string& first_problem) {
    const bypass::Wait how = run.busy_poll ? bypass::Wait::busy_poll : bypass::Wait::block;
    const Stop stop(run, start);
    Progress progress(run, start);
    RxCounter counter(run.verify);
    while (!stop.now(counter.totals.packets)) {
        if (queue.wait_rx(how, wait_slice)) {
            const std::uint32_t count =
                queue.rx_peek(stop.budget(counter.totals.packets, run.batch));
            for (std::uint32_t i = 0; i < count; ++i) {
                counter.add(queue.rx_frame(i));
            }
            queue.rx_release(count);
            queue.refill();
        }
        progress.tick(counter.totals);
    }
    first_problem = counter.first_problem;
    return counter.totals;
}

// --- tx ----------------------------------------------------------------------------------------

// Builds and submits up to `budget` frames; returns how many.
std::uint32_t send_batch(bypass::BypassQueue& queue, const Invocation& run, const UdpFlow& flow,
                         std::uint32_t budget, std::uint64_t& seq,
                         std::vector<std::uint64_t>& buffers) {
    const std::size_t allocated = queue.allocator().allocate(std::span(buffers).first(budget));
    const std::uint32_t reserved = queue.tx_reserve(static_cast<std::uint32_t>(allocated));
    for (std::uint32_t i = 0; i < reserved; ++i) {
        static_cast<void>(build_udp_frame(queue.buffer(buffers[i]), flow, run.size, seq++));
        queue.tx_slot(i) = bypass::TxDesc{.addr = buffers[i], .len = run.size, .flags = 0};
    }
    for (std::size_t i = reserved; i < allocated; ++i) {
        queue.allocator().release(buffers[i]);
    }
    if (reserved > 0) {
        queue.tx_submit(reserved);
    }
    return reserved;
}

Totals run_tx(const Invocation& run, bypass::BypassQueue& queue, Clock::time_point start) {
    UdpFlow flow = run.flow;
    flow.src_mac = run.src_mac ? *run.src_mac : device_mac(run.ifname);
    const Stop stop(run, start);
    const Pacer pacer(run, start);
    Progress progress(run, start);
    Totals totals;
    std::vector<std::uint64_t> buffers(run.batch);
    std::uint64_t seq = 0;
    std::uint64_t in_flight = 0;
    std::optional<Clock::time_point> drain_until;
    for (;;) {
        const std::size_t reaped = queue.reap_tx();
        totals.packets += reaped;
        totals.bytes += reaped * run.size;
        in_flight -= reaped;
        std::uint32_t sent = 0;
        if (!drain_until && stop.now(seq)) {
            drain_until = Clock::now() + tx_drain_time;
        }
        std::uint32_t due = 0;
        if (!drain_until) {
            due = pacer.allowed(seq, stop.budget(seq, run.batch));
            sent = send_batch(queue, run, flow, due, seq, buffers);
            in_flight += sent;
        } else if (in_flight == 0 || Clock::now() >= *drain_until) {
            break;
        }
        if (sent == 0 && reaped == 0 && !drain_until && due == 0 && pacer.paced()) {
            pacer.wait(seq, wait_slice);  // Ahead of --rate: nothing may go yet.
        } else if (sent == 0 && reaped == 0 && !run.busy_poll) {
            static_cast<void>(queue.wait(static_cast<int>(wait_slice.count())));
        }
        progress.tick(totals);
    }
    totals.dropped = in_flight;  // Sent, never completed.
    return totals;
}

// --- echo --------------------------------------------------------------------------------------

// Sends the `count` peeked frames back from their own buffers and releases them; what cannot go
// back (not IPv4/UDP, split, chained, an error, or the tx ring full) goes to the free list.
void echo_batch(bypass::BypassQueue& queue, std::uint32_t count, bool& chained, Totals& totals) {
    for (std::uint32_t i = 0; i < count; ++i) {
        const bypass::Frame frame = queue.rx_frame(i);
        const bool whole = !chained && !frame.more() && !frame.error() && frame.header.empty();
        chained = frame.more();
        const std::span<std::byte> bytes = queue.umem().subspan(frame.addr, frame.data.size());
        if (whole && swap_udp_frame(bytes) &&
            queue.send_buffer(frame.addr, static_cast<std::uint32_t>(bytes.size()))) {
            ++totals.packets;
            totals.bytes += bytes.size();
        } else {
            queue.allocator().release(frame.addr);
            ++totals.dropped;
        }
    }
    queue.rx_release(count, bypass::Recycle::keep);
}

Totals run_echo(const Invocation& run, bypass::BypassQueue& queue, Clock::time_point start) {
    const bypass::Wait how = run.busy_poll ? bypass::Wait::busy_poll : bypass::Wait::block;
    const Stop stop(run, start);
    Progress progress(run, start);
    Totals totals;
    bool chained = false;
    std::uint64_t completed = 0;
    while (!stop.now(totals.packets)) {
        completed += queue.reap_tx();
        if (queue.wait_rx(how, wait_slice)) {
            echo_batch(queue, queue.rx_peek(stop.budget(totals.packets, run.batch)), chained,
                       totals);
            queue.flush_tx();
        }
        completed += queue.reap_tx();
        queue.refill();
        progress.tick(totals);
    }
    // Closing the queue would end frames still in flight: let them go out first.
    const Clock::time_point drain_until = Clock::now() + tx_drain_time;
    while (completed < totals.packets && Clock::now() < drain_until) {
        const std::size_t reaped = queue.reap_tx();
        completed += reaped;
        if (reaped == 0) {
            static_cast<void>(queue.wait(static_cast<int>(wait_slice.count())));
        }
    }
    totals.dropped += totals.packets - completed;  // Sent back, never completed.
    return totals;
}

// --- main --------------------------------------------------------------------------------------

std::string describe_binding(const Invocation& run, const bypass::BypassQueue& queue) {
    const bypass::Config& config = queue.config();
    std::string text = std::string(to_string(run.mode)) + " on " + run.ifname + " queue " +
                       std::to_string(run.queue) + " (ifindex " + std::to_string(config.ifindex) +
                       "): " + std::to_string(queue.umem().size() / config.buf_size) +
                       " buffers of " + std::to_string(config.buf_size) + " bytes";
    if (config.header_split) {
        text += ", header split";
    }
    if (config.whole_port) {
        text += ", whole port";
    }
    if (run.busy_poll) {
        text += ", busy polling";
    }
    return text;
}

int run_command(const Invocation& run) {
    catch_stop_signals();
    bypass::BypassQueue queue = open_queue(run);
    // Buffers on the fill ring before the binding line, which says the session is ready to
    // receive (scripts wait for it, --quiet or not: it is no rate line).
    if (run.mode != Mode::tx) {
        queue.refill();
    }
    print_line(describe_binding(run, queue));
    const Clock::time_point start = Clock::now();
    Summary summary;
    summary.run = run;
    std::string first_problem;
    switch (run.mode) {
        case Mode::rx:
            summary.totals = run_rx(run, queue, start, first_problem);
            break;
        case Mode::tx:
            summary.totals = run_tx(run, queue, start);
            break;
        case Mode::echo:
            summary.totals = run_echo(run, queue, start);
            break;
    }
    summary.elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
    try {
        summary.session = queue.stats();
    } catch (const refnic::Error& error) {
        print_line(std::string("no session counters: ") + error.what());
    }
    if (run.json) {
        std::cerr << summary_text(summary);
        std::cout << summary_json(summary, run.pretty) << std::flush;
    } else {
        std::cout << summary_text(summary) << std::flush;
    }
    if (summary.totals.bad > 0) {
        print_line(std::to_string(summary.totals.bad) +
                   " frames failed verification; the first: " + first_problem);
        return exit_runtime_error;
    }
    return exit_ok;
}

}  // namespace

int main(int argc, char* argv[]) {
    const std::span<char*> arguments(argv, static_cast<std::size_t>(argc));
    const std::vector<std::string_view> args(arguments.begin() + (argc > 0 ? 1 : 0),
                                             arguments.end());
    Command command;
    try {
        command = parse_command_line(args);
    } catch (const UsageError& error) {
        print_line(std::string(error.what()) + "; see 'refnic-bypass --help'");
        return exit_usage_error;
    }
    try {
        if (const auto* help = std::get_if<Help>(&command)) {
            std::cout << help_text(help->mode);
            return exit_ok;
        }
        if (std::holds_alternative<Version>(command)) {
            std::cout << version_text();
            return exit_ok;
        }
        return run_command(std::get<Invocation>(command));
    } catch (const std::exception& error) {
        // refnic::Error: "<what was done>: <strerror>", e.g. "bind queue 3 of ifindex 7 (r0):
        // Device or resource busy".
        print_line(error.what());
        return exit_runtime_error;
    }
}
