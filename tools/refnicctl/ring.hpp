/* SPDX-License-Identifier: GPL-2.0-only */
// refnicctl ring show: one queue pair's descriptor rings as the driver's debugfs dumps them
// (ring_tx, ring_rx: kmod/refnic_debugfs.c), drawn as text, JSON or SVG. Parsing and drawing
// are free of I/O, for the unit tests; read_rings() does the reading.
#pragma once

#include "json.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace refnic::refnicctl {

// One ring. Indices are free-running, as the device's queue registers count: `clean` is the
// driver's next to reap, `head` the device's next to fetch (its HEAD register), `doorbell` the
// last tail the driver wrote to the device, `tail` the driver's next to fill. `owner` has one
// character per descriptor in ring order: c fetched by the device and not reaped yet, D the
// device's (rung, not fetched), w written without a doorbell yet, . free.
struct Ring {
    std::string direction;  // "tx" or "rx"
    std::uint32_t queue = 0;
    std::uint32_t size = 0;
    std::uint32_t clean = 0;
    std::uint32_t head = 0;
    std::uint32_t doorbell = 0;
    std::uint32_t tail = 0;
    std::string owner;

    friend bool operator==(const Ring&, const Ring&) = default;
};

// A debugfs ring file: "NAME: N queue pairs", then per live queue a "queue ..." line and an
// "owner ..." line.
struct RingDump {
    std::string port;
    std::uint32_t queues = 0;
    std::vector<Ring> rings;
};

// Parses one file; throws std::runtime_error saying what is wrong with it.
RingDump parse_ring_dump(std::string_view text);

// Descriptors of each owner: c, D, w, . in that order.
struct OwnerCounts {
    std::uint32_t reaped_pending = 0;  // c
    std::uint32_t device = 0;          // D
    std::uint32_t unrung = 0;          // w
    std::uint32_t free = 0;            // .
};
OwnerCounts count_owners(const Ring& ring);

// What `refnicctl ring show` prints: the source, then each ring's indices, its owners counted,
// and its descriptors 64 to a line, each line led by its first index.
std::string ring_text(const std::string& port, std::uint32_t queue, const std::string& source,
                      const std::vector<Ring>& rings);
tool_cli::Json ring_json(const std::string& port, std::uint32_t queue, const std::string& source,
                         const std::vector<Ring>& rings);
// A picture of the rings: one square per descriptor, 64 to a row, coloured by owner, the
// indices marked, with a legend.
std::string ring_svg(const std::string& port, std::uint32_t queue, const std::string& source,
                     const std::vector<Ring>& rings);

// I/O: the rings of queue pair `queue` of port `name` (its bus device `bus`, as ethtool -i's
// bus-info names it) from the driver's debugfs. Throws std::runtime_error with a one-line reason:
// no debugfs, the files of another port, the queue out of range or not in use.
std::vector<Ring> read_rings(const std::string& bus, const std::string& name, std::uint32_t queue,
                             std::string& source);

}  // namespace refnic::refnicctl
