/* SPDX-License-Identifier: GPL-2.0-only */
// JSON output of the refnic tools (docs/cli.md, "JSON"): nlohmann::ordered_json, so keys keep
// the documented order, written compact or indented by 4 spaces (-p). Included only by the
// tools' .cpp files that write JSON, never by librefnic's headers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace refnic::tool_cli {

using Json = nlohmann::ordered_json;

// One JSON value, without a trailing newline. Interface names are bytes, not necessarily
// UTF-8: invalid sequences become U+FFFD instead of throwing. NaN and infinity are null.
inline std::string dump_json(const Json& value, bool pretty) {
    return value.dump(pretty ? 4 : -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace refnic::tool_cli
