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

// One ring, as the driver's debugfs prints it. Indices are free-running, as the device's queue
// registers count: `clean` is the driver's next to reap, `head` the device's HEAD register (what
// it has consumed), `doorbell` the last tail the driver wrote to the device, `tail` the driver's
// next to fill.
struct Ring {
    std::string direction;  // "tx" or "rx"
    std::uint32_t queue = 0;
    std::uint32_t size = 0;  // A power of two.
    std::uint32_t clean = 0;
    std::uint32_t head = 0;
    std::uint32_t doorbell = 0;
    std::uint32_t tail = 0;

    friend bool operator==(const Ring&, const Ring&) = default;
};

// A debugfs ring file: "NAME: N queue pairs", then a "queue ..." line per live queue.
struct RingDump {
    std::string port;
    std::uint32_t queues = 0;
    std::vector<Ring> rings;
};

// Parses one file; throws std::runtime_error saying what is wrong with it.
RingDump parse_ring_dump(std::string_view text);

// Descriptors of each owner. The indices are read one after another while the queue runs, and
// the device commits HEAD after writing back, so they may disagree: each gap from `clean` counts
// from 0 and at most up to the one before (tail within the ring, doorbell within tail, head
// within doorbell).
struct OwnerCounts {
    std::uint32_t consumed = 0;  // c: [clean, head) the device is done with, not reaped yet
    std::uint32_t device = 0;    // D: [head, doorbell) rung, the device's
    std::uint32_t unrung = 0;    // w: [doorbell, tail) written, no doorbell yet
    std::uint32_t free = 0;      // .: the rest, the driver's
};
OwnerCounts count_owners(const Ring& ring);
// One character a descriptor, in ring order (slot 0 first): c, D, w or . as above.
std::string ring_owners(const Ring& ring);

// What `refnicctl ring show` prints: the source, then each ring's indices, its owners counted,
// and its descriptors 64 to a line, each line led by its first slot.
std::string ring_text(const std::string& port, std::uint32_t queue, const std::string& source,
                      const std::vector<Ring>& rings);
tool_cli::Json ring_json(const std::string& port, std::uint32_t queue, const std::string& source,
                         const std::vector<Ring>& rings);
// A picture of the rings: one square per descriptor, 64 to a row, coloured by owner, the
// indices outlined, with a legend.
std::string ring_svg(const std::string& port, std::uint32_t queue, const std::string& source,
                     const std::vector<Ring>& rings);

// I/O: the driver's debugfs ring_tx or ring_rx (`direction` "tx", "rx") of port `name` on bus
// device `bus`. Throws std::runtime_error with a one-line reason: no debugfs, a bad dump, the
// file of another port.
RingDump read_ring_dump(const std::string& bus, const std::string& name,
                        const std::string& direction);

// I/O: the rings of queue pair `queue` of port `name` (its bus device `bus`, as ethtool -i's
// bus-info names it) from the driver's debugfs. Throws std::runtime_error with a one-line reason:
// no debugfs, the files of another port, the queue out of range or not in use.
std::vector<Ring> read_rings(const std::string& bus, const std::string& name, std::uint32_t queue,
                             std::string& source);

}  // namespace refnic::refnicctl
